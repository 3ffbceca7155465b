package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// runner is the state of one run. Everything in it belongs to the scheduler goroutine (the one
// that called Run): templates are evaluated and Scope.Outputs is written there only, because
// Scope is not safe for concurrent use. Workers receive a job and send back an attempt.
type runner struct {
	d     *dag.DAG
	opts  RunOptions
	res   *dag.RunResult
	scope dag.Scope

	// The graph in index form (positions in d.Nodes), flattened so that a run over a large
	// DAG allocates a few slices rather than a few per node: the dependencies of node i are
	// deps[depStart[i]:depStart[i+1]], its dependents dependents[dtStart[i]:dtStart[i+1]].
	deps, depStart      []int32
	dependents, dtStart []int32
	waiting             []int32 // dependencies of each node not finished yet
	ready               []int32 // FIFO of nodes whose dependencies finished and that may run
	runnable            []*unit // FIFO of attempts to start: first tries, retries, items
	settled             []int32 // work list of nodes that just reached a final status
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
	// Retries wait for their backoff on timers that send the unit to due; quit releases
	// timers firing after the scheduler is gone.
	due    chan *unit
	quit   chan struct{}
	timers map[*unit]*time.Timer

	// records are attempts not yet given to the recorder; flush hands them over before any
	// output is handed downstream.
	records []dag.AttemptRecord
	// lastBatch is the number of records the last commit took.
	lastBatch int
	cancel    context.CancelFunc
	storeErr  error

	finished []*nodeRun // reused by finish
	// uncommitted are nodes with a final attempt waiting for a commit to be handed on;
	// inflight is the commit under way, which reports to commitDone.
	uncommitted []*nodeRun
	inflight    *inflight
	commitDone  chan error
	// lingering is set while a timer will commit the attempts of pure nodes that wait for no
	// commit, so that the store shows them within lingerDelay even while nothing else lands.
	lingering bool
	linger    chan struct{}
	// starts are the attempts of impure nodes handed to workers whose start is not recorded:
	// one still running after StartDelay is recorded running (recordStarts); a quicker one
	// costs the store nothing. starting is set while a timer will look at them.
	starts   []pendingStart
	starting bool
	startDue chan struct{}

	// secrets are the values of the DAG's env: masked in everything a node returns.
	secrets []string
	// guard turns panics at the boundaries where seam acts on a node's data into failures.
	guard guard

	// host, when not nil, runs the attempts and keeps the time (RunHosted); hosted is the
	// state of that loop.
	host   Host
	hosted *hostedLoop

	// Spans, when tracing: the run's, and each node's once started (engine_trace.go).
	runSpan   trace.Span
	nodeSpans []trace.Span
	pureBatch pureBatch
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
	nr       *nodeRun
	item     int // -1 without foreach
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
	// envBuf backs call.Env: SEAM_ATTEMPT, SEAM_VIOLATIONS, TRACEPARENT, TRACESTATE.
	envBuf [4]string
}

// job is one attempt handed to a worker.
type job struct {
	ctx     context.Context // the attempt's: the run's, with the attempt's span when tracing
	u       *unit
	node    *dag.Node
	call    *nodes.Call
	timeout time.Duration
	guard   guard
}

// attempt is what a worker hands back: the attempt's outcome, its output already parsed and
// validated (schemas are safe for concurrent use, so that work is spread over the workers).
type attempt struct {
	u          *unit
	started    time.Time
	ended      time.Time
	raw        []byte
	ref        string // on a host, the hash of the stored output when raw is its stub (AttemptOutcome.OutputHash)
	output     any
	valid      bool // output parsed and met the effective contract
	violations []contract.Violation
	log        string
	err        error
	reason     string // set when the attempt failed before its output could be judged
	timedOut   bool
	canceled   bool
}

