package service

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/runs"
)

// Request says how to run a DAG.
type Request struct {
	// Params are the run's parameters (ignored by Resume, which runs with the run's own).
	Params map[string]any
	// NoLint runs the DAG even when lint finds errors in it.
	NoLint bool
	// Observer, when not nil, is told when nodes start and finish (engine.Observer).
	Observer engine.Observer
	// Warn, when not nil, hears what does not stop the run, before the run starts: lint's
	// warnings (*LintWarnings) and, for a resume, a changed DAG file (*ChangedWarning).
	Warn func(error)
	// Engine, when not nil, runs this run in place of the Service's engine.
	Engine engine.Engine
	// Fired says which trigger starts the run (the scheduler); zero for a run by hand.
	Fired dag.Fired
}

// Offered names the engines a front end offers: "embedded" (the Service's own), then those of
// others by name.
func Offered(others map[string]engine.Engine) []string {
	names := []string{"embedded"}
	for name := range others {
		names = append(names, name)
	}
	slices.Sort(names[1:])
	return names
}

// LintWarnings says lint found warnings, and no error, in the DAG about to run.
type LintWarnings struct {
	File     string
	Findings []lint.Finding
	Count    int
	// Accepted counts the breaks the policy accepted (Options.PolicyFile), notes among
	// Findings.
	Accepted int
	lang     i18n.Lang
}

func (w *LintWarnings) Error() string {
	if w.Accepted > 0 {
		return i18n.Sprintf(w.lang, "%d lint warnings; breaks accepted by the policy: %d (seam lint %s shows them)", w.Count, w.Accepted, w.File)
	}
	if w.Count == 1 {
		return i18n.Sprintf(w.lang, "1 lint warning (seam lint %s shows them)", w.File)
	}
	return i18n.Sprintf(w.lang, "%d lint warnings (seam lint %s shows them)", w.Count, w.File)
}

// Run is a run a Service started: its id and DAG at once, its result once it has finished.
type Run struct {
	ID  string
	DAG *dag.DAG

	recorded chan struct{} // closed once the run is in the store
	done     chan struct{}
	res      *dag.RunResult
	err      error
}

// Recorded is closed once the run is in the store (never, when it could not start or the
// Service has no store).
func (r *Run) Recorded() <-chan struct{} { return r.recorded }

// Done is closed once the run has finished.
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait returns the run's result once it has finished. The error says why it could not start
// (a *engine.ParamsError, the store refusing it) or a *PanicError; a failed or canceled run
// is a result with that status.
func (r *Run) Wait() (*dag.RunResult, error) {
	<-r.done
	return r.res, r.err
}

// Start checks d's params against its params schema (a *engine.ParamsError when they break
// it), lints d (a *LintError when lint finds errors, unless req.NoLint) and starts running it
// under ctx, recorded in the store when the Service has one. It returns at once; Cancel or
// ctx stop the run.
func (s *Service) Start(ctx context.Context, d *dag.DAG, req Request) (*Run, error) {
	params := d.WithDefaults(req.Params) // as the run does: a param with a default may be left out
	if err := s.check(ctx, d, params, req); err != nil {
		return nil, err
	}
	opts := engine.RunOptions{RunID: engine.NewRunID(time.Now()), Params: req.Params, By: s.by(ctx), Fired: req.Fired}
	var rec dag.Recorder
	if s.opts.Store != nil {
		rec = runs.NewRecorder(s.opts.Store, d, runs.RecorderOptions{Lease: s.lease})
	}
	return s.launch(ctx, d, opts, rec, req.Observer, req.Engine)
}

// maxPolicySize bounds the policy file PolicyFile names.
const maxPolicySize = 1 << 20

// policy reads and parses the policy file PolicyFile names.
func (s *Service) policy() (lint.Policy, error) {
	src, err := userfile.Read(s.opts.PolicyFile, maxPolicySize)
	if err == nil {
		var p lint.Policy
		if p, err = lint.ParsePolicy(src, s.opts.Lang); err == nil {
			return p, nil
		}
	}
	return lint.Policy{}, i18n.Errorf(s.opts.Lang, "policy %s: %w", s.opts.PolicyFile, err)
}

