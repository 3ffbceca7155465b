package mcp

import (
	"context"
	"errors"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/service"
)

// Limits of the schedule tools' answers.
const (
	// maxNextFires caps next_fires' count: a model has no use for a year of a minutely cron.
	maxNextFires = 100
	// defaultHistory and maxHistory are schedule_history's limit, by default and at most.
	defaultHistory = 20
	maxHistory     = 1000
	// minimalFired is how many of a backfill's runs a minimal answer lists.
	minimalFired = 3
)

// scheduleOp annotates a tool that changes a schedule or starts its runs.
func scheduleOp(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}
}

func (s *server) addScheduleTools(srv *sdk.Server) error {
	var errs []error
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "list_schedules",
		Description: "List the triggers of the DAG files under the root: DAG, trigger, kind (cron, every, webhook), next " +
			"time and whether it is paused. raw: true adds the file, the spec, the time zone, who paused it and why.",
		Annotations: readOnlyTool("List schedules"),
	}, s.listSchedules))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name:        "next_fires",
		Description: "The next times a schedule (a cron or every trigger of a DAG file) fires, RFC 3339 in UTC, after now or after.",
		Annotations: readOnlyTool("Next times of a schedule"),
	}, s.nextFires))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "schedule_history",
		Description: "The scheduler's decisions about a trigger, latest time first: started (with the run), skipped " +
			"(a run still going), missed (outside the catch-up window, superseded, paused) or manual.",
		Annotations: readOnlyTool("History of a schedule"),
	}, s.scheduleHistory))
	if s.opts.ReadOnly {
		return errors.Join(errs...)
	}
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name:        "pause_schedule",
		Description: "Pause a trigger, saying why (note): its times are missed, recorded with who paused it and the note, until resume_schedule.",
		Annotations: scheduleOp("Pause a schedule"),
	}, s.pauseSchedule))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name:        "resume_schedule",
		Description: "Resume a paused trigger: its times from now on start runs again (the ones missed while paused do not).",
		Annotations: scheduleOp("Resume a schedule"),
	}, s.resumeSchedule))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "trigger_schedule",
		Description: "Fire a schedule now: a run with the params the trigger makes for now, recorded as a manual fire " +
			"naming you. Returns when the run has finished, with its id and status.",
		Annotations: scheduleOp("Fire a schedule now"),
	}, s.triggerSchedule))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "backfill_schedule",
		Description: "Start a run for each past time of a schedule from from to to (RFC 3339, both included, at most " +
			"1,000 times), one after the other; a time decided already starts nothing. Returns when the last has finished.",
		Annotations: scheduleOp("Backfill a schedule"),
	}, s.backfillSchedule))
	return errors.Join(errs...)
}

// ListSchedulesInput are list_schedules' arguments.
type ListSchedulesInput struct{ Common }

// TriggerInput names a trigger of a DAG file, as every schedule tool but list_schedules does.
type TriggerInput struct {
	Path    string `json:"path" jsonschema:"the DAG file, relative to the root (list_schedules lists them)"`
	Trigger string `json:"trigger" jsonschema:"the trigger's id under triggers:"`
	Common
}

// NextFiresInput are next_fires' arguments.
type NextFiresInput struct {
	Path    string `json:"path" jsonschema:"the DAG file, relative to the root"`
	Trigger string `json:"trigger" jsonschema:"the trigger's id under triggers:"`
	Count   int    `json:"count,omitempty" jsonschema:"how many times, 1 to 100; default 5"`
	After   string `json:"after,omitempty" jsonschema:"the times after this RFC 3339 instant; default now"`
	Common
}

// PauseScheduleInput are pause_schedule's arguments.
type PauseScheduleInput struct {
	Path    string `json:"path" jsonschema:"the DAG file, relative to the root"`
	Trigger string `json:"trigger" jsonschema:"the trigger's id under triggers:"`
	Note    string `json:"note" jsonschema:"why it is paused, recorded with who paused it"`
	Common
}

