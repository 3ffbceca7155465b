package service

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// Through says what an answer came through, as the record keeps it.
const (
	ThroughCLI     = "cli"
	ThroughWeb     = "web"
	ThroughMCP     = "mcp"
	ThroughTimeout = "timeout"
)

// AnswerRequest is a person's (or an agent's) answer to the approval Node of run Run.
type AnswerRequest struct {
	Run, Node string
	Decision  string
	Fields    map[string]any // the form's fields
	Comment   string
	// EvidenceHash is the hash of the evidence the person saw; "" answers what is open now
	// (a CLI that showed nothing).
	EvidenceHash string
	Through      string // ThroughCLI, ThroughWeb or ThroughMCP
	// Lang is the language of a refusal and its violations, for a front end that answers
	// each request in its own (the web view); "" is the Service's.
	Lang i18n.Lang
}

// Answered is what Answer did.
type Answered struct {
	Approval *dag.ApprovalRecord // as stored
	// Repeat is set when the same answer was recorded before: nothing was done again.
	Repeat bool
	// TimedOut is set when the approval's deadline had passed: Approval is the deadline's
	// answer, recorded instead of the one given (Request.Warn heard a *TimedOutWarning).
	TimedOut bool
	// Run is the resumed run, nil when another process continues it (it was resumed or is
	// running) or the answer was a repeat.
	Run *Run
}

// AnswerRefusal says why an answer was refused.
type AnswerRefusal int

// Why an answer is refused.
const (
	NotWaiting    AnswerRefusal = iota + 1 // the node is no approval the run has open
	NotApprover                            // the principal is none of its approvers
	Starter                                // exclude_starter, and the principal started the run
	AgentsMayNot                           // through MCP, without agents_may_answer
	StaleEvidence                          // the evidence seen is not the evidence open now
	InvalidAnswer                          // the decision or the fields break the form (Violations)
	Conflict                               // another answer was recorded first (Stored)
)

// AnswerError says why an answer to an approval was refused; the approval stays open.
type AnswerError struct {
	Why        AnswerRefusal
	Run, Node  string
	Principal  string
	Violations []contract.Violation // InvalidAnswer
	Decisions  []string             // InvalidAnswer: those offered
	Seen, Open string               // StaleEvidence: the hashes
	Stored     *dag.ApprovalRecord  // Conflict
	// Lang is the language Error speaks: kept with the refusal, so that one made by a
	// Temporal worker is said on the client as the worker said it.
	Lang i18n.Lang
}

