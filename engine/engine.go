package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// RunOptions configure one run.
type RunOptions struct {
	// Params are the run's parameters: the params schema's defaults are filled in
	// (DAG.WithDefaults), then they are validated against it.
	Params map[string]any
	// Lang is the language of violation messages and of the reasons the engine gives: "en"
	// (default) or "ja". Reasons are recorded as said.
	Lang i18n.Lang
	// Observer, when not nil, is told when nodes start and finish.
	Observer Observer
	// RunID names the run; a sortable id is generated when empty.
	RunID string
	// OutputLimit bounds each node's output in bytes; 0 means nodes.DefaultOutputLimit.
	OutputLimit int64
	// Recorder, when not nil, persists the run as it happens.
	Recorder dag.Recorder
	// Reuse holds, by node id, outputs of an earlier run (a resume): a node whose key is
	// unchanged is settled with that output instead of running.
	Reuse map[string]dag.Reused
	// Answers are the questions last asked on the run's approval nodes, by node id, with
	// the answers given: a node with an answer runs with it (the attempt's record carries
	// it), unless it is a reject its on_reject rewinds; one without waits for it, asked
	// again in the round of its question (and since when that opened, on the same evidence).
	Answers map[string]*dag.ApprovalRecord
	// Resumes is, with Reuse, the run's resume count as read when deciding to resume it: an
	// engine that records elsewhere (Temporal) hands it to the recorder there.
	Resumes int
	// By names the principal who starts (or resumes) the run, recorded with it; its sub-runs
	// are started by the same.
	By string
	// Fired says which trigger started the run (the scheduler's runs); recorded with it.
	Fired dag.Fired
	// Tracer, when not nil, traces the run: seam.run → seam.node → seam.attempt spans, under
	// the span in Run's context if any (engine_trace.go).
	Tracer trace.Tracer
	// Metrics, when not nil, measure nodes, attempts, violations and runs.
	Metrics *Metrics
	// Getenv reads the environment variables the DAG declares under env, and seam's own
	// credentials, which every run masks (ownSecrets); nil reads none (a DAG that declares
	// some then fails to start).
	Getenv func(string) string
	// Parent and ParentNode name the run and `dag` node this run is the sub-run of; the
	// `dag` node type sets them.
	Parent, ParentNode string
	// Started, when not nil, is called by an engine that records the run elsewhere (Temporal's
	// workers) once the run is under way there; the embedded engine records it through
	// Recorder.BeginRun instead.
	Started func()
	// Checkpoint, when not nil, is where a hosted run goes on from (RunHosted, SplitError):
	// its settled nodes are as they were, without observer events, and the run is not begun
	// again with the recorder, which has it already. Run ignores it.
	Checkpoint *Checkpoint
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
	// NodeWaitingForAnswer: an approval opened and waits for a person's answer.
	NodeWaitingForAnswer EventKind = "node_waiting"
)

// Event is one change of a node's state.
type Event struct {
	Kind  EventKind
	RunID string
	Node  dag.NodeResult // the node's state after the change
}

// ParamsError is returned by Run when the params break the DAG's params schema.
type ParamsError struct {
	Violations []contract.Violation
	Lang       i18n.Lang // of the message, as the run's
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
	return RunIDOf(now, b)
}

// RunIDOf is the run id NewRunID makes at now when it draws random: for a host that must
// name a run the same again (Temporal's replay), random drawn from what names the run.
func RunIDOf(now time.Time, random [4]byte) string {
	return now.UTC().Format("20060102T150405.000") + "-" + hex.EncodeToString(random[:])
}

// Engine runs loaded DAGs: the embedded scheduler (Embedded) now, an engine that hands the
// nodes to another system (Temporal) later. Run returns once the run has finished, or has
// stopped because ctx was canceled, having reported every attempt to opts.Recorder; its error
// says why the run could not start (a *ParamsError for params the params schema rejects),
// while a failed or canceled run is a result with that status.
type Engine interface {
	Run(ctx context.Context, d *dag.DAG, opts RunOptions) (*dag.RunResult, error)
}

// Canceler is an engine that runs runs on another system (Temporal), where one can be
// canceled by its id from any process.
type Canceler interface {
	Cancel(ctx context.Context, runID string) error
}

// Embedded is the engine that runs DAGs in this process, with Run.
type Embedded struct{}

var _ Engine = Embedded{}

// Run runs d with the package's Run.
func (Embedded) Run(ctx context.Context, d *dag.DAG, opts RunOptions) (*dag.RunResult, error) {
	return Run(ctx, d, opts)
}

