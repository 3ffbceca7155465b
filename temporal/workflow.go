package temporal

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"path"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
)

// Names under which the worker registers what it hosts; they are part of the stored
// histories, so they never change.
const (
	WorkflowName    = "seam.run"
	attemptActivity = "seam.attempt"
	// ProgressQuery answers every node's state; ProgressSinceQuery (a ProgressAsk) only the
	// nodes that changed since the asker's last answer, which the client polls: a run of
	// 10,000 nodes answered all of them, 1.8 MB, every 250 ms.
	ProgressQuery      = "seam.progress"
	ProgressSinceQuery = "seam.progress.since"
)

// Error types of the attempt activity's failures that Temporal must not retry: the node ran
// and failed, or its output broke its contract. seam's own retries decide what follows.
const (
	errNodeFailed = "seam.NodeFailed"
	errContract   = "seam.ContractViolation"
	errBundle     = "seam.Bundle"
	errRefused    = "seam.RunRefused"
)

// RunInput is what the run workflow starts from. It holds no secret: workers read the
// variables a DAG declares under env themselves.
type RunInput struct {
	RunID       string          `json:"run_id"`
	File        string          `json:"file"` // the DAG file as the client named it
	Bundle      *Bundle         `json:"bundle"`
	Params      json.RawMessage `json:"params,omitempty"`
	Lang        i18n.Lang       `json:"lang,omitempty"`
	OutputLimit int64           `json:"output_limit,omitempty"`
	// Resume, when set, continues the stored run of the same id (seam run --resume).
	Resume *Resume `json:"resume,omitempty"`
	// Parent and ParentNode name the run and `dag` node this run is the sub-run of.
	Parent     string `json:"parent,omitempty"`
	ParentNode string `json:"parent_node,omitempty"`
	// By names the principal who started (or resumed) the run, recorded with it; a sub-run
	// is started by the same.
	By string `json:"by,omitempty"`
	// Checkpoint, when set, is where the run goes on from: it continued as new from a
	// history that had grown too long (splitEvents).
	Checkpoint *engine.Checkpoint `json:"checkpoint,omitempty"`
	// Recorded is how the history before recorded the run, for this one to go on with it.
	Recorded *Recorded `json:"recorded,omitempty"`
	// Trigger, set by a Temporal Schedule (seam schedule sync), is the id of the schedule
	// that started the run: RunID is "", the run's id is its workflow's, its scheduled time
	// Temporal's TemporalScheduledStartTime, its params the trigger's for that time.
	Trigger string `json:"trigger,omitempty"`
	// Fired is the fire of a run a Temporal Schedule started, once its first history has
	// read it: the histories that go on from it keep it.
	Fired *dag.Fired `json:"fired,omitempty"`
}

// Recorded is what a run's recorder carries from one history to the next.
type Recorded struct {
	Session int `json:"session,omitempty"`
	// Undecided are the nodes settled in the checkpoint whose final attempt is not recorded
	// (skipped ones): the run's end records them. A few, where all the others would be many.
	Undecided []int `json:"undecided,omitempty"`
}

// Resume is what a resumed run reuses: the outputs of the nodes that passed, by node id
// (engine.RunOptions.Reuse), and the run's resume count as the client read it.
type Resume struct {
	Resumes int                   `json:"resumes"`
	Reuse   map[string]dag.Reused `json:"reuse"`
	// Answers are the answers recorded on the run's approvals (engine.RunOptions.Answers):
	// set when the workflow resumes a run its approvals paused.
	Answers map[string]*dag.ApprovalRecord `json:"answers,omitempty"`
}

// WorkflowID is the Temporal workflow id of seam run runID.
func WorkflowID(runID string) string { return "seam-" + runID }

// Activity timing: a worker that dies mid-attempt stops heartbeating, and Temporal gives the
// attempt to another worker after heartbeatTimeout. An attempt without a timeout of its own
// may run for noTimeout.
const (
	heartbeatTimeout = 10 * time.Second
	heartbeatEvery   = 2 * time.Second
	noTimeout        = 24 * time.Hour
)

