package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// runner is the state of one run, and its loop. Everything in it belongs to the scheduler
// goroutine (the one that called Run) but for the fields that say otherwise: templates are
// evaluated and Scope.Outputs is written there only, because Scope is not safe for concurrent
// use. Workers receive a job and send back an attempt. The loop's parts are fields: graph
// (what waits for what), commits (the store), retries (backoffs) and tracing (spans).
type runner struct {
	d *dag.DAG
	// opts is set before the workers start; they read opts.Lang.
	opts  RunOptions
	res   *dag.RunResult
	scope dag.Scope

	graph    graph   // what depends on what, and what is ready
	runnable []*unit // FIFO of attempts to start: first tries, retries, items
	// index is each node's position by id, made on the first read of a status
	// (nodes.<id>.status, statusOf).
	index map[string]int32
	// handed holds, by node index, the outputs handed downstream (nil: none), the same values
	// as scope.Outputs: the default input reads them without hashing ids.
	handed []any
	// keyed is set when attempts need keys (a recorder or a resume); handedHash then holds,
	// by node index, the hash of the output handed on, and paramsHash that of the params.
	keyed      bool
	handedHash [][sha256.Size]byte

	running, concurrency int
	// stopped is set once the run's context is done: from then on no node is started and
	// nodes not started are canceled rather than skipped.
	stopped bool
	// waiting counts the approvals that opened without an answer; paused is set at the end
	// of a run that stops for them (RunWaiting).
	waiting int
	paused  bool
	// retries decides what follows a failed attempt, and holds the units waiting for their
	// backoff.
	retries retrier
	// quit is closed by the scheduler once its loop is over, and read by the goroutines of
	// the timers of commits and retries, so that one firing later does not block.
	quit chan struct{}
	// live records the logs of running attempts; nil when the recorder cannot (or a host
	// runs the attempts).
	live *liveLogs

	// commits records the attempts, and holds back outputs until their records commit.
	commits  committer
	cancel   context.CancelFunc
	finished []*nodeRun // reused by finish

	// secrets are the values of the DAG's env: masked in everything a node returns.
	secrets []string
	// guard turns panics at the boundaries where seam acts on a node's data into failures.
	guard guard

	// host, when not nil, runs the attempts and keeps the time (RunHosted); hosted is the
	// state of that loop.
	host   Host
	hosted *hostedLoop

	// tracing traces and measures the run, when asked to (engine_trace.go).
	tracing tracer

	// rewind is what rejects under on_reject's rewind ask of the run (engine_approval.go);
	// nil when none does.
	rewind *rewinds
}

// nodeRun is a node that started: one unit, or one per foreach item.
type nodeRun struct {
	idx    int32
	key    string
	units  []*unit
	next   int // foreach: the next unit to release
	left   int // units without a final attempt
	active int // units released and without a final attempt
	// A plain node's unit, and the list of it that units is.
	one     unit
	oneList [1]*unit
}

// unit is what runs attempt by attempt: a node, or one item of a foreach node.
type unit struct {
	nr   *nodeRun
	item int // -1 without foreach
	// call is written by the scheduler (job) before each attempt goes out, and read by the
	// worker that runs the attempt.
	call     *nodes.Call
	attempts int
	retries  int
	repairs  int
	// The final attempt, once there is one.
	done       bool
	status     dag.NodeStatus
	output     any // decoded; kept even when it broke the contract
	raw        []byte
	ref        string // on a host, the hash of the stored output when raw is its stub (AttemptOutcome.OutputHash)
	valid      bool
	violations []contract.Violation
	reason     string
	err        string
	log        string
	started    time.Time
	ended      time.Time
	span       trace.Span // of the attempt running, when tracing
	// since is when the attempt under way was handed to a worker; zero once it came back.
	since time.Time
	// envBuf backs call.Env: SEAM_ATTEMPT, SEAM_VIOLATIONS, SEAM_REVIEW, TRACEPARENT, TRACESTATE.
	envBuf [5]string
}

