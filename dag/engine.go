package dag

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	mrand "math/rand/v2"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// RunStatus is the state of a run.
type RunStatus string

// Run states.
const (
	RunRunning  RunStatus = "running"
	RunSuccess  RunStatus = "success"
	RunWarn     RunStatus = "warn"
	RunFailed   RunStatus = "failed"
	RunCanceled RunStatus = "canceled"
)

// NodeStatus is the state of one node within a run.
type NodeStatus string

// Node states.
const (
	NodePending  NodeStatus = "pending"
	NodeRunning  NodeStatus = "running"
	NodePassed   NodeStatus = "passed"
	NodeWarned   NodeStatus = "warned"
	NodeFailed   NodeStatus = "failed"
	NodeSkipped  NodeStatus = "skipped"
	NodeCanceled NodeStatus = "canceled"
)

// Text is the status as a word of lang, for people; the status itself is the value that JSON,
// the store and filters use.
func (s NodeStatus) Text(lang string) string {
	switch s {
	case NodePending:
		return i18n.Format(lang, "pending")
	case NodeRunning:
		return i18n.Format(lang, "running")
	case NodePassed:
		return i18n.Format(lang, "passed")
	case NodeWarned:
		return i18n.Format(lang, "warned")
	case NodeFailed:
		return i18n.Format(lang, "failed")
	case NodeSkipped:
		return i18n.Format(lang, "skipped")
	case NodeCanceled:
		return i18n.Format(lang, "canceled")
	}
	return string(s)
}

// Text is the status as a word of lang, for people.
func (s RunStatus) Text(lang string) string {
	switch s {
	case RunRunning:
		return i18n.Format(lang, "running")
	case RunSuccess:
		return i18n.Format(lang, "success")
	case RunWarn:
		return i18n.Format(lang, "warn")
	case RunFailed:
		return i18n.Format(lang, "failed")
	case RunCanceled:
		return i18n.Format(lang, "canceled")
	}
	return string(s)
}

// Done reports whether the status is final.
func (s NodeStatus) Done() bool { return s != NodePending && s != NodeRunning }

// ok reports whether a node in this state lets run_if: success dependents run.
func (s NodeStatus) ok() bool { return s == NodePassed || s == NodeWarned }

// RunOptions configure one run.
type RunOptions struct {
	// Params are the run's parameters: the params schema's defaults are filled in
	// (DAG.WithDefaults), then they are validated against it.
	Params map[string]any
	// Lang is the language of violation messages and of the reasons the engine gives: "en"
	// (default) or "ja". Reasons are recorded as said.
	Lang string
	// Observer, when not nil, is told when nodes start and finish.
	Observer Observer
	// RunID names the run; a sortable id is generated when empty.
	RunID string
	// OutputLimit bounds each node's output in bytes; 0 means nodes.DefaultOutputLimit.
	OutputLimit int64
	// Recorder, when not nil, persists the run as it happens.
	Recorder Recorder
	// Reuse holds, by node id, outputs of an earlier run (a resume): a node whose key is
	// unchanged is settled with that output instead of running.
	Reuse map[string]Reused
	// Tracer, when not nil, traces the run: seam.run → seam.node → seam.attempt spans, under
	// the span in Run's context if any (engine_trace.go).
	Tracer trace.Tracer
	// Metrics, when not nil, measure nodes, attempts, violations and runs.
	Metrics *Metrics
	// Getenv reads the environment variables the DAG declares under env; nil reads none (a
	// DAG that declares some then fails to start).
	Getenv func(string) string
	// Parent and ParentNode name the run and `dag` node this run is the sub-run of; the
	// `dag` node type sets them.
	Parent, ParentNode string
	// Logger receives what a person operating seam should see and no node result holds: the
	// stack of a panic recovered into a node's failure, a secret too short to be masked. nil
	// logs to slog.Default().
	Logger *slog.Logger
}

// Observer watches a run. Event is called from the engine's scheduler goroutine, one call at a
// time, so it must return quickly: the next node waits for it.
type Observer interface {
	Event(Event)
}

// EventKind says what happened to a node.
type EventKind string