// run is the workflow: the bundle's DAG run by the engine's scheduler, with the attempts of
// impure nodes as activities and the records written by local activities on this worker.
func (w *Worker) run(ctx workflow.Context, in RunInput) (*dag.RunResult, error) {
	if err := in.Bundle.Check(); err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), errBundle, nil)
	}
	w.keep(in.Bundle)
	d, err := in.Bundle.Load(context.Background(), bundleRoot, w.files.WithLang(in.Lang).LoadWith)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("load %s: %v", in.File, err), errBundle, nil)
	}
	d.File = in.File
	if in.Trigger != "" && in.RunID == "" {
		if run, err := w.scheduled(ctx, &in, d); err != nil || !run {
			return nil, err
		}
	}
	var params map[string]any
	if len(in.Params) > 0 && string(in.Params) != "null" {
		v, err := contract.ParseJSON(in.Params)
		if params, _ = v.(map[string]any); err != nil || params == nil {
			return nil, temporal.NewNonRetryableApplicationError("params are not a JSON object", errRefused, err)
		}
	}
	p := newProgress(d)
	if in.Checkpoint != nil {
		nodes, err := in.Checkpoint.Results(d)
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), errRefused, nil)
		}
		p.restore(nodes)
	}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() ([]dag.NodeResult, error) { return p.nodes, nil }); err != nil {
		return nil, err
	}
	history := workflow.GetInfo(ctx).WorkflowExecution.RunID
	if err := workflow.SetQueryHandler(ctx, ProgressSinceQuery, func(ask ProgressAsk) (ProgressAnswer, error) {
		return p.since(history, ask), nil
	}); err != nil {
		return nil, err
	}
	g := &gate{w: w, in: in, d: d, p: p}
	if err := g.register(ctx); err != nil {
		return nil, err
	}
	for {
		res, rec, err := w.session(ctx, in, d, params, p)
		if err != nil || res.Status != dag.RunWaiting || rec == nil {
			return res, err
		}
		// Paused for its approvals: the workflow waits for an answer (AnswerUpdate) or a
		// deadline, then resumes the run in this same workflow, as a resume would.
		next, ended, err := w.await(ctx, g, p, res, rec)
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), errRefused, nil)
		}
		if ended != nil {
			return compact(ended), nil
		}
		in.Resume, in.Checkpoint, in.Recorded = next, nil, nil
		g.in = in
	}
}

// session runs d once: the whole run, or, after its approvals paused it, the resume that
// goes on with their answers (in.Resume). It returns the run's result, compacted, and its
// recorder (nil when the run is not recorded, or went on in a new history).
func (w *Worker) session(ctx workflow.Context, in RunInput, d *dag.DAG, params map[string]any, p *progress) (*dag.RunResult, *recorder, error) {
	h := newHost(ctx, in, d)
	opts := engine.RunOptions{
		RunID: in.RunID, Params: params, Lang: in.Lang, OutputLimit: in.OutputLimit,
		Parent: in.Parent, ParentNode: in.ParentNode, By: in.By,
		Observer: p, Logger: w.log.With("run", in.RunID),
	}
	if in.Fired != nil {
		opts.Fired = *in.Fired
	}
	if in.Resume != nil {
		opts.Reuse, opts.Answers = in.Resume.Reuse, in.Resume.Answers
		if opts.Reuse == nil {
			opts.Reuse = map[string]dag.Reused{} // a resume all the same
		}
	}
	var rec *recorder
	if w.opts.Store != nil {
		rec = &recorder{ctx: ctx, w: w, in: in}
		if in.Recorded != nil {
			rec.goOn(d, in.Checkpoint, in.Recorded)
		}
		opts.Recorder = rec
		h.rec = rec
	}
	opts.Checkpoint = in.Checkpoint
	res, err := engine.RunHosted(context.Background(), d, opts, h)
	if split := (*engine.SplitError)(nil); errors.As(err, &split) {
		res, err := goOn(ctx, in, d, split.Checkpoint, rec)
		return res, nil, err
	}
	if err != nil {
		return nil, nil, temporal.NewNonRetryableApplicationError(err.Error(), errRefused, nil)
	}
	return compact(res), rec, nil
}

