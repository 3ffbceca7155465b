package temporal

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/nodes"
)

// Engine runs DAGs on Temporal (engine.Engine): it bundles the DAG file with the files it
// reads, starts the run workflow on the task queue for `seam worker`s to run, tells the
// observer what the workflow's progress query says, and returns the run's result. The run is
// recorded by the workers, in their store.
type Engine struct {
	Client    client.Client
	TaskQueue string // "" is DefaultTaskQueue
	// MaxFileSize caps each file the bundle ships that the DAG's load did not read (those its
	// exec nodes run) and the DAG file read again to see it unchanged; 0 is
	// userfile.DefaultMaxSize.
	MaxFileSize int64
	// Poll is how often progress is asked for; 0 is 250ms.
	Poll time.Duration
	// Detach makes Run return once the run has started, as running: the workers go on.
	Detach bool
}

var _ engine.Engine = (*Engine)(nil)

// Run runs d on Temporal. Cancelling ctx cancels the workflow; Run then returns the canceled
// run once the workers have recorded it.
func (e *Engine) Run(ctx context.Context, d *dag.DAG, opts engine.RunOptions) (*dag.RunResult, error) {
	if opts.RunID == "" {
		opts.RunID = engine.NewRunID(time.Now())
	}
	wr, err := e.Start(ctx, d, opts)
	if err != nil {
		return nil, err
	}
	if opts.Started != nil {
		opts.Started() // a worker records it as it takes it
	}
	if e.Detach {
		return &dag.RunResult{ID: opts.RunID, DAG: d.Name, File: d.File, Status: dag.RunRunning, Started: time.Now()}, nil
	}
	return e.Wait(ctx, wr, d, opts)
}

// Cancel cancels run runID on Temporal: its workflow records it canceled.
func (e *Engine) Cancel(ctx context.Context, runID string) error {
	if err := e.Client.CancelWorkflow(ctx, WorkflowID(runID), ""); err != nil {
		return fmt.Errorf("cancel run %s on Temporal: %w", runID, err)
	}
	return nil
}

var _ engine.Canceler = (*Engine)(nil)

// CancelPending cancels run runID on Temporal, as Cancel does, when a worker has taken it.
// When none has yet, no worker records it until one takes it, maybe never: it ends the
// workflow at once (terminated, so that no worker takes it after) and returns the run as it
// started, for the caller to record canceled. found is false when Temporal has no such run
// running.
func (e *Engine) CancelPending(ctx context.Context, runID string) (run *dag.RunRecord, found bool, err error) {
	id := WorkflowID(runID)
	desc, err := e.Client.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("cancel run %s on Temporal: %w", runID, err)
	case desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return nil, false, nil
	}
	history := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	in, started, taken, err := e.untaken(ctx, id, history)
	if err != nil {
		return nil, true, fmt.Errorf("cancel run %s on Temporal: %w", runID, err)
	}
	if taken {
		return nil, true, e.Cancel(ctx, runID)
	}
	if err := e.Client.TerminateWorkflow(ctx, id, history, "canceled before a worker took it"); err != nil {
		return nil, true, fmt.Errorf("cancel run %s on Temporal: %w", runID, err)
	}
	run = &dag.RunRecord{ID: runID, File: in.File, Started: started, Parent: in.Parent, ParentNode: in.ParentNode, By: in.By}
	if in.Bundle != nil {
		main := in.Bundle.Files[in.Bundle.Main]
		sum := sha256.Sum256(main)
		run.FileHash = hex.EncodeToString(sum[:])
		var named struct{ Name string }
		_ = yaml.Unmarshal(main, &named) // it loaded before it started
		run.DAG = named.Name
	}
	if len(in.Params) > 0 {
		_ = json.Unmarshal(in.Params, &run.Params) // it encoded them
	}
	return run, true, nil
}

