package service

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
)

// RemoteSchedules carries the schedules (cron and every triggers) of DAGs out on another
// engine's scheduler, one schedule there per trigger: Temporal Schedules (temporal.Schedules).
// With one (Options.Schedules), pause, resume and backfill act on it, and no seam scheduler
// is needed.
type RemoteSchedules interface {
	// Sync creates, updates and deletes the remote schedules of ds (see temporal.Schedules.Sync):
	// the ones of triggers gone from a DAG in ds, or from a DAG file under one of under.
	// paused says whether the store has a trigger paused, and why, for a schedule created.
	Sync(ctx context.Context, ds []*dag.DAG, under []string, paused func(dagName, trigger string) (bool, string)) ([]Synced, error)
	// Pause pauses (with note) or resumes the remote schedule of a trigger.
	Pause(ctx context.Context, dagName, trigger string, paused bool, note string) error
	// Backfill asks the remote schedule to take its times from from to to (both included).
	Backfill(ctx context.Context, dagName, trigger string, from, to time.Time) error
}

// What Sync did to a trigger's remote schedule (Synced.Did).
const (
	SyncCreated   = "created"
	SyncUpdated   = "updated"
	SyncDeleted   = "deleted"
	SyncUnchanged = "unchanged"
)

// Synced is what seam schedule sync did to one trigger's remote schedule.
type Synced struct {
	DAG      string `json:"dag"`
	Trigger  string `json:"trigger"`
	Schedule string `json:"schedule"` // the remote schedule's id
	Did      string `json:"did"`      // SyncCreated, SyncUpdated, SyncDeleted or SyncUnchanged
}

// Sync makes the remote schedules of ds' schedules (seam schedule sync): see
// RemoteSchedules.Sync. A DAG with lint errors is refused, as its runs would be.
func (s *Service) Sync(ctx context.Context, ds []*dag.DAG, under []string) ([]Synced, error) {
	lang := s.opts.Lang
	if s.opts.Schedules == nil {
		return nil, i18n.Errorf(lang, "seam schedule sync makes Temporal Schedules: it needs Temporal (TEMPORAL_ADDRESS)")
	}
	for _, d := range ds {
		// The params are not known until a time fires: lint checks the trigger's.
		fs := lint.Lint(ctx, d, lint.Options{Lang: lang})
		if errs, _ := lint.Count(fs); errs > 0 {
			i := slices.IndexFunc(fs, func(f lint.Finding) bool { return f.Severity == lint.SeverityError })
			return nil, errors.New(i18n.Plural(lang, errs, "%[1]s: not synced: lint found 1 error: %[3]s %[4]s", "%[1]s: not synced: lint found %[2]d errors (seam lint shows them), the first: %[3]s %[4]s",
				s.showPath(d.File), errs, fs[i].Code, fs[i].Message))
		}
	}
	fires, _ := s.fires() // without a store nothing is paused
	paused := func(dagName, trigger string) (bool, string) {
		if fires == nil {
			return false, ""
		}
		st, err := fires.Trigger(ctx, dagName, trigger, time.Now())
		if err != nil || !st.Paused {
			return false, ""
		}
		return true, i18n.Sprintf(lang, "paused by %s: %s", st.PausedBy, st.Note)
	}
	if len(under) == 0 {
		under = []string{"."} // where the DAG files were found (workspace.LoadAll)
	}
	return s.opts.Schedules.Sync(ctx, ds, under, paused)
}

// SyncText is Sync as seam schedule sync prints it: as it is, and a line a schedule. A DAG
// file under one of under that did not load (loadErr) stops it: the Schedules of its triggers
// would be deleted.
func (s *Service) SyncText(ctx context.Context, ds []*dag.DAG, loadErr error, under []string) (any, string, error) {
	if loadErr != nil {
		return nil, "", loadErr
	}
	ss, err := s.Sync(ctx, ds, under)
	var b strings.Builder
	for _, sc := range ss {
		b.WriteString(i18n.Sprintf(s.opts.Lang, "%s %s: %s (Temporal Schedule %s)", sc.DAG, sc.Trigger, syncWord(s.opts.Lang, sc.Did), sc.Schedule) + "\n")
	}
	return ss, b.String(), err
}

// syncWord says what sync did in lang.
func syncWord(lang i18n.Lang, did string) string {
	switch did {
	case SyncCreated:
		return i18n.Format(lang, "created")
	case SyncUpdated:
		return i18n.Format(lang, "updated")
	case SyncDeleted:
		return i18n.Format(lang, "deleted")
	}
	return i18n.Format(lang, "unchanged")
}