func newRunner(d *dag.DAG, opts RunOptions, params map[string]any, now time.Time, host Host) (*runner, error) {
	n := len(d.Nodes)
	r := &runner{
		d:    d,
		opts: opts,
		res: &dag.RunResult{
			ID:      opts.RunID,
			DAG:     d.Name,
			File:    d.File,
			Status:  dag.RunRunning,
			Started: now,
			Nodes:   make([]dag.NodeResult, n),
		},
		scope: dag.Scope{
			Params:  params,
			Outputs: make(map[string]any, n),
			Run:     dag.RunInfo{ID: opts.RunID, Name: d.Name},
		},
		handed:      make([]any, n),
		concurrency: max(d.Concurrency, 1),
		quit:        make(chan struct{}),
		keyed:       opts.Recorder != nil || opts.Reuse != nil,
		host:        host,
	}
	r.scope.Status = r.statusOf
	r.commits = newCommitter(opts.Recorder, opts.RunID, host != nil, r, r.quit)
	r.retries = newRetrier(host, r.quit)
	r.tracing = tracer{tr: opts.Tracer, metrics: opts.Metrics, d: d, res: r.res}
	if r.keyed {
		r.handedHash = make([][sha256.Size]byte, n)
	}
	for i, node := range d.Nodes {
		r.res.Nodes[i] = dag.NodeResult{ID: node.ID, Type: node.Type.Name(), Status: dag.NodePending}
	}
	var err error
	if r.graph, err = newGraph(d); err != nil {
		return nil, err
	}
	if r.rewind, err = planRewinds(d, opts.Answers); err != nil {
		return nil, err
	}
	return r, nil
}

// run schedules every node and fills r.res.
func (r *runner) run(ctx context.Context) {
	ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	if r.d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, r.d.Timeout, errRunTimeout)
		defer cancel()
	}
	workers := r.concurrency
	// Buffered so that handing out a job never waits for a worker to wake: at most
	// concurrency jobs are ever outstanding.
	jobs := make(chan job, workers)
	results := make(chan attempt, workers)
	var wg sync.WaitGroup
	if r.commits.rec != nil && r.host == nil {
		if r.live = newLiveLogs(r.commits.rec, r.secrets); r.live != nil {
			wg.Go(func() { r.live.pump(ctx, r.quit) })
		}
	}
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				results <- work(ctx, j, r.opts.Lang)
			}
		})
	}

	for i := range r.d.Nodes {
		if r.graph.free(int32(i)) {
			r.graph.ready = append(r.graph.ready, int32(i))
		}
	}
	inline := make([]attempt, 1)
	// dispatch starts attempts and prepares ready nodes while workers are free.
	dispatch := func() {
		// The running count is the semaphore: a job is sent only while a worker is free.
		for r.running < r.concurrency && !r.stopped {
			if len(r.runnable) > 0 {
				u := r.popRunnable()
				if r.idle() && r.isPure(u) {
					// Nothing else could run meanwhile (a chain): running it here saves the
					// two hand-offs between goroutines that would cost more than its work.
					inline[0] = work(ctx, r.job(ctx, u), r.opts.Lang)
					r.finish(ctx, inline)
					r.stopped = ctx.Err() != nil
					continue
				}
				r.running++
				j := r.job(ctx, u)
				if r.live != nil && !r.isPure(u) {
					r.live.add(r.res.ID, u, j.node) // before the worker reads the call
				}
				jobs <- j
				r.commits.noteStart(u, j.node)
				continue
			}
			if len(r.graph.ready) == 0 {
				break
			}
			r.prepare(ctx, r.graph.popReady())
		}
	}
	done := ctx.Done()
	batch := make([]attempt, 0, workers)
	for {
		r.stopped = ctx.Err() != nil
		dispatch()
		if r.running == 0 && !r.retries.waiting() && r.commits.inflight == nil &&
			(r.stopped || len(r.graph.ready) == 0 && len(r.runnable) == 0) {
			break
		}
		select {
		case a := <-results:
			// Attempts that finished together are recorded in one batch.
			batch = append(batch[:0], a)
			for more := true; more; {
				select {
				case a := <-results:
					batch = append(batch, a)
				default:
					more = false
				}
			}
			r.running -= len(batch)
			// An attempt ended by the cancel can arrive before done is seen: its dependents
			// must then be canceled with the run, not skipped.
			r.stopped = ctx.Err() != nil
			// Keep the workers busy while this batch is committed: what starts now does not
			// depend on it.
			dispatch()
			r.finish(ctx, batch)
		case err := <-r.commits.done:
			r.commits.committed(ctx, err)
		case <-r.commits.linger:
			r.commits.lingered(ctx)
		case <-r.commits.startDue:
			r.commits.recordStarts(ctx)
		case u := <-r.retries.due:
			r.retries.fired(u)
			r.runnable = append(r.runnable, u)
		case <-done:
			// Running nodes see their contexts cancelled; keep collecting their attempts.
			// Retries waiting for their backoff will not run.
			done = nil
			r.retries.stop()
		}
	}
	close(r.quit)
	close(jobs)
	wg.Wait()
	r.end(ctx)
}