// Run executes d: every node starts as soon as its dependencies have finished, at most
// d.Concurrency at once, and every output is validated against the node's effective contract
// before dependents see it. Run returns an error only when the run could not start (a
// *ParamsError when the params break the params schema); a failed or canceled run is a
// RunResult with that status. Cancelling ctx cancels running nodes and the nodes not started
// yet; Run returns once the running ones have returned.
func Run(ctx context.Context, d *dag.DAG, opts RunOptions) (*dag.RunResult, error) {
	return run(ctx, d, opts, nil)
}

// run is Run, or RunHosted when host is not nil.
func run(ctx context.Context, d *dag.DAG, opts RunOptions, host Host) (*dag.RunResult, error) {
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
	env, err := dag.LookupEnv(d, getenv, opts.Lang)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", d.Name, err)
	}
	now := time.Now()
	if host != nil {
		now = host.Now()
	}
	if opts.RunID == "" {
		opts.RunID = NewRunID(now)
	}
	r, err := newRunner(d, opts, params, now, host)
	if err != nil {
		return nil, err
	}
	if host == nil {
		r.opts.Checkpoint = nil
	} else if opts.Checkpoint != nil {
		if err := r.restore(opts.Checkpoint); err != nil {
			return nil, fmt.Errorf("run %s: %w", d.Name, err)
		}
	}
	r.scope.Env, r.scope.Lang, r.secrets = env, opts.Lang, dag.Secrets(d, env)
	if host == nil { // a host's getenv gives placeholders: its workers add their own
		r.secrets = withOwnSecrets(r.secrets, getenv)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	r.guard = guard{log: log.With("run", opts.RunID, "dag", d.Name), secrets: r.secrets, lang: opts.Lang}
	r.commits.guard = r.guard
	if host == nil { // a host's env holds placeholders: its workers warn of real values
		for _, w := range dag.ShortSecrets(d, env, opts.Lang) {
			r.guard.log.Warn(w)
		}
	}
	if opts.Recorder != nil && r.opts.Checkpoint == nil {
		var err error
		perr := r.guard.call("run store", func() {
			err = opts.Recorder.BeginRun(ctx, dag.RunRecord{
				ID: opts.RunID, DAG: d.Name, File: d.File, FileHash: d.Hash, Params: params,
				Started: now, Resumed: opts.Reuse != nil, Parent: opts.Parent, ParentNode: opts.ParentNode, By: opts.By,
				Fired: opts.Fired,
			})
		})
		if err = cmp.Or(perr, err); err != nil {
			return nil, i18n.Errorf(opts.Lang, "run %s: record the run: %w", d.Name, err)
		}
	}
	// The `dag` node type runs its sub-runs in this run's language, and records them with
	// this run's recorder when it can, linked to this run.
	sub := subRunParent{run: opts.RunID, lang: opts.Lang, logger: opts.Logger, by: opts.By}
	sub.rec, _ = opts.Recorder.(dag.SubRecorder)
	ctx = context.WithValue(ctx, subRunKey{}, sub)
	tctx := r.tracing.startRun(ctx, params)
	if host != nil {
		r.runHosted(tctx)
		if cp := r.hosted.split; cp != nil {
			return nil, &SplitError{Checkpoint: cp}
		}
	} else {
		r.run(tctx)
	}
	r.tracing.endRun(tctx)
	if opts.Recorder != nil {
		// The run's end is recorded even when ctx was canceled: canceled is a state too.
		finish := func(res *dag.RunResult) error {
			var err error
			perr := r.guard.call("run store", func() { err = opts.Recorder.FinishRun(context.WithoutCancel(ctx), res) })
			return cmp.Or(perr, err)
		}
		if err := finish(r.res); err != nil {
			r.finishFailed(finish, err)
		}
	}
	return r.res, nil
}

// finishFailed settles a run whose end could not be recorded (err): a run the store still
// shows running would look running, or interrupted, for ever. It records the run failed
// with nothing else (no attempts, no outputs), which a store that refused some value of the
// whole end can still take, and says so; the run fails either way, since its record is not
// whole.
func (r *runner) finishFailed(finish func(*dag.RunResult) error, err error) {
	bare := &dag.RunResult{ID: r.res.ID, DAG: r.res.DAG, File: r.res.File, Status: dag.RunFailed,
		Started: r.res.Started, Ended: r.res.Ended}
	r.res.Status = dag.RunFailed
	r.res.Outputs, r.res.OutputErrors = nil, nil
	if r.res.Error == "" {
		r.res.Error = i18n.Sprintf(r.opts.Lang, "run store: %v", err)
	}
	// A store that could not be reached would not take the bare end either: trying would
	// only wait for it as long again.
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	if finish(bare) == nil {
		r.res.Error += i18n.Sprintf(r.opts.Lang, "; the run is recorded as failed, without its last attempts")
	}
}

// now is the run's clock: the host's when there is one.
func (r *runner) now() time.Time {
	if r.host != nil {
		return r.host.Now()
	}
	return time.Now()
}
