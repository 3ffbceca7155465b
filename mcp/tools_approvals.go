package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/service"
)

// CodeAnswerRefused is the envelope's code for an answer the run service refused; the
// approval stays open, and the details say why (and, for a form broken, each violation).
const CodeAnswerRefused = "answer_refused"

func (s *server) addApprovalTools(srv *sdk.Server) error {
	var errs []error
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "list_approvals",
		Description: "List the approvals waiting for an answer in the runs recorded waiting, newest run first: run, " +
			"node, title, deadline and whether you may answer. mine: true keeps those you may answer. raw: true adds " +
			"each one's evidence, form and approvers.",
		Annotations: readOnlyTool("List approvals"),
	}, s.listApprovals))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "get_approval",
		Description: "Show an approval of a run (\"latest\" for the newest run): its title, body, evidence and the " +
			"evidence's hash (give it back to answer_approval), the form's schema, prefill, decisions, deadline, and " +
			"the answer once given. raw: true adds the approvers and the earlier rounds.",
		Annotations: readOnlyTool("Show an approval"),
	}, s.getApproval))
	if s.opts.ReadOnly {
		return errors.Join(errs...)
	}
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "answer_approval",
		Description: "Answer an approval with a decision and the form's fields (those left out keep the prefill's), " +
			"then continue the run. Refused unless the approval's agents_may_answer is true, you are one of its " +
			"approvers, and the evidence_hash you saw is the evidence open now; fields that break the form are " +
			"refused with each violation. Returns at once, or with wait: true when the run has finished.",
		Annotations: &sdk.ToolAnnotations{Title: "Answer an approval", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, s.answerApproval))
	return errors.Join(errs...)
}

// ListApprovalsInput are list_approvals' arguments.
type ListApprovalsInput struct {
	Mine bool `json:"mine,omitempty" jsonschema:"only the approvals you may answer"`
	Common
}

// GetApprovalInput are get_approval's arguments.
type GetApprovalInput struct {
	Run  string `json:"run" jsonschema:"the run's id, or \"latest\""`
	Node string `json:"node" jsonschema:"the approval node's id"`
	Common
}

// AnswerApprovalInput are answer_approval's arguments.
type AnswerApprovalInput struct {
	Run          string         `json:"run" jsonschema:"the run's id, or \"latest\""`
	Node         string         `json:"node" jsonschema:"the approval node's id"`
	Decision     string         `json:"decision" jsonschema:"one of the approval's decisions (get_approval lists them), e.g. approve or reject"`
	Fields       map[string]any `json:"fields,omitempty" jsonschema:"the form's fields; those left out keep the prefill's value"`
	Comment      string         `json:"comment,omitempty" jsonschema:"a comment kept with the answer"`
	EvidenceHash string         `json:"evidence_hash,omitempty" jsonschema:"the evidence_hash get_approval showed: the answer is refused when the evidence changed since"`
	Wait         bool           `json:"wait,omitempty" jsonschema:"return when the continued run has finished, with its result"`
	Common
}

// approvalList is list_approvals' answer; its minimal form leaves out evidence and form.
type approvalList struct {
	Count     int                `json:"count"`
	Approvals []service.Approval `json:"approvals"`
}

type approvalBrief struct {
	Run       string    `json:"run"`
	Node      string    `json:"node"`
	DAG       string    `json:"dag"`
	Title     string    `json:"title"`
	Deadline  time.Time `json:"deadline,omitzero"`
	MayAnswer bool      `json:"may_answer"`
}

func (l approvalList) minimal() any {
	out := struct {
		Count     int             `json:"count"`
		Approvals []approvalBrief `json:"approvals"`
	}{Count: l.Count, Approvals: make([]approvalBrief, len(l.Approvals))}
	for i, a := range l.Approvals {
		out.Approvals[i] = approvalBrief{Run: a.Run, Node: a.Node, DAG: a.DAG, Title: a.Question.Title, Deadline: a.Question.Deadline, MayAnswer: a.MayAnswer}
	}
	return out
}

// approvalView is get_approval's answer; its minimal form is what answering needs.
type approvalView struct{ *service.Approval }

func (v approvalView) minimal() any {
	q := v.Question
	return struct {
		Run          string          `json:"run"`
		Node         string          `json:"node"`
		DAG          string          `json:"dag"`
		Title        string          `json:"title"`
		Body         string          `json:"body,omitempty"`
		Evidence     json.RawMessage `json:"evidence,omitempty"`
		EvidenceHash string          `json:"evidence_hash"`
		Form         any             `json:"form,omitempty"`
		Prefill      map[string]any  `json:"prefill,omitempty"`
		Decisions    []string        `json:"decisions,omitempty"`
		Deadline     time.Time       `json:"deadline,omitzero"`
		Answer       map[string]any  `json:"answer,omitempty"`
		MayAnswer    bool            `json:"may_answer"`
		LoadError    string          `json:"load_error,omitempty"`
	}{v.Run, v.Node, v.DAG, q.Title, q.Body, json.RawMessage(q.Evidence), q.EvidenceHash, v.Form, q.Prefill,
		v.Decisions, q.Deadline, q.Answer, v.MayAnswer, v.LoadError}
}