// Event kinds.
const (
	NodeStarted  EventKind = "node_started"  // Type.Run is about to be called
	NodeFinished EventKind = "node_finished" // the node reached a final status (it may never have started)
	NodeRetrying EventKind = "node_retrying" // an attempt failed and another follows; Reason says why
	NodeProgress EventKind = "node_progress" // a foreach item finished; ItemsDone counts them
)

// Event is one change of a node's state.
type Event struct {
	Kind  EventKind
	RunID string
	Node  NodeResult // the node's state after the change
}

// RunResult is the record of a run.
type RunResult struct {
	ID      string        `json:"id"`
	DAG     string        `json:"dag"`
	File    string        `json:"file,omitempty"`
	Status  RunStatus     `json:"status"`
	Started time.Time     `json:"started"`
	Ended   time.Time     `json:"ended,omitzero"`
	Elapsed time.Duration `json:"-"`     // marshalled as duration_ms
	Nodes   []NodeResult  `json:"nodes"` // in DAG file order
	// Outputs are the DAG's outputs, evaluated when the run succeeded or warned.
	Outputs map[string]any `json:"outputs,omitempty"`
	// OutputErrors says why an output could not be evaluated, by output name.
	OutputErrors map[string]string `json:"output_errors,omitempty"`
	// Error is set when the run store failed: the run stopped, since nothing more could be
	// handed on safely.
	Error string `json:"error,omitempty"`
}

// NodeResult is the record of one node within a run.
type NodeResult struct {
	ID     string     `json:"id"`
	Type   string     `json:"type"`
	Status NodeStatus `json:"status"`
	// Reason says in a sentence why the node was skipped, failed or canceled.
	Reason string `json:"reason,omitempty"`
	// Summary is the output's summary when the output met its contract.
	Summary string `json:"summary,omitempty"`
	// Output is the decoded output, kept even when it broke its contract (then it was not
	// handed downstream).
	Output any `json:"output,omitempty"`
	// Attempts counts the tries (for foreach, those of the item tried most); 0 when it never
	// ran.
	Attempts int `json:"attempts,omitempty"`
	// Repaired is set when the output met its contract after violations were fed back.
	Repaired bool `json:"repaired,omitempty"`
	// Items and ItemsDone count a foreach node's items, and those finished.
	Items     int `json:"items,omitempty"`
	ItemsDone int `json:"items_done,omitempty"`
	// Reused is set when a resume handed on an earlier run's output instead of running.
	Reused     bool                 `json:"reused,omitempty"`
	Violations []contract.Violation `json:"violations,omitempty"`
	Error      string               `json:"error,omitempty"`
	Log        string               `json:"log,omitempty"` // e.g. an excerpt of exec's stderr
	Started    time.Time            `json:"started,omitzero"`
	Ended      time.Time            `json:"ended,omitzero"`
	Elapsed    time.Duration        `json:"-"` // marshalled as duration_ms
}

// MarshalJSON adds the run's duration in milliseconds.
func (r RunResult) MarshalJSON() ([]byte, error) {
	type plain RunResult
	return json.Marshal(struct {
		plain
		DurationMS float64 `json:"duration_ms"`
	}{plain(r), millis(r.Elapsed)})
}

