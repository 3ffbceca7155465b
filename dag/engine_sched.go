package dag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/nodes"
)

// runner is the state of one run. Everything in it belongs to the scheduler goroutine (the one
// that called Run): templates are evaluated and Scope.Outputs is written there only, because
// Scope is not safe for concurrent use. Workers receive a job and send back an attempt.
type runner struct {
	d     *DAG
	opts  RunOptions
	res   *RunResult
	scope Scope

	// The graph in index form (positions in d.Nodes), flattened so that a run over a large
	// DAG allocates a few slices rather than a few per node: the dependencies of node i are
	// deps[depStart[i]:depStart[i+1]], its dependents dependents[dtStart[i]:dtStart[i+1]].
	deps, depStart      []int32
	dependents, dtStart []int32
	waiting             []int32 // dependencies of each node not finished yet
	ready               []int32 // FIFO of nodes whose dependencies finished and that may run
	settled             []int32 // work list of nodes that just reached a final status
	// handed holds, by node index, the outputs handed downstream (nil: none), the same values
	// as scope.Outputs: the default input reads them without hashing ids.
	handed               []any
	running, concurrency int
	// stopped is set once the run's context is done: from then on no node is started and
	// nodes not started are canceled rather than skipped.
	stopped bool
}

// job is one node attempt handed to a worker.
type job struct {
	idx     int32
	node    *Node
	call    *nodes.Call
	timeout time.Duration
}

// attempt is what a worker hands back: the attempt's outcome, its output already parsed and
// validated (schemas are safe for concurrent use, so that work is spread over the workers).
type attempt struct {
	idx        int32
	started    time.Time
	ended      time.Time
	output     any
	valid      bool // output parsed and met the effective contract
	violations []contract.Violation
	log        string
	err        error
	reason     string // set when the attempt failed before its output could be judged
	canceled   bool
}