// end cancels the nodes that did not settle, records the last attempts and concludes the run.
// A run with approvals waiting, that was not stopped, keeps its other nodes pending: they
// run when the answer resumes it.
func (r *runner) end(ctx context.Context) {
	r.paused = r.waiting > 0 && !r.stopped
	for i := range r.res.Nodes {
		if !r.res.Nodes[i].Status.Done() && !r.paused {
			r.mark(int32(i), dag.NodeCanceled, r.canceled(ctx))
		}
	}
	r.commits.flush(ctx)
	r.conclude(ctx)
}

// popRunnable takes the first unit off the runnable queue, which must not be empty.
func (r *runner) popRunnable() *unit {
	u := r.runnable[0]
	// Reslicing from the front would shrink the capacity until every append reallocates;
	// shift instead while the queue is short, as it usually is.
	if len(r.runnable) <= 64 {
		copy(r.runnable, r.runnable[1:])
		r.runnable[len(r.runnable)-1] = nil
		r.runnable = r.runnable[:len(r.runnable)-1]
	} else {
		r.runnable = r.runnable[1:]
	}
	return u
}

// finish takes a batch of finished attempts: it decides for each whether another attempt
// follows, records them all, and only then hands the outputs of finished nodes downstream.
func (r *runner) finish(ctx context.Context, batch []attempt) {
	finished := r.finished[:0]
	type retrying struct {
		u   *unit
		why string
	}
	var retry []retrying
	for _, a := range batch {
		u := a.u
		u.since = time.Time{}
		if r.live != nil {
			r.live.remove(u)
		}
		node := r.d.Nodes[u.nr.idx]
		status, final, delay := r.retries.decide(node, u, a, r.stopped)
		r.tracing.endAttempt(a, status)
		rec := dag.AttemptRecord{
			RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: u.attempts, Item: u.item,
			Status: status, Final: final && u.item < 0, Key: u.nr.key, Output: a.raw,
			Violations: a.violations, Reason: a.reason, Log: a.log, Started: a.started, Ended: a.ended,
		}
		if a.err != nil {
			rec.Error = a.err.Error()
		}
		if a.ref != "" {
			rec.Output, rec.OutputHash = nil, a.ref // in the store already, as raw is a stub
		}
		if obj, ok := a.output.(map[string]any); ok && a.valid && status == dag.NodeFailed && a.reason == "" {
			// The node's own verdict: its summary is the reason, in the store as in the result.
			rec.Reason, _ = obj["summary"].(string)
		}
		if u.started.IsZero() {
			u.started = a.started
		}
		if !final {
			r.commits.record(rec)
			u.call.Violations = a.violations
			if a.valid {
				u.call.Violations = nil
			}
			r.retryAfter(u, delay)
			why := a.reason
			if why == "" {
				why = i18n.Sprintf(r.opts.Lang, "output breaks its contract")
			}
			retry = append(retry, retrying{u, why})
			continue
		}
		u.done, u.status, u.output, u.raw, u.ref, u.valid = true, status, a.output, a.raw, a.ref, a.valid
		u.violations, u.reason, u.log, u.ended = a.violations, a.reason, a.log, a.ended
		u.err = rec.Error
		rec.Repaired = u.repairs > 0 && a.valid
		r.commits.record(rec)
		u.nr.left--
		u.nr.active--
		if u.item >= 0 {
			nr := &r.res.Nodes[u.nr.idx]
			nr.ItemsDone = len(u.nr.units) - u.nr.left
			if u.nr.left > 0 {
				r.emit(NodeProgress, u.nr.idx)
				r.release(u.nr)
				continue
			}
		}
		if u.item >= 0 {
			r.combine(u.nr)
		}
		finished = append(finished, u.nr)
	}
	for _, rt := range retry {
		nr := &r.res.Nodes[rt.u.nr.idx]
		nr.Attempts = max(nr.Attempts, rt.u.attempts)
		nr.Reason = i18n.Sprintf(r.opts.Lang, "attempt %d failed: %s", rt.u.attempts, rt.why)
		if rt.u.item >= 0 {
			nr.Reason = i18n.Sprintf(r.opts.Lang, "item %d, attempt %d failed: %s", rt.u.item, rt.u.attempts, rt.why)
		}
		r.emit(NodeRetrying, rt.u.nr.idx)
	}
	for _, run := range finished {
		r.commits.handOn(ctx, run, r.pure(run.idx))
	}
	clear(finished)
	r.finished = finished
	r.commits.commit(ctx)
}