func newRunner(d *dag.DAG, opts RunOptions, params map[string]any, now time.Time) (*runner, error) {
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
		depStart:    make([]int32, n+1),
		dtStart:     make([]int32, n+2),
		waiting:     make([]int32, n),
		handed:      make([]any, n),
		concurrency: max(d.Concurrency, 1),
		due:         make(chan *unit),
		commitDone:  make(chan error, 1),
		linger:      make(chan struct{}),
		startDue:    make(chan struct{}),
		quit:        make(chan struct{}),
		timers:      make(map[*unit]*time.Timer),
		keyed:       opts.Recorder != nil || opts.Reuse != nil,
	}
	if r.keyed {
		r.handedHash = make([][sha256.Size]byte, n)
	}
	index := make(map[string]int32, n)
	for i, node := range d.Nodes {
		index[node.ID] = int32(i)
		r.res.Nodes[i] = dag.NodeResult{ID: node.ID, Type: node.Type.Name(), Status: dag.NodePending}
	}
	total := 0
	for _, node := range d.Nodes {
		total += len(node.Deps)
	}
	r.deps = make([]int32, 0, total)
	// Count dependents first (shifted by one), then fill them in place.
	for i, node := range d.Nodes {
		for _, id := range node.Deps {
			j, ok := index[id]
			if !ok {
				return nil, fmt.Errorf("run %s: node %s depends on unknown node %s", d.Name, node.ID, id)
			}
			r.deps = append(r.deps, j)
			r.dtStart[j+2]++
		}
		r.depStart[i+1] = int32(len(r.deps))
		r.waiting[i] = int32(len(node.Deps))
	}
	for i := 2; i < len(r.dtStart); i++ {
		r.dtStart[i] += r.dtStart[i-1]
	}
	r.dependents = make([]int32, total)
	for i := range d.Nodes {
		for _, j := range r.deps[r.depStart[i]:r.depStart[i+1]] {
			r.dependents[r.dtStart[j+1]] = int32(i)
			r.dtStart[j+1]++
		}
	}
	r.dtStart = r.dtStart[:n+1]
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
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				results <- work(ctx, j, r.opts.Lang)
			}
		})
	}

	for i := range r.d.Nodes {
		if r.waiting[i] == 0 {
			r.ready = append(r.ready, int32(i))
		}
	}
	inline := make([]attempt, 1)
	// dispatch starts attempts and prepares ready nodes while workers are free.
	dispatch := func() {
		// The running count is the semaphore: a job is sent only while a worker is free.
		for r.running < r.concurrency && !r.stopped {
			if len(r.runnable) > 0 {
				u := r.popRunnable()
				if r.running == 0 && len(r.runnable) == 0 && len(r.ready) == 0 && r.isPure(u) {
					// Nothing else could run meanwhile (a chain): running it here saves the
					// two hand-offs between goroutines that would cost more than its work.
					inline[0] = work(ctx, r.job(ctx, u), r.opts.Lang)
					r.finish(ctx, inline)
					r.stopped = ctx.Err() != nil
					continue
				}
				r.running++
				jobs <- r.job(ctx, u)
				r.noteStart(u)
				continue
			}
			if len(r.ready) == 0 {
				break
			}
			i := r.ready[0]
			r.ready = r.ready[1:]
			r.prepare(ctx, i)
		}
	}
	done := ctx.Done()
	batch := make([]attempt, 0, workers)
	for {
		r.stopped = ctx.Err() != nil
		dispatch()
		if r.running == 0 && len(r.timers) == 0 && r.inflight == nil &&
			(r.stopped || len(r.ready) == 0 && len(r.runnable) == 0) {
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
		case err := <-r.commitDone:
			r.committed(ctx, err)
		case <-r.linger:
			r.lingering = false
			r.commitNow(ctx)
		case <-r.startDue:
			r.starting = false
			r.recordStarts(ctx)
		case u := <-r.due:
			delete(r.timers, u)
			r.runnable = append(r.runnable, u)
		case <-done:
			// Running nodes see their contexts cancelled; keep collecting their attempts.
			// Retries waiting for their backoff will not run.
			done = nil
			for u, t := range r.timers {
				t.Stop()
				delete(r.timers, u)
			}
		}
	}
	close(r.quit)
	close(jobs)
	wg.Wait()
	r.end(ctx)
}