func newRunner(d *DAG, opts RunOptions, params map[string]any, now time.Time) (*runner, error) {
	n := len(d.Nodes)
	r := &runner{
		d:    d,
		opts: opts,
		res: &RunResult{
			ID:      opts.RunID,
			DAG:     d.Name,
			File:    d.File,
			Status:  RunRunning,
			Started: now,
			Nodes:   make([]NodeResult, n),
		},
		scope: Scope{
			Params:  params,
			Outputs: make(map[string]any, n),
			Run:     RunInfo{ID: opts.RunID, Name: d.Name},
		},
		depStart:    make([]int32, n+1),
		dtStart:     make([]int32, n+2),
		waiting:     make([]int32, n),
		handed:      make([]any, n),
		concurrency: max(d.Concurrency, 1),
	}
	index := make(map[string]int32, n)
	for i, node := range d.Nodes {
		index[node.ID] = int32(i)
		r.res.Nodes[i] = NodeResult{ID: node.ID, Type: node.Type.Name(), Status: NodePending}
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
	workers := min(r.concurrency, len(r.d.Nodes))
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
	done := ctx.Done()
	for {
		r.stopped = ctx.Err() != nil
		// The running count is the semaphore: a job is sent only while a worker is free.
		for r.running < r.concurrency && len(r.ready) > 0 && !r.stopped {
			i := r.ready[0]
			r.ready = r.ready[1:]
			if j, ok := r.prepare(i); ok {
				r.running++
				jobs <- j
			}
		}
		if r.running == 0 && (len(r.ready) == 0 || r.stopped) {
			break
		}
		select {
		case a := <-results:
			r.running--
			// An attempt ended by the cancel can arrive before done is seen: its dependents
			// must then be canceled with the run, not skipped.
			r.stopped = ctx.Err() != nil
			r.finish(a)
		case <-done:
			// Running nodes see their contexts cancelled; keep collecting their attempts.
			done = nil
		}
	}
	close(jobs)
	wg.Wait()

	for i := range r.res.Nodes {
		if !r.res.Nodes[i].Status.Done() {
			r.mark(int32(i), NodeCanceled, "the run was canceled")
		}
	}
	r.conclude(ctx)
}

// prepare resolves node i's condition, configuration and input. It returns the job to run,
// or false when the node was settled without running (skipped or failed).
func (r *runner) prepare(i int32) (job, bool) {
	node := r.d.Nodes[i]
	nr := &r.res.Nodes[i]
	fail := func(reason string, err error, vs []contract.Violation) (job, bool) {
		nr.Started = time.Now()
		if err != nil {
			nr.Error = err.Error()
		}
		nr.Violations = vs
		r.settle(i, NodeFailed, reason)
		return job{}, false
	}
	if node.When != nil {
		ok, err := node.When.Bool(&r.scope)
		if err != nil {
			return fail("when could not be evaluated: "+err.Error(), err, nil)
		}
		if !ok {
			r.settle(i, NodeSkipped, "when was false")
			return job{}, false
		}
	}
	if node.Foreach != nil {
		return fail("foreach is not supported yet", nil, nil)
	}
	w, err := node.With.Eval(&r.scope)
	if err != nil {
		return fail("with could not be resolved: "+err.Error(), err, nil)
	}
	with, ok := w.(map[string]any)
	if !ok {
		return fail(fmt.Sprintf("with resolved to %s, not an object", jsonKind(w)), nil, nil)
	}
	// A literal `with` was checked against the config schema when the DAG loaded; only one
	// holding references can break it now.
	if _, literal := node.With.Literal(); !literal && node.Config != nil {
		if vs := node.Config.Validate(with, r.opts.Lang); len(vs) > 0 {
			return fail("with breaks the config schema of "+node.Type.Name(), nil, vs)
		}
	}
	input, err := r.input(i, node)
	if err != nil {
		return fail("input could not be resolved: "+err.Error(), err, nil)
	}
	if node.InputContract != nil {
		if vs := node.InputContract.Validate(input, r.opts.Lang); len(vs) > 0 {
			return fail("input breaks its contract", nil, vs)
		}
	}
	nr.Status, nr.Started = NodeRunning, time.Now()
	r.emit(NodeStarted, i)
	return job{
		idx:     i,
		node:    node,
		timeout: node.Timeout, // the loader applied defaults.timeout
		call: &nodes.Call{
			Node:        node.ID,
			With:        with,
			Input:       input,
			Dir:         r.d.Dir,
			OutputLimit: r.opts.OutputLimit,
		},
	}, true
}

// input is node i's input: its `input` template resolved, or else an object of its
// dependencies' validated outputs keyed by id ({} when it has none).
func (r *runner) input(i int32, node *Node) (any, error) {
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

// work runs one attempt on a worker goroutine: the node's Run under its timeout, then the
// output's parsing and validation.
func work(ctx context.Context, j job, lang string) attempt {
	a := attempt{idx: j.idx, started: time.Now()}
	nctx, cancel := ctx, context.CancelFunc(func() {})
	if j.timeout > 0 {
		nctx, cancel = context.WithTimeout(ctx, j.timeout)
	}
	res, err := runType(nctx, j)
	cancel()
	if res != nil {
		a.log = res.Log
	}
	switch {
	case err != nil && ctx.Err() != nil:
		a.canceled, a.err = true, err
	case err != nil && errors.Is(nctx.Err(), context.DeadlineExceeded):
		a.err, a.reason = err, fmt.Sprintf("timed out after %s", j.timeout)
	case err != nil:
		a.err, a.reason = err, err.Error()
	case res == nil:
		a.reason = "the node returned no result"
	case int64(len(res.Output)) > j.call.OutputLimit:
		// Types bound what they read; this holds the limit for every type all the same.
		a.err = &nodes.OutputLimitError{Limit: j.call.OutputLimit}
		a.reason = a.err.Error()
	default:
		a.judge(res.Output, j.node.Effective, lang)
	}
	a.ended = time.Now()
	return a
}

// runType calls the node type's Run, turning a panic into an error so that one broken node
// type fails its node rather than the whole process.
func runType(ctx context.Context, j job) (res *nodes.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("node type %s panicked: %v", j.node.Type.Name(), p)
		}
	}()
	return j.node.Type.Run(ctx, j.call)
}

