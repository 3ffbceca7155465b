package service

import (
	"context"
	"errors"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// Release ends run id ("latest" for the newest), recorded as running by an owner that is
// gone, as canceled: for the run that nothing will resume, or one recorded before leases,
// whose owner's death nothing else can tell (another host's process, a pid reused). It
// refuses, with a *NotReleasableError, a run whose owner may live: this Service runs it, its
// lease is live, or (without a lease) its process lives on this host; a *NotRunningError
// says it has ended. It returns the run as it was before.
func (s *Service) Release(ctx context.Context, id string) (*runs.Run, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	r, _, err := s.get(ctx, st, id)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	refuse := func(why ReleaseRefusal) error { return &NotReleasableError{Why: why, Run: r, lang: s.opts.Lang} }
	switch {
	case r.Status != dag.RunRunning:
		return nil, &NotRunningError{ID: r.ID, Status: r.Status, lang: s.opts.Lang}
	case s.running(r.ID):
		return nil, refuse(ProcessAlive)
	case !r.Releasable(now) && !r.LeaseUntil.IsZero():
		return nil, refuse(LeaseLive)
	case !r.Releasable(now):
		return nil, refuse(ProcessAlive)
	}
	err = st.ReleaseRun(ctx, r.ID, r.LeaseUntil, now)
	switch {
	case errors.Is(err, runs.ErrLeaseChanged):
		return nil, refuse(LeaseRenewed)
	case errors.Is(err, runs.ErrNotRunning):
		// Ended meanwhile: say how.
		if e, _, gerr := st.GetRun(ctx, r.ID); gerr == nil {
			return nil, &NotRunningError{ID: r.ID, Status: e.Status, lang: s.opts.Lang}
		}
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ReleaseRefusal says why a run cannot be released.
type ReleaseRefusal int

// Why a run cannot be released.
const (
	// ProcessAlive: the process recorded as running it lives, on this host.
	ProcessAlive ReleaseRefusal = iota + 1
	// LeaseLive: its owner renewed its lease lately; it may well be running.
	LeaseLive
	// LeaseRenewed: its owner renewed its lease while it was being released.
	LeaseRenewed
)

// NotReleasableError says why Release refused run Run.
type NotReleasableError struct {
	Why  ReleaseRefusal
	Run  *runs.Run
	lang i18n.Lang
}

func (e *NotReleasableError) Error() string {
	l, r := e.lang, e.Run
	switch e.Why {
	case LeaseLive:
		return i18n.Sprintf(l, "run %s is still running: its owner %s renewed its lease, which holds until %s; release is for a run whose owner is gone, and a lease expires within %s of its owner's death",
			r.ID, r.LeaseOwner, r.LeaseUntil.Local().Format(time.DateTime), runs.LeaseFor)
	case LeaseRenewed:
		return i18n.Sprintf(l, "run %s is still running: its owner renewed its lease meanwhile", r.ID)
	}
	return i18n.Sprintf(l, "run %s is still running (process %d on %s): stop it there, or wait for it to end", r.ID, r.PID, r.Host)
}