// end cancels the nodes that did not settle, records the last attempts and concludes the run.
func (r *runner) end(ctx context.Context) {
	for i := range r.res.Nodes {
		if !r.res.Nodes[i].Status.Done() {
			r.mark(int32(i), dag.NodeCanceled, r.canceled(ctx))
		}
	}
	r.flush(ctx)
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

// prepare resolves node i's condition, configuration and input, and queues its first
// attempt (or its items' first attempts), unless it settles without running: skipped,
// failed, or reused from an earlier run.
func (r *runner) prepare(ctx context.Context, i int32) {
	node := r.d.Nodes[i]
	nr := &r.res.Nodes[i]
	run := &nodeRun{idx: i}
	if r.keyed {
		run.key = r.key(i)
	}
	fail := func(reason string, err error, vs []contract.Violation) {
		nr.Started = r.now()
		if r.hosted != nil && r.hosted.refs {
			reason += r.refHint(i)
		}
		// with and input quote resolved values, which may hold secrets.
		reason = nodes.MaskString(reason, r.secrets)
		if err != nil {
			nr.Error = nodes.MaskString(err.Error(), r.secrets)
		}
		for k := range vs {
			vs[k].Value = nodes.MaskString(vs[k].Value, r.secrets)
			vs[k].Message = nodes.MaskString(vs[k].Message, r.secrets)
		}
		nr.Violations = vs
		// Recorded as an attempt that never ran, so that the store can explain it.
		r.record(dag.AttemptRecord{
			RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: 1, Item: -1,
			Status: dag.NodeFailed, Final: true, Key: run.key, Violations: vs, Reason: reason, Error: nr.Error,
			Started: nr.Started, Ended: r.now(),
		})
		r.settle(i, dag.NodeFailed, reason)
	}
	if node.When != nil {
		var ok bool
		var err error
		if perr := r.guard.call("when", func() { ok, err = node.When.Bool(&r.scope) }); perr != nil {
			fail(perr.Error(), perr, nil)
			return
		}
		if err != nil {
			fail(i18n.Sprintf(r.opts.Lang, "when could not be evaluated: %v", err), err, nil)
			return
		}
		if !ok {
			r.settle(i, dag.NodeSkipped, i18n.Sprintf(r.opts.Lang, "when was false"))
			return
		}
	}
	prev, resumed := r.opts.Reuse[node.ID]
	if resumed && prev.Key == run.key && prev.Output != nil && r.reuse(ctx, i, prev) {
		return
	}
	if node.Foreach == nil {
		call, reason, err, vs := r.guardedCall(i, node)
		if reason != "" {
			fail(reason, err, vs)
			return
		}
		// One allocation for the node, its unit and the list of it: most nodes are plain.
		run.one = unit{nr: run, item: -1, call: call}
		run.oneList[0] = &run.one
		run.units = run.oneList[:]
	} else {
		var list []any
		var reason string
		if perr := r.guard.call("foreach", func() { list, reason = r.items(node) }); perr != nil {
			reason = perr.Error()
		}
		if reason != "" {
			fail(reason, nil, nil)
			return
		}
		run.units = make([]*unit, len(list))
		for k, item := range list {
			r.scope.Item, r.scope.Index, r.scope.HasItem = item, k, true
			call, reason, err, vs := r.guardedCall(i, node)
			if reason != "" {
				r.scope.Item, r.scope.Index, r.scope.HasItem = nil, 0, false
				fail(i18n.Sprintf(r.opts.Lang, "item %d: %s", k, reason), err, prefix(vs, fmt.Sprintf("/%d", k)))
				return
			}
			run.units[k] = &unit{nr: run, item: k, call: call}
		}
		r.scope.Item, r.scope.Index, r.scope.HasItem = nil, 0, false
	}
	run.left = len(run.units)
	if node.Foreach != nil {
		nr.Items = len(run.units)
		if resumed {
			r.reuseItems(run, prev)
			nr.ItemsDone = len(run.units) - run.left
		}
	}
	nr.Status, nr.Started = dag.NodeRunning, r.now()
	r.startNode(ctx, i, nr.Started)
	r.emit(NodeStarted, i)
	if run.left == 0 {
		// foreach over an empty list, or every item reused: nothing to run.
		r.combine(run)
		r.apply(ctx, run)
		return
	}
	r.release(run)
}

// call resolves node's `with` and input in the current scope and checks them. When they cannot
// be used it returns why, instead of a call.
func (r *runner) call(i int32, node *dag.Node) (*nodes.Call, string, error, []contract.Violation) {
	w, err := node.With.Eval(&r.scope)
	if err != nil {
		return nil, i18n.Sprintf(r.opts.Lang, "with could not be resolved: %v", err), err, nil
	}
	with, ok := w.(map[string]any)
	if !ok {
		return nil, i18n.Sprintf(r.opts.Lang, "with resolved to %s, not an object", jsonKind(r.opts.Lang, w)), nil, nil
	}
	// A literal `with` was checked against the config schema when the DAG loaded; only one
	// holding references can break it now.
	if _, literal := node.With.Literal(); !literal && node.Config != nil {
		if vs := node.Config.Validate(with, r.opts.Lang); len(vs) > 0 {
			return nil, i18n.Sprintf(r.opts.Lang, "with breaks the config schema of %s", node.Type.Name()), nil, vs
		}
	}
	input, err := r.input(i, node)
	if err != nil {
		return nil, i18n.Sprintf(r.opts.Lang, "input could not be resolved: %v", err), err, nil
	}
	if node.InputContract != nil && !(r.hosted != nil && r.hosted.refs && holdsRef(input)) {
		// (An input holding outputs by reference is checked where they are read: Attempt.)
		if vs := node.InputContract.ValidateInput(input, r.opts.Lang); len(vs) > 0 {
			return nil, i18n.Sprintf(r.opts.Lang, "input breaks its contract"), nil, vs
		}
	}
	return &nodes.Call{
		Node:        node.ID,
		With:        with,
		Input:       input,
		Dir:         r.d.Dir,
		OutputLimit: r.opts.OutputLimit,
		Secrets:     r.secrets,
		Lang:        r.opts.Lang,
	}, "", nil, nil
}

// guardedCall is call, with a panic while resolving or checking with and input failing the
// node rather than the process.
func (r *runner) guardedCall(i int32, node *dag.Node) (call *nodes.Call, reason string, err error, vs []contract.Violation) {
	perr := r.guard.call("with or input", func() { call, reason, err, vs = r.call(i, node) })
	if perr != nil {
		return nil, perr.Error(), perr, nil
	}
	return call, reason, err, vs
}

// items evaluates a foreach node's list, or says why it cannot be run over.
func (r *runner) items(node *dag.Node) ([]any, string) {
	v, err := node.Foreach.Eval(&r.scope)
	if err != nil {
		return nil, i18n.Sprintf(r.opts.Lang, "foreach could not be resolved: %v", err)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, i18n.Sprintf(r.opts.Lang, "foreach resolved to %s, not a list", jsonKind(r.opts.Lang, v))
	}
	if len(list) > node.MaxItems {
		return nil, i18n.Sprintf(r.opts.Lang, "foreach has %d items, more than max_items (%d); raise max_items or split the list",
			len(list), node.MaxItems)
	}
	return list, ""
}

// input is node i's input: its `input` template resolved, or else an object of its
// dependencies' validated outputs keyed by id ({} when it has none).
func (r *runner) input(i int32, node *dag.Node) (any, error) {
	if node.Input != nil {
		return node.Input.Eval(&r.scope)
	}
	deps := r.deps[r.depStart[i]:r.depStart[i+1]]
	in := make(map[string]any, len(deps))
	for _, j := range deps {
		// A dependency that failed its contract or did not run hands nothing on.
		if out := r.handed[j]; out != nil {
			in[r.d.Nodes[j].ID] = out
		}
	}
	return in, nil
}

// release queues the first attempts of a node's units, as many as its foreach concurrency
// allows (all of one for a plain node). Items a resume reused are done already.
func (r *runner) release(run *nodeRun) {
	limit := max(r.d.Nodes[run.idx].ForeachConcurrency, 1)
	for run.next < len(run.units) && run.active < limit {
		u := run.units[run.next]
		run.next++
		if !u.done {
			r.runnable = append(r.runnable, u)
			run.active++
		}
	}
}

// reuseItems settles the items of a resumed foreach node that passed or warned in the run
// being resumed, under the same key (so over the same list), with their stored outputs: only
// the other items run again.
func (r *runner) reuseItems(run *nodeRun, prev dag.Reused) {
	node := r.d.Nodes[run.idx]
	for k, u := range run.units {
		p, ok := prev.Items[k]
		if !ok || p.Key != run.key {
			continue
		}
		var out any
		var usable bool
		perr := r.guard.call("output validation", func() {
			var err error
			out, err = contract.ParseJSON(p.Output)
			usable = err == nil && len(node.Effective.Validate(out, r.opts.Lang)) == 0
		})
		obj, _ := out.(map[string]any)
		status := map[any]dag.NodeStatus{"pass": dag.NodePassed, "warn": dag.NodeWarned}[obj["status"]]
		if perr != nil || !usable || status == "" {
			continue // the item runs again, and says what is wrong if it still is
		}
		now := r.now()
		u.done, u.status, u.output, u.raw, u.valid = true, status, out, p.Output, true
		u.started, u.ended = now, now
		run.left--
		r.record(dag.AttemptRecord{
			RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: 1, Item: k,
			Status: status, Reused: true, Key: p.Key, Output: p.Output, Started: now, Ended: now,
		})
	}
}

// job prepares the next attempt of u.
func (r *runner) job(ctx context.Context, u *unit) job {
	node := r.d.Nodes[u.nr.idx]
	u.attempts++
	u.call.Attempt = u.attempts
	attempt := "SEAM_ATTEMPT=1" // the usual case, without building a string
	if u.attempts > 1 {
		attempt = "SEAM_ATTEMPT=" + strconv.Itoa(u.attempts)
	}
	u.call.Env = append(u.envBuf[:0], attempt)
	if len(u.call.Violations) > 0 {
		b, _ := json.Marshal(u.call.Violations) // violations are strings only
		u.call.Env = append(u.call.Env, "SEAM_VIOLATIONS="+string(b))
	}
	actx, traceEnv := r.startAttempt(ctx, u)
	u.call.Env = append(u.call.Env, traceEnv...)
	return job{ctx: actx, u: u, node: node, call: u.call, timeout: node.Timeout, guard: r.guard}
}

// isPure reports whether u's node is of a pure type (nodes.Pure): quick, and safe to run
// on the scheduler's goroutine.
func (r *runner) isPure(u *unit) bool {
	return r.pure(u.nr.idx)
}

// work runs one attempt on a worker goroutine: the node's Run under its timeout, then the
// output's parsing and validation. ctx is the run's: when it is done, the attempt was canceled.
func work(ctx context.Context, j job, lang i18n.Lang) attempt {
	a := attempt{u: j.u, started: time.Now()}
	nctx, cancel := j.ctx, context.CancelFunc(func() {})
	if j.timeout > 0 {
		nctx, cancel = context.WithTimeout(j.ctx, j.timeout)
	}
	res, err := runType(nctx, j)
	cancel()
	if secrets := j.call.Secrets; len(secrets) > 0 {
		// Whatever a type does itself: const and transform echo what they were given.
		perr := j.guard.call("secret masking", func() {
			err = nodes.MaskError(err, secrets)
			if res != nil {
				res.Log = nodes.MaskString(res.Log, secrets)
				res.Output = maskOutput(res.Output, secrets)
			}
		})
		if perr != nil {
			res, err = nil, perr // nothing unmasked may go on
		}
	}
	if res != nil {
		a.log = res.Log
	}
	switch {
	case err != nil && ctx.Err() != nil:
		a.canceled, a.err = true, err
	case err != nil && errors.Is(nctx.Err(), context.DeadlineExceeded):
		a.err, a.reason, a.timedOut = err, i18n.Sprintf(lang, "timed out after %s", j.timeout), true
	case err != nil:
		a.err, a.reason = err, err.Error()
	case res == nil:
		a.reason = i18n.Sprintf(lang, "the node returned no result")
	case int64(len(res.Output)) > j.call.OutputLimit:
		// Types bound what they read; this holds the limit for every type all the same.
		a.err = &nodes.OutputLimitError{Limit: j.call.OutputLimit, Lang: j.call.Lang}
		a.reason = a.err.Error()
	default:
		a.raw = res.Output
		if perr := j.guard.call("output validation", func() { a.judge(res, j.node.Effective, lang) }); perr != nil {
			a.valid, a.violations = false, nil
			a.err, a.reason = perr, perr.Error()
		}
	}
	a.ended = time.Now()
	return a
}

// runType calls the node type's Run, turning a panic into an error so that one broken node
// type fails its node rather than the whole process.
func runType(ctx context.Context, j job) (res *nodes.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, j.guard.recovered("node type "+j.node.Type.Name(), p)
		}
	}()
	return j.node.Type.Run(ctx, j.call)
}

