package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// Schedule is one trigger as seam schedule list shows it.
type Schedule struct {
	DAG      string    `json:"dag"`
	File     string    `json:"file"`
	Trigger  string    `json:"trigger"`
	Kind     string    `json:"kind"` // cron, every or webhook
	Spec     string    `json:"spec"` // the cron, the interval; "" for a webhook
	Timezone string    `json:"timezone,omitempty"`
	Next     time.Time `json:"next,omitzero"` // the next time after now; zero for a webhook
	Paused   bool      `json:"paused,omitempty"`
	Note     string    `json:"note,omitempty"`
	PausedBy string    `json:"paused_by,omitempty"`
}

// Schedules lists the triggers of ds with their next time after now and whether a person
// paused them.
func (s *Service) Schedules(ctx context.Context, ds []*dag.DAG, now time.Time) ([]Schedule, error) {
	fires, err := s.fires()
	if err != nil {
		return nil, err
	}
	var out []Schedule
	for _, d := range ds {
		for _, tr := range d.Triggers {
			sc := Schedule{DAG: d.Name, File: d.File, Trigger: tr.ID, Kind: "webhook", Timezone: tr.Timezone}
			if tr.Scheduled() {
				sc.Kind, sc.Spec = "cron", tr.Cron
				if tr.Every > 0 {
					sc.Kind, sc.Spec = "every", tr.Every.String()
				}
				if ts, err := Times(tr, now, 1, s.opts.Lang); err == nil && len(ts) == 1 {
					sc.Next = ts[0]
				}
			}
			if st, err := fires.Trigger(ctx, d.Name, tr.ID, now); err == nil {
				sc.Paused, sc.Note, sc.PausedBy = st.Paused, st.Note, st.PausedBy
			} else {
				return nil, err
			}
			out = append(out, sc)
		}
	}
	return out, nil
}

// SetPaused pauses (with a note saying why) or resumes trigger id of d, recording who asked.
func (s *Service) SetPaused(ctx context.Context, d *dag.DAG, id string, paused bool, note string) error {
	fires, err := s.fires()
	if err != nil {
		return err
	}
	if _, err := TriggerOf(d, id, s.opts.Lang); err != nil {
		return err
	}
	if s.opts.Schedules != nil {
		// The Temporal Schedule's pause decides; the store says who paused it, as embedded.
		msg := ""
		if paused {
			msg = i18n.Sprintf(s.opts.Lang, "paused by %s: %s", s.by(ctx), note)
		}
		if err := s.opts.Schedules.Pause(ctx, d.Name, id, paused, msg); err != nil {
			return err
		}
	}
	return fires.SetPaused(ctx, runs.TriggerState{DAG: d.Name, Trigger: id, Paused: paused, Note: note, PausedBy: s.by(ctx), PausedAt: time.Now()})
}

// History returns the decisions about trigger id of d, latest first.
func (s *Service) History(ctx context.Context, d *dag.DAG, id string, limit int) ([]runs.Fire, error) {
	fires, err := s.fires()
	if err != nil {
		return nil, err
	}
	if _, err := TriggerOf(d, id, s.opts.Lang); err != nil {
		return nil, err
	}
	return fires.ListFires(ctx, d.Name, id, limit)
}

func (s *Service) fires() (runs.Fires, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	f, ok := st.(runs.Fires)
	if !ok {
		return nil, ErrNoFires
	}
	return f, nil
}

// TriggerOf returns trigger id of d, or an error naming the triggers d has.
func TriggerOf(d *dag.DAG, id string, lang i18n.Lang) (*dag.Trigger, error) {
	var ids []string
	for _, tr := range d.Triggers {
		if tr.ID == id {
			return tr, nil
		}
		ids = append(ids, tr.ID)
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		return nil, i18n.Errorf(lang, "DAG %s has no triggers", d.Name)
	}
	return nil, i18n.Errorf(lang, "DAG %s has no trigger %q (it has: %s)", d.Name, id, strings.Join(ids, ", "))
}

// ScheduleList is Schedules as seam schedule list shows them: as they are (JSON), and a
// line each.
func (s *Service) ScheduleList(ctx context.Context, ds []*dag.DAG, now time.Time) (any, string, error) {
	ss, err := s.Schedules(ctx, ds, now)
	var b strings.Builder
	for _, sc := range ss {
		b.WriteString(i18n.Sprintf(s.opts.Lang, "%s %s: %s %s", sc.DAG, sc.Trigger, sc.Kind, sc.Spec))
		if !sc.Next.IsZero() {
			b.WriteString(i18n.Sprintf(s.opts.Lang, ", next %s", sc.Next.UTC().Format(time.RFC3339)))
		}
		if sc.Paused {
			b.WriteString(i18n.Sprintf(s.opts.Lang, " (paused by %s: %s)", sc.PausedBy, sc.Note))
		}
		b.WriteString("\n")
	}
	return ss, b.String(), err
}

// NextTimes is the next n times of trigger id of d after after (seam schedule next): as
// they are, and one RFC 3339 instant a line.
func NextTimes(d *dag.DAG, id string, after time.Time, n int, lang i18n.Lang) (any, string, error) {
	tr, err := TriggerOf(d, id, lang)
	if err != nil {
		return nil, "", err
	}
	if !tr.Scheduled() {
		return nil, "", i18n.Errorf(lang, "trigger %s is a webhook: it has no times", id)
	}
	ts, err := Times(tr, after, n, lang)
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.UTC().Format(time.RFC3339) + "\n")
	}
	return ts, b.String(), err
}

// HistoryText is History (seam schedule history): as it is, and a line each.
func (s *Service) HistoryText(ctx context.Context, d *dag.DAG, id string, limit int) (any, string, error) {
	fs, err := s.History(ctx, d, id, limit)
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s  %-7s %s %s\n", f.Scheduled.UTC().Format(time.RFC3339), decisionWord(s.opts.Lang, f.Decision), f.RunID, f.Note)
	}
	return fs, b.String(), err
}

// decisionWord says a fire's decision in lang.
func decisionWord(lang i18n.Lang, decision string) string {
	switch decision {
	case runs.FireStarted:
		return i18n.Format(lang, "started")
	case runs.FireSkipped:
		return i18n.Format(lang, "skipped")
	case runs.FireMissed:
		return i18n.Format(lang, "missed")
	case runs.FireManual:
		return i18n.Format(lang, "manual")
	}
	return decision
}