// untaken reads the history of workflow id's run history: its input, when it started, and
// whether a worker has taken a workflow task of it.
func (e *Engine) untaken(ctx context.Context, id, history string) (in RunInput, started time.Time, taken bool, err error) {
	it := e.Client.GetWorkflowHistory(ctx, id, history, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for first := true; it.HasNext(); first = false {
		ev, err := it.Next()
		if err != nil {
			return in, started, false, err
		}
		if first {
			start := ev.GetWorkflowExecutionStartedEventAttributes()
			if start == nil {
				return in, started, false, fmt.Errorf("the history of %s does not start with the workflow's input", id)
			}
			if err := converter.GetDefaultDataConverter().FromPayloads(start.GetInput(), &in); err != nil {
				return in, started, false, fmt.Errorf("decode the input of %s: %w", id, err)
			}
			started = ev.GetEventTime().AsTime()
		}
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED {
			return in, started, true, nil
		}
	}
	return in, started, false, nil
}

// Start bundles d and starts its run workflow as run opts.RunID, returning at once.
func (e *Engine) Start(ctx context.Context, d *dag.DAG, opts engine.RunOptions) (client.WorkflowRun, error) {
	if err := envComputed(d, opts.Lang); err != nil {
		return nil, err
	}
	b, err := NewBundle(d, opts.Lang, e.MaxFileSize)
	if err != nil {
		return nil, i18n.Errorf(opts.Lang, "run %s on Temporal: %w", d.Name, err)
	}
	// The bundle ships the DAG as loaded; refuse it when the file on disk, which the person
	// starting the run sees, says otherwise.
	src, err := userfile.Read(d.File, e.MaxFileSize)
	if err != nil {
		return nil, i18n.Errorf(opts.Lang, "run %s on Temporal: %w", d.Name, err)
	}
	if sum := sha256.Sum256(src); hex.EncodeToString(sum[:]) != d.Hash {
		return nil, i18n.Errorf(opts.Lang, "run %s on Temporal: %s changed since it was loaded", d.Name, d.File)
	}
	var params json.RawMessage
	if opts.Params != nil {
		if params, err = json.Marshal(opts.Params); err != nil {
			return nil, fmt.Errorf("run %s on Temporal: encode params: %w", d.Name, err)
		}
	}
	if opts.RunID == "" {
		return nil, fmt.Errorf("run %s on Temporal: no run id", d.Name)
	}
	queue := e.TaskQueue
	if queue == "" {
		queue = DefaultTaskQueue
	}
	// The workers record the file by its absolute path here, where --resume and explain find
	// it: a relative one would be taken from the worker's directory.
	file, err := filepath.Abs(d.File)
	if err != nil {
		return nil, fmt.Errorf("run %s on Temporal: %w", d.Name, err)
	}
	in := RunInput{RunID: opts.RunID, File: file, Bundle: b, Params: params, Lang: opts.Lang, OutputLimit: opts.OutputLimit, By: opts.By}
	if opts.Reuse != nil {
		in.Resume = &Resume{Resumes: opts.Resumes, Reuse: opts.Reuse}
		if r, err := json.Marshal(in.Resume); err != nil || len(r) > MaxBundle {
			return nil, i18n.Errorf(opts.Lang, "resume %s on Temporal: the outputs it reuses hold over %d bytes, more than a workflow's input may; resume it on the embedded engine", opts.RunID, MaxBundle)
		}
	}
	// A busy server answers a start slowly: the SDK's 10 s default failed 13 of 100 runs
	// started at once on a loaded 2-core machine. A deadline on the call's context wins over it.
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for try := 1; ; try++ {
		wr, err := e.Client.ExecuteWorkflow(sctx, client.StartWorkflowOptions{ID: WorkflowID(opts.RunID), TaskQueue: queue}, WorkflowName, in)
		// A loaded server may answer that its namespace does not exist while its registry
		// refreshes (1 of 100 starts at once on a loaded 2-core machine): ask again.
		var nf *serviceerror.NamespaceNotFound
		if errors.As(err, &nf) && try < startTries {
			select {
			case <-sctx.Done():
			case <-time.After(time.Duration(try) * 200 * time.Millisecond):
				continue
			}
		}
		if err != nil {
			return nil, fmt.Errorf("run %s on Temporal: start workflow: %w", d.Name, err)
		}
		return wr, nil
	}
}

// startTries bounds the starts tried while the server says its namespace is not found.
const startTries = 5

// Wait follows the run wr until it ends, telling opts.Observer of its nodes' changes.
func (e *Engine) Wait(ctx context.Context, wr client.WorkflowRun, d *dag.DAG, opts engine.RunOptions) (*dag.RunResult, error) {
	type result struct {
		res *dag.RunResult
		err error
	}
	done := make(chan result, 1)
	// Ended when this returns: a run paused for its approvals goes on without this one.
	gctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	go func() {
		var res dag.RunResult
		// The result comes once the workers have recorded the run, canceled or not; Get
		// follows the run from history to history as it continues as new.
		err := wr.Get(gctx, &res)
		done <- result{&res, err}
	}()
	poll := e.Poll
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	// A run that pauses for its approvals is asked whether it has, observer or not.
	approvals := slices.ContainsFunc(d.Nodes, func(n *dag.Node) bool { _, ok := n.Type.(nodes.Approval); return ok })
	seen := pending(d)
	// ended is the run's result as it ended, or paused for its approvals.
	ended := func(res *dag.RunResult) *dag.RunResult {
		res.File = d.File // as it was named here, like the embedded engine's result
		res.Elapsed = res.Ended.Sub(res.Started)
		for i := range res.Nodes {
			n := &res.Nodes[i]
			if !n.Started.IsZero() && !n.Ended.IsZero() {
				n.Elapsed = n.Ended.Sub(n.Started)
			}
		}
		report(opts.Observer, opts.RunID, seen, res.Nodes)
		return res
	}
	// now is the nodes as the progress answers say, ask what to ask next.
	now, ask := pending(d), ProgressAsk{}
	canceled := ctx.Done()
	for {
		select {
		case r := <-done:
			if r.err != nil {
				var app *temporal.ApplicationError
				if errors.As(r.err, &app) && (app.Type() == errRefused || app.Type() == errBundle) {
					return nil, errors.New(app.Message())
				}
				return nil, fmt.Errorf("run %s on Temporal: %w", d.Name, r.err)
			}
			return ended(r.res), nil
		case <-canceled:
			canceled = nil
			// The run's latest history: it may have continued as new since it started.
			if err := e.Client.CancelWorkflow(context.WithoutCancel(ctx), wr.GetID(), ""); err != nil {
				return nil, fmt.Errorf("cancel run %s on Temporal: %w", d.Name, err)
			}
		case <-t.C:
			if opts.Observer == nil && !approvals {
				continue
			}
			// A query waits for a worker, which may be busy or gone: it must not hold up the
			// result.
			qctx, cancel := context.WithTimeout(ctx, queryTimeout)
			v, err := e.Client.QueryWorkflow(qctx, wr.GetID(), "", ProgressSinceQuery, ask) // the latest history's
			cancel()
			if err != nil {
				continue // no worker has taken the run yet, or it just ended
			}
			var a ProgressAnswer
			if v.Get(&a) == nil {
				a.apply(ask, now, d)
				ask = ProgressAsk{History: a.History, Seq: a.Seq}
				report(opts.Observer, opts.RunID, seen, now)
			}
			if a.Paused {
				// The run waits for an approval's answer: it is recorded waiting, and this
				// returns as the embedded engine does, while the workflow waits on.
				if res := e.paused(ctx, wr); res != nil {
					return ended(res), nil
				}
			}
		}
	}
}

// paused asks the run wr for its result as it paused for its approvals (PausedQuery); nil
// when it is not paused (an answer came meanwhile).
func (e *Engine) paused(ctx context.Context, wr client.WorkflowRun) *dag.RunResult {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	v, err := e.Client.QueryWorkflow(qctx, wr.GetID(), "", PausedQuery)
	var res *dag.RunResult
	if err != nil || v.Get(&res) != nil {
		return nil
	}
	return res
}

// queryTimeout bounds each progress query.
const queryTimeout = 2 * time.Second

// startTimeout bounds starting a run's workflow.
const startTimeout = time.Minute

// pending is d's nodes before the run: what the client starts from, and the workflow's
// progress too.
func pending(d *dag.DAG) []dag.NodeResult {
	out := make([]dag.NodeResult, len(d.Nodes))
	for i, n := range d.Nodes {
		out[i] = dag.NodeResult{ID: n.ID, Type: n.Type.Name(), Status: dag.NodePending}
	}
	return out
}

// report tells obs how the nodes changed from seen to now, as the embedded engine would
// have, and updates seen: a node that ran between two polls starts, then finishes.
func report(obs engine.Observer, runID string, seen, now []dag.NodeResult) {
	if obs == nil || len(seen) != len(now) {
		return
	}
	emit := func(kind engine.EventKind, n dag.NodeResult) {
		obs.Event(engine.Event{Kind: kind, RunID: runID, Node: n})
	}
	for i, n := range now {
		if !n.Started.IsZero() && !n.Ended.IsZero() {
			n.Elapsed = n.Ended.Sub(n.Started) // not in JSON, which the query's answer is
		}
		p := seen[i]
		switch {
		case n.Status == p.Status && n.Attempts == p.Attempts && n.ItemsDone == p.ItemsDone && n.Reason == p.Reason:
			continue
		case n.Status == dag.NodeRunning && p.Status != dag.NodeRunning:
			emit(engine.NodeStarted, n)
		case n.Status == dag.NodeRunning && n.ItemsDone != p.ItemsDone:
			emit(engine.NodeProgress, n)
		case n.Status == dag.NodeRunning:
			emit(engine.NodeRetrying, n)
		case n.Status.Done() && !p.Status.Done():
			if p.Status == dag.NodePending && !n.Started.IsZero() {
				started := n
				started.Status = dag.NodeRunning
				emit(engine.NodeStarted, started)
			}
			emit(engine.NodeFinished, n)
		}
		seen[i] = n
	}
}

// envComputed refuses a DAG that computes with a variable it declares under env (in when,
// foreach, or an expression of with or input that is more than the variable
// itself): the workflow holds placeholders of those, and only workers read their values,
// into with and input as they are.
func envComputed(d *dag.DAG, lang i18n.Lang) error {
	refuse := func(where string, e *dag.Expr) error {
		for _, r := range e.Refs() {
			if r.Root == "env" && len(r.Path) > 0 {
				return i18n.Errorf(lang, "%s computes with env.%s, which a run on Temporal cannot do: the workflow holds a placeholder, only workers read the value; use the variable as a whole in with or input, or run on the embedded engine", where, r.Path[0])
			}
		}
		return nil
	}
	for _, n := range d.Nodes {
		if n.When != nil {
			if err := refuse(i18n.Sprintf(lang, "node %s: when", n.ID), n.When); err != nil {
				return err
			}
		}
		var err error
		if n.Foreach != nil {
			n.Foreach.WalkExprs(func(e *dag.Expr) { err = cmp.Or(err, refuse(i18n.Sprintf(lang, "node %s: foreach", n.ID), e)) })
		}
		for _, t := range []*dag.Template{n.With, n.Input} {
			if t != nil {
				t.WalkExprs(func(e *dag.Expr) {
					if !e.IsPath() {
						err = cmp.Or(err, refuse(i18n.Sprintf(lang, "node %s: an expression", n.ID), e))
					}
				})
			}
		}
		if err != nil {
			return err
		}
	}
	return nil // outputs may not read env at all (dag's SEAM-E113)
}
