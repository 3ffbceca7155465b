package serve

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// Limits of the schedule pages.
const (
	// listedNext and shownNext are how many next times the list and a trigger's page show.
	listedNext = 3
	shownNext  = 5
	// shownHistory is how many decisions a trigger's page shows, latest first.
	shownHistory = 100
)

// scheduleTexts are the words of the schedule pages.
func scheduleTexts() []i18n.Message {
	return []i18n.Message{
		i18n.M("Schedules"),
		i18n.M("Trigger"),
		i18n.M("Kind"),
		i18n.M("Next times"),
		i18n.M("Paused"),
		i18n.M("Pause"),
		i18n.M("Why (kept with its missed times)"),
		i18n.M("Decisions"),
		i18n.M("Scheduled"),
		i18n.M("Decision"),
		i18n.M("Decided"),
		i18n.M("Note"),
		i18n.M("No triggers in the DAG files under the root."),
		i18n.M("No decisions yet."),
		i18n.M("webhook: POST its body to"),
		i18n.M("started"),
		i18n.M("skipped"),
		i18n.M("missed"),
		i18n.M("manual"),
	}
}

// scheduleRow is a trigger on the schedule pages.
type scheduleRow struct {
	service.Schedule
	Times []string // its next times, RFC 3339 in UTC
}

// scheduleData is the trigger page: the trigger and its decisions.
type scheduleData struct {
	scheduleRow
	Fires []fireRow
}

// fireRow is a decision as the trigger page shows it.
type fireRow struct {
	Scheduled, At string
	runs.Fire
}

// scheduledDAGs loads the DAG files under the root that have triggers, for the schedule
// pages; a file that does not load names no trigger (the DAGs page says why).
func (s *Server) scheduledDAGs(ctx context.Context) []*dag.DAG {
	var out []*dag.DAG
	for _, d := range s.rootDAGs(ctx) {
		if len(d.Triggers) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// rootDAGs loads the DAG files under the root (Find's rule), each kept while its sources
// are unchanged; a file that does not load is left out (the DAGs page says why).
func (s *Server) rootDAGs(ctx context.Context) []*dag.DAG {
	ds, _ := s.kept.LoadAll(ctx, s.files, []string{s.opts.Root})
	return ds
}

// scheduleRows are the triggers of ds as the pages show them, with n next times each.
func (s *Server) scheduleRows(ctx context.Context, ds []*dag.DAG, n int, l i18n.Lang) ([]scheduleRow, error) {
	now := time.Now()
	ss, err := s.opts.Service.Schedules(ctx, ds, now)
	if err != nil {
		return nil, err
	}
	rows := make([]scheduleRow, len(ss))
	for i, sc := range ss {
		rows[i].Schedule = sc
		rows[i].File = s.rel(sc.File)
		if sc.Kind == "webhook" {
			continue
		}
		for _, d := range ds {
			if d.Name != sc.DAG {
				continue
			}
			if ts, _, err := service.NextTimes(d, sc.Trigger, now, n, l); err == nil {
				for _, t := range ts.([]time.Time) {
					rows[i].Times = append(rows[i].Times, t.UTC().Format(time.RFC3339))
				}
			}
		}
	}
	return rows, nil
}

// schedulesPage lists the triggers of the DAG files under the root.
func (s *Server) schedulesPage(w http.ResponseWriter, r *http.Request) {
	rows, err := s.scheduleRows(r.Context(), s.scheduledDAGs(r.Context()), listedNext, s.lang(r))
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	s.render(w, r, http.StatusOK, "schedules", rows)
}

// scheduleOf finds trigger id of the DAG named name under the root; a 404 when there is none.
func (s *Server) scheduleOf(ctx context.Context, name, id string, l i18n.Lang) (*dag.DAG, error) {
	for _, d := range s.scheduledDAGs(ctx) {
		if d.Name == name {
			_, err := service.TriggerOf(d, id, l)
			return d, err
		}
	}
	return nil, i18n.Errorf(l, "no DAG named %s under the root", name)
}

// schedulePage shows a trigger: its next times, whether it is paused, and its decisions.
func (s *Server) schedulePage(w http.ResponseWriter, r *http.Request) {
	ctx, l := r.Context(), s.lang(r)
	d, err := s.scheduleOf(ctx, r.PathValue("dag"), r.PathValue("trigger"), l)
	if err != nil {
		s.fail(w, r, http.StatusNotFound, err)
		return
	}
	rows, err := s.scheduleRows(ctx, []*dag.DAG{d}, shownNext, l)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	var data scheduleData
	for _, row := range rows {
		if row.Trigger == r.PathValue("trigger") {
			data.scheduleRow = row
		}
	}
	fs, err := s.opts.Service.History(ctx, d, data.Trigger, shownHistory)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	for _, f := range fs {
		data.Fires = append(data.Fires, fireRow{Scheduled: f.Scheduled.UTC().Format(time.RFC3339), At: f.At.UTC().Format(time.RFC3339), Fire: f})
	}
	s.render(w, r, http.StatusOK, "schedule", data)
}

// setPaused answers the pause and resume buttons of a trigger's page (an operator's, as
// every POST): it pauses the trigger with the form's note, or resumes it, recording who.
func (s *Server) setPaused(paused bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.refuseReadOnly(w, r) {
			return
		}
		ctx, l := r.Context(), s.lang(r)
		d, err := s.scheduleOf(ctx, r.PathValue("dag"), r.PathValue("trigger"), l)
		if err != nil {
			s.fail(w, r, http.StatusNotFound, err)
			return
		}
		note := r.PostFormValue("note")
		if paused && note == "" {
			s.fail(w, r, http.StatusBadRequest, i18n.Errorf(l, "say why the trigger is paused: the note is kept with its missed times"))
			return
		}
		if err := s.opts.Service.SetPaused(ctx, d, r.PathValue("trigger"), paused, note); err != nil {
			code := http.StatusInternalServerError
			if errors.Is(err, service.ErrNoFires) {
				code = http.StatusConflict
			}
			s.fail(w, r, code, err)
			return
		}
		http.Redirect(w, r, "/schedules/"+url.PathEscape(d.Name)+"/"+url.PathEscape(r.PathValue("trigger")), http.StatusSeeOther)
	}
}