// splitEvents is the length of a run's history past which the run goes on in a new history
// (continue-as-new) at its next pause between attempts, as Temporal ends a history at 51,200
// events. The rest covers what is under way when it is passed: a wide DAG lets its attempts
// under way end first, up to about 2,500 nodes at 4.3 events each.
const splitEvents = 40000

// maxInput bounds a run's input as it continues as new: the bundle and the checkpoint,
// encoded, within the 2 MiB Temporal allows a payload.
const maxInput = 2<<20 - 16<<10

// Split is asked between attempts: the run goes on in a new history once this one passed
// splitEvents, or Temporal suggests it (its own limits on a history's events or size).
func (h *host) Split() bool {
	info := workflow.GetInfo(h.ctx)
	return info.GetCurrentHistoryLength() >= splitEvents || info.GetContinueAsNewSuggested()
}

// goOn continues run in as new from cp: the same input, with the checkpoint and the
// recorder's state (a resume's outputs only for the nodes not settled yet). An input that
// Temporal would refuse fails the run, recorded as such, rather than the workflow.
func goOn(ctx workflow.Context, in RunInput, d *dag.DAG, cp *engine.Checkpoint, rec *recorder) (*dag.RunResult, error) {
	next := in
	next.Checkpoint = cp
	if in.Resume != nil {
		r := *in.Resume
		r.Reuse = make(map[string]dag.Reused)
		for i, n := range d.Nodes {
			if p, ok := in.Resume.Reuse[n.ID]; ok && cp.States[i] == '.' {
				r.Reuse[n.ID] = p
			}
		}
		next.Resume = &r
	}
	if rec != nil {
		next.Recorded = rec.state(d, cp)
	}
	b, err := json.Marshal(next)
	if err == nil && len(b) <= maxInput {
		return nil, workflow.NewContinueAsNewError(ctx, WorkflowName, next)
	}
	msg := i18n.Sprintf(in.Lang, "the run cannot go on in a new Temporal history: its bundle and the state of its %d nodes hold %d bytes, over the %d a workflow's input may; split the DAG into sub-DAGs (dag nodes), or run it on the embedded engine",
		len(d.Nodes), len(b), maxInput)
	nodes, _ := cp.Results(d) // it came from this DAG's run
	now := workflow.Now(ctx)
	for i := range nodes {
		if n := &nodes[i]; !n.Status.Done() {
			n.Status, n.Reason, n.Ended = dag.NodeCanceled, msg, now
		}
	}
	res := &dag.RunResult{ID: in.RunID, DAG: d.Name, File: in.File, Status: dag.RunFailed, Started: cp.Started, Ended: now, Nodes: nodes, Error: msg}
	if rec != nil {
		if err := rec.FinishRun(context.Background(), res); err != nil {
			res.Error += "; " + i18n.Sprintf(in.Lang, "run store: %v", err)
		}
	}
	return compact(res), nil
}

// compact keeps res within maxResult, as Temporal refuses a result over 2 MB; the store has
// it all. It leaves out the nodes' outputs, logs and violations first, then the nodes that
// passed.
func compact(res *dag.RunResult) *dag.RunResult {
	if b, err := json.Marshal(res); err == nil && len(b) <= maxResult {
		return res
	}
	for i := range res.Nodes {
		n := &res.Nodes[i]
		n.Output, n.Log, n.Violations = nil, "", nil
	}
	if b, err := json.Marshal(res); err == nil && len(b) <= maxResult {
		return res
	}
	kept := res.Nodes[:0]
	for _, n := range res.Nodes {
		if n.Status != dag.NodePassed {
			kept = append(kept, n)
		}
	}
	res.Nodes = kept
	return res
}

