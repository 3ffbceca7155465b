package service

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// Approval is an approval a run asked: the question as it opened (title, evidence and its
// hash, deadline, prefill; the answer once given), the node's form and who may answer it,
// and the node's earlier questions in the run (a rewind asks again with new evidence).
type Approval struct {
	Run       string               `json:"run"`
	DAG       string               `json:"dag"`
	Node      string               `json:"node"`
	StartedBy string               `json:"started_by,omitempty"`
	Question  *dag.ApprovalRecord  `json:"question"`
	History   []dag.ApprovalRecord `json:"history,omitempty"` // earlier questions, oldest first
	// What the DAG file says of the node; empty (and LoadError set) when the file the run
	// was recorded from no longer loads: the question is still shown, and no one may answer.
	Form            any           `json:"form,omitempty"` // the form's schema
	Decisions       []string      `json:"decisions,omitempty"`
	Approvers       ApproverNames `json:"approvers"`
	AgentsMayAnswer bool          `json:"agents_may_answer"`
	LoadError       string        `json:"load_error,omitempty"`
	// OnTemporal: the run is on Temporal, where its workflow's timer applies a deadline that
	// passes; on the embedded engine whatever touches the run next does.
	OnTemporal bool `json:"on_temporal,omitempty"`
	// MayAnswer: the question is open and the principal asking may answer it, through what
	// the query says.
	MayAnswer bool `json:"may_answer"`
}

// ApproverNames say who may answer an approval.
type ApproverNames struct {
	Anyone     bool     `json:"anyone,omitempty"`
	Principals []string `json:"principals,omitempty"`
	Groups     []string `json:"groups,omitempty"`
}

// Open reports whether the approval waits for its answer.
func (a *Approval) Open() bool { return a.Question != nil && a.Question.Answer == nil }

// ApprovalQuery says how approvals are read.
type ApprovalQuery struct {
	// Mine keeps, of a list, the approvals the principal of ctx may answer now.
	Mine bool
	// Through is what the principal would answer through (ThroughMCP: agents_may_answer
	// counts); ThroughCLI when empty.
	Through string
	// Load loads a run's DAG file the front end's way: the node's form and approvers are
	// the file's.
	Load func(path string) (*dag.DAG, error)
}

// ListApprovals returns the open approvals of the runs waiting for an answer, newest run
// first, each run's in the order they opened; with q.Mine, those the principal of ctx may
// answer.
func (s *Service) ListApprovals(ctx context.Context, q ApprovalQuery) ([]Approval, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	var out []Approval
	f := runs.Filter{Status: dag.RunWaiting}
	for {
		page, next, err := st.ListRuns(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("list the waiting runs: %w", err)
		}
		for i := range page {
			r, as, err := st.GetRun(ctx, page[i].ID)
			if err != nil {
				return nil, fmt.Errorf("read waiting run %s: %w", page[i].ID, err)
			}
			var d *dag.DAG
			var loadErr error
			for _, node := range openNodes(as) {
				if d == nil && loadErr == nil {
					d, loadErr = s.loadRun(r, q)
				}
				a := s.approval(ctx, r, as, node, d, loadErr, q)
				if !q.Mine || a.MayAnswer {
					out = append(out, a)
				}
			}
		}
		if next == "" {
			return out, nil
		}
		f.Cursor = next
	}
}

// GetApproval returns approval node of run id ("latest" for the newest), open or answered,
// with its earlier questions; an *AnswerError (NotWaiting) when the run never opened it.
func (s *Service) GetApproval(ctx context.Context, id, node string, q ApprovalQuery) (*Approval, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	r, as, err := s.get(ctx, st, id)
	if err != nil {
		return nil, err
	}
	if openQuestion(as, node) == nil {
		return nil, &AnswerError{Why: NotWaiting, Run: r.ID, Node: node, Principal: s.by(ctx), Lang: s.opts.Lang}
	}
	d, loadErr := s.loadRun(r, q)
	a := s.approval(ctx, r, as, node, d, loadErr, q)
	return &a, nil
}

func (s *Service) loadRun(r *runs.Run, q ApprovalQuery) (*dag.DAG, error) {
	if r.File == "" {
		return nil, &NotResumableError{Why: NoFile, ID: r.ID, Run: r, lang: s.opts.Lang}
	}
	if q.Load == nil {
		return nil, fmt.Errorf("approvals of run %s: no loader for %s", r.ID, r.File)
	}
	return q.Load(r.File)
}