// ScheduleHistoryInput are schedule_history's arguments.
type ScheduleHistoryInput struct {
	Path    string `json:"path" jsonschema:"the DAG file, relative to the root"`
	Trigger string `json:"trigger" jsonschema:"the trigger's id under triggers:"`
	Limit   int    `json:"limit,omitempty" jsonschema:"how many decisions, latest first; default 20, at most 1000"`
	Common
}

// BackfillScheduleInput are backfill_schedule's arguments.
type BackfillScheduleInput struct {
	Path    string `json:"path" jsonschema:"the DAG file, relative to the root"`
	Trigger string `json:"trigger" jsonschema:"the trigger's id under triggers:"`
	From    string `json:"from" jsonschema:"the first time, RFC 3339 (e.g. 2026-03-01T00:00:00Z)"`
	To      string `json:"to" jsonschema:"the last time, RFC 3339, not after now"`
	Common
}

// scheduleList is list_schedules' answer; its minimal form keeps what deciding needs.
type scheduleList struct {
	Count     int                `json:"count"`
	Schedules []service.Schedule `json:"schedules"`
}

func (l scheduleList) minimal() any {
	type brief struct {
		DAG     string    `json:"dag"`
		Trigger string    `json:"trigger"`
		Kind    string    `json:"kind"`
		Next    time.Time `json:"next,omitzero"`
		Paused  bool      `json:"paused,omitempty"`
	}
	out := struct {
		Count     int     `json:"count"`
		Schedules []brief `json:"schedules"`
	}{Count: l.Count, Schedules: make([]brief, len(l.Schedules))}
	for i, sc := range l.Schedules {
		out.Schedules[i] = brief{sc.DAG, sc.Trigger, sc.Kind, sc.Next, sc.Paused}
	}
	return out
}

// fireView is one decision as schedule_history shows it.
type fireView struct {
	Scheduled time.Time `json:"scheduled"`
	Decision  string    `json:"decision"`
	Run       string    `json:"run,omitempty"`
	Note      string    `json:"note,omitempty"`
	At        time.Time `json:"decided_at"`
}

// fireHistory is schedule_history's answer; its minimal form leaves out when each was
// decided and the notes of the runs started.
type fireHistory struct {
	DAG     string     `json:"dag"`
	Trigger string     `json:"trigger"`
	Count   int        `json:"count"`
	Fires   []fireView `json:"fires"`
}

func (h fireHistory) minimal() any {
	type brief struct {
		Scheduled time.Time `json:"scheduled"`
		Decision  string    `json:"decision"`
		Run       string    `json:"run,omitempty"`
		Note      string    `json:"note,omitempty"`
	}
	out := struct {
		DAG     string  `json:"dag"`
		Trigger string  `json:"trigger"`
		Count   int     `json:"count"`
		Fires   []brief `json:"fires"`
	}{DAG: h.DAG, Trigger: h.Trigger, Count: h.Count, Fires: make([]brief, len(h.Fires))}
	for i, f := range h.Fires {
		out.Fires[i] = brief{Scheduled: f.Scheduled, Decision: f.Decision, Run: f.Run}
		if f.Run == "" {
			out.Fires[i].Note = f.Note // why nothing started
		}
	}
	return out
}

// backfillResult is backfill_schedule's answer; its minimal form counts the runs and lists
// the first few.
type backfillResult struct {
	Started int             `json:"started"`
	Decided int             `json:"decided_already"`
	Fired   []service.Fired `json:"fired"`
}

func (b backfillResult) minimal() any {
	out := b
	if len(out.Fired) > minimalFired {
		out.Fired = out.Fired[:minimalFired]
	}
	return out
}

// scheduleDAG loads the DAG file of a schedule tool's arguments, after checking them and the
// store.
func (s *server) scheduleDAG(ctx context.Context, path, trigger string) (*dag.DAG, error) {
	if _, err := s.store(); err != nil {
		return nil, err
	}
	switch {
	case path == "":
		return nil, fail(CodeInvalidArgument, nil, "path is empty: give a DAG file under the root (list_schedules lists the triggers)")
	case trigger == "":
		return nil, fail(CodeInvalidArgument, nil, "trigger is empty: give the id of one of the DAG's triggers (list_schedules lists them)")
	}
	d, err := s.load(ctx, path)
	if err != nil {
		return nil, err
	}
	if _, err := service.TriggerOf(d, trigger, s.opts.Lang); err != nil {
		return nil, &toolError{code: CodeNotFound, msg: verbatim(err.Error())}
	}
	return d, nil
}

