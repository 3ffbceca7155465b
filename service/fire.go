package service

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/schedule"
)

// MaxBackfill caps the times one backfill starts: a range that holds more is refused, so
// that a typo in --from does not start years of runs.
const MaxBackfill = 1000

// Fired is one run a person fired (seam schedule trigger) or backfilled.
type Fired struct {
	Scheduled time.Time     `json:"scheduled"`
	RunID     string        `json:"run_id,omitempty"`
	Status    dag.RunStatus `json:"status,omitempty"`
	// Decided says the time had its decision already (the schedule's, or an earlier
	// backfill's): nothing started.
	Decided bool   `json:"decided,omitempty"`
	Error   string `json:"error,omitempty"` // why its run could not start
	// Asked says the time was asked of the trigger's Temporal Schedule, which starts its run.
	Asked bool `json:"asked,omitempty"`
}

// scheduleTrigger returns trigger id of d when it is a schedule, for the fires a person asks.
func scheduleTrigger(d *dag.DAG, id string, lang i18n.Lang) (*dag.Trigger, error) {
	tr, err := TriggerOf(d, id, lang)
	if err == nil && !tr.Scheduled() {
		err = i18n.Errorf(lang, "trigger %s is a webhook: POST its body to /hooks/%s/%s on seam serve", id, d.Name, id)
	}
	return tr, err
}

// fire starts the run of trigger tr of d for t, recorded with its fire (manual or not, with
// note), and waits for it to end; a time decided already starts nothing.
func (s *Service) fire(ctx context.Context, d *dag.DAG, tr *dag.Trigger, t time.Time, manual bool, note string) (Fired, error) {
	f := Fired{Scheduled: t}
	params, err := ScheduledParams(tr, t, s.opts.Lang)
	if err != nil {
		return f, err
	}
	run, err := s.Start(ctx, d, Request{Params: params, Fired: dag.Fired{Trigger: tr.ID, Scheduled: t, Manual: manual, Note: note}})
	if err != nil {
		return f, err
	}
	f.RunID = run.ID
	res, err := run.Wait()
	if errors.Is(err, runs.ErrFired) {
		return Fired{Scheduled: t, Decided: true}, nil
	}
	if err != nil {
		return f, err
	}
	f.Status = res.Status
	return f, nil
}

// FireNow fires trigger id of d by hand at now (seam schedule trigger): its run, with the
// params the trigger makes for now, recorded as a manual fire naming who asked. It waits
// for the run to end. A manual fire is not one of the schedule's times: the scheduler still
// decides each of those.
func (s *Service) FireNow(ctx context.Context, d *dag.DAG, id string, now time.Time) (Fired, error) {
	tr, err := scheduleTrigger(d, id, s.opts.Lang)
	if err != nil {
		return Fired{}, err
	}
	return s.fire(ctx, d, tr, now.UTC(), true, i18n.Sprintf(s.opts.Lang, "triggered by %s", s.by(ctx)))
}

// Backfill starts a run for each time of schedule id of d from from to to (both included,
// none after now), one after the other, each recorded with its fire naming who backfilled:
// a time with a decision already (the schedule's, an earlier backfill's) starts nothing, so
// a backfill repeated starts nothing twice. A run that cannot start stops the backfill.
func (s *Service) Backfill(ctx context.Context, d *dag.DAG, id string, from, to, now time.Time) ([]Fired, error) {
	lang := s.opts.Lang
	tr, err := scheduleTrigger(d, id, lang)
	if err != nil {
		return nil, err
	}
	switch {
	case to.Before(from):
		return nil, i18n.Errorf(lang, "--to %s is before --from %s", to.UTC().Format(time.RFC3339), from.UTC().Format(time.RFC3339))
	case to.After(now):
		return nil, i18n.Errorf(lang, "--to %s is in the future: a backfill starts past times, the scheduler the ones to come", to.UTC().Format(time.RFC3339))
	}
	sch, err := scheduleOf(tr, lang)
	if err != nil {
		return nil, err
	}
	var times []time.Time
	for _, t := range schedule.Times(sch, from.Add(-time.Nanosecond), MaxBackfill+1) {
		if t.After(to) {
			break
		}
		times = append(times, t)
	}
	if len(times) > MaxBackfill {
		return nil, i18n.Errorf(lang, "from %s to %s trigger %s has more than %d times: backfill a shorter range at a time", from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339), id, MaxBackfill)
	}
	var out []Fired
	if s.opts.Schedules != nil {
		// The Temporal Schedule takes the times, one after the other; its workflows record
		// each, and start nothing for a time decided already.
		if err := s.opts.Schedules.Backfill(ctx, d.Name, id, from, to); err != nil {
			return nil, err
		}
		for _, t := range times {
			out = append(out, Fired{Scheduled: t, Asked: true})
		}
		return out, nil
	}
	note := i18n.Sprintf(lang, "backfill by %s", s.by(ctx))
	for _, t := range times {
		f, err := s.fire(ctx, d, tr, t, false, note)
		if err != nil {
			f.Error = err.Error()
			return append(out, f), err
		}
		out = append(out, f)
	}
	return out, nil
}

// firedLine is a Fired as seam schedule trigger and backfill print it.
func firedLine(lang i18n.Lang, f Fired) string {
	at := f.Scheduled.UTC().Format(time.RFC3339)
	switch {
	case f.Decided:
		return i18n.Sprintf(lang, "%s  decided already: nothing started", at) + "\n"
	case f.Error != "":
		return i18n.Sprintf(lang, "%s  could not start: %s", at, f.Error) + "\n"
	case f.Asked:
		return i18n.Sprintf(lang, "%s  asked of the Temporal Schedule", at) + "\n"
	}
	return i18n.Sprintf(lang, "%s  run %s %s", at, f.RunID, f.Status) + "\n"
}

// TriggerText is FireNow (seam schedule trigger): as it is, and a line.
func (s *Service) TriggerText(ctx context.Context, d *dag.DAG, id string, now time.Time) (any, string, error) {
	f, err := s.FireNow(ctx, d, id, now)
	if err != nil {
		return f, "", err
	}
	return f, firedLine(s.opts.Lang, f), nil
}

// BackfillText is Backfill (seam schedule backfill) of the RFC 3339 times from and to: as it
// is, and a line a time.
func (s *Service) BackfillText(ctx context.Context, d *dag.DAG, id, from, to string, now time.Time) (any, string, error) {
	var ts [2]time.Time
	for i, v := range []string{from, to} {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, "", i18n.Errorf(s.opts.Lang, "--%s %q: want an RFC 3339 time such as 2026-03-01T00:00:00Z", []string{"from", "to"}[i], v)
		}
		ts[i] = t
	}
	fs, err := s.Backfill(ctx, d, id, ts[0], ts[1], now)
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(firedLine(s.opts.Lang, f))
	}
	return fs, b.String(), err
}