// judge parses out and validates it against the effective contract.
func (a *attempt) judge(out []byte, effective *contract.Schema, lang string) {
	v, err := contract.ParseJSON(out)
	if err != nil {
		nj := contract.NotJSON(lang)
		if nj.Value == "" {
			// Quoted, since a violation's value is JSON.
			q, _ := json.Marshal(excerpt(out))
			nj.Value = string(q)
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

// finish records a worker's attempt and hands a valid output downstream.
func (r *runner) finish(a attempt) {
	nr := &r.res.Nodes[a.idx]
	nr.Started, nr.Ended = a.started, a.ended
	nr.Log = a.log
	if a.err != nil {
		nr.Error = a.err.Error()
	}
	nr.Output = a.output
	nr.Violations = a.violations
	switch {
	case a.canceled:
		r.settle(a.idx, NodeCanceled, "the run was canceled")
	case a.reason != "":
		r.settle(a.idx, NodeFailed, a.reason)
	case !a.valid:
		r.settle(a.idx, NodeFailed, "output breaks its contract")
	default:
		// Only a validated output crosses the edge, and only now.
		r.scope.Outputs[r.d.Nodes[a.idx].ID] = a.output
		r.handed[a.idx] = a.output
		obj, _ := a.output.(map[string]any) // the standard contract makes it an object
		summary, _ := obj["summary"].(string)
		nr.Summary = summary
		switch obj["status"] {
		case "pass":
			r.settle(a.idx, NodePassed, "")
		case "warn":
			r.settle(a.idx, NodeWarned, "")
		default: // "fail": the contract allows no other value
			r.settle(a.idx, NodeFailed, summary)
		}
	}
}

// settle gives node i its final status, tells the observer and decides, for each dependent
// whose dependencies have now all finished, whether it runs or is skipped. Skips cascade
// through a work list rather than recursion, so a long chain cannot exhaust the stack.
func (r *runner) settle(i int32, status NodeStatus, reason string) {
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
				r.mark(j, NodeSkipped, skip)
				r.settled = append(r.settled, j)
				continue
			}
			r.ready = append(r.ready, j)
		}
	}
}

// mark records node i's final status and tells the observer.
func (r *runner) mark(i int32, status NodeStatus, reason string) {
	nr := &r.res.Nodes[i]
	nr.Status, nr.Reason = status, reason
	if nr.Ended.IsZero() {
		nr.Ended = time.Now()
	}
	if !nr.Started.IsZero() {
		nr.Elapsed = nr.Ended.Sub(nr.Started)
	}
	r.emit(NodeFinished, i)
}

// blocked says why node j, whose dependencies have all finished, must not run given its
// run_if, or "" when it may run.
func (r *runner) blocked(j int32) string {
	deps := r.deps[r.depStart[j]:r.depStart[j+1]]
	switch r.d.Nodes[j].RunIf {
	case RunIfAlways:
		return ""
	case RunIfFailure:
		for _, k := range deps {
			if r.res.Nodes[k].Status == NodeFailed {
				return ""
			}
		}
		return "no upstream node failed"
	default:
		// Name a failed dependency in preference to one that was merely skipped.
		var first int32 = -1
		for _, k := range deps {
			switch s := r.res.Nodes[k].Status; {
			case s == NodeFailed:
				return "upstream " + r.d.Nodes[k].ID + " failed"
			case !s.ok() && first < 0:
				first = k
			}
		}
		if first >= 0 {
			return fmt.Sprintf("upstream %s %s", r.d.Nodes[first].ID, r.res.Nodes[first].Status)
		}
		return ""
	}
}

func (r *runner) emit(kind EventKind, i int32) {
	if r.opts.Observer != nil {
		r.opts.Observer.Event(Event{Kind: kind, RunID: r.res.ID, Node: r.res.Nodes[i]})
	}
}

// conclude sets the run's status and, when it succeeded or warned, evaluates its outputs.
func (r *runner) conclude(ctx context.Context) {
	res := r.res
	res.Status = RunSuccess
	for i := range res.Nodes {
		switch res.Nodes[i].Status {
		case NodeFailed:
			res.Status = RunFailed
		case NodeWarned:
			if res.Status == RunSuccess {
				res.Status = RunWarn
			}
		}
	}
	if res.Status != RunFailed && ctx.Err() != nil {
		res.Status = RunCanceled
	}
	if res.Status == RunSuccess || res.Status == RunWarn {
		for _, o := range r.d.Outputs {
			v, err := o.Value.Eval(&r.scope)
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
	res.Ended = time.Now()
	res.Elapsed = res.Ended.Sub(res.Started)
}

// jsonKind names the JSON type of a decoded value, for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}
