// Package service is the one place that starts, resumes, cancels, lists, shows and explains
// runs: it lints a DAG before running it, decides whether a run can be resumed and says why
// not with typed errors, hands the run to an engine.Engine and records it in a runs.Store.
// Every front end (the CLI, the MCP server, the web view, a Temporal worker) calls it and only
// parses arguments and formats answers.
package service

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// Options configure a Service.
type Options struct {
	// Store records the runs and answers Resume, List, Show and Explain; nil runs without
	// recording (those then fail with ErrNoStore). The Service does not close it.
	Store runs.Store
	// Engine runs the DAGs; nil is engine.Embedded.
	Engine engine.Engine
	// Elsewhere, when not nil, cancels the runs recorded as running on Temporal
	// (runs.HostTemporal), which no process of their own runs.
	Elsewhere engine.Canceler
	// Lang is the language of the errors' and warnings' messages, of lint findings and of
	// what the engine says: "en" (default) or "ja".
	Lang i18n.Lang
	// Getenv reads the environment variables DAGs declare under env; nil reads none.
	Getenv func(string) string
	// Logger receives what no answer holds (a panic's stack); nil logs to slog.Default().
	Logger *slog.Logger
	// Instrument, when not nil, is applied to the options of every run before it starts:
	// tracer, metrics, the secrets exporters mask.
	Instrument func(*engine.RunOptions, *dag.DAG)
	// ShowPath turns a DAG file's path into the one messages show (the CLI's is relative to
	// the current directory, the MCP server's to its root); nil shows it as it is.
	ShowPath func(path string) string
	// AroundLint, when not nil, runs the lint step lint of d (the CLI times it for its
	// seam.lint span); it returns lint's error.
	AroundLint func(ctx context.Context, d *dag.DAG, lint func(context.Context) error) error
	// PolicyFile names a policy file of seam lint --against (lint.Policy), read at every
	// start: the breaks it accepts are notes, not errors, so the DAG runs (`seam run
	// --policy). "" is $SEAM_POLICY's (by Getenv), as for seam serve and seam mcp; none
	// accepts nothing.
	PolicyFile string
	// Schedules, when not nil, carries the DAGs' schedules out on Temporal Schedules: seam
	// schedule sync makes them, and pause, resume and backfill act on them.
	Schedules RemoteSchedules
}

// Service starts and inspects runs. It is safe for concurrent use. Close it to cancel the
// runs it started and wait until each is recorded.
type Service struct {
	opts Options
	// local is who starts, resumes and cancels runs when the context names nobody (the
	// local CLI): the operating-system user.
	local *auth.Principal
	lease *runs.Leaser // this process's leases on the runs it records; nil without a store

	mu     sync.Mutex
	active map[string]context.CancelCauseFunc // the runs going, by id
	// keeping stops the renewal of the leases, which goes on while a run is active.
	keeping context.CancelFunc
	closed  bool
	wg      sync.WaitGroup
}

// New returns a Service.
func New(opts Options) *Service {
	if opts.Engine == nil {
		opts.Engine = engine.Embedded{}
	}
	if opts.Lang == "" {
		opts.Lang = "en"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.PolicyFile == "" && opts.Getenv != nil {
		opts.PolicyFile = opts.Getenv("SEAM_POLICY")
	}
	s := &Service{opts: opts, active: map[string]context.CancelCauseFunc{}, local: auth.OS("", opts.Getenv)}
	if opts.Store != nil {
		s.lease = runs.NewLeaser(opts.Store, nil)
	}
	return s
}

// by names who is asking: the principal ctx carries (auth.With: the web view's login, an MCP
// client's token), else the operating-system user.
func (s *Service) by(ctx context.Context) string {
	if p := auth.From(ctx); p != nil {
		return p.Name
	}
	return s.local.Name
}

// recordCancel records that the principal of ctx asked to cancel run id. A store that
// cannot record it does not undo the cancel: the run is told to stop all the same.
func (s *Service) recordCancel(ctx context.Context, id string) {
	if s.opts.Store == nil {
		return
	}
	if err := s.opts.Store.RecordAction(ctx, id, runs.Action{Kind: runs.ActionCancel, By: s.by(ctx), At: time.Now()}); err != nil {
		s.opts.Logger.Warn("seam: record who canceled the run", "run", id, "error", err)
	}
}

// keepLeases renews the leases of the runs this Service records while one is active, on a
// goroutine of its own: one renewal for them all, its sub-runs included. Called with s.mu
// held as a run becomes active.
func (s *Service) keepLeases() {
	if s.lease == nil || s.keeping != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.keeping = cancel
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.lease.Keep(ctx, func(err error) {
			s.opts.Logger.Warn("seam: renew the leases of the runs going; they read interrupted if it keeps failing", "error", err)
		})
	}()
	if cr, ok := s.opts.Store.(runs.CancelRequests); ok {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.obeyCancels(ctx, cr)
		}()
	}
}

// obeyCancels cancels, every runs.CancelPoll until ctx ends, the runs of this process that
// another process asked to cancel through the store (a scheduler's cancel_other); the asker
// recorded who asked.
func (s *Service) obeyCancels(ctx context.Context, cr runs.CancelRequests) {
	t := time.NewTicker(runs.CancelPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ids, err := cr.CancelRequested(ctx, s.lease.Owner())
		if err != nil {
			if ctx.Err() == nil {
				s.opts.Logger.Warn("seam: read the cancel requests of the runs going", "error", err)
			}
			continue
		}
		s.mu.Lock()
		for _, id := range ids {
			if c, ok := s.active[id]; ok {
				c(errCanceled)
			}
		}
		s.mu.Unlock()
	}
}

// stopLeases stops the renewal once no run is active. Called with s.mu held.
func (s *Service) stopLeases() {
	if len(s.active) == 0 && s.keeping != nil {
		s.keeping()
		s.keeping = nil
	}
}

// Why a run this Service started was canceled (context.Cause of the run's context).
var (
	errCanceled = errors.New("canceled by Cancel")
	errClosing  = errors.New("the service is closing")
	errPanicked = errors.New("the run panicked")
)

// Close cancels every run still going and returns once each has returned (been recorded).
// Start and Resume refuse new runs from then on.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	for _, c := range s.active {
		c(errClosing)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// running reports whether this Service is running the run id.
func (s *Service) running(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.active[id]
	return ok
}

func (s *Service) store() (runs.Store, error) {
	if s.opts.Store == nil {
		return nil, ErrNoStore
	}
	return s.opts.Store, nil
}