// maxResult is the size of a run's result above which it leaves out its nodes' outputs.
const maxResult = 1 << 20

// progress keeps the nodes' states for the progress queries, as the run's events say.
type progress struct {
	nodes []dag.NodeResult
	index map[string]int
	// seq counts the events; changed holds, by node, the seq of its last one (0: none).
	seq     int
	changed []int
	// paused is set while the run waits for an approval's answer (gate).
	paused bool
}

func newProgress(d *dag.DAG) *progress {
	p := &progress{nodes: pending(d), index: make(map[string]int, len(d.Nodes)), changed: make([]int, len(d.Nodes))}
	for i, n := range d.Nodes {
		p.index[n.ID] = i
	}
	return p
}

// Event keeps the node's state without its output and log, which the store has.
func (p *progress) Event(ev engine.Event) {
	n := ev.Node
	n.Output, n.Log = nil, ""
	i := p.index[n.ID]
	p.nodes[i] = n
	p.seq++
	p.changed[i] = p.seq
}

// restore takes the nodes a checkpoint settled as changed in this history, so that its first
// answer to any asker names them; the nodes still pending need no word.
func (p *progress) restore(nodes []dag.NodeResult) {
	for _, n := range nodes {
		if n.Status != dag.NodePending {
			p.Event(engine.Event{Node: n})
		}
	}
}

// ProgressAsk is the question of ProgressSinceQuery: the history and Seq of the asker's
// last answer, zero for none.
type ProgressAsk struct {
	History string `json:"history,omitempty"`
	Seq     int    `json:"seq,omitempty"`
}

// ProgressAnswer is the nodes whose state changed since a ProgressAsk: all that left
// pending, when the ask was of another history (the run continued as new) or of none.
type ProgressAnswer struct {
	History string           `json:"history"` // the workflow run that answers
	Seq     int              `json:"seq"`
	Changed []int            `json:"changed,omitempty"` // the nodes' places in the DAG
	Nodes   []dag.NodeResult `json:"nodes,omitempty"`   // their states, in Changed's order
	// Paused is set while the run waits for an approval's answer: PausedQuery has it.
	Paused bool `json:"paused,omitempty"`
}

// since answers ask in the workflow run history.
func (p *progress) since(history string, ask ProgressAsk) ProgressAnswer {
	a := ProgressAnswer{History: history, Seq: p.seq, Paused: p.paused}
	after := ask.Seq
	if ask.History != history {
		after = 0
	}
	for i, c := range p.changed {
		if c > after {
			a.Changed = append(a.Changed, i)
			a.Nodes = append(a.Nodes, p.nodes[i])
		}
	}
	return a
}

// apply brings nodes, the asker's copy (pending before its first answer), up to a.
func (a ProgressAnswer) apply(ask ProgressAsk, nodes []dag.NodeResult, d *dag.DAG) {
	if ask.History != a.History {
		copy(nodes, pending(d)) // a full answer names only the nodes that left pending
	}
	for k, i := range a.Changed {
		if i >= 0 && i < len(nodes) && k < len(a.Nodes) {
			nodes[i] = a.Nodes[k]
		}
	}
}

// host is the engine.Host of one run workflow: attempts are activities, timers are
// workflow timers, and every event comes back through one selector in history order.
type host struct {
	d        *dag.DAG
	ctx      workflow.Context // the run's
	work     workflow.Context // the attempts' and timers': Stop cancels it
	stop     workflow.CancelFunc
	sel      workflow.Selector
	events   []engine.HostEvent
	canceled bool // the run's context was seen done, and said so
	stopped  bool // Stop canceled the attempts
	in       RunInput
	seed     uint64
	draws    uint64
	rec      *recorder // nil when the run is not recorded
}