// retryAfter queues u's next attempt once delay has passed: on the host's timers when there
// is one.
func (r *runner) retryAfter(u *unit, delay time.Duration) {
	switch {
	case delay <= 0:
		r.runnable = append(r.runnable, u)
	case r.host != nil:
		r.hosted.after(u, delay)
	default:
		r.retries.after(u, delay)
	}
}

// idle reports whether nothing else could run meanwhile: no attempt out or queued, no node
// ready.
func (r *runner) idle() bool {
	return r.running == 0 && len(r.runnable) == 0 && len(r.graph.ready) == 0
}

// halt stops the run: the store failed.
func (r *runner) halt() { r.cancel() }

// apply settles a node whose final attempt has been recorded, handing its output downstream
// when the output met its contract. The node's result is its last unit: its only one, or the
// combination of its foreach items.
func (r *runner) apply(ctx context.Context, run *nodeRun) {
	u := run.units[len(run.units)-1]
	i := run.idx
	nr := &r.res.Nodes[i]
	nr.Started, nr.Ended = u.started, u.ended
	nr.Log, nr.Error = u.log, u.err
	nr.Output, nr.Violations = u.output, u.violations
	nr.Attempts = u.attempts
	nr.Repaired = u.repairs > 0 && u.valid
	switch {
	case r.commits.err != nil && u.status != dag.NodeCanceled:
		// Not recorded, so not handed on: a crash now could lose what a dependent had seen.
		r.settle(i, dag.NodeFailed, i18n.Sprintf(r.opts.Lang, "the attempt could not be recorded: %v", r.commits.err))
	case u.status == dag.NodeCanceled:
		r.settle(i, dag.NodeCanceled, r.canceled(ctx))
	case !u.valid && u.reason != "":
		r.settle(i, dag.NodeFailed, u.reason)
	case !u.valid:
		r.settle(i, dag.NodeFailed, i18n.Sprintf(r.opts.Lang, "output breaks its contract"))
	default:
		r.hand(i, u.output, u.raw, u.ref)
		obj, _ := u.output.(map[string]any)
		summary, _ := obj["summary"].(string)
		nr.Summary = summary
		switch u.status {
		case dag.NodePassed:
			r.settle(i, dag.NodePassed, "")
		case dag.NodeWarned:
			r.settle(i, dag.NodeWarned, "")
		default:
			reason := summary
			if u.reason != "" {
				reason = u.reason
			}
			r.settle(i, dag.NodeFailed, reason)
		}
	}
}

