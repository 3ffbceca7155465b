package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// Untaken is how long an answer recorded on a waiting run is left to the process that
// recorded it, which resumes the run right after; past it, that process is taken to have
// died in between, and Continue resumes the run itself.
const Untaken = 10 * time.Second

// Continue goes on, as of now, with run id if it waits for an answer, d being its DAG (loaded
// from its file): it records the deadline's answer on each question open past its deadline
// (the process that sees it first; run.Warn hears a *TimedOutWarning for each), and resumes
// the run through the resume guard when that recorded one, or when an answer recorded Untaken
// ago or more has not been taken by a resume. It returns the run it resumed; nil when there
// was nothing to do, or another process runs it.
func (s *Service) Continue(ctx context.Context, id string, d *dag.DAG, now time.Time, run Request) (*Run, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	r, as, err := st.GetRun(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("continue run %s: %w", id, err)
	}
	// A run on Temporal waits in its workflow, whose timer applies the deadline.
	if r.Status != dag.RunWaiting || r.DAG != d.Name || r.Host == runs.HostTemporal {
		return nil, nil
	}
	due := false
	for _, n := range d.Nodes {
		q, taken := lastQuestion(as, n.ID)
		cfg, ok := n.ApprovalConfig()
		switch {
		case q == nil || !ok || taken:
		case q.Answer == nil && overdue(q, now):
			if _, err := s.timeOut(ctx, id, n.ID, cfg, q, now); err != nil {
				return nil, err
			}
			if run.Warn != nil {
				run.Warn(&TimedOutWarning{Run: id, Node: n.ID, Deadline: q.Deadline, lang: s.opts.Lang})
			}
			due = true
		case q.Answer != nil && now.Sub(q.At) >= Untaken:
			due = true
		}
	}
	if !due {
		return nil, nil
	}
	return s.resumeAnswered(ctx, id, d, run)
}

// ContinueWaiting is Continue for every run of the store waiting for an answer whose DAG
// file is one of ds (a run of another file is left to the commands that touch it): what
// fires deadlines without a command touching the run. It returns the runs it resumed; what
// it could not do for a run does not stop the others.
func (s *Service) ContinueWaiting(ctx context.Context, ds []*dag.DAG, now time.Time, run Request) ([]*Run, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	byFile := make(map[string]*dag.DAG, len(ds))
	for _, d := range ds {
		if abs, err := filepath.Abs(d.File); err == nil {
			byFile[abs] = d
		}
	}
	var (
		out  []*Run
		errs []error
	)
	f := runs.Filter{Status: dag.RunWaiting}
	for {
		page, next, err := st.ListRuns(ctx, f)
		if err != nil {
			return out, fmt.Errorf("list the waiting runs: %w", err)
		}
		for _, r := range page {
			abs, err := filepath.Abs(r.File)
			d := byFile[abs]
			if err != nil || r.File == "" || d == nil {
				continue
			}
			res, err := s.Continue(ctx, r.ID, d, now, run)
			if err != nil {
				errs = append(errs, err)
			} else if res != nil {
				out = append(out, res)
			}
		}
		if next == "" {
			return out, errors.Join(errs...)
		}
		f.Cursor = next
	}
}

// lastQuestion is the question node last asked in a run's attempts, and whether a resume
// took its answer since (the node has an attempt after it).
func lastQuestion(as []runs.Attempt, node string) (q *dag.ApprovalRecord, taken bool) {
	for _, a := range as {
		switch {
		case a.Node != node:
		case a.Status == dag.NodeWaiting && a.Approval != nil:
			q, taken = a.Approval, false
		case q != nil:
			taken = true
		}
	}
	return q, taken
}