func newHost(ctx workflow.Context, in RunInput, d *dag.DAG) *host {
	h := &host{d: d, ctx: ctx, sel: workflow.NewSelector(ctx), in: in}
	h.work, h.stop = workflow.WithCancel(ctx)
	f := fnv.New64a()
	f.Write([]byte(in.RunID))
	h.seed = f.Sum64()
	return h
}

func (h *host) Now() time.Time { return workflow.Now(h.ctx) }

// Jitter draws from a hash of the run's id and a counter: the same numbers on a replay,
// without a marker in the history per draw.
func (h *host) Jitter() float64 {
	h.draws++
	f := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], h.seed)
	binary.LittleEndian.PutUint64(b[8:], h.draws)
	f.Write(b[:])
	return float64(f.Sum64()>>11) / (1 << 53)
}

// AttemptInput is the attempt activity's input: the attempt, and the bundle it is of by hash
// (a worker that has not seen it reads it from the run's history).
type AttemptInput struct {
	Run     string                `json:"run"`
	Bundle  string                `json:"bundle"`
	Request engine.AttemptRequest `json:"request"`
	// Record is set when the run is recorded, in Session: the activity then records the
	// attempt's start once it has run for engine.StartDelay.
	Record  bool `json:"record,omitempty"`
	Session int  `json:"session,omitempty"`
}

func (h *host) Start(req engine.AttemptRequest) {
	if _, sub := h.d.Nodes[req.Index].Type.(dag.RunsDAGFile); sub {
		h.startSub(req)
		return
	}
	timeout := noTimeout
	if req.Timeout > 0 {
		// The node's timeout is enforced in the activity; this only bounds a lost one.
		timeout = req.Timeout + time.Minute
	}
	ctx := workflow.WithActivityOptions(h.work, workflow.ActivityOptions{
		ActivityID:          activityID(req),
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    heartbeatTimeout,
		// A canceled run ends once its attempts have: their processes killed, as on the
		// embedded engine, not left running while the run is recorded canceled.
		WaitForCancellation: true,
		// Temporal retries only what is not the node's doing (a worker that died); seam's
		// retry policy runs in the workflow, so a node's failure is not retried here.
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			NonRetryableErrorTypes: []string{errNodeFailed, errContract, errBundle},
		},
	})
	in := AttemptInput{Run: h.in.RunID, Bundle: h.in.Bundle.Hash, Request: req}
	if h.rec != nil {
		in.Record, in.Session = true, h.rec.session
	}
	f := workflow.ExecuteActivity(ctx, attemptActivity, in)
	id := req.ID
	h.sel.AddFuture(f, func(f workflow.Future) {
		var o engine.AttemptOutcome
		err := f.Get(h.ctx, &o)
		h.noteCanceled()
		var app *temporal.ApplicationError
		switch {
		case err == nil:
		case errors.As(err, &app) && app.HasDetails() && app.Details(&o) == nil:
		case temporal.IsCanceledError(err):
			now := workflow.Now(h.ctx)
			o = engine.AttemptOutcome{Started: now, Ended: now, Canceled: true, Err: err.Error()}
		default:
			now := workflow.Now(h.ctx)
			o = engine.AttemptOutcome{Started: now, Ended: now, Err: err.Error(), Reason: err.Error()}
		}
		o.ID = id
		h.events = append(h.events, engine.HostEvent{Outcome: &o})
	})
}

