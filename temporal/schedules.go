package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/schedule"
	"github.com/seam-dag/seam/service"
)

// Schedules carries the schedules (cron and every triggers) of DAGs out as Temporal
// Schedules, one per trigger (service.RemoteSchedules): seam schedule sync, pause, resume
// and backfill with --engine temporal. Each Schedule starts the run workflow Engine starts,
// with the trigger's id in its input: the workflow takes the scheduled time from Temporal's
// TemporalScheduledStartTime, makes the trigger's params of it, and records the run with
// its fire, as the embedded scheduler does.
type Schedules struct {
	Client    client.Client
	TaskQueue string    // "" is DefaultTaskQueue
	Lang      i18n.Lang // of the errors
	// MaxFileSize caps each file a bundle ships that the DAG's load did not read; 0 is
	// userfile.DefaultMaxSize.
	MaxFileSize int64
}

var _ service.RemoteSchedules = (*Schedules)(nil)

// SchedulesOf returns the Temporal Schedules of the client of eng when it is an Engine (its
// task queue, its limit on files), nil otherwise: the schedules are the store's scheduler's.
func SchedulesOf(eng engine.Engine, lang i18n.Lang) service.RemoteSchedules {
	t, ok := eng.(*Engine)
	if !ok {
		return nil
	}
	return &Schedules{Client: t.Client, TaskQueue: t.TaskQueue, Lang: lang, MaxFileSize: t.MaxFileSize}
}

// Memo keys: the Schedule's memo marks the Schedules seam created (sync deletes only
// those); the action's memo holds the digest of what sync made of the trigger, which a
// Schedule's memo cannot (an update does not change it).
const (
	memoDAG     = "seam_dag"
	memoTrigger = "seam_trigger"
	memoFile    = "seam_file"
	memoDigest  = "seam_digest"
)

// ScheduleID is the id of the Temporal Schedule of trigger of DAG dagName.
func ScheduleID(dagName, trigger string) string { return "seam/" + dagName + "/" + trigger }

// scheduleWorkflowID is the workflow id of the Schedule's action; Temporal appends each
// start's scheduled time ("-2026-03-29T01:00:00Z"), and the run's id is the workflow id
// without WorkflowID's prefix, so that seam finds the run's workflow as any other.
func scheduleWorkflowID(dagName, trigger string) string {
	return WorkflowID(dagName + "." + trigger)
}

// OverlapPolicy is Temporal's overlap policy of seam's overlap (the same names).
func OverlapPolicy(o dag.Overlap) enumspb.ScheduleOverlapPolicy {
	switch o {
	case dag.OverlapBufferOne:
		return enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE
	case dag.OverlapBufferAll:
		return enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ALL
	case dag.OverlapCancelOther:
		return enumspb.SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER
	case dag.OverlapAllowAll:
		return enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL
	}
	return enumspb.SCHEDULE_OVERLAP_POLICY_SKIP
}

// minCatchup is the least catch-up window Temporal takes; catchup runs none asks for it: a
// time is taken only when it is (nearly) on time.
const minCatchup = 10 * time.Second

// CronExpressions are the cron expressions of Temporal's spec for cron, which day fields
// both restricted (neither begins with *) fire on when either matches (seam's rule, cron's):
// Temporal ANDs them within one expression, so the two make two expressions, whose union is
// the OR.
func CronExpressions(cron string) []string {
	f := strings.Fields(cron)
	if len(f) != 5 || strings.HasPrefix(f[2], "*") || strings.HasPrefix(f[4], "*") {
		return []string{cron}
	}
	return []string{
		strings.Join([]string{f[0], f[1], f[2], f[3], "*"}, " "),
		strings.Join([]string{f[0], f[1], "*", f[3], f[4]}, " "),
	}
}

// gapYears is how far ahead sync writes the times the clock changes move (dstTimes).
const gapYears = 5