// check refuses params that break d's params schema, then lints d with them unless noLint,
// telling warn of lint's warnings.
func (s *Service) check(ctx context.Context, d *dag.DAG, params map[string]any, req Request) error {
	if d.Params != nil {
		if vs := d.Params.ValidateParams(params, s.opts.Lang); len(vs) > 0 {
			return &engine.ParamsError{Violations: vs, Lang: s.opts.Lang}
		}
	}
	if req.NoLint {
		return nil
	}
	var lintErr *LintError
	step := func(ctx context.Context) error {
		// The run's params are known: edges from them are checked with their values.
		fs := lint.Lint(ctx, d, lint.Options{Lang: s.opts.Lang, Params: params})
		if s.opts.PolicyFile != "" {
			p, err := s.policy()
			if err != nil {
				return err
			}
			fs = p.AcceptIn(d.File, fs, s.opts.Lang)
		}
		errs, warns, accepted := 0, 0, 0
		for _, f := range fs {
			switch f.Severity {
			case lint.SeverityError:
				errs++
			case lint.SeverityInfo:
				accepted++ // a break the policy accepts: said with the warnings, counted apart
			default:
				warns++
			}
		}
		switch {
		case errs > 0:
			lintErr = &LintError{File: d.File, Findings: fs, Errors: errs, Warnings: warns, lang: s.opts.Lang}
			return lintErr
		case len(fs) > 0 && req.Warn != nil:
			req.Warn(&LintWarnings{File: d.File, Findings: fs, Count: warns, Accepted: accepted, lang: s.opts.Lang})
		}
		return nil
	}
	if s.opts.AroundLint != nil {
		return s.opts.AroundLint(ctx, d, step)
	}
	return step(ctx)
}

// launch runs d with opts on a goroutine of its own, recorded by rec when not nil.
// eng runs it when not nil, else the Service's engine.
func (s *Service) launch(ctx context.Context, d *dag.DAG, opts engine.RunOptions, rec dag.Recorder, obs engine.Observer, eng engine.Engine) (*Run, error) {
	if eng == nil {
		eng = s.opts.Engine
	}
	run := &Run{ID: opts.RunID, DAG: d, recorded: make(chan struct{}), done: make(chan struct{})}
	opts.Lang, opts.Getenv, opts.Logger, opts.Observer = s.opts.Lang, s.opts.Getenv, s.opts.Logger, obs
	var b *began
	if rec != nil {
		b = &began{Recorder: rec, ch: run.recorded}
		opts.Recorder = b
	}
	if s.opts.Instrument != nil {
		s.opts.Instrument(&opts, d)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	if b != nil {
		// The engine's workers record the run (Temporal): it is in the store once one of
		// them has taken it, which is what a front end that answers at once waits for.
		opts.Started = func() { go s.awaitRecorded(ctx, run.ID, b) }
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		cancel(errClosing)
		return nil, ErrShuttingDown
	}
	s.active[run.ID] = cancel
	s.keepLeases()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(run.done)
		defer func() {
			s.mu.Lock()
			delete(s.active, run.ID)
			s.stopLeases()
			s.mu.Unlock()
			cancel(nil)
		}()
		defer func() {
			if p := recover(); p != nil {
				s.crashed(context.WithoutCancel(ctx), cancel, run, b, p)
			}
		}()
		run.res, run.err = eng.Run(ctx, d, opts)
	}()
	return run, nil
}

// recordedPoll is how often awaitRecorded looks for a run another process records.
const recordedPoll = 50 * time.Millisecond

