package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// AnswerUpdate is the Temporal Update that answers an approval the run waits for; its
// validator refuses, before anything enters the workflow's history, what service.Answer
// refuses. PausedQuery answers the run as it paused for its approvals (nil while it runs).
const (
	AnswerUpdate = "seam-answer"
	PausedQuery  = "seam.paused"
)

// Error types of a refused answer: refused (an *service.AnswerError in its details), or a
// repeat of the answer recorded (its record in the details), which does nothing.
const (
	errAnswerRefused = "seam.AnswerRefused"
	errAnswerRepeat  = "seam.AnswerRepeat"
)

// AnswerInput is AnswerUpdate's argument: the answer, and who gives it as the client's
// service knows them (the workflow trusts its clients, as the store does).
type AnswerInput struct {
	Request service.AnswerRequest `json:"request"`
	By      string                `json:"by"`
	Groups  []string              `json:"groups,omitempty"`
}

// AnswerReply is what AnswerUpdate returns: the approval as recorded, and whether its
// deadline had passed, so that the deadline's answer was recorded instead.
type AnswerReply struct {
	Approval *dag.ApprovalRecord `json:"approval"`
	TimedOut bool                `json:"timed_out,omitempty"`
}

// gate holds the approvals a paused run waits for, for the Update's validator and handler.
type gate struct {
	w   *Worker
	in  RunInput
	d   *dag.DAG
	p   *progress                      // the nodes' states: an approval opens there first
	res *dag.RunResult                 // the session that paused; nil while the run runs
	q   map[string]*dag.ApprovalRecord // its open approvals by node, answered as answers come
	// answered is set once an answer (or the deadline's) is recorded: the run goes on.
	answered bool
}

// register sets the Update's handler and validator and the paused query on the run ctx.
func (g *gate) register(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, PausedQuery, func() (*dag.RunResult, error) { return g.res, nil }); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, AnswerUpdate, g.answer, workflow.UpdateHandlerOptions{Validator: g.validate})
}

// check checks a, as service.Answer does, against the question open now, at the workflow's
// time, and returns the answer to record; overdue is set when the question's deadline passed
// unanswered: the answer is then the deadline's, whatever a says.
func (g *gate) check(ctx workflow.Context, a AnswerInput) (answer map[string]any, overdue bool, err error) {
	req := a.Request
	q, n := g.question(req.Node), g.d.ByID[req.Node]
	var cfg *nodes.ApprovalConfig
	ok := n != nil && n.Form != nil
	if ok {
		cfg, ok = n.ApprovalConfig()
	}
	if q == nil || !ok {
		return nil, false, refusal(&service.AnswerError{Why: service.NotWaiting, Run: g.in.RunID, Node: req.Node, Principal: a.By, Lang: req.Lang})
	}
	if q.Answer == nil && !q.Deadline.IsZero() && !workflow.Now(ctx).Before(q.Deadline) {
		return service.DeadlineAnswer(cfg, q, g.in.Lang), true, nil
	}
	sq := service.Question{Run: g.in.RunID, Node: n.ID, StartedBy: g.in.By, Form: n.Form, Config: cfg, Open: q}
	answer, repeat, err := service.CheckAnswer(sq, req, &auth.Principal{Name: a.By, Groups: a.Groups})
	var ae *service.AnswerError
	switch {
	case errors.As(err, &ae):
		return nil, false, refusal(ae)
	case err != nil:
		return nil, false, err
	case repeat:
		return nil, false, temporal.NewApplicationErrorWithOptions("answered so already", errAnswerRepeat,
			temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{q}, Category: temporal.ApplicationErrorCategoryBenign})
	}
	return answer, false, nil
}

// question is the approval node asks: as the paused run holds it, or, while the session
// that opened it has not paused yet (it records the run waiting first, or other branches
// still run), as it opened; nil when node waits for no answer, or the run is not recorded
// (it ends waiting, as nothing could answer it).
func (g *gate) question(node string) *dag.ApprovalRecord {
	if g.w.opts.Store == nil {
		return nil
	}
	if q := g.q[node]; q != nil {
		return q
	}
	if i, ok := g.p.index[node]; ok && g.p.nodes[i].Status == dag.NodeWaiting {
		return g.p.nodes[i].Approval
	}
	return nil
}

func refusal(e *service.AnswerError) error {
	return temporal.NewApplicationErrorWithOptions(e.Error(), errAnswerRefused,
		temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{e}, Category: temporal.ApplicationErrorCategoryBenign})
}

// validate refuses an answer before the Update is accepted: a refused one leaves no event
// in the history.
func (g *gate) validate(ctx workflow.Context, a AnswerInput) error {
	_, _, err := g.check(ctx, a)
	return err
}