// dstTimes are what Temporal's spec needs besides the cron expressions to fire cron trigger
// tr when seam does around the clock changes in its zone, from now for gapYears (a
// sync in a later year writes the years it then covers). Temporal skips a wall time in a
// gap, where seam fires it at the first instant after: a calendar on that date and time.
// Temporal takes a wall time that falling back repeats at its second occurrence, where seam
// fires a fixed time at its first (and a cron that keeps its pace at both): an interval
// whose period is that instant's time since the epoch (Temporal takes the multiples after
// the time it asks from: the instant, then as far again); the run workflow ends the second
// occurrences seam's rule does not fire without a run.
func dstTimes(tr *dag.Trigger, now time.Time) (cals []client.ScheduleCalendarSpec, once []client.ScheduleIntervalSpec) {
	loc, err := schedule.LoadLocation(tr.Timezone)
	if err != nil || loc == time.UTC {
		return nil, nil
	}
	const day = 24 * 60 * 60
	offset := func(sec int64) int { _, o := time.Unix(sec, 0).In(loc).Zone(); return o }
	for d, end := now.Unix(), now.AddDate(gapYears, 0, 0).Unix(); d < end; d += day {
		before, after := offset(d), offset(d+day)
		if after == before {
			continue
		}
		lo, hi := d, d+day // the first second of the later offset is in (lo, hi]
		for hi-lo > 1 {
			if mid := lo + (hi-lo)/2; offset(mid) == after {
				hi = mid
			} else {
				lo = mid
			}
		}
		at := time.Unix(hi, 0)
		if after < before { // falling back: the first occurrences of the repeated wall times
			ts, _ := service.Times(tr, at.Add(-time.Duration(before-after)*time.Second-time.Nanosecond), 100, "")
			for _, t := range ts {
				if !t.Before(at) {
					break
				}
				once = append(once, client.ScheduleIntervalSpec{Every: time.Duration(t.Unix()) * time.Second})
			}
			continue
		}
		ts, err := service.Times(tr, at.Add(-time.Nanosecond), 1, "")
		if err != nil || len(ts) == 0 || !ts[0].Equal(at) {
			continue
		}
		w := at.In(loc)
		one := func(v int) []client.ScheduleRange { return []client.ScheduleRange{{Start: v}} }
		cals = append(cals, client.ScheduleCalendarSpec{
			Second: one(w.Second()), Minute: one(w.Minute()), Hour: one(w.Hour()),
			DayOfMonth: one(w.Day()), Month: one(int(w.Month())), Year: one(w.Year()),
			DayOfWeek: []client.ScheduleRange{{Start: 0, End: 6}},
			Comment:   "seam: the first instant after the gap, where the cron's times in it fire",
		})
	}
	return cals, once
}

// spec is Temporal's spec of schedule trigger tr, with the gaps of the years from now.
func spec(tr *dag.Trigger, now time.Time) client.ScheduleSpec {
	s := client.ScheduleSpec{Jitter: tr.Jitter, TimeZoneName: tr.Timezone}
	if s.TimeZoneName == "" {
		s.TimeZoneName = "UTC"
	}
	if tr.Every > 0 {
		s.Intervals = []client.ScheduleIntervalSpec{{Every: tr.Every}} // multiples since the epoch, as seam's
		s.TimeZoneName = ""
	} else {
		s.CronExpressions = CronExpressions(tr.Cron)
		s.Calendars, s.Intervals = dstTimes(tr, now)
	}
	return s
}

// policies are Temporal's policies of tr.
func policies(tr *dag.Trigger) client.SchedulePolicies {
	window := max(tr.Catchup.Window, minCatchup)
	if tr.Catchup.Runs == dag.CatchupNone {
		window = minCatchup
	}
	return client.SchedulePolicies{Overlap: OverlapPolicy(tr.Overlap), CatchupWindow: window}
}

// desired is what sync makes of one trigger.
type desired struct {
	d      *dag.DAG
	tr     *dag.Trigger
	file   string
	spec   client.ScheduleSpec
	policy client.SchedulePolicies
	action *client.ScheduleWorkflowAction
	digest string
}