// startSub runs the sub-DAG of the `dag` node attempt req as a child workflow: the same
// bundle with the sub-DAG file as its DAG, the node's input as its params, recorded as a
// sub-run of this run. Cancelling this run cancels it.
func (h *host) startSub(req engine.AttemptRequest) {
	started := workflow.Now(h.ctx)
	var with struct {
		File string `json:"file"`
	}
	_ = json.Unmarshal(req.With, &with) // the config schema made it an object with a file
	fail := func(msg string) {
		h.events = append(h.events, engine.HostEvent{Outcome: &engine.AttemptOutcome{ID: req.ID, Started: started, Ended: started, Err: msg, Reason: msg}})
	}
	b := *h.in.Bundle
	file := filepath.Join(filepath.Dir(h.in.File), with.File)
	b.Main = path.Clean(path.Join(path.Dir(b.Main), filepath.ToSlash(with.File)))
	if filepath.IsAbs(with.File) {
		file, b.Main = with.File, b.rooted(with.File)
	}
	if _, ok := b.Files[b.Main]; !ok {
		// The loader read the file into the bundle: only a bundle made otherwise lacks it.
		fail(i18n.Sprintf(req.Lang, "dag %s: not in the run's bundle", with.File))
		return
	}
	b.Hash = b.hash()
	id := subRunID(started, h.in.RunID, req)
	ctx := workflow.WithChildOptions(h.work, workflow.ChildWorkflowOptions{WorkflowID: WorkflowID(id)})
	in := RunInput{
		RunID: id, File: file, Bundle: &b, Params: req.Input,
		Lang: req.Lang, OutputLimit: req.OutputLimit, Parent: h.in.RunID, ParentNode: req.Node, By: h.in.By,
	}
	f := workflow.ExecuteChildWorkflow(ctx, WorkflowName, in)
	h.sel.AddFuture(f, func(f workflow.Future) {
		var res dag.RunResult
		err := f.Get(h.ctx, &res)
		h.noteCanceled()
		now := workflow.Now(h.ctx)
		var o engine.AttemptOutcome
		var app *temporal.ApplicationError
		switch {
		case h.canceled || h.stopped || temporal.IsCanceledError(err):
			// A sub-run ended by this run's cancel is canceled, as the `dag` type says.
			o = engine.AttemptOutcome{ID: req.ID, Started: started, Ended: now, Canceled: true, Err: "canceled"}
		case err == nil:
			o = engine.SubRunOutcome(h.d, req, &res, started, now)
		case errors.As(err, &app):
			msg := fmt.Sprintf("dag %s: %s", with.File, app.Message())
			o = engine.AttemptOutcome{ID: req.ID, Started: started, Ended: now, Err: msg, Reason: msg}
		default:
			msg := fmt.Sprintf("dag %s: %v", with.File, err)
			o = engine.AttemptOutcome{ID: req.ID, Started: started, Ended: now, Err: msg, Reason: msg}
		}
		h.events = append(h.events, engine.HostEvent{Outcome: &o})
	})
}

// subRunID names the sub-run of attempt req of run parent, started at now: a run id as
// engine.NewRunID makes them, its random part drawn from what names the attempt, so that a
// replay names it the same.
func subRunID(now time.Time, parent string, req engine.AttemptRequest) string {
	f := fnv.New32a()
	fmt.Fprintf(f, "%s\x00%s\x00%d\x00%d", parent, req.Node, req.Item, req.Attempt)
	return engine.RunIDOf(now, [4]byte(f.Sum(nil)))
}

// activityID names an attempt by its node, item and attempt number: unique in the run, and
// readable in Temporal's UI.
func activityID(req engine.AttemptRequest) string {
	if req.Item >= 0 {
		return fmt.Sprintf("%s[%d]#%d", req.Node, req.Item, req.Attempt)
	}
	return fmt.Sprintf("%s#%d", req.Node, req.Attempt)
}

func (h *host) After(id int, d time.Duration) {
	f := workflow.NewTimer(h.work, d)
	h.sel.AddFuture(f, func(f workflow.Future) {
		err := f.Get(h.ctx, nil)
		h.noteCanceled()
		if err == nil {
			h.events = append(h.events, engine.HostEvent{Timer: id})
		}
	})
}

// noteCanceled queues the run's cancellation once it is seen, ahead of what it ended.
func (h *host) noteCanceled() {
	if !h.canceled && h.ctx.Err() != nil {
		h.canceled = true
		h.events = append(h.events, engine.HostEvent{Canceled: true})
	}
}