// hand makes node i's validated output visible downstream. Only a validated output crosses
// the edge, and only once it is recorded. ref, when set, is the hash of the stored output
// that raw stands for (by reference, on a host): the key hashes that output, as the
// embedded engine would.
func (r *runner) hand(i int32, output any, raw []byte, ref string) {
	r.scope.Outputs[r.d.Nodes[i].ID] = output
	r.handed[i] = output
	if r.keyed {
		if ref == "" || hex.DecodedLen(len(ref)) != len(r.handedHash[i]) {
			r.handedHash[i] = sha256.Sum256(raw)
		} else if _, err := hex.Decode(r.handedHash[i][:], []byte(ref)); err != nil {
			r.handedHash[i] = sha256.Sum256(raw)
		}
	}
}

// settle gives node i its final status, tells the observer and decides, for each dependent
// whose dependencies have now all finished, whether it runs or is skipped. Skips cascade
// through a work list rather than recursion, so a long chain cannot exhaust the stack.
func (r *runner) settle(i int32, status dag.NodeStatus, reason string) {
	r.mark(i, status, reason)
	r.graph.settle(i, r.stopped, r.skip)
}

// skip marks node j, whose dependencies have all finished, skipped when its run_if says it
// must not run, and reports whether it did.
func (r *runner) skip(j int32) bool {
	reason := r.blocked(j)
	if reason == "" {
		return false
	}
	r.mark(j, dag.NodeSkipped, reason)
	return true
}

// mark records node i's final status and tells the observer.
func (r *runner) mark(i int32, status dag.NodeStatus, reason string) {
	nr := &r.res.Nodes[i]
	nr.Status, nr.Reason = status, reason
	if nr.Ended.IsZero() {
		nr.Ended = r.now()
	}
	if !nr.Started.IsZero() {
		nr.Elapsed = nr.Ended.Sub(nr.Started)
	}
	r.tracing.endNode(i)
	r.emit(NodeFinished, i)
}

// blocked says why node j, whose dependencies have all finished, must not run given its
// run_if, or "" when it may run.
func (r *runner) blocked(j int32) string {
	deps := r.graph.depsOf(j)
	switch r.d.Nodes[j].RunIf {
	case dag.RunIfAlways:
		return ""
	case dag.RunIfFailure:
		for _, k := range deps {
			if r.res.Nodes[k].Status == dag.NodeFailed {
				return ""
			}
		}
		return i18n.Sprintf(r.opts.Lang, "no upstream node failed")
	default:
		// An upstream whose status the node's when reads may have ended any way: the when
		// decides. Name a failed dependency in preference to one that was merely skipped.
		node := r.d.Nodes[j]
		var first int32 = -1
		for _, k := range deps {
			switch s := r.res.Nodes[k].Status; {
			case passedOrWarned(s) || node.WhenReadsStatus(r.d.Nodes[k].ID):
			case s == dag.NodeFailed:
				return i18n.Sprintf(r.opts.Lang, "upstream %s failed", r.d.Nodes[k].ID)
			case first < 0:
				first = k
			}
		}
		if first >= 0 {
			return i18n.Sprintf(r.opts.Lang, "upstream %s %s", r.d.Nodes[first].ID, r.res.Nodes[first].Status.Text(r.opts.Lang))
		}
		return ""
	}
}

// statusOf is how node id ended, once it has: what nodes.<id>.status reads.
func (r *runner) statusOf(id string) (dag.NodeStatus, bool) {
	if r.index == nil {
		r.index = make(map[string]int32, len(r.d.Nodes))
		for i, node := range r.d.Nodes {
			r.index[node.ID] = int32(i)
		}
	}
	i, ok := r.index[id]
	if !ok {
		return "", false
	}
	s := r.res.Nodes[i].Status
	return s, s.Done()
}