// desire is what sync makes of trigger tr of d at now: the spec, the policies, and the
// action, which carries d as bundled; the digest of them all tells a change.
func (s *Schedules) desire(d *dag.DAG, tr *dag.Trigger, now time.Time) (*desired, error) {
	b, err := NewBundle(d, s.Lang, s.MaxFileSize)
	if err != nil {
		return nil, i18n.Errorf(s.Lang, "sync %s %s to Temporal: %w", d.Name, tr.ID, err)
	}
	file, err := filepath.Abs(d.File)
	if err != nil {
		return nil, fmt.Errorf("sync %s %s to Temporal: %w", d.Name, tr.ID, err)
	}
	queue := s.TaskQueue
	if queue == "" {
		queue = DefaultTaskQueue
	}
	in := RunInput{File: file, Bundle: b, Lang: s.Lang, Trigger: tr.ID, By: "schedule:" + d.Name + "/" + tr.ID}
	w := &desired{d: d, tr: tr, file: file, spec: spec(tr, now), policy: policies(tr)}
	sum, err := json.Marshal(struct {
		Spec   client.ScheduleSpec
		Policy client.SchedulePolicies
		Queue  string
		In     RunInput
	}{w.spec, w.policy, queue, in})
	if err != nil {
		return nil, fmt.Errorf("sync %s %s to Temporal: %w", d.Name, tr.ID, err)
	}
	h := sha256.Sum256(sum)
	w.digest = hex.EncodeToString(h[:])
	w.action = &client.ScheduleWorkflowAction{
		ID: scheduleWorkflowID(d.Name, tr.ID), Workflow: WorkflowName, Args: []any{in}, TaskQueue: queue,
		Memo: map[string]any{memoDigest: w.digest},
	}
	return w, nil
}

// Sync makes the Temporal Schedules of the schedules of ds: it creates the missing ones
// (paused, with its note, when paused says the trigger is), updates those whose trigger or
// DAG file changed, leaves the others alone, and deletes the Schedules seam created for a
// trigger that is gone: of a DAG in ds, or of a DAG file under one of under that no longer
// holds it. A Schedule's pause is Temporal's to keep: an update leaves it as it is.
func (s *Schedules) Sync(ctx context.Context, ds []*dag.DAG, under []string, paused func(dagName, trigger string) (bool, string)) ([]service.Synced, error) {
	sc := s.Client.ScheduleClient()
	now := time.Now()
	want := map[string]bool{}
	names := map[string]bool{}
	var out []service.Synced
	for _, d := range ds {
		names[d.Name] = true
		for _, tr := range d.Triggers {
			if !tr.Scheduled() {
				continue
			}
			w, err := s.desire(d, tr, now)
			if err != nil {
				return out, err
			}
			id := ScheduleID(d.Name, tr.ID)
			want[id] = true
			did, err := s.sync(ctx, sc, id, w, paused)
			if err != nil {
				return out, i18n.Errorf(s.Lang, "sync %s %s to Temporal: %w", d.Name, tr.ID, err)
			}
			out = append(out, service.Synced{DAG: d.Name, Trigger: tr.ID, Schedule: id, Did: did})
		}
	}
	gone, err := s.gone(ctx, sc, want, names, under)
	if err != nil {
		return out, err
	}
	for _, g := range gone {
		if err := sc.GetHandle(ctx, g.Schedule).Delete(ctx); err != nil && !notFound(err) {
			return out, i18n.Errorf(s.Lang, "delete Temporal Schedule %s: %w", g.Schedule, err)
		}
		out = append(out, g)
	}
	return out, nil
}

// sync creates, updates or leaves the Schedule id as w says.
func (s *Schedules) sync(ctx context.Context, sc client.ScheduleClient, id string, w *desired, paused func(string, string) (bool, string)) (string, error) {
	h := sc.GetHandle(ctx, id)
	desc, err := h.Describe(ctx)
	if notFound(err) {
		o := client.ScheduleOptions{
			ID: id, Spec: w.spec, Action: w.action, Overlap: w.policy.Overlap, CatchupWindow: w.policy.CatchupWindow,
			Memo: map[string]any{memoDAG: w.d.Name, memoTrigger: w.tr.ID, memoFile: w.file},
		}
		if paused != nil {
			o.Paused, o.Note = paused(w.d.Name, w.tr.ID)
		}
		_, err := sc.Create(ctx, o)
		return service.SyncCreated, err
	}
	if err != nil {
		return "", err
	}
	if a, ok := desc.Schedule.Action.(*client.ScheduleWorkflowAction); ok && memoString(a.Memo[memoDigest]) == w.digest {
		return service.SyncUnchanged, nil
	}
	return service.SyncUpdated, h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		sch := in.Description.Schedule
		sch.Spec, sch.Action = &w.spec, w.action
		p := w.policy
		sch.Policy = &p
		return &client.ScheduleUpdate{Schedule: &sch}, nil
	}})
}