// fireError is the answer to a fire of trigger id of d whose run did not start: its params
// or lint (as run_dag says them), or a trigger that is a webhook.
func (s *server) fireError(d *dag.DAG, id string, name message, err error) (message, any, error) {
	if tr, _ := service.TriggerOf(d, id, s.opts.Lang); tr != nil && !tr.Scheduled() {
		return message{}, nil, scheduleError(err)
	}
	return s.notStarted(d, name, err)
}

// scheduleError is the answer to the run service refusing a schedule operation: its words,
// which it says in the server's language.
func scheduleError(err error) error {
	var te *toolError
	if errors.As(err, &te) {
		return err
	}
	return &toolError{code: CodeInvalidArgument, msg: verbatim(err.Error())}
}

func (s *server) listSchedules(ctx context.Context, _ *sdk.CallToolRequest, _ ListSchedulesInput) (message, any, error) {
	if _, err := s.store(); err != nil {
		return message{}, nil, err
	}
	found, err := s.root.files.Find(ctx, s.root.dir)
	if err != nil {
		return message{}, nil, fail(CodeInternal, nil, "list DAG files under the root: %v", err)
	}
	var ds []*dag.DAG
	for _, f := range found.Files {
		if f.Err != nil {
			continue
		}
		// A DAG that does not load has no schedule the scheduler keeps: list_dags says why.
		if d, err := s.load(ctx, s.root.rel(f.Path)); err == nil && len(d.Triggers) > 0 {
			d.File = s.root.rel(d.File)
			ds = append(ds, d)
		}
	}
	list, err := s.svc.Schedules(ctx, ds, time.Now())
	if err != nil {
		return message{}, nil, fail(CodeInternal, nil, "list schedules: %v", err)
	}
	data := scheduleList{Count: len(list), Schedules: append([]service.Schedule{}, list...)}
	return msgf("%v under the root", howMany(len(list), "trigger")), data, nil
}

func (s *server) nextFires(ctx context.Context, _ *sdk.CallToolRequest, in NextFiresInput) (message, any, error) {
	d, err := s.scheduleDAG(ctx, in.Path, in.Trigger)
	if err != nil {
		return message{}, nil, err
	}
	n := in.Count
	switch {
	case n == 0:
		n = 5
	case n < 1 || n > maxNextFires:
		return message{}, nil, fail(CodeInvalidArgument, nil, "count %d: want 1 to %d", in.Count, maxNextFires)
	}
	after := time.Now()
	if in.After != "" {
		if after, err = time.Parse(time.RFC3339, in.After); err != nil {
			return message{}, nil, fail(CodeInvalidArgument, nil, "after %q: want an RFC 3339 time such as 2026-03-01T00:00:00Z", in.After)
		}
	}
	ts, _, err := service.NextTimes(d, in.Trigger, after, n, s.opts.Lang)
	if err != nil {
		return message{}, nil, scheduleError(err)
	}
	times := ts.([]time.Time)
	data := struct {
		DAG     string      `json:"dag"`
		Trigger string      `json:"trigger"`
		Times   []time.Time `json:"times"`
	}{d.Name, in.Trigger, make([]time.Time, len(times))}
	for i, t := range times {
		data.Times[i] = t.UTC()
	}
	return msgf("the next %v of %s %s", howMany(len(times), "time"), d.Name, in.Trigger), data, nil
}