// judge parses res's output and validates it against the effective contract. An output that
// does not parse, or holds a number beyond what validation compares, is one violation.
func (a *attempt) judge(res *nodes.Result, effective *contract.Schema, lang i18n.Lang) {
	out := res.Output
	v, err := contract.ParseJSON(out)
	if err != nil {
		nj := contract.ParseViolation(err, lang)
		if nj.Value == "" {
			// Quoted, since a violation's value is JSON.
			q, _ := json.Marshal(excerpt(out))
			nj.Value = string(q)
			if res.NotJSONHint != "" {
				nj.Message += "; " + res.NotJSONHint
			}
		}
		a.violations = []contract.Violation{nj}
		return
	}
	a.output = v
	a.violations = effective.Validate(v, lang)
	a.valid = len(a.violations) == 0
}

// excerpt is the start of b for a violation's value.
func excerpt(b []byte) string {
	const limit = 120
	if len(b) <= limit {
		return string(b)
	}
	return string(b[:limit]) + "…"
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
		node := r.d.Nodes[u.nr.idx]
		status, final, delay := r.decide(node, u, a)
		r.endAttempt(a, status)
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
			r.record(rec)
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
		r.record(rec)
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
	// An output is handed on once committed, unless it comes from a pure node: a resume
	// computes that again, so a crash loses nothing handed on, and a chain of pure nodes does
	// not wait for a commit at every edge.
	for _, run := range finished {
		if r.pure(run.idx) || r.opts.Recorder == nil {
			r.apply(ctx, run)
		} else {
			r.uncommitted = append(r.uncommitted, run)
		}
	}
	clear(finished)
	r.finished = finished
	r.commit(ctx)
}