// gone lists the Schedules seam created that no trigger wants any more: of a DAG synced
// (names), or of a DAG file under one of under that is not there or holds another DAG.
func (s *Schedules) gone(ctx context.Context, sc client.ScheduleClient, want, names map[string]bool, under []string) ([]service.Synced, error) {
	it, err := sc.List(ctx, client.ScheduleListOptions{PageSize: 1000})
	if err != nil {
		return nil, i18n.Errorf(s.Lang, "list Temporal Schedules: %w", err)
	}
	var out []service.Synced
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return nil, i18n.Errorf(s.Lang, "list Temporal Schedules: %w", err)
		}
		f := e.Memo.GetFields()
		dagName, trigger, file := payloadString(f[memoDAG]), payloadString(f[memoTrigger]), payloadString(f[memoFile])
		if dagName == "" || trigger == "" || want[e.ID] || e.ID != ScheduleID(dagName, trigger) {
			continue // not seam's, or wanted
		}
		if names[dagName] || underAny(file, under) {
			out = append(out, service.Synced{DAG: dagName, Trigger: trigger, Schedule: e.ID, Did: service.SyncDeleted})
		}
	}
	slices.SortFunc(out, func(a, b service.Synced) int { return strings.Compare(a.Schedule, b.Schedule) })
	return out, nil
}

// underAny reports whether file is one of paths or under one of them.
func underAny(file string, paths []string) bool {
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(abs, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Pause pauses (with note) or resumes the Temporal Schedule of trigger of DAG dagName.
func (s *Schedules) Pause(ctx context.Context, dagName, trigger string, paused bool, note string) error {
	h := s.Client.ScheduleClient().GetHandle(ctx, ScheduleID(dagName, trigger))
	var err error
	if paused {
		err = h.Pause(ctx, client.SchedulePauseOptions{Note: note})
	} else {
		err = h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: note})
	}
	return s.handleErr(err, dagName, trigger)
}

// Backfill asks the Temporal Schedule of trigger of DAG dagName to take the times from from
// to to (both included) now, one after the other (buffer_all): the workflow of a time with
// a decision already records nothing and starts no run.
func (s *Schedules) Backfill(ctx context.Context, dagName, trigger string, from, to time.Time) error {
	h := s.Client.ScheduleClient().GetHandle(ctx, ScheduleID(dagName, trigger))
	// Temporal takes the times after Start up to End: a second before from takes from.
	err := h.Backfill(ctx, client.ScheduleBackfillOptions{Backfill: []client.ScheduleBackfill{{
		Start: from.Add(-time.Second), End: to, Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ALL,
	}}})
	return s.handleErr(err, dagName, trigger)
}

// handleErr says an error of the Schedule of trigger, naming seam schedule sync when
// Temporal has none.
func (s *Schedules) handleErr(err error, dagName, trigger string) error {
	switch {
	case err == nil:
		return nil
	case notFound(err):
		return i18n.Errorf(s.Lang, "Temporal has no Schedule %s: run seam schedule sync first", ScheduleID(dagName, trigger))
	}
	return i18n.Errorf(s.Lang, "the Temporal Schedule %s: %w", ScheduleID(dagName, trigger), err)
}

func notFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}

// memoString reads a string memo value as Describe returns it: a payload.
func memoString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case *commonpb.Payload:
		return payloadString(v)
	}
	return ""
}

func payloadString(p *commonpb.Payload) string {
	var s string
	if p == nil || converter.GetDefaultDataConverter().FromPayload(p, &s) != nil {
		return ""
	}
	return s
}