func (s *server) scheduleHistory(ctx context.Context, _ *sdk.CallToolRequest, in ScheduleHistoryInput) (message, any, error) {
	d, err := s.scheduleDAG(ctx, in.Path, in.Trigger)
	if err != nil {
		return message{}, nil, err
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = defaultHistory
	case limit < 1 || limit > maxHistory:
		return message{}, nil, fail(CodeInvalidArgument, nil, "limit %d: want 1 to %d", in.Limit, maxHistory)
	}
	fs, err := s.svc.History(ctx, d, in.Trigger, limit)
	if err != nil {
		return message{}, nil, fail(CodeInternal, nil, "read the history of %s %s: %v", d.Name, in.Trigger, err)
	}
	data := fireHistory{DAG: d.Name, Trigger: in.Trigger, Count: len(fs), Fires: make([]fireView, len(fs))}
	for i, f := range fs {
		data.Fires[i] = fireView{Scheduled: f.Scheduled, Decision: f.Decision, Run: f.RunID, Note: f.Note, At: f.At}
	}
	return msgf("%v of %s %s", howMany(len(fs), "decision"), d.Name, in.Trigger), data, nil
}

func (s *server) setPaused(ctx context.Context, in PauseScheduleInput, paused bool) (message, any, error) {
	d, err := s.scheduleDAG(ctx, in.Path, in.Trigger)
	if err != nil {
		return message{}, nil, err
	}
	if paused && in.Note == "" {
		return message{}, nil, fail(CodeInvalidArgument, nil, "note is empty: say why the schedule is paused (it is recorded with its missed times)")
	}
	if err := s.svc.SetPaused(ctx, d, in.Trigger, paused, in.Note); err != nil {
		return message{}, nil, fail(CodeInternal, nil, "pause %s %s: %v", d.Name, in.Trigger, err)
	}
	data := struct {
		DAG     string `json:"dag"`
		Trigger string `json:"trigger"`
		Paused  bool   `json:"paused"`
		Note    string `json:"note,omitempty"`
	}{d.Name, in.Trigger, paused, in.Note}
	if paused {
		return msgf("%s %s paused: its times are missed until resume_schedule", d.Name, in.Trigger), data, nil
	}
	return msgf("%s %s resumed", d.Name, in.Trigger), data, nil
}

func (s *server) pauseSchedule(ctx context.Context, _ *sdk.CallToolRequest, in PauseScheduleInput) (message, any, error) {
	return s.setPaused(ctx, in, true)
}

func (s *server) resumeSchedule(ctx context.Context, _ *sdk.CallToolRequest, in TriggerInput) (message, any, error) {
	return s.setPaused(ctx, PauseScheduleInput{Path: in.Path, Trigger: in.Trigger, Common: in.Common}, false)
}

func (s *server) triggerSchedule(ctx context.Context, _ *sdk.CallToolRequest, in TriggerInput) (message, any, error) {
	d, err := s.scheduleDAG(ctx, in.Path, in.Trigger)
	if err != nil {
		return message{}, nil, err
	}
	f, err := s.svc.FireNow(ctx, d, in.Trigger, time.Now())
	if err != nil {
		return s.fireError(d, in.Trigger, verbatim(in.Path), err)
	}
	return msgf("%s %s fired: run %s %s", d.Name, in.Trigger, f.RunID, f.Status), f, nil
}

func (s *server) backfillSchedule(ctx context.Context, _ *sdk.CallToolRequest, in BackfillScheduleInput) (message, any, error) {
	d, err := s.scheduleDAG(ctx, in.Path, in.Trigger)
	if err != nil {
		return message{}, nil, err
	}
	fs, _, err := s.svc.BackfillText(ctx, d, in.Trigger, in.From, in.To, time.Now())
	fired, _ := fs.([]service.Fired)
	data := backfillResult{Fired: append([]service.Fired{}, fired...)}
	for _, f := range fired {
		if f.Decided {
			data.Decided++
		} else if f.RunID != "" {
			data.Started++
		}
	}
	switch {
	case err != nil && len(fired) == 0: // the range refused, or a webhook
		return message{}, nil, scheduleError(err)
	case err != nil: // a run that could not start stopped the backfill
		last := fired[len(fired)-1].Scheduled.UTC().Format(time.RFC3339)
		return s.fireError(d, in.Trigger, msgf("%s at %s", in.Path, last), err)
	}
	return msgf("%s %s backfilled: %v started, %d decided already", d.Name, in.Trigger, howMany(data.Started, "run"), data.Decided), data, nil
}