// commit starts committing the attempts recorded so far on a goroutine of its own, unless a
// commit is under way: then they go with the next one. Meanwhile the scheduler goes on
// starting and collecting attempts, so a commit idles no worker, and attempts that finish
// during a commit share the next (group commit). Nodes waiting for it are handed on by
// committed.
func (r *runner) commit(ctx context.Context) {
	if r.inflight != nil || r.opts.Recorder == nil {
		return
	}
	if r.host != nil {
		// A host's recorder writes on the scheduler's goroutine, each write a step in the
		// host's history: at once for the nodes waiting to be handed on, while the attempts
		// of pure nodes gather until then, until maxPending, or until the scheduler waits
		// for the host (runHosted).
		if len(r.uncommitted) > 0 || len(r.records) >= maxPending {
			r.commitNow(ctx)
		}
		return
	}
	if len(r.uncommitted) == 0 && len(r.records) < maxPending {
		// Only pure nodes' attempts wait: nothing needs them soon, so they gather for a
		// while, but a run watched in the store must not look stuck behind a long node.
		if len(r.records) > 0 && !r.lingering {
			r.lingering = true
			time.AfterFunc(lingerDelay, func() {
				select {
				case r.linger <- struct{}{}:
				case <-r.quit:
				}
			})
		}
		return
	}
	r.commitNow(ctx)
}

// lingerDelay bounds how long the attempts of pure nodes wait for a commit.
const lingerDelay = 50 * time.Millisecond

// commitNow starts committing the attempts recorded so far, unless a commit is under way.
func (r *runner) commitNow(ctx context.Context) {
	if r.inflight != nil || len(r.records) == 0 && len(r.uncommitted) == 0 {
		return
	}
	c := &inflight{records: r.records, nodes: r.uncommitted}
	r.lastBatch = len(r.records)
	r.records, r.uncommitted = nil, nil
	r.inflight = c
	rec := r.opts.Recorder
	g := r.guard
	// The records must land even when the run is being canceled.
	record := func() error {
		var err error
		perr := g.call("run store", func() { err = rec.RecordAttempts(context.WithoutCancel(ctx), c.records) })
		return cmp.Or(perr, err)
	}
	if r.host != nil || len(c.nodes) > 0 && r.running == 0 && len(r.runnable) == 0 && len(r.ready) == 0 {
		// Nodes wait for this commit and nothing could run meanwhile (a chain): committing
		// here saves starting a goroutine and two hand-offs, which a chain of nodes pays at
		// every edge. A commit of pure nodes' attempts alone holds nothing up: it goes on
		// beside the run.
		r.committed(ctx, record())
		return
	}
	go func() { r.commitDone <- record() }()
}

// committed hands on the nodes whose attempts the commit under way held, and starts the next.
func (r *runner) committed(ctx context.Context, err error) {
	c := r.inflight
	r.inflight = nil
	if err != nil && r.storeErr == nil {
		r.storeErr = err
		r.cancel()
	}
	for _, run := range c.nodes {
		r.apply(ctx, run)
	}
	r.commit(ctx)
}