// MarshalJSON adds the node's duration in milliseconds.
func (n NodeResult) MarshalJSON() ([]byte, error) {
	type plain NodeResult
	return json.Marshal(struct {
		plain
		DurationMS float64 `json:"duration_ms"`
	}{plain(n), millis(n.Elapsed)})
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ParamsError is returned by Run when the params break the DAG's params schema.
type ParamsError struct {
	Violations []contract.Violation
	Lang       string // of the message, as the run's
}

func (e *ParamsError) Error() string {
	var b strings.Builder
	b.WriteString(i18n.Sprintf(e.Lang, "params break the DAG's params schema"))
	for _, v := range e.Violations {
		fmt.Fprintf(&b, "\n  %s: %s", pointerOrRoot(v.Pointer), v.Message)
	}
	return b.String()
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// NewRunID returns a run id that sorts by creation time: UTC time to the millisecond and
// random hex, e.g. 20260309T101500.123-3fa2c1d0.
func NewRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return now.UTC().Format("20060102T150405.000") + "-" + hex.EncodeToString(b[:])
}

// Run executes d: every node starts as soon as its dependencies have finished, at most
// d.Concurrency at once, and every output is validated against the node's effective contract
// before dependents see it. Run returns an error only when the run could not start (a
// *ParamsError when the params break the params schema); a failed or canceled run is a
// RunResult with that status. Cancelling ctx cancels running nodes and the nodes not started
// yet; Run returns once the running ones have returned.
func Run(ctx context.Context, d *DAG, opts RunOptions) (*RunResult, error) {
	for _, n := range d.Nodes {
		if n.Type == nil || n.Effective == nil || n.With == nil {
			return nil, fmt.Errorf("run %s: node %s is not fully loaded (type, with or contract missing)", d.Name, n.ID)
		}
	}
	if opts.Lang == "" {
		opts.Lang = "en"
	}
	if opts.OutputLimit <= 0 {
		opts.OutputLimit = nodes.DefaultOutputLimit
	}
	// Defaults are applied before validation, and recorded with the run: a resume reuses them.
	params := d.WithDefaults(opts.Params)
	if d.Params != nil {
		if vs := d.Params.ValidateParams(params, opts.Lang); len(vs) > 0 {
			return nil, &ParamsError{Violations: vs, Lang: opts.Lang}
		}
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	env, err := LookupEnv(d, getenv)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", d.Name, err)
	}
	now := time.Now()
	if opts.RunID == "" {
		opts.RunID = NewRunID(now)
	}
	r, err := newRunner(d, opts, params, now)
	if err != nil {
		return nil, err
	}
	r.scope.Env, r.secrets = env, Secrets(env)
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	r.guard = guard{log: log.With("run", opts.RunID, "dag", d.Name), secrets: r.secrets, lang: opts.Lang}
	for _, w := range ShortSecrets(d, env) {
		r.guard.log.Warn(w)
	}
	if opts.Recorder != nil {
		var err error
		perr := r.guard.call("run store", func() {
			err = opts.Recorder.BeginRun(ctx, RunRecord{
				ID: opts.RunID, DAG: d.Name, File: d.File, FileHash: d.Hash, Params: params,
				Started: now, Resumed: opts.Reuse != nil, Parent: opts.Parent, ParentNode: opts.ParentNode,
			})
		})
		if err = cmp.Or(perr, err); err != nil {
			return nil, i18n.Errorf(opts.Lang, "run %s: record the run: %w", d.Name, err)
		}
	}
	// The `dag` node type runs its sub-runs in this run's language, and records them with
	// this run's recorder when it can, linked to this run.
	sub := subRunParent{run: opts.RunID, lang: opts.Lang, logger: opts.Logger}
	sub.rec, _ = opts.Recorder.(SubRecorder)
	ctx = context.WithValue(ctx, subRunKey{}, sub)
	tctx := r.startRun(ctx, params)
	r.run(tctx)
	r.endRun(tctx)
	if opts.Recorder != nil {
		// The run's end is recorded even when ctx was canceled: canceled is a state too.
		var err error
		perr := r.guard.call("run store", func() { err = opts.Recorder.FinishRun(context.WithoutCancel(ctx), r.res) })
		if err = cmp.Or(perr, err); err != nil && r.res.Error == "" {
			r.res.Error = i18n.Sprintf(opts.Lang, "run store: %v", err)
		}
	}
	return r.res, nil
}

// backoff is the wait before retry n (1-based): backoff × factor^(n-1), at most max_backoff,
// with jitter so that nodes failing together do not retry in lockstep. The wait is drawn
// from [d/2, d).
func backoff(p Retry, n int) time.Duration {
	if p.Backoff <= 0 {
		return 0
	}
	d := float64(p.Backoff) * math.Pow(max(p.Factor, 1), float64(n-1))
	if p.MaxBackoff > 0 && d > float64(p.MaxBackoff) {
		d = float64(p.MaxBackoff)
	}
	return time.Duration(d/2 + mrand.Float64()*d/2)
}