// awaitRecorded tells b the run id is recorded once the store has it, for an engine whose
// workers record it; it gives up when ctx ends (the run ended, or the Service closed).
func (s *Service) awaitRecorded(ctx context.Context, id string, b *began) {
	t := time.NewTicker(recordedPoll)
	defer t.Stop()
	for {
		if _, _, err := s.opts.Store.GetRun(ctx, id); err == nil {
			b.started()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// crashed handles a panic on the goroutine driving run (the engine recovers those in nodes,
// validation and callbacks; this is the net under the scheduler itself): it is logged with
// its stack, the run's context is canceled so that what it started stops, and the run is
// recorded failed if it got into the store.
func (s *Service) crashed(ctx context.Context, cancel context.CancelCauseFunc, run *Run, b *began, p any) {
	s.opts.Logger.Error("seam: panic in a run; the run is recorded failed, the process goes on",
		"run", run.ID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	cancel(errPanicked)
	pe := &PanicError{ID: run.ID, Value: p, lang: s.opts.Lang}
	run.err = pe
	if b == nil {
		return
	}
	select {
	case <-b.ch:
	default:
		return // not in the store: nothing to record
	}
	res := &dag.RunResult{ID: run.ID, DAG: run.DAG.Name, File: run.DAG.File, Status: dag.RunFailed, Ended: time.Now(), Error: pe.Error()}
	if err := b.Recorder.FinishRun(ctx, res); err != nil {
		s.opts.Logger.Error("seam: record the run that panicked as failed", "run", run.ID, "error", err)
	}
}

// began wraps a run's recorder to tell when the run is in the store: a front end that does
// not wait for the run answers then, so that whoever asks finds the run at once.
// A run an engine records elsewhere (Temporal) is waited for by awaitRecorded instead.
type began struct {
	dag.Recorder
	ch   chan struct{}
	once sync.Once
}

func (b *began) BeginRun(ctx context.Context, run dag.RunRecord) error {
	if err := b.Recorder.BeginRun(ctx, run); err != nil {
		return err
	}
	b.started()
	return nil
}

func (b *began) started() { b.once.Do(func() { close(b.ch) }) }

// Sub records the sub-runs of dag nodes as the wrapped recorder does, if it does.
func (b *began) Sub(d *dag.DAG) dag.Recorder {
	if sr, ok := b.Recorder.(dag.SubRecorder); ok {
		return sr.Sub(d)
	}
	return nil
}

// RecordLog records the log of a running attempt as the wrapped recorder does, if it does
// (false otherwise: nothing took it).
func (b *began) RecordLog(ctx context.Context, a dag.AttemptRecord) (bool, error) {
	if lr, ok := b.Recorder.(dag.LogRecorder); ok {
		return lr.RecordLog(ctx, a)
	}
	return false, nil
}

// Cancel cancels run id, which this Service started and is still running: its running nodes
// are told to stop, the others do not start, and it is recorded canceled. Otherwise it says
// why not: a *NotFoundError, a *NotRunningError (another process runs it, or it has ended),
// or ErrNoStore when there is no store to tell. A run running on Temporal, or waiting there
// for an approval's answer, is canceled there when the Service has Options.Elsewhere; so is one that no worker has taken yet, which the
// store does not hold, when Elsewhere can (a pendingCanceler): it is recorded canceled here.
func (s *Service) Cancel(ctx context.Context, id string) error {
	s.mu.Lock()
	c, ok := s.active[id]
	if ok {
		c(errCanceled)
	}
	s.mu.Unlock()
	if ok {
		s.recordCancel(ctx, id)
		return nil
	}
	r, _, err := s.Show(ctx, id)
	var nf *NotFoundError
	if p, ok := s.opts.Elsewhere.(pendingCanceler); ok && errors.As(err, &nf) {
		return s.cancelPending(ctx, p, id, nf)
	}
	if err != nil {
		return err
	}
	// A run waiting for an answer on Temporal waits in its workflow, which the cancel ends.
	if (r.Status == dag.RunRunning || r.Status == dag.RunWaiting) && r.Host == runs.HostTemporal && s.opts.Elsewhere != nil {
		err := s.opts.Elsewhere.Cancel(ctx, r.ID)
		if err == nil {
			s.recordCancel(ctx, r.ID)
		}
		return err
	}
	return &NotRunningError{ID: r.ID, Status: r.Status, lang: s.opts.Lang}
}

// CanCancel says whether Cancel would reach run r, which is recorded running: this Service
// runs it, or it runs on Temporal and the Service has Options.Elsewhere. Another process's
// run is not: the store carries no cancel request to it, so a front end does not offer to
// cancel it and says who runs it instead.
func (s *Service) CanCancel(r *runs.Run) bool {
	s.mu.Lock()
	_, ok := s.active[r.ID]
	s.mu.Unlock()
	return ok || r.Host == runs.HostTemporal && s.opts.Elsewhere != nil
}

// pendingCanceler is an Options.Elsewhere that also cancels a run the store does not hold
// yet: on Temporal, one that no worker has taken. When it ends such a run it returns the run
// as it started, for the Service to record (no worker will); found is false when it knows no
// such run.
type pendingCanceler interface {
	CancelPending(ctx context.Context, id string) (run *dag.RunRecord, found bool, err error)
}

// cancelPending cancels run id, which the store does not hold (nf says so), through p, and
// records it canceled when p ended it before anything ran.
func (s *Service) cancelPending(ctx context.Context, p pendingCanceler, id string, nf *NotFoundError) error {
	run, found, err := p.CancelPending(ctx, id)
	switch {
	case err != nil:
		// Not in the store, and Temporal (unreachable, or not used at all) could not say: the
		// store's answer stands, with why it is not the whole one.
		return i18n.Errorf(s.opts.Lang, "%w (and Temporal could not be asked: %v)", nf, err)
	case !found:
		return nf
	case run == nil:
		return nil // a worker took it meanwhile: it records the cancel
	}
	rec := runs.NewRecorder(s.opts.Store, nil, runs.RecorderOptions{PID: -1, Host: runs.HostTemporal})
	// A worker that took it as it was ended may have begun its record: then it is finished.
	begun := rec.BeginRun(ctx, *run)
	res := &dag.RunResult{ID: id, DAG: run.DAG, File: run.File, Status: dag.RunCanceled, Started: run.Started, Ended: time.Now()}
	if err := rec.FinishRun(ctx, res); err != nil {
		return i18n.Errorf(s.opts.Lang, "run %s: canceled before a worker took it, but not recorded: %w", id, errors.Join(begun, err))
	}
	s.recordCancel(ctx, id)
	return nil
}