// inflight is a commit under way: its attempts, and the nodes to hand on once it is done.
type inflight struct {
	records []dag.AttemptRecord
	nodes   []*nodeRun
}

// decide classifies attempt a of u: its status, whether it is final, and when not, how long
// to wait before the next attempt. Repairs (on_invalid.repair) come first for a broken
// contract, and run at once; retries follow the node's retry policy with its backoff.
func (r *runner) decide(node *dag.Node, u *unit, a attempt) (dag.NodeStatus, bool, time.Duration) {
	var kind string
	switch {
	case a.canceled:
		return dag.NodeCanceled, true, 0
	case a.timedOut:
		kind = "timeout"
	case a.reason != "":
		kind = "error"
	case !a.valid:
		kind = "contract"
		if u.repairs < node.Repair && !r.stopped {
			u.repairs++
			return dag.NodeFailed, false, 0
		}
	default:
		obj, _ := a.output.(map[string]any) // the standard contract makes it an object
		switch obj["status"] {
		case "pass":
			return dag.NodePassed, true, 0
		case "warn":
			return dag.NodeWarned, true, 0
		}
		return dag.NodeFailed, true, 0 // "fail": a node's own verdict is not retried
	}
	if r.stopped || u.retries+1 >= node.Retry.Attempts || !slices.Contains(node.Retry.On, kind) {
		return dag.NodeFailed, true, 0
	}
	u.retries++
	return dag.NodeFailed, false, backoff(node.Retry, u.retries, r.jitter())
}

// retryAfter queues u's next attempt once delay has passed.
func (r *runner) retryAfter(u *unit, delay time.Duration) {
	if delay <= 0 {
		r.runnable = append(r.runnable, u)
		return
	}
	if r.host != nil {
		r.hosted.after(u, delay)
		return
	}
	r.timers[u] = time.AfterFunc(delay, func() {
		select {
		case r.due <- u:
		case <-r.quit:
		}
	})
}

// combine builds a foreach node's output once every item has a final attempt: the standard
// output with data.items in input order (a failed item as a failing standard output that
// says why) and the worst of the items' statuses.
func (r *runner) combine(run *nodeRun) {
	node := r.d.Nodes[run.idx]
	items := make([]any, len(run.units))
	counts := map[dag.NodeStatus]int{}
	status := "pass"
	attempts := 0
	var vs []contract.Violation
	var first *unit // the first failed item, for the node's reason
	for k, u := range run.units {
		attempts = max(attempts, u.attempts)
		counts[u.status]++
		switch {
		case u.valid:
			items[k] = u.output
		default:
			reason := u.reason
			if reason == "" {
				reason = i18n.Sprintf(r.opts.Lang, "output breaks its contract")
			}
			items[k] = map[string]any{"status": "fail", "summary": reason}
			vs = append(vs, prefix(u.violations, fmt.Sprintf("/data/items/%d", k))...)
		}
		switch u.status {
		case dag.NodeFailed, dag.NodeCanceled:
			status = "fail"
			if first == nil {
				first = u
			}
		case dag.NodeWarned:
			if status == "pass" {
				status = "warn"
			}
		}
	}
	lang := r.opts.Lang
	summary := i18n.Plural(lang, len(run.units), "%d item", "%d items", len(run.units))
	if len(run.units) > 0 {
		summary += i18n.Sprintf(lang, ": %d passed", counts[dag.NodePassed])
		if n := counts[dag.NodeWarned]; n > 0 {
			summary += i18n.Sprintf(lang, ", %d warned", n)
		}
		if n := counts[dag.NodeFailed] + counts[dag.NodeCanceled]; n > 0 {
			summary += i18n.Sprintf(lang, ", %d failed", n)
		}
	}
	out := map[string]any{"status": status, "summary": summary, "data": map[string]any{"items": items}}
	raw, err := json.Marshal(out)
	if err != nil {
		// Items are decoded JSON, so this cannot happen; fail loudly rather than hand on nothing.
		panic(fmt.Sprintf("encode foreach output of %s: %v", node.ID, err))
	}
	c := &unit{nr: run, item: -1, attempts: attempts, done: true, output: out, raw: raw, valid: true,
		violations: vs, status: dag.NodeStatus(map[string]dag.NodeStatus{"pass": dag.NodePassed, "warn": dag.NodeWarned, "fail": dag.NodeFailed}[status])}
	if first != nil {
		// The item's attempts, not the node's: each item is tried on its own.
		why := first.reason
		if obj, ok := first.output.(map[string]any); ok && why == "" && first.valid {
			why, _ = obj["summary"].(string) // the item's own verdict: its status was fail
		}
		if why == "" {
			why = i18n.Sprintf(lang, "output breaks its contract")
		}
		c.reason = i18n.Sprintf(lang, "item %d failed after %d attempts: %s", first.item, first.attempts, why)
		if first.attempts == 1 {
			c.reason = i18n.Sprintf(lang, "item %d failed after 1 attempt: %s", first.item, why)
		}
		if first.status == dag.NodeCanceled {
			c.reason = i18n.Sprintf(lang, "item %d was canceled", first.item)
		}
	}
	if len(run.units) > 0 {
		c.started, c.ended = run.units[0].started, r.now()
	} else {
		c.started, c.ended = r.now(), r.now()
	}
	r.record(dag.AttemptRecord{
		RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: attempts, Item: -1,
		Status: c.status, Final: true, Key: run.key, Output: raw, Violations: vs, Reason: c.reason,
		Started: c.started, Ended: c.ended,
	})
	run.units = append(run.units, c)
}