// answer records an accepted answer in the store (through the worker's local activity)
// and lets the paused run go on with it. An answer recorded first by someone else is a
// repeat or a conflict, as on the embedded engine.
func (g *gate) answer(ctx workflow.Context, a AnswerInput) (AnswerReply, error) {
	// An answer accepted before the run paused is recorded once it has: the store has the
	// run waiting then, as an answer on the embedded engine finds it.
	if err := workflow.Await(ctx, func() bool { return g.res != nil }); err != nil {
		return AnswerReply{}, err
	}
	answer, overdue, err := g.check(ctx, a)
	if err != nil {
		return AnswerReply{}, err
	}
	rec := dag.ApprovalRecord{Answer: answer, By: a.By, Through: a.Request.Through}
	if overdue {
		rec = dag.ApprovalRecord{Answer: answer, Through: service.ThroughTimeout}
	}
	stored, recorded, err := g.record(ctx, a.Request.Node, rec)
	if err != nil {
		return AnswerReply{}, err
	}
	g.keep(a.Request.Node, stored)
	if !recorded && !sameAnswer(stored, &rec) {
		// Another answer came first: a repeat of it, or a conflict with it.
		_, _, err := g.check(ctx, a)
		return AnswerReply{}, err
	}
	g.answered = true
	return AnswerReply{Approval: stored, TimedOut: overdue}, nil
}

// sameAnswer reports whether the store holds rec: the same fields, by the same principal,
// through the same channel. While the run waits in this workflow, only this Update records
// there (other answers reach the store through it), so the store holding rec means an earlier
// try of this workflow task recorded it and the worker died before completing the task: the
// answer is this one, not a repeat of another.
func sameAnswer(stored, rec *dag.ApprovalRecord) bool {
	if stored == nil || stored.By != rec.By || stored.Through != rec.Through {
		return false
	}
	a, errA := json.Marshal(stored.Answer)
	b, errB := json.Marshal(rec.Answer)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// keep keeps the answer stored to the question of node, where the validator reads it until
// the run goes on past it.
func (g *gate) keep(node string, stored *dag.ApprovalRecord) {
	g.q[node] = stored
	if i, ok := g.p.index[node]; ok && g.p.nodes[i].Status == dag.NodeWaiting {
		g.p.nodes[i].Approval = stored
	}
}

// record records rec on the approval node of the run through the worker's store, and
// returns the answer the store holds: rec, or (recorded false) one recorded before it.
func (g *gate) record(ctx workflow.Context, node string, rec dag.ApprovalRecord) (*dag.ApprovalRecord, bool, error) {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 2 * time.Minute, // the store retries within this
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var out AnswerRecorded
	err := workflow.ExecuteLocalActivity(lctx, g.w.recordAnswer, AnswerRecordInput{Run: g.in.RunID, Node: node, Answer: rec}).Get(lctx, &out)
	return out.Stored, out.Recorded, err
}

// AnswerRecordInput is the recordAnswer local activity's input.
type AnswerRecordInput struct {
	Run    string             `json:"run"`
	Node   string             `json:"node"`
	Answer dag.ApprovalRecord `json:"answer"`
}

// AnswerRecorded is the recordAnswer local activity's result.
type AnswerRecorded struct {
	Stored   *dag.ApprovalRecord `json:"stored"`
	Recorded bool                `json:"recorded"`
}

// recordAnswer records an answer on an approval, at this worker's time.
func (w *Worker) recordAnswer(ctx context.Context, in AnswerRecordInput) (AnswerRecorded, error) {
	in.Answer.At = time.Now()
	stored, recorded, err := w.opts.Store.AnswerApproval(ctx, in.Run, in.Node, in.Answer)
	return AnswerRecorded{Stored: stored, Recorded: recorded}, err
}

// await keeps the run paused at res (recorded waiting) until an approval is answered, the
// first deadline passes (its answer is recorded then, through timeout, at a durable timer)
// or the run is canceled. It returns what the next session resumes with, as a resume on the
// embedded engine would: the run's resume count, the outputs that passed and the answers;
// or, when the run was canceled, the run as it ended.
func (w *Worker) await(ctx workflow.Context, g *gate, p *progress, res *dag.RunResult, rec *recorder) (*Resume, *dag.RunResult, error) {
	g.res, g.answered = compact(res), false
	g.q = map[string]*dag.ApprovalRecord{}
	var first time.Time
	for _, n := range res.Nodes {
		if n.Status == dag.NodeWaiting && n.Approval != nil {
			g.q[n.ID] = n.Approval
			if d := n.Approval.Deadline; !d.IsZero() && (first.IsZero() || d.Before(first)) {
				first = d
			}
		}
	}
	p.paused = true
	defer func() { g.res, g.q, p.paused = nil, nil, false }()
	answered := func() bool { return g.answered }
	var err error
	if first.IsZero() {
		err = workflow.Await(ctx, answered)
	} else {
		var ok bool
		ok, err = workflow.AwaitWithTimeout(ctx, first.Sub(workflow.Now(ctx)), answered)
		if err == nil && !ok {
			err = g.timeOut(ctx)
		}
	}
	if ctx.Err() != nil {
		return nil, g.canceled(ctx, res, rec), nil
	}
	if err != nil {
		return nil, nil, err
	}
	// An answer accepted as the deadline passed is recorded before the run goes on.
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return nil, g.canceled(ctx, res, rec), nil
	}
	var next Resume
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	if err := workflow.ExecuteLocalActivity(lctx, w.resumeState, g.in.RunID).Get(lctx, &next); err != nil {
		return nil, nil, err
	}
	return &next, nil, nil
}

