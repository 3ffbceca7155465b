package main

import (
	"context"
	"fmt"
	"os"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// runStore says where `seam run` records the run, and whether it resumes one.
type runStore struct {
	flag storeFlag
	none bool // --no-store
	// resume is the id given to --resume; resumed its stored run, read before the DAG loads.
	resume  string
	resumed *runs.Run
	s       runs.Store // open when resuming
}

// prepareResume reads the run to resume and returns the DAG file and params to run it with:
// the run's own, unless a file is given (the DAG moved). Params cannot be given: a resume
// runs with the params the run started with, or its outputs would not fit together.
func (rs *runStore) prepareResume(ctx context.Context, e *env, args []string, paramsGiven bool) (string, map[string]any, error) {
	l := rs.flag.lang
	if rs.none {
		return "", nil, usage(i18n.Errorf(l, "--resume reads the run from the store: it cannot be combined with --no-store"))
	}
	if paramsGiven {
		return "", nil, usage(i18n.Errorf(l, "--resume runs with the params run %s started with: drop -p and --params-file", rs.resume))
	}
	s, err := openStoreToResume(ctx, e, &rs.flag)
	if err != nil {
		return "", nil, err
	}
	r, _, err := getRun(ctx, s, rs.resume, l)
	if err != nil {
		s.Close()
		return "", nil, err
	}
	fail := func(err error) (string, map[string]any, error) {
		s.Close()
		return "", nil, usage(err)
	}
	switch {
	case r.Status == dag.RunSuccess || r.Status == dag.RunWarn:
		return fail(i18n.Errorf(l, "run %s finished with %s: there is nothing to resume", r.ID, runs.StatusText(l, r.Status)))
	case r.Status == dag.RunRunning && !r.Interrupted():
		return fail(i18n.Errorf(l, "run %s is still running (process %d on %s); resume it once that process has stopped", r.ID, r.PID, r.Host))
	}
	path := r.File
	if len(args) > 0 {
		path = args[0]
	}
	if path == "" {
		return fail(i18n.Errorf(l, "run %s has no DAG file recorded: give it, `seam run --resume %s FILE`", r.ID, r.ID))
	}
	if _, err := os.Stat(path); err != nil {
		return fail(i18n.Errorf(l, "resume run %s: its DAG file: %w; if it moved, give it: `seam run --resume %s FILE`", r.ID, err, r.ID))
	}
	params, err := r.ParamsObject()
	if err != nil {
		s.Close()
		return "", nil, usage(err)
	}
	rs.resumed, rs.s = r, s
	return path, params, nil
}

// attach opens the store and sets up opts to record the run into it (and, when resuming, to
// reuse what the run passed). It returns the function that closes the store.
func (rs *runStore) attach(ctx context.Context, e *env, d *dag.DAG, opts *engine.RunOptions) (func(), error) {
	if rs.none {
		return func() {}, nil
	}
	if rs.resumed == nil {
		s, err := openStore(ctx, e, &rs.flag)
		if err != nil {
			return nil, err
		}
		opts.Recorder = runs.NewRecorder(s, d, runs.RecorderOptions{})
		return func() { s.Close() }, nil
	}
	s, r := rs.s, rs.resumed
	closeStore := func() {} // rs.close closes the store prepareResume opened
	// Reuse is decided node by node (a node's key covers its definition and its resolved
	// configuration and input), so an edited file is fine; a different DAG is not.
	if d.Name != r.DAG {
		return nil, usage(i18n.Errorf(rs.flag.lang, "run %s ran DAG %q, but %s defines %q: resume it with its own DAG file", r.ID, r.DAG, displayPath(d.File), d.Name))
	}
	if d.Hash != r.FileHash && r.FileHash != "" {
		fmt.Fprint(e.stderr, i18n.Sprintf(rs.flag.lang, "seam: %s changed since run %s: nodes whose definition or input changed run again\n", displayPath(d.File), r.ID))
	}
	reuse, err := s.Reusable(ctx, r.ID)
	if err != nil {
		return nil, usage(err)
	}
	opts.RunID = r.ID
	opts.Reuse = reuse
	opts.Recorder = runs.NewRecorder(s, d, runs.RecorderOptions{Resume: true, Resumes: r.Resumes})
	return closeStore, nil
}

// close closes the store a resume opened.
func (rs *runStore) close() {
	if rs.s != nil {
		rs.s.Close()
		rs.s = nil
	}
}