// prefix returns vs with p put before each pointer.
func prefix(vs []contract.Violation, p string) []contract.Violation {
	if len(vs) == 0 {
		return nil
	}
	out := make([]contract.Violation, len(vs))
	for i, v := range vs {
		v.Pointer = p + v.Pointer
		out[i] = v
	}
	return out
}

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
	case r.storeErr != nil && u.status != dag.NodeCanceled:
		// Not recorded, so not handed on: a crash now could lose what a dependent had seen.
		r.settle(i, dag.NodeFailed, i18n.Sprintf(r.opts.Lang, "the attempt could not be recorded: %v", r.storeErr))
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

// key identifies what node i would run: its definition, the params it references and the
// outputs handed to it. A resume reuses an output only under the same key.
func (r *runner) key(i int32) string {
	node := r.d.Nodes[i]
	h := sha256.New()
	h.Write([]byte(node.Hash))
	params := func(refs []dag.Ref) {
		for _, ref := range refs {
			switch ref.Root {
			case "params":
				h.Write([]byte(strings.Join(ref.Path, ".")))
				h.Write([]byte{0})
				// A param the node does not reference does not change what it runs.
				v, _ := contract.Lookup(r.scope.Params, ref.Path)
				b, _ := json.Marshal(v) // decoded JSON always encodes
				h.Write(b)
			case "env":
				// A new token or endpoint changes what the node does; its hash, not the
				// value, goes into the key, which the store keeps.
				sum := sha256.Sum256([]byte(r.scope.Env[ref.Path[0]]))
				h.Write([]byte("env." + ref.Path[0]))
				h.Write(sum[:])
			}
		}
	}
	for _, t := range []*dag.Template{node.With, node.Input, node.Foreach} {
		if t != nil {
			params(t.Refs())
		}
	}
	if node.When != nil {
		params(node.When.Refs())
	}
	for _, j := range r.deps[r.depStart[i]:r.depStart[i+1]] {
		h.Write([]byte(r.d.Nodes[j].ID))
		h.Write([]byte{0})
		h.Write(r.handedHash[j][:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// reuse settles node i with an earlier run's output, when that output still parses (and,
// for a plain node, still meets its contract). It reports whether it did.
func (r *runner) reuse(ctx context.Context, i int32, prev dag.Reused) bool {
	node := r.d.Nodes[i]
	var out any
	var usable bool
	perr := r.guard.call("output validation", func() {
		var err error
		out, err = contract.ParseJSON(prev.Output)
		usable = err == nil && (node.Foreach != nil || len(node.Effective.Validate(out, r.opts.Lang)) == 0)
	})
	if perr != nil || !usable {
		return false // the node runs again, and says what is wrong if it still is
	}
	obj, _ := out.(map[string]any)
	status := map[any]dag.NodeStatus{"pass": dag.NodePassed, "warn": dag.NodeWarned}[obj["status"]]
	if status == "" {
		return false // only passed outputs are reused
	}
	now := r.now()
	nr := &r.res.Nodes[i]
	nr.Started, nr.Ended, nr.Reused, nr.Output = now, now, true, out
	nr.Summary, _ = obj["summary"].(string)
	r.record(dag.AttemptRecord{
		RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: 1, Item: -1,
		Status: status, Final: true, Reused: true, Key: prev.Key, Output: prev.Output,
		Started: now, Ended: now,
	})
	// The output is in the store already, from the run being resumed.
	r.hand(i, out, prev.Output, "")
	r.settle(i, status, "")
	return true
}

// StartDelay is how long an attempt of an impure node runs before its start is recorded
// (an attempt with status running), on every engine: a run watched in the store shows a
// node running within about that, and an attempt that ends sooner, as most do, costs the
// store no row for its start.
const StartDelay = 50 * time.Millisecond

// pendingStart is an attempt handed to a worker at since, whose start is not recorded yet.
type pendingStart struct {
	u     *unit
	since time.Time
}

// noteStart keeps the attempt of u just handed to a worker, when a recorder records the run
// and u's node is impure: a pure node's attempt takes microseconds.
func (r *runner) noteStart(u *unit) {
	if r.opts.Recorder == nil || r.pure(u.nr.idx) {
		return
	}
	u.since = time.Now()
	r.starts = append(r.starts, pendingStart{u, u.since})
	if !r.starting {
		r.startAfter(StartDelay)
	}
}

// startAfter makes the scheduler look at the attempts started once d has passed.
func (r *runner) startAfter(d time.Duration) {
	r.starting = true
	time.AfterFunc(d, func() {
		select {
		case r.startDue <- struct{}{}:
		case <-r.quit:
		}
	})
}

// recordStarts records running the attempts under way for StartDelay or more, and commits
// them: nothing waits for that commit, but a watcher of the store does.
func (r *runner) recordStarts(ctx context.Context) {
	now := time.Now()
	left, recorded := r.starts[:0], false
	for _, p := range r.starts {
		u := p.u
		switch {
		case u.since != p.since: // it came back, and maybe went out again (noted anew)
		case now.Sub(p.since) < StartDelay:
			left = append(left, p)
		default:
			node := r.d.Nodes[u.nr.idx]
			r.record(dag.AttemptRecord{
				RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: u.attempts, Item: u.item,
				Status: dag.NodeRunning, Key: u.nr.key, Started: p.since,
			})
			recorded = true
		}
	}
	clear(r.starts[len(left):])
	r.starts = left
	if len(left) > 0 {
		// The oldest comes first: noted in the order they started.
		r.startAfter(StartDelay - now.Sub(left[0].since))
	}
	if recorded {
		r.commitNow(ctx)
	}
}

// maxPending bounds the attempts of pure nodes waiting for a commit.
const maxPending = 1024

// record keeps an attempt for the recorder, if there is one.
func (r *runner) record(a dag.AttemptRecord) {
	if r.opts.Recorder != nil {
		if r.records == nil {
			// Batches come out alike: the last one's size saves growing this one.
			r.records = make([]dag.AttemptRecord, 0, r.lastBatch)
		}
		r.records = append(r.records, a)
	}
}

// flush gives the recorder the attempts not recorded yet. A recorder that fails stops the
// run: nothing more can be handed on safely.
func (r *runner) flush(ctx context.Context) {
	if len(r.records) == 0 {
		return
	}
	if r.opts.Recorder != nil && r.storeErr == nil {
		// The records must land even when the run is being canceled.
		var err error
		perr := r.guard.call("run store", func() { err = r.opts.Recorder.RecordAttempts(context.WithoutCancel(ctx), r.records) })
		if err = cmp.Or(perr, err); err != nil {
			r.storeErr = err
			r.cancel()
		}
	}
	clear(r.records)
	r.records = r.records[:0]
}

// settle gives node i its final status, tells the observer and decides, for each dependent
// whose dependencies have now all finished, whether it runs or is skipped. Skips cascade
// through a work list rather than recursion, so a long chain cannot exhaust the stack.
func (r *runner) settle(i int32, status dag.NodeStatus, reason string) {
	r.settled = append(r.settled[:0], i)
	r.mark(i, status, reason)
	for len(r.settled) > 0 {
		i := r.settled[len(r.settled)-1]
		r.settled = r.settled[:len(r.settled)-1]
		for _, j := range r.dependents[r.dtStart[i]:r.dtStart[i+1]] {
			r.waiting[j]--
			if r.waiting[j] > 0 || r.stopped {
				continue
			}
			if skip := r.blocked(j); skip != "" {
				r.mark(j, dag.NodeSkipped, skip)
				r.settled = append(r.settled, j)
				continue
			}
			r.ready = append(r.ready, j)
		}
	}
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
	r.endNode(i)
	r.emit(NodeFinished, i)
}

// blocked says why node j, whose dependencies have all finished, must not run given its
// run_if, or "" when it may run.
func (r *runner) blocked(j int32) string {
	deps := r.deps[r.depStart[j]:r.depStart[j+1]]
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
		// Name a failed dependency in preference to one that was merely skipped.
		var first int32 = -1
		for _, k := range deps {
			switch s := r.res.Nodes[k].Status; {
			case s == dag.NodeFailed:
				return i18n.Sprintf(r.opts.Lang, "upstream %s failed", r.d.Nodes[k].ID)
			case !passedOrWarned(s) && first < 0:
				first = k
			}
		}
		if first >= 0 {
			return i18n.Sprintf(r.opts.Lang, "upstream %s %s", r.d.Nodes[first].ID, r.res.Nodes[first].Status.Text(r.opts.Lang))
		}
		return ""
	}
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
	if r.storeErr != nil {
		res.Status = dag.RunFailed
		res.Error = i18n.Sprintf(r.opts.Lang, "run store: %v", r.storeErr)
	} else if errors.Is(context.Cause(ctx), errRunTimeout) {
		res.Status = dag.RunFailed
		res.Error = r.canceled(ctx)
	} else if res.Status != dag.RunFailed && ctx.Err() != nil {
		res.Status = dag.RunCanceled
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

// jsonKind names the JSON type of a decoded value, for messages in lang.
func jsonKind(lang i18n.Lang, v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return i18n.Format(lang, "an object")
	case []any:
		return i18n.Format(lang, "an array")
	case string:
		return i18n.Format(lang, "a string")
	case bool:
		return i18n.Format(lang, "a boolean")
	default:
		return i18n.Format(lang, "a number")
	}
}

// maskOutput masks secrets in an output: in its decoded values when it is JSON, since JSON
// can escape a secret in more ways than a text search finds (\/, \u00e9), else in its text.
func maskOutput(out []byte, secrets []string) []byte {
	v, err := contract.ParseJSON(out)
	if err != nil {
		return []byte(nodes.MaskString(string(out), secrets))
	}
	b, err := json.Marshal(nodes.MaskValue(v, secrets))
	if err != nil {
		return []byte(nodes.MaskString(string(out), secrets))
	}
	return b
}

// passedOrWarned reports whether a node in state s lets run_if: success dependents run.
func passedOrWarned(s dag.NodeStatus) bool { return s == dag.NodePassed || s == dag.NodeWarned }