// unread says why node, whose when reads an upstream's status, is skipped rather than failed
// when resolving one of refs failed: a reference to the output of an upstream that ended
// without handing one on (it failed or was skipped), which such a node runs after. "" when
// there is none, or the node reads no status: then the failure is the node's.
func (r *runner) unread(node *dag.Node, refs ...[]dag.Ref) string {
	if node.When == nil || !slices.ContainsFunc(node.When.Refs(), func(ref dag.Ref) bool { return ref.Root == "status" }) {
		return ""
	}
	for _, rs := range refs {
		for _, ref := range rs {
			if ref.Root != "nodes" {
				continue
			}
			if _, ok := r.scope.Outputs[ref.Node]; ok {
				continue
			}
			if s, ok := r.statusOf(ref.Node); ok {
				return i18n.Sprintf(r.opts.Lang, "upstream %s %s: its output is not there", ref.Node, s.Text(r.opts.Lang))
			}
		}
	}
	return ""
}

func (r *runner) emit(kind EventKind, i int32) {
	if r.opts.Observer == nil {
		return
	}
	// A broken observer (a display, a progress notification) loses an event, not the run.
	defer func() {
		if p := recover(); p != nil {
			_ = r.guard.recovered("observer", p)
		}
	}()
	r.opts.Observer.Event(Event{Kind: kind, RunID: r.res.ID, Node: r.res.Nodes[i]})
}

// conclude sets the run's status and, when it succeeded or warned, evaluates its outputs.
func (r *runner) conclude(ctx context.Context) {
	res := r.res
	res.Status = dag.RunSuccess
	for i := range res.Nodes {
		switch res.Nodes[i].Status {
		case dag.NodeFailed:
			res.Status = dag.RunFailed
		case dag.NodeWarned:
			if res.Status == dag.RunSuccess {
				res.Status = dag.RunWarn
			}
		}
	}
	if r.commits.err != nil {
		res.Status = dag.RunFailed
		res.Error = i18n.Sprintf(r.opts.Lang, "run store: %v", r.commits.err)
	} else if errors.Is(context.Cause(ctx), errRunTimeout) {
		res.Status = dag.RunFailed
		res.Error = r.canceled(ctx)
	} else if res.Status != dag.RunFailed && ctx.Err() != nil {
		res.Status = dag.RunCanceled
	} else if r.paused {
		// Not over: what is failed stays failed, and the answer decides the rest.
		res.Status = dag.RunWaiting
	}
	if res.Status == dag.RunSuccess || res.Status == dag.RunWarn {
		for _, o := range r.d.Outputs {
			var v any
			var err error
			if perr := r.guard.call("output "+o.Name, func() { v, err = o.Value.Eval(&r.scope) }); perr != nil {
				err = perr
			}
			if err != nil {
				if res.OutputErrors == nil {
					res.OutputErrors = make(map[string]string)
				}
				res.OutputErrors[o.Name] = err.Error()
				continue
			}
			if res.Outputs == nil {
				res.Outputs = make(map[string]any, len(r.d.Outputs))
			}
			res.Outputs[o.Name] = v
		}
		if len(res.OutputErrors) > 0 {
			// A declared output is part of what the run promises: without it the run did not
			// deliver, whatever its nodes did. An output that may be missing says so with a
			// default (has(p) ? p : null), which resolves.
			names := slices.Sorted(maps.Keys(res.OutputErrors))
			res.Status = dag.RunFailed
			res.Error = i18n.Sprintf(r.opts.Lang, "output %s could not be resolved: %s", names[0], res.OutputErrors[names[0]])
			if len(names) > 1 {
				res.Error += i18n.Sprintf(r.opts.Lang, " (and %d more outputs)", len(names)-1)
			}
		}
	}
	res.Ended = r.now()
	res.Elapsed = res.Ended.Sub(res.Started)
}

// errRunTimeout is the cause of a run's context ending at the DAG's timeout.
var errRunTimeout = errors.New("run timeout")

// canceled says why nodes were stopped or never started once ctx is done.
func (r *runner) canceled(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), errRunTimeout) {
		return i18n.Sprintf(r.opts.Lang, "the run timed out after %s", r.d.Timeout)
	}
	return i18n.Sprintf(r.opts.Lang, "the run was canceled")
}

// passedOrWarned reports whether a node in state s lets run_if: success dependents run.
func passedOrWarned(s dag.NodeStatus) bool { return s == dag.NodePassed || s == dag.NodeWarned }