// timeOut records the deadline's answer on every approval open past its deadline.
func (g *gate) timeOut(ctx workflow.Context) error {
	now := workflow.Now(ctx)
	for _, n := range g.d.Nodes { // in the DAG's order: the same on a replay
		q := g.q[n.ID]
		cfg, ok := n.ApprovalConfig()
		if q == nil || !ok || q.Answer != nil || q.Deadline.IsZero() || now.Before(q.Deadline) {
			continue
		}
		stored, _, err := g.record(ctx, n.ID, dag.ApprovalRecord{Answer: service.DeadlineAnswer(cfg, q, g.in.Lang), Through: service.ThroughTimeout})
		if err != nil {
			return err
		}
		g.keep(n.ID, stored)
		g.answered = true
	}
	return nil
}

// canceled records the paused run canceled: its waiting and pending nodes with it.
func (g *gate) canceled(ctx workflow.Context, res *dag.RunResult, rec *recorder) *dag.RunResult {
	now := workflow.Now(ctx)
	msg := i18n.Sprintf(g.in.Lang, "the run was canceled")
	for i := range res.Nodes {
		if n := &res.Nodes[i]; !n.Status.Done() {
			n.Status, n.Reason, n.Ended = dag.NodeCanceled, msg, now
		}
	}
	res.Status, res.Ended = dag.RunCanceled, now
	if err := rec.FinishRun(context.Background(), res); err != nil {
		res.Error = i18n.Sprintf(g.in.Lang, "run store: %v", err)
	}
	return res
}

// resumeState reads what a session resuming run id goes on with, as service.Resume reads
// it: the resume count, the outputs to reuse and the answers recorded.
func (w *Worker) resumeState(ctx context.Context, id string) (*Resume, error) {
	r, attempts, err := w.opts.Store.GetRun(ctx, id)
	if err != nil {
		return nil, err
	}
	reuse, err := w.opts.Store.Reusable(ctx, id)
	if err != nil {
		return nil, err
	}
	if reuse == nil {
		reuse = map[string]dag.Reused{}
	}
	resumes := r.Resumes
	if r.Status == dag.RunRunning && r.Host == runs.HostTemporal {
		// An earlier try of this workflow task resumed it (the run waited, recorded so, until
		// this workflow took the answer), and its worker died before completing the task:
		// this resume is that one, which begin finds recorded.
		resumes--
	}
	return &Resume{Resumes: resumes, Reuse: reuse, Answers: service.AnswersOf(attempts)}, nil
}

// AnswerRun gives answer req, by principal by, to the approval its run waits for on
// Temporal, through the run's AnswerUpdate: the workflow checks it again (a refusal is an
// *service.AnswerError, and leaves the history as it was), records it and continues the
// run. service.Service.Answer calls it for the runs recorded on Temporal (Options.Elsewhere).
func (e *Engine) AnswerRun(ctx context.Context, req service.AnswerRequest, by *auth.Principal) (*service.Answered, error) {
	in := AnswerInput{Request: req}
	if by != nil {
		in.By, in.Groups = by.Name, by.Groups
	}
	reply, err := e.update(ctx, in)
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		return &service.Answered{Approval: reply.Approval, TimedOut: reply.TimedOut}, nil
	case errors.As(err, &app) && app.Type() == errAnswerRefused:
		var ae service.AnswerError
		if app.Details(&ae) == nil {
			return nil, &ae
		}
	case errors.As(err, &app) && app.Type() == errAnswerRepeat:
		var q dag.ApprovalRecord
		if app.Details(&q) == nil {
			return &service.Answered{Approval: &q, Repeat: true}, nil
		}
	}
	return nil, i18n.Errorf(req.Lang, "answer approval %s of run %s on Temporal: %w", req.Node, req.Run, err)
}

// update sends in through AnswerUpdate and waits for its outcome.
func (e *Engine) update(ctx context.Context, in AnswerInput) (AnswerReply, error) {
	var reply AnswerReply
	h, err := e.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: WorkflowID(in.Request.Run), UpdateName: AnswerUpdate, Args: []any{in},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, &reply)
	}
	return reply, err
}
