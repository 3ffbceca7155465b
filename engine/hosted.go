package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// Host runs a hosted run's attempts and keeps its time, for an engine whose scheduling code
// must be deterministic: a Temporal workflow runs this package's scheduler through a Host, so
// that a run means the same on every engine. The scheduler calls it from the goroutine that
// called RunHosted only.
type Host interface {
	// Now is the run's clock.
	Now() time.Time
	// Jitter returns a number in [0, 1): the random part of a retry's backoff.
	Jitter() float64
	// Start starts an attempt somewhere else; its outcome comes back from Wait. Attempts of
	// pure node types never come here: the scheduler runs those itself.
	Start(AttemptRequest)
	// After makes Wait return a HostEvent with Timer id once d has passed.
	After(id int, d time.Duration)
	// Wait blocks until an attempt ends, a timer fires or the run is canceled from outside.
	Wait() HostEvent
	// Stop cancels the attempts and timers under way: the attempts' outcomes still come
	// back from Wait (canceled, or ended meanwhile), the timers' do not.
	Stop()
	// Split says whether the run should go on elsewhere (a new history). Once it says so,
	// no node is prepared any more; when the attempts under way and their retries are over,
	// RunHosted records what gathered and returns a *SplitError with the checkpoint.
	Split() bool
}

// HostEvent is what Wait returns: one of an attempt's outcome, a timer that fired, or the
// run canceled.
type HostEvent struct {
	Outcome  *AttemptOutcome
	Timer    int
	Canceled bool
}

// AttemptRequest is one attempt of a hosted run, as it travels to the machine that runs it:
// what nodes.Call holds but the run's secrets, which that machine reads itself (EnvValue).
type AttemptRequest struct {
	ID      int    `json:"id"` // echoed in the outcome
	Node    string `json:"node"`
	Index   int    `json:"index"` // of the node in DAG.Nodes
	Item    int    `json:"item"`  // -1 without foreach
	Attempt int    `json:"attempt"`
	// With and Input are JSON: encoded as seam decodes, numbers keep their digits.
	With       json.RawMessage      `json:"with"`
	Input      json.RawMessage      `json:"input"`
	Env        []string             `json:"env,omitempty"`
	Violations []contract.Violation `json:"violations,omitempty"`
	// Timeout is the node's, enforced where the attempt runs.
	Timeout     time.Duration `json:"timeout,omitempty"`
	OutputLimit int64         `json:"output_limit"`
	Lang        i18n.Lang     `json:"lang"`
	// Answer is an approval's answer (nodes.Call.Answer), which it runs with.
	Answer map[string]any `json:"answer,omitempty"`
}