// approval builds node's Approval from run r's attempts and its DAG d (nil when loadErr
// says why it did not load).
func (s *Service) approval(ctx context.Context, r *runs.Run, as []runs.Attempt, node string, d *dag.DAG, loadErr error, q ApprovalQuery) Approval {
	a := Approval{Run: r.ID, DAG: r.DAG, Node: node, StartedBy: r.StartedBy, OnTemporal: r.Host == runs.HostTemporal}
	for _, at := range as {
		if at.Node == node && at.Status == dag.NodeWaiting && at.Approval != nil {
			if a.Question != nil {
				a.History = append(a.History, *a.Question)
			}
			a.Question = at.Approval
		}
	}
	if loadErr != nil {
		a.LoadError = loadErr.Error()
		return a
	}
	n := d.ByID[node]
	var cfg *nodes.ApprovalConfig
	if n != nil {
		if c, ok := n.ApprovalConfig(); ok {
			cfg = c
		}
	}
	if cfg == nil || n.Form == nil {
		// The file changed since the run: the node is no approval there now.
		a.LoadError = (&AnswerError{Why: NotWaiting, Run: r.ID, Node: node, Lang: s.opts.Lang}).Error()
		return a
	}
	a.Form = n.Form.Source()
	a.Decisions = cfg.Decisions
	a.Approvers = ApproverNames{Anyone: cfg.Approvers.Anyone, Principals: cfg.Approvers.Principals, Groups: cfg.Approvers.Groups}
	a.AgentsMayAnswer = cfg.AgentsMayAnswer
	through := q.Through
	if through == "" {
		through = ThroughCLI
	}
	a.MayAnswer = a.Open() && mayAnswer(s.principal(ctx), r.StartedBy, cfg, through) == 0
	return a
}

// openNodes are the approval nodes of a run's attempts whose last question waits for its
// answer, in the order they opened.
func openNodes(as []runs.Attempt) []string {
	var out []string
	for _, a := range as {
		if a.Status == dag.NodeWaiting && a.Approval != nil && !slices.Contains(out, a.Node) {
			out = append(out, a.Node)
		}
	}
	return slices.DeleteFunc(out, func(node string) bool { return openQuestion(as, node).Answer != nil })
}

// Polling bounds for AwaitAnswer: SQLite cannot tell another process of a commit, so a
// waiting run is read again, first often (an answer given at once), then at most every
// awaitMax; PostgreSQL tells of the answer as it commits, and the run is read every awaitMax
// besides, for its deadlines.
const (
	awaitMin = 100 * time.Millisecond
	awaitMax = 2 * time.Second
)

// AwaitAnswer returns once run id, of DAG d, is no longer waiting: an answer was recorded
// and the run resumed, by whichever process won the resume guard (seam approve's, a seam
// serve's, or this one's), or it ended otherwise; or when ctx ends, with its error. Each
// time it reads the run it continues it (Continue): a deadline that passed while it waited
// is applied here (run.Warn hears it), and an answer whose process died before resuming the
// run is resumed here; the run then goes on in this process, on the Service's goroutine.
func (s *Service) AwaitAnswer(ctx context.Context, id string, d *dag.DAG, run Request) error {
	st, err := s.store()
	if err != nil {
		return err
	}
	// Listening before the first read, so that no answer falls between the two.
	wait, stop, notified := runs.ListenRun(ctx, st, id)
	defer stop()
	every := awaitMin
	if notified {
		every = awaitMax
	}
	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		r, _, err := st.GetRun(ctx, id)
		if err != nil {
			return fmt.Errorf("await the answer to run %s: %w", id, err)
		}
		if r.Status != dag.RunWaiting {
			return nil
		}
		res, err := s.Continue(ctx, id, d, time.Now(), run)
		if err != nil {
			return fmt.Errorf("await the answer to run %s: %w", id, err)
		}
		if res != nil {
			select { // the store says running now (or the run ended): what follows it reads that
			case <-res.recorded:
			case <-res.done:
			}
			continue
		}
		_ = wait(ctx, every) // ctx's end is said above
		every = min(2*every, awaitMax)
	}
}
