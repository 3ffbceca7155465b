package service

import (
	"context"
	"os"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/runs"
)

// Resumable is a run that can be resumed, as Resumable found it: the front end loads File
// (its own way: the CLI prints a broken file's diagnostics, the MCP server confines it to its
// root) and hands the DAG to Resume.
type Resumable struct {
	Run *runs.Run
	// File is the DAG file to resume from: the one given, else the run's.
	File   string
	Params map[string]any // the params the run started with
	// From is the node a rerun starts from (ResumeCheck.From); "" resumes what did not pass.
	From string
}

// ResumeCheck is what Resumable checks a resume against.
type ResumeCheck struct {
	// File is the DAG file to resume from, when it moved; "" is the run's own.
	File string
	// ParamsGiven is set when the caller was given params: a resume runs with those the run
	// started with, or its outputs would not fit together.
	ParamsGiven bool
	// From reruns a run from this node: it and every node downstream of it run again, the
	// others are reused. A finished run can be rerun so; one still running cannot.
	From string
}

// Resumable reads run id ("latest" for the newest) and says whether it can be resumed: a
// *NotResumableError says why not (no store, params given, finished, still running, no or a
// missing DAG file), a *NotFoundError or *NoRunsError that there is no such run.
func (s *Service) Resumable(ctx context.Context, id string, c ResumeCheck) (*Resumable, error) {
	l := s.opts.Lang
	if s.opts.Store == nil {
		return nil, &NotResumableError{Why: NoStore, ID: id, lang: l}
	}
	if c.ParamsGiven {
		return nil, &NotResumableError{Why: ParamsGiven, ID: id, lang: l}
	}
	r, _, err := s.get(ctx, s.opts.Store, id)
	if err != nil {
		return nil, err
	}
	refuse := func(why Refusal) *NotResumableError {
		return &NotResumableError{Why: why, ID: r.ID, Run: r, lang: l}
	}
	switch {
	case c.From == "" && (r.Status == dag.RunSuccess || r.Status == dag.RunWarn):
		return nil, refuse(Finished)
	case r.Status == dag.RunRunning && (s.running(r.ID) || !r.Interrupted()):
		return nil, refuse(StillRunning)
	}
	path := r.File
	if c.File != "" {
		path = c.File
	}
	if path == "" {
		return nil, refuse(NoFile)
	}
	if _, err := os.Stat(path); err != nil {
		e := refuse(MissingFile)
		e.File, e.Err = path, err
		return nil, e
	}
	params, err := r.ParamsObject()
	if err != nil {
		return nil, err
	}
	return &Resumable{Run: r, File: path, Params: params, From: c.From}, nil
}

// Resume runs again, under its id and with its params, the run rs found resumable, from d
// (loaded from rs.File): the nodes that passed are reused when their definition and input
// are unchanged, the others run. It refuses a d that is another DAG (a *NotResumableError),
// warns req.Warn when the file changed since the run (a *ChangedWarning), then checks and
// lints as Start does. With rs.From, the node of that id and every node downstream of it
// run again whatever their keys (a *NotResumableError when d has no such node). Either way
// the run's resume count grows by one: a new session of the same run. Of two processes
// resuming one run, the store lets one.
func (s *Service) Resume(ctx context.Context, rs *Resumable, d *dag.DAG, req Request) (*Run, error) {
	r, l := rs.Run, s.opts.Lang
	show := s.showPath
	if d.Name != r.DAG {
		return nil, &NotResumableError{Why: OtherDAG, ID: r.ID, Run: r, File: show(d.File), Defines: d.Name, lang: l}
	}
	if d.Hash != r.FileHash && r.FileHash != "" && req.Warn != nil {
		req.Warn(&ChangedWarning{File: show(d.File), ID: r.ID, lang: l})
	}
	if err := s.check(ctx, d, d.WithDefaults(rs.Params), req); err != nil {
		return nil, err
	}
	if rs.From != "" && d.ByID[rs.From] == nil {
		return nil, &NotResumableError{Why: NoSuchNode, ID: r.ID, Run: r, Node: rs.From, lang: l}
	}
	reuse, err := s.opts.Store.Reusable(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if rs.From != "" {
		for id := range downstream(d, rs.From) {
			delete(reuse, id)
		}
	}
	opts := engine.RunOptions{RunID: r.ID, Params: rs.Params, Reuse: reuse, Resumes: r.Resumes, By: s.by(ctx)}
	if hasApproval(d) {
		// The answers recorded on its approvals (Answer) are what they run with.
		_, attempts, err := s.opts.Store.GetRun(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		if applied, err := s.applyTimeouts(ctx, r.ID, d, attempts); err != nil {
			return nil, err
		} else if applied {
			if _, attempts, err = s.opts.Store.GetRun(ctx, r.ID); err != nil {
				return nil, err
			}
		}
		opts.Answers = AnswersOf(attempts)
	}
	rec := runs.NewRecorder(s.opts.Store, d, runs.RecorderOptions{Resume: true, Resumes: r.Resumes, Lease: s.lease})
	return s.launch(ctx, d, opts, rec, req.Observer, req.Engine)
}

// showPath is path as messages show it (Options.ShowPath).
func (s *Service) showPath(path string) string {
	if s.opts.ShowPath == nil {
		return path
	}
	return s.opts.ShowPath(path)
}

// downstream is the set of node from and every node that depends on it, directly or
// through others (by references and needs).
func downstream(d *dag.DAG, from string) map[string]bool {
	dependents := make(map[string][]string, len(d.Nodes))
	for _, n := range d.Nodes {
		for _, dep := range n.Deps {
			dependents[dep] = append(dependents[dep], n.ID)
		}
	}
	seen := map[string]bool{from: true}
	queue := []string{from}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, next := range dependents[id] {
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	return seen
}