func (e *AnswerError) Error() string {
	l := e.Lang
	switch e.Why {
	case NotWaiting:
		return i18n.Sprintf(l, "run %s has no approval %s waiting for an answer; `seam approvals list` shows those that are", e.Run, e.Node)
	case NotApprover:
		return i18n.Sprintf(l, "%s may not answer approval %s of run %s: not one of its approvers", e.Principal, e.Node, e.Run)
	case Starter:
		return i18n.Sprintf(l, "%s may not answer approval %s of run %s: it started the run, and the approval excludes the starter", e.Principal, e.Node, e.Run)
	case AgentsMayNot:
		return i18n.Sprintf(l, "approval %s of run %s does not take answers from agents (MCP): set agents_may_answer: true to allow them", e.Node, e.Run)
	case StaleEvidence:
		return i18n.Sprintf(l, "approval %s of run %s shows other evidence now (%s) than the answer saw (%s): look at it again (`seam approvals show %s %s`)", e.Node, e.Run, short(e.Open), short(e.Seen), e.Run, e.Node)
	case InvalidAnswer:
		var b strings.Builder
		b.WriteString(i18n.Sprintf(l, "the answer to approval %s of run %s breaks its form:", e.Node, e.Run))
		for _, v := range e.Violations {
			fmt.Fprintf(&b, "\n  %s: %s", pointerOrRoot(v.Pointer), v.Message)
		}
		return b.String()
	case Conflict:
		return i18n.Sprintf(l, "approval %s of run %s was answered already: %s by %s through %s", e.Node, e.Run, e.Stored.Answer["decision"], e.Stored.By, e.Stored.Through)
	}
	return fmt.Sprintf("answer refused (%d)", e.Why)
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// Answer answers approval req.Node of run req.Run, then resumes the run so that the nodes
// waiting for the answer run: the one function every front end calls. load loads the run's
// DAG file the front end's way. The answer is refused (an *AnswerError, the approval left
// open) when the node has no open approval, the principal of ctx is not one of its approvers
// or started the run under exclude_starter, an agent answers without agents_may_answer, the
// evidence seen is not the evidence open, or the answer breaks the form; an answer the same
// as the one recorded is a repeat that does nothing, another one a Conflict. The resume goes
// through the resume guard: of two processes answering at once one continues the run.
func (s *Service) Answer(ctx context.Context, req AnswerRequest, load func(path string) (*dag.DAG, error), run Request) (*Answered, error) {
	if s.opts.Store == nil {
		return nil, ErrNoStore
	}
	l := s.opts.Lang
	if req.Lang != "" {
		l = req.Lang
	}
	r, attempts, err := s.get(ctx, s.opts.Store, req.Run)
	if err != nil {
		return nil, err
	}
	req.Run, req.Lang = r.ID, l
	refuse := func(why AnswerRefusal) *AnswerError {
		return &AnswerError{Why: why, Run: r.ID, Node: req.Node, Principal: s.by(ctx), Lang: l}
	}
	open := openQuestion(attempts, req.Node)
	if open == nil {
		return nil, refuse(NotWaiting)
	}
	if r.File == "" {
		return nil, &NotResumableError{Why: NoFile, ID: r.ID, Run: r, lang: l}
	}
	d, err := load(r.File)
	if err != nil {
		return nil, err
	}
	n := d.ByID[req.Node]
	if n == nil || n.Form == nil {
		return nil, refuse(NotWaiting)
	}
	cfg, ok := n.ApprovalConfig()
	if !ok {
		return nil, refuse(NotWaiting)
	}
	// A run on Temporal waits in its workflow, which keeps the deadline's timer and takes
	// the answer (checked here first, so that a refusal costs Temporal nothing).
	elsewhere, onTemporal := s.opts.Elsewhere.(answerer)
	onTemporal = onTemporal && r.Host == runs.HostTemporal
	if open.Answer == nil && overdue(open, time.Now()) && !onTemporal {
		// Too late: the deadline's answer is recorded instead, and the run goes on with it.
		stored, err := s.timeOut(ctx, r.ID, n.ID, cfg, open, time.Now())
		if err != nil {
			return nil, err
		}
		if run.Warn != nil {
			run.Warn(&TimedOutWarning{Run: r.ID, Node: n.ID, Deadline: open.Deadline, lang: l})
		}
		out := &Answered{Approval: stored, TimedOut: true}
		out.Run, err = s.resumeAnswered(ctx, r.ID, d, run)
		return out, err
	}
	p := s.principal(ctx)
	q := Question{Run: r.ID, Node: n.ID, StartedBy: r.StartedBy, Form: n.Form, Config: cfg, Open: open}
	answer, repeat, err := CheckAnswer(q, req, p)
	if err != nil {
		return nil, err
	}
	if repeat {
		return &Answered{Approval: open, Repeat: true}, nil
	}
	if onTemporal {
		out, err := elsewhere.AnswerRun(ctx, req, p)
		if err == nil && out.TimedOut && run.Warn != nil {
			run.Warn(&TimedOutWarning{Run: r.ID, Node: n.ID, Deadline: open.Deadline, lang: l})
		}
		return out, err
	}
	stored, recorded, err := s.opts.Store.AnswerApproval(ctx, r.ID, req.Node, dag.ApprovalRecord{
		Answer: answer, By: p.Name, At: time.Now(), Through: req.Through})
	if err != nil {
		return nil, err
	}
	if !recorded {
		// Another answer came first, between the read and the write.
		if reflect.DeepEqual(normalize(stored.Answer), normalize(answer)) {
			return &Answered{Approval: stored, Repeat: true}, nil
		}
		e := refuse(Conflict)
		e.Stored = stored
		return nil, e
	}
	out := &Answered{Approval: stored}
	out.Run, err = s.resumeAnswered(ctx, r.ID, d, run)
	return out, err
}

// answerer is an Options.Elsewhere that takes the answers to the approvals of the runs it
// runs (the Temporal engine: the run's workflow checks the answer again, records it and
// continues the run). Answered.Run is nil: the workflow continues it.
type answerer interface {
	AnswerRun(ctx context.Context, req AnswerRequest, by *auth.Principal) (*Answered, error)
}

// Question is an approval open in a run, as an answer to it is checked: the run's starter,
// the node's form and settings, and the question as kept, with its answer once given.
type Question struct {
	Run, Node string
	StartedBy string
	Form      *contract.Schema
	Config    *nodes.ApprovalConfig
	Open      *dag.ApprovalRecord
}

// CheckAnswer checks answer req by principal p to question q, as Answer does
// before it records one, and returns the answer to record: the prefill with the answer's
// fields over it, its decision and comment. repeat is set when q holds that answer already;
// an *AnswerError (in req.Lang) says why it is refused: another answer recorded first, a
// principal who may not answer, evidence that changed, or an answer that breaks the form.
// An engine that takes answers in a run of its own (Temporal's workflow) checks them with it
// too, so that an answer means the same on every engine. Deadlines are the caller's.
func CheckAnswer(q Question, req AnswerRequest, p *auth.Principal) (answer map[string]any, repeat bool, err error) {
	refuse := func(why AnswerRefusal) *AnswerError {
		return &AnswerError{Why: why, Run: q.Run, Node: q.Node, Principal: p.Name, Lang: req.Lang}
	}
	// The form as filled: the prefill, with what the answer gives over it.
	fields := maps.Clone(q.Open.Prefill)
	if fields == nil {
		fields = map[string]any{}
	}
	maps.Copy(fields, req.Fields)
	req.Fields = fields
	answer = maps.Clone(fields)
	answer["decision"] = req.Decision
	if req.Comment != "" {
		answer["comment"] = req.Comment
	}
	if q.Open.Answer != nil {
		if reflect.DeepEqual(normalize(q.Open.Answer), normalize(answer)) {
			return answer, true, nil
		}
		e := refuse(Conflict)
		e.Stored = q.Open
		return nil, false, e
	}
	if why := mayAnswer(p, q.StartedBy, q.Config, req.Through); why != 0 {
		return nil, false, refuse(why)
	}
	if req.EvidenceHash != "" && req.EvidenceHash != q.Open.EvidenceHash {
		e := refuse(StaleEvidence)
		e.Seen, e.Open = req.EvidenceHash, q.Open.EvidenceHash
		return nil, false, e
	}
	if vs := validateAnswer(q.Form, q.Config, req, req.Lang); len(vs) > 0 {
		e := refuse(InvalidAnswer)
		e.Violations, e.Decisions = vs, q.Config.Decisions
		return nil, false, e
	}
	return answer, false, nil
}

// resumeAnswered resumes run id once an answer is recorded; nil when another process runs
// it (it takes the answer when it resumes) or wins the resume guard.
func (s *Service) resumeAnswered(ctx context.Context, id string, d *dag.DAG, run Request) (*Run, error) {
	rs, err := s.Resumable(ctx, id, ResumeCheck{})
	var nr *NotResumableError
	if errors.As(err, &nr) && nr.Why == StillRunning {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := s.Resume(ctx, rs, d, run)
	if errors.As(err, &nr) && nr.Why == StillRunning {
		return nil, nil
	}
	return res, err
}

// TimedOutWarning says an answer came after its approval's deadline: the deadline's answer
// (on_timeout's) was recorded instead, and the run goes on with it.
type TimedOutWarning struct {
	Run, Node string
	Deadline  time.Time
	lang      i18n.Lang
}

func (w *TimedOutWarning) Error() string {
	return i18n.Sprintf(w.lang, "approval %s of run %s passed its deadline (%s): its on_timeout answer was recorded instead", w.Node, w.Run, w.Deadline.Format(time.RFC3339))
}

func overdue(q *dag.ApprovalRecord, now time.Time) bool {
	return !q.Deadline.IsZero() && !now.Before(q.Deadline)
}

// timeOut records the deadline's answer on approval node of run id at now, through "timeout".
func (s *Service) timeOut(ctx context.Context, id, node string, cfg *nodes.ApprovalConfig, q *dag.ApprovalRecord, now time.Time) (*dag.ApprovalRecord, error) {
	stored, _, err := s.opts.Store.AnswerApproval(ctx, id, node, dag.ApprovalRecord{Answer: DeadlineAnswer(cfg, q, s.opts.Lang), At: now, Through: ThroughTimeout})
	return stored, err
}

// DeadlineAnswer is the answer an approval with settings cfg, open as q, records when its
// deadline passes: on_timeout's decision, fields and comment over the prefill, or, without
// on_timeout, a reject with a comment in l. Temporal's workflow records it at its timer.
func DeadlineAnswer(cfg *nodes.ApprovalConfig, q *dag.ApprovalRecord, l i18n.Lang) map[string]any {
	answer := maps.Clone(q.Prefill)
	if answer == nil {
		answer = map[string]any{}
	}
	if cfg.OnTimeout != nil {
		maps.Copy(answer, cfg.OnTimeout)
	} else {
		answer["decision"] = nodes.DecisionReject
		answer["comment"] = i18n.Sprintf(l, "no answer by the deadline")
	}
	return answer
}

// applyTimeouts records the deadline's answer on every approval of d open past its deadline
// in a run's attempts, and reports whether it recorded any: a resume applies them, so that
// no deadline passes silently.
func (s *Service) applyTimeouts(ctx context.Context, id string, d *dag.DAG, as []runs.Attempt) (bool, error) {
	applied := false
	for _, n := range d.Nodes {
		q := openQuestion(as, n.ID)
		cfg, ok := n.ApprovalConfig()
		if q == nil || !ok || q.Answer != nil || !overdue(q, time.Now()) {
			continue
		}
		if _, err := s.timeOut(ctx, id, n.ID, cfg, q, time.Now()); err != nil {
			return applied, err
		}
		applied = true
	}
	return applied, nil
}

// MayAnswer reports whether the principal of ctx may answer, through the web view, an
// approval of run r with settings cfg: what a front end lists as waiting for that principal.
func (s *Service) MayAnswer(ctx context.Context, r *runs.Run, cfg *nodes.ApprovalConfig) bool {
	return mayAnswer(s.principal(ctx), r.StartedBy, cfg, ThroughWeb) == 0
}

// principal is who ctx names, or the local user when it names nobody.
func (s *Service) principal(ctx context.Context) *auth.Principal {
	if p := auth.From(ctx); p != nil {
		return p
	}
	return s.local
}

// mayAnswer says why principal p may not answer, through through, an approval with settings
// cfg of a run startedBy started; 0 when it may.
func mayAnswer(p *auth.Principal, startedBy string, cfg *nodes.ApprovalConfig, through string) AnswerRefusal {
	switch {
	case through == ThroughMCP && !cfg.AgentsMayAnswer:
		return AgentsMayNot
	case cfg.ExcludeStarter && startedBy != "" && startedBy == p.Name:
		return Starter
	}
	if cfg.Approvers.Anyone || slices.Contains(cfg.Approvers.Principals, p.Name) {
		return 0
	}
	for _, g := range p.Groups {
		if slices.Contains(cfg.Approvers.Groups, g) {
			return 0
		}
	}
	return NotApprover
}

// validateAnswer checks the decision against those offered and the fields against the form,
// in seam's violation messages.
func validateAnswer(form *contract.Schema, cfg *nodes.ApprovalConfig, req AnswerRequest, l i18n.Lang) []contract.Violation {
	var vs []contract.Violation
	if !slices.Contains(cfg.Decisions, req.Decision) {
		vs = append(vs, contract.Violation{Pointer: "/decision", Keyword: "/enum",
			Message: i18n.Sprintf(l, "decision %q is not one of %s", req.Decision, strings.Join(cfg.Decisions, ", "))})
	}
	fields := req.Fields
	if fields == nil {
		fields = map[string]any{}
	}
	if req.Comment != "" {
		if _, declared := formProps(form)["comment"]; declared {
			fields = maps.Clone(fields)
			fields["comment"] = req.Comment
		}
	}
	return append(vs, form.ValidateInput(fields, l)...)
}

func formProps(form *contract.Schema) map[string]any {
	src, _ := form.Source().(map[string]any)
	p, _ := src["properties"].(map[string]any)
	return p
}

// normalize makes an answer comparable whatever decoded it (numbers as float64).
func normalize(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if n, ok := v.(int); ok {
			v = float64(n)
		}
		out[k] = v
	}
	return out
}

// openQuestion is the approval node last opened in a run's attempts, with its answer if it
// has one; nil when it opened none.
func openQuestion(as []runs.Attempt, node string) *dag.ApprovalRecord {
	var q *dag.ApprovalRecord
	for _, a := range as {
		if a.Node == node && a.Status == dag.NodeWaiting && a.Approval != nil {
			q = a.Approval
		}
	}
	return q
}

// AnswersOf are the questions last asked on a run's approvals, by node, with their answers
// once given: a resume runs each answered approval with its answer, and asks an unanswered
// one again in its round. The answer to an earlier round, a reject that rewound, was taken
// when it rewound.
func AnswersOf(as []runs.Attempt) map[string]*dag.ApprovalRecord {
	var out map[string]*dag.ApprovalRecord
	for _, a := range as {
		if a.Status == dag.NodeWaiting && a.Approval != nil {
			if out == nil {
				out = map[string]*dag.ApprovalRecord{}
			}
			out[a.Node] = a.Approval
		}
	}
	return out
}

func hasApproval(d *dag.DAG) bool {
	return slices.ContainsFunc(d.Nodes, func(n *dag.Node) bool {
		_, ok := n.Type.(nodes.Approval)
		return ok
	})
}

// DAGOf loads, with load, the DAG file run id ("latest" for the newest) was recorded from:
// what a front end shows the answer's run with.
func (s *Service) DAGOf(ctx context.Context, id string, load func(path string) (*dag.DAG, error)) (*dag.DAG, error) {
	if s.opts.Store == nil {
		return nil, ErrNoStore
	}
	r, _, err := s.get(ctx, s.opts.Store, id)
	if err != nil {
		return nil, err
	}
	if r.File == "" {
		return nil, &NotResumableError{Why: NoFile, ID: r.ID, Run: r, lang: s.opts.Lang}
	}
	return load(r.File)
}

// WaitingNote says, for a run that ended waiting, which approvals wait and the commands
// that answer them; one line each.
func WaitingNote(l i18n.Lang, res *dag.RunResult) string {
	var b strings.Builder
	for _, n := range res.Nodes {
		if n.Status == dag.NodeWaiting {
			b.WriteString(i18n.Sprintf(l, "seam: run %s waits for approval %s: answer with `seam approve %s %s` (or `seam reject %s %s`)\n", res.ID, n.ID, res.ID, n.ID, res.ID, n.ID))
		}
	}
	return b.String()
}

// AnsweredNote says what an answer that resumed nothing did: a repeat of the recorded one,
// or one recorded for the process that runs the run to take.
func AnsweredNote(l i18n.Lang, req AnswerRequest, a *Answered) string {
	if a.Repeat {
		return i18n.Sprintf(l, "seam: approval %s of run %s was answered so already; nothing to do", req.Node, req.Run)
	}
	return i18n.Sprintf(l, "seam: approval %s of run %s answered; the process running the run continues it", req.Node, req.Run)
}

// WaitingRunNote is WaitingNote for run r read from the store with its attempts as.
func WaitingRunNote(l i18n.Lang, r *runs.Run, as []runs.Attempt) string {
	res := &dag.RunResult{ID: r.ID}
	for _, n := range runs.Summarize(as) {
		if n.Status() == dag.NodeWaiting {
			res.Nodes = append(res.Nodes, dag.NodeResult{ID: n.ID, Status: dag.NodeWaiting})
		}
	}
	return WaitingNote(l, res)
}