// approvalQuery reads approvals as an agent would answer them, loading DAG files confined
// to the root.
func (s *server) approvalQuery(ctx context.Context, mine bool) service.ApprovalQuery {
	return service.ApprovalQuery{Mine: mine, Through: service.ThroughMCP, Load: func(path string) (*dag.DAG, error) {
		return s.load(ctx, s.root.rel(path))
	}}
}

func (s *server) listApprovals(ctx context.Context, _ *sdk.CallToolRequest, in ListApprovalsInput) (message, any, error) {
	if _, err := s.store(); err != nil {
		return message{}, nil, err
	}
	list, err := s.svc.ListApprovals(ctx, s.approvalQuery(ctx, in.Mine))
	if err != nil {
		return message{}, nil, fail(CodeInternal, nil, "list approvals: %v", err)
	}
	data := approvalList{Count: len(list), Approvals: append([]service.Approval{}, list...)}
	return msgf("%v waiting for an answer", howMany(len(list), "approval")), data, nil
}

func (s *server) getApproval(ctx context.Context, _ *sdk.CallToolRequest, in GetApprovalInput) (message, any, error) {
	if _, err := s.store(); err != nil {
		return message{}, nil, err
	}
	if in.Run == "" {
		return message{}, nil, emptyID("run")
	}
	a, err := s.svc.GetApproval(ctx, in.Run, in.Node, s.approvalQuery(ctx, false))
	if err != nil {
		return message{}, nil, answerError(err, in.Run)
	}
	if a.Open() {
		return msgf("approval %s of run %s waits for an answer: %s", a.Node, a.Run, a.Question.Title), approvalView{a}, nil
	}
	return msgf("approval %s of run %s was answered: %v", a.Node, a.Run, a.Question.Answer["decision"]), approvalView{a}, nil
}

func (s *server) answerApproval(ctx context.Context, _ *sdk.CallToolRequest, in AnswerApprovalInput) (message, any, error) {
	if _, err := s.store(); err != nil {
		return message{}, nil, err
	}
	if in.Run == "" {
		return message{}, nil, emptyID("run")
	}
	req := service.AnswerRequest{Run: in.Run, Node: in.Node, Decision: in.Decision, Fields: in.Fields,
		Comment: in.Comment, EvidenceHash: in.EvidenceHash, Through: service.ThroughMCP}
	load := s.approvalQuery(ctx, false).Load
	// The run the answer continues outlives the request unless the client waits for it.
	base := ctx
	if !in.Wait {
		base = context.WithoutCancel(ctx)
	}
	ans, err := s.svc.Answer(base, req, load, service.Request{})
	if err != nil {
		return message{}, nil, answerError(err, in.Run)
	}
	data := struct {
		Run      string              `json:"run"`
		Node     string              `json:"node"`
		Approval *dag.ApprovalRecord `json:"approval"`
		Repeat   bool                `json:"repeat,omitempty"`
		TimedOut bool                `json:"timed_out,omitempty"`
		Status   dag.RunStatus       `json:"status,omitempty"`
	}{Run: in.Run, Node: in.Node, Approval: ans.Approval, Repeat: ans.Repeat, TimedOut: ans.TimedOut}
	switch {
	case ans.Repeat:
		return msgf("approval %s of run %s was answered so already; nothing to do", in.Node, in.Run), data, nil
	case ans.Run == nil:
		return msgf("approval %s of run %s answered; the process running the run continues it", in.Node, in.Run), data, nil
	case in.Wait:
		<-ans.Run.Done()
		data.Run = ans.Run.ID
		if res, err := ans.Run.Wait(); err == nil {
			data.Status = res.Status
		}
		return msgf("approval %s of run %s answered; the run ended %s", in.Node, data.Run, data.Status), data, nil
	}
	data.Run = ans.Run.ID
	return msgf("approval %s of run %s answered; the run goes on: get_run shows how it goes", in.Node, data.Run), data, nil
}

// answerError is the answer to the service refusing an answer, or not finding the run.
func answerError(err error, id string) error {
	var ae *service.AnswerError
	if errors.As(err, &ae) {
		return &toolError{code: CodeAnswerRefused, msg: verbatim(ae.Error()), details: struct {
			Why        service.AnswerRefusal `json:"why"`
			Violations any                   `json:"violations,omitempty"`
		}{ae.Why, ae.Violations}}
	}
	return runError(err, id)
}