func (h *host) Wait() engine.HostEvent {
	for len(h.events) == 0 {
		h.noteCanceled()
		if len(h.events) > 0 {
			break
		}
		h.sel.Select(h.ctx)
	}
	ev := h.events[0]
	h.events = h.events[1:]
	return ev
}

func (h *host) Stop() {
	h.stopped = true
	h.stop()
}

// recorder records the run through local activities on this worker: their results, not
// their inputs, enter the history, so outputs are not kept there twice.
type recorder struct {
	ctx     workflow.Context
	w       *Worker
	in      RunInput
	session int      // the store's session of this run, as BeginRun began it
	decided []string // nodes whose final attempt is recorded
}

func (r *recorder) local() workflow.Context {
	// The records of a canceled run are written all the same.
	ctx, _ := workflow.NewDisconnectedContext(r.ctx)
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 2 * time.Minute, // the store retries within this
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
}

func (r *recorder) BeginRun(_ context.Context, run dag.RunRecord) error {
	ctx := r.local()
	in := BeginInput{Run: run, Since: workflow.GetInfo(r.ctx).WorkflowStartTime}
	if r.in.Resume != nil {
		in.Resumes = r.in.Resume.Resumes
	}
	return workflow.ExecuteLocalActivity(ctx, r.w.begin, in).Get(ctx, &r.session)
}

// BeginInput is the begin local activity's input.
type BeginInput struct {
	Run     dag.RunRecord `json:"run"`
	Resumes int           `json:"resumes,omitempty"`
	// Since is when the workflow's execution started, which every try of its tasks sees alike.
	Since time.Time `json:"since"`
}

// RecordInput is the record local activity's input.
type RecordInput struct {
	Session int                 `json:"session,omitempty"`
	Batch   []dag.AttemptRecord `json:"batch"`
}

func (r *recorder) RecordAttempts(_ context.Context, batch []dag.AttemptRecord) error {
	ctx := r.local()
	if err := workflow.ExecuteLocalActivity(ctx, r.w.record, RecordInput{Session: r.session, Batch: batch}).Get(ctx, nil); err != nil {
		return err
	}
	for _, a := range batch {
		if a.Final && a.Item < 0 {
			r.decided = append(r.decided, a.Node)
		}
	}
	return nil
}

// state is what the recorder carries to the history that goes on from cp.
func (r *recorder) state(d *dag.DAG, cp *engine.Checkpoint) *Recorded {
	decided := make(map[string]bool, len(r.decided))
	for _, id := range r.decided {
		decided[id] = true
	}
	s := &Recorded{Session: r.session}
	for i, n := range d.Nodes {
		if cp.States[i] != '.' && !decided[n.ID] {
			s.Undecided = append(s.Undecided, i)
		}
	}
	return s
}

// goOn takes the state the history before carried (state).
func (r *recorder) goOn(d *dag.DAG, cp *engine.Checkpoint, s *Recorded) {
	r.session = s.Session
	if cp == nil {
		return
	}
	undecided := make(map[int]bool, len(s.Undecided))
	for _, i := range s.Undecided {
		undecided[i] = true
	}
	for i, n := range d.Nodes {
		if i < len(cp.States) && cp.States[i] != '.' && !undecided[i] {
			r.decided = append(r.decided, n.ID)
		}
	}
}

func (r *recorder) FinishRun(_ context.Context, res *dag.RunResult) error {
	ctx := r.local()
	return workflow.ExecuteLocalActivity(ctx, r.w.finish, FinishInput{Session: r.session, Result: res, Decided: r.decided}).Get(ctx, nil)
}

// FinishInput is the finish local activity's input.
type FinishInput struct {
	Session int            `json:"session,omitempty"`
	Result  *dag.RunResult `json:"result"`
	Decided []string       `json:"decided,omitempty"`
}