// AttemptOutcome is how a hosted attempt ended, judged where it ran: its output is masked,
// bounded, parsed and validated against the node's effective contract there.
type AttemptOutcome struct {
	ID      int       `json:"id"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Output  []byte    `json:"output,omitempty"` // as the node wrote it; nil when it failed first
	// OutputHash, when set, says the output travelled by reference: it is stored under this
	// hash (runs.Store.PutOutput), and Output is its stub (RefStub).
	OutputHash string               `json:"output_hash,omitempty"`
	Valid      bool                 `json:"valid,omitempty"`
	Violations []contract.Violation `json:"violations,omitempty"`
	Log        string               `json:"log,omitempty"`
	Err        string               `json:"err,omitempty"`
	Reason     string               `json:"reason,omitempty"` // set when it failed before its output was judged
	TimedOut   bool                 `json:"timed_out,omitempty"`
	Canceled   bool                 `json:"canceled,omitempty"`
}

// RunHosted runs d as Run does, with the attempts of its impure nodes run by h and time kept by
// h. opts.RunID must be set: the host names the run. The run never reads the environment of
// the process it is scheduled in: each variable d declares under env holds EnvValue's
// placeholder there, which Attempt replaces with the value where the attempt runs, so no
// secret enters what the host keeps of the run. Observer events come as in Run; tracing and
// metrics are the host's business (opts.Tracer and opts.Metrics are ignored).
//
// When h asks for it (Host.Split), the run stops between attempts and RunHosted returns a
// *SplitError with its checkpoint; with opts.Checkpoint set, RunHosted goes on from one.
func RunHosted(ctx context.Context, d *dag.DAG, opts RunOptions, h Host) (*dag.RunResult, error) {
	if opts.RunID == "" {
		return nil, fmt.Errorf("run %s: a hosted run needs its id", d.Name)
	}
	opts.Getenv, opts.Tracer, opts.Metrics = EnvValue, nil, nil
	return run(ctx, d, opts, h)
}

// EnvValue is the placeholder a hosted run holds for the environment variable name: a string
// no one writes by chance, long enough to be masked (nodes.MinSecret).
func EnvValue(name string) string { return envOpen + name + envClose }

const (
	envOpen  = "\u27e6seam-env:"
	envClose = "\u27e7"
)

// hostedLoop is the state runHosted keeps beside the runner's: the units whose attempts or
// backoff timers are out with the host, by the id they went out with.
type hostedLoop struct {
	host   Host
	out    map[int]*unit
	timers map[int]*unit
	next   int
	// refs is set once the run holds an output by reference (RefKey): from then on a pure
	// node whose with or input holds one runs through the host, where it is read whole.
	refs bool
	// moved is set once an attempt started here: a run splits only after that, so that it
	// cannot go from history to history without doing anything.
	moved bool
	// draining is set once the host asked for a split: what is under way ends, nothing new
	// is prepared.
	draining bool
	split    *Checkpoint // set when the run stopped to go on elsewhere
}

// timeoutTimer is the id of the DAG's timeout among the host's timers.
const timeoutTimer = -1

func (l *hostedLoop) id(u *unit, m map[int]*unit) int {
	l.next++
	m[l.next] = u
	return l.next
}

// after asks the host for u's next attempt once delay has passed.
func (l *hostedLoop) after(u *unit, delay time.Duration) {
	id := l.id(u, l.timers)
	l.host.After(id, delay)
}

// runHosted is run's loop with the host in place of worker goroutines and timers: attempts
// of impure nodes go out to the host one by one, pure ones run here, and every event comes
// back through Wait, in an order the host can replay.
func (r *runner) runHosted(ctx context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.cancel = func() { cancel(context.Canceled) }
	h := r.host
	l := &hostedLoop{host: h, out: make(map[int]*unit), timers: make(map[int]*unit), refs: holdsRef(r.scope.Params) || slices.ContainsFunc(r.handed, holdsRef)}
	r.hosted = l
	if r.d.Timeout > 0 {
		h.After(timeoutTimer, r.timeoutLeft())
	}
	// halted is set once the host was told to stop: when the run's context is done, whether
	// by the host's cancel, the DAG's timeout or a store that failed.
	halted := false
	for i := range r.d.Nodes {
		if r.graph.free(int32(i)) && r.res.Nodes[i].Status == dag.NodePending { // not restored settled
			r.graph.ready = append(r.graph.ready, int32(i))
		}
	}
	one := make([]attempt, 1)
	for {
		if r.stopped = ctx.Err() != nil; r.stopped && !halted {
			halted = true
			h.Stop()
			clear(l.timers) // retries waiting for their backoff will not run
		}
		if r.splitNow(ctx) {
			return
		}
		for r.running < r.concurrency && !r.stopped {
			if len(r.runnable) > 0 {
				u := r.popRunnable()
				l.moved = true
				j := r.job(ctx, u)
				if r.isPure(u) && !(l.refs && (holdsRef(j.call.With) || holdsRef(j.call.Input))) {
					started := r.now()
					one[0] = work(ctx, j, r.opts.Lang)
					one[0].started, one[0].ended = started, r.now()
					r.finish(ctx, one)
					r.stopped = ctx.Err() != nil
					continue
				}
				r.running++
				h.Start(r.request(l.id(u, l.out), j))
				continue
			}
			if len(r.graph.ready) == 0 || l.draining {
				break
			}
			r.prepare(ctx, r.graph.popReady())
		}
		if r.running == 0 && len(l.timers) == 0 && (r.stopped || len(r.graph.ready) == 0 && len(r.runnable) == 0) {
			break
		}
		r.commits.commitNow(ctx) // what gathered is in the store before the run waits
		ev := h.Wait()
		switch {
		case ev.Outcome != nil:
			u, ok := l.out[ev.Outcome.ID]
			if !ok {
				continue // not an attempt of this run's: nothing waits for it
			}
			delete(l.out, ev.Outcome.ID)
			r.running--
			one[0] = r.outcome(u, ev.Outcome)
			l.refs = l.refs || one[0].ref != ""
			r.finish(ctx, one)
		case ev.Canceled:
			cancel(context.Canceled)
		case ev.Timer == timeoutTimer:
			cancel(errRunTimeout)
		default:
			if u, ok := l.timers[ev.Timer]; ok {
				delete(l.timers, ev.Timer)
				r.runnable = append(r.runnable, u)
			}
		}
	}
	r.end(ctx)
}

// refHint says why node i may have failed before it ran, when one of its dependencies'
// outputs travelled by reference: the workflow holds only its stub.
func (r *runner) refHint(i int32) string {
	for _, j := range r.graph.depsOf(i) {
		if _, ok := refHash(r.handed[j]); ok {
			return i18n.Sprintf(r.opts.Lang, " (the output of %s travelled by reference: here it shows its status and summary only; pass it whole, as %s, to read the rest; docs/temporal.md)", r.d.Nodes[j].ID, "${{ nodes."+r.d.Nodes[j].ID+".output }}")
		}
	}
	return ""
}

// splitNow asks the host whether the run should go on elsewhere, while there is something
// left to prepare, and once it said so and nothing is under way, records what gathered and
// keeps the checkpoint in r.hosted.split. It reports whether the run stops here for that.
func (r *runner) splitNow(ctx context.Context) bool {
	l := r.hosted
	if r.stopped || len(r.graph.ready) == 0 || !l.moved {
		return false
	}
	if !l.draining && l.host.Split() {
		l.draining = true
	}
	if !l.draining || r.running > 0 || len(l.timers) > 0 || len(r.runnable) > 0 {
		return false
	}
	r.commits.commitNow(ctx)
	if ctx.Err() != nil || r.commits.err != nil {
		return false // the run ends here instead, as it failed or was canceled
	}
	l.split = r.checkpoint()
	return true
}

// timeoutLeft is what remains of the DAG's timeout: all of it, unless the run went on from a
// checkpoint.
func (r *runner) timeoutLeft() time.Duration {
	if r.opts.Checkpoint == nil {
		return r.d.Timeout
	}
	// A timer of nothing would never fire on some hosts: a moment stands for it.
	return max(r.d.Timeout-r.now().Sub(r.res.Started), time.Millisecond)
}

// request is the attempt j as it goes out to the host under id.
func (r *runner) request(id int, j job) AttemptRequest {
	with, _ := json.Marshal(j.call.With) // decoded JSON always encodes
	input, _ := json.Marshal(j.call.Input)
	item := j.u.item
	return AttemptRequest{
		ID: id, Node: j.node.ID, Index: int(j.u.nr.idx), Item: item, Attempt: j.call.Attempt, With: with, Input: input,
		Env: j.call.Env, Violations: j.call.Violations, Timeout: j.timeout,
		OutputLimit: j.call.OutputLimit, Lang: r.opts.Lang, Answer: j.call.Answer,
	}
}

// outcome is the attempt of u that o reports, as work would have returned it.
func (r *runner) outcome(u *unit, o *AttemptOutcome) attempt {
	a := attempt{
		u: u, started: o.Started, ended: o.Ended, raw: o.Output, valid: o.Valid,
		violations: o.Violations, log: o.Log, reason: o.Reason, timedOut: o.TimedOut, canceled: o.Canceled,
		ref: o.OutputHash,
	}
	if o.Err != "" {
		a.err = errors.New(o.Err)
	}
	if o.Output != nil && o.Reason == "" {
		// Judged already where it ran; the value is what templates downstream read (a stub
		// when the output travelled by reference).
		if v, err := contract.ParseJSON(o.Output); err == nil {
			a.output = v
		}
	}
	return a
}

// Attempt runs one attempt of a hosted run where the host runs it: the type of node req.Node
// of d under the node's timeout, then its output masked, bounded, parsed and validated, as
// Run's workers do. getenv reads the variables d declares under env: their placeholders in
// with and input are replaced by their values, and the values, with seam's own credentials
// (ownSecrets), are masked in what the attempt returns. The outputs with and input hold by reference (RefKey) are read with fetch and put
// in place of their stubs, as the node would have got them on the embedded engine. A
// canceled ctx is a canceled attempt.
func Attempt(ctx context.Context, d *dag.DAG, req AttemptRequest, getenv func(string) string, fetch Fetch, log *slog.Logger) AttemptOutcome {
	return AttemptLive(ctx, d, req, getenv, fetch, log, "", nil)
}

// AttemptLive is Attempt that, when rec is not nil, records what the attempt (of run run)
// has printed so far in its start record while it runs, masked, at most once every
// LiveInterval and only when it changed, as Run does on the embedded engine: watchers of a
// run on a host see the log of an attempt running elsewhere. A write that finds no start
// record yet (the host records it after StartDelay) is tried again at the next tick.
func AttemptLive(ctx context.Context, d *dag.DAG, req AttemptRequest, getenv func(string) string, fetch Fetch, log *slog.Logger, run string, rec dag.LogRecorder) AttemptOutcome {
	started := time.Now()
	fail := func(reason string) AttemptOutcome {
		return AttemptOutcome{ID: req.ID, Started: started, Ended: time.Now(), Err: reason, Reason: reason}
	}
	if req.Index < 0 || req.Index >= len(d.Nodes) || d.Nodes[req.Index].ID != req.Node {
		return fail(i18n.Sprintf(req.Lang, "no node %s in DAG %s", req.Node, d.Name))
	}
	node := d.Nodes[req.Index]
	env, err := dag.LookupEnv(d, getenv, req.Lang)
	if err != nil {
		return fail(err.Error())
	}
	secrets := withOwnSecrets(dag.Secrets(d, env), getenv)
	if log == nil {
		log = slog.Default()
	}
	for _, w := range dag.ShortSecrets(d, env, req.Lang) {
		log.Warn(w)
	}
	with, err := contract.ParseJSON(req.With)
	if err != nil {
		return fail(fmt.Sprintf("with: %v", err))
	}
	input, err := contract.ParseJSON(req.Input)
	if err != nil {
		return fail(fmt.Sprintf("input: %v", err))
	}
	with, input = withEnv(with, env), withEnv(input, env)
	if bytes.Contains(req.With, refKeyJSON) || bytes.Contains(req.Input, refKeyJSON) {
		x := expander{ctx: ctx, fetch: fetch, node: node.ID, lang: req.Lang, limit: refLimit(req.OutputLimit)}
		if with, err = x.expand(with); err == nil {
			input, err = x.expand(input)
		}
		if err != nil {
			return fail(err.Error())
		}
		if node.InputContract != nil {
			// Skipped by the scheduler, which saw the stubs only.
			if vs := node.InputContract.ValidateInput(input, req.Lang); len(vs) > 0 {
				o := fail(i18n.Sprintf(req.Lang, "input breaks its contract"))
				o.Violations = vs
				return o
			}
		}
	}
	w, _ := with.(map[string]any)
	call := &nodes.Call{
		Node: node.ID, With: w, Input: input, Dir: d.Dir, OutputLimit: req.OutputLimit,
		Secrets: secrets, Lang: req.Lang, Attempt: req.Attempt, Env: req.Env, Violations: req.Violations,
		Answer: req.Answer,
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		call.Env = append(slices.Clip(call.Env), traceEnv(sc)...)
	}
	g := guard{log: log.With("dag", d.Name, "node", node.ID), secrets: secrets, lang: req.Lang}
	u := &unit{item: req.Item, attempts: req.Attempt, call: call}
	if rec != nil && !pureNode(node) {
		l := &liveLogs{rec: rec, secrets: secrets, running: map[*unit]*liveAttempt{}}
		l.add(run, u, node)
		quit, pumped := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(pumped)
			l.pump(ctx, quit)
		}()
		defer func() {
			close(quit)
			<-pumped
			l.remove(u)
		}()
	}
	a := work(ctx, job{ctx: ctx, u: u, node: node, call: call, timeout: req.Timeout, guard: g}, req.Lang)
	o := AttemptOutcome{
		ID: req.ID, Started: a.started, Ended: a.ended, Output: a.raw, Valid: a.valid, Violations: a.violations,
		Log: a.log, Reason: a.reason, TimedOut: a.timedOut, Canceled: a.canceled,
	}
	if a.err != nil {
		o.Err = nodes.MaskString(a.err.Error(), secrets)
	}
	return o
}

// withEnv replaces the env placeholders in v's strings with the variables' values.
func withEnv(v any, env map[string]string) any {
	switch v := v.(type) {
	case string:
		if !strings.Contains(v, envOpen) {
			return v
		}
		for name, val := range env {
			v = strings.ReplaceAll(v, EnvValue(name), val)
		}
		return v
	case map[string]any:
		for k, e := range v {
			v[k] = withEnv(e, env)
		}
	case []any:
		for k, e := range v {
			v[k] = withEnv(e, env)
		}
	}
	return v
}
