package temporal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/temporaltest"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// TestOverlapPolicy: each of seam's overlap names is Temporal's policy of the same name.
func TestOverlapPolicy(t *testing.T) {
	for _, c := range []struct {
		o    dag.Overlap
		want enumspb.ScheduleOverlapPolicy
	}{
		{dag.OverlapSkip, enumspb.SCHEDULE_OVERLAP_POLICY_SKIP},
		{dag.OverlapBufferOne, enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE},
		{dag.OverlapBufferAll, enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ALL},
		{dag.OverlapCancelOther, enumspb.SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER},
		{dag.OverlapAllowAll, enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL},
	} {
		if got := OverlapPolicy(c.o); got != c.want {
			t.Errorf("OverlapPolicy(%s) = %s, want %s", c.o, got, c.want)
		}
	}
}

// TestCronExpressions: a cron whose day fields are both restricted becomes two expressions,
// one a day field each, so that Temporal (which ANDs them) fires when either matches.
func TestCronExpressions(t *testing.T) {
	for _, c := range []struct {
		cron string
		want []string
	}{
		{"0 2 * * *", []string{"0 2 * * *"}},
		{"0 2 1 * *", []string{"0 2 1 * *"}},
		{"0 2 * * MON", []string{"0 2 * * MON"}},
		{"0 2 */2 * MON", []string{"0 2 */2 * MON"}},
		{"@daily", []string{"@daily"}},
		{"30 2 1,15 * MON-FRI", []string{"30 2 1,15 * *", "30 2 * * MON-FRI"}},
	} {
		if got := CronExpressions(c.cron); !slices.Equal(got, c.want) {
			t.Errorf("CronExpressions(%q) = %q, want %q", c.cron, got, c.want)
		}
	}
}

// scheduleEnv is a Temporal Schedules test: a worker with a store on a queue of its own, a
// service whose schedules are Temporal's, and a DAG name of its own (the server's Schedules
// outlive the test).
type scheduleEnv struct {
	c    client.Client
	st   runs.Store
	svc  *service.Service
	name string
	dir  string
}

func newScheduleEnv(t *testing.T) *scheduleEnv {
	t.Helper()
	c := temporaltest.Client(t, client.Options{})
	st := openStore(t)
	queue := temporaltest.Worker(t, c, worker.Options{}, func(w worker.Worker) {
		NewWorker(WorkerOptions{Client: c, Store: st, Types: types(), Dir: t.TempDir()}).Register(w)
	})
	var b [4]byte
	_, _ = rand.Read(b[:])
	e := &scheduleEnv{c: c, st: st, name: "sync-" + hex.EncodeToString(b[:]), dir: t.TempDir()}
	e.svc = service.New(service.Options{Store: st, Schedules: &Schedules{Client: c, TaskQueue: queue}})
	t.Cleanup(func() {
		e.svc.Close()
		for _, id := range []string{"nightly", "hourly", "tick"} {
			_ = c.ScheduleClient().GetHandle(context.Background(), ScheduleID(e.name, id)).Delete(context.Background())
		}
	})
	return e
}

// write writes the DAG file of e's DAG with triggers and loads it.
func (e *scheduleEnv) write(t *testing.T, triggers string) *dag.DAG {
	t.Helper()
	path := filepath.Join(e.dir, "dag.yaml")
	src := fmt.Sprintf(`version: 1
name: %s
params:
  type: object
  properties:
    since: {type: string, format: date-time}
nodes:
  report:
    type: exec
    with:
      command: [echo, "since ${{ params.since }}"]
      output: text
triggers:
%s`, e.name, triggers)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := files().Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sync syncs ds and returns what it did, "trigger=did" sorted.
func (e *scheduleEnv) sync(t *testing.T, ds ...*dag.DAG) []string {
	t.Helper()
	ss, err := e.svc.Sync(context.Background(), ds, []string{e.dir})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range ss {
		if s.DAG != e.name || s.Schedule != ScheduleID(e.name, s.Trigger) {
			t.Errorf("synced %+v, want DAG %s and Schedule %s", s, e.name, ScheduleID(e.name, s.Trigger))
		}
		out = append(out, s.Trigger+"="+s.Did)
	}
	slices.Sort(out)
	return out
}

// listed waits until Temporal's list (its visibility, which lags) shows Schedule id.
func (e *scheduleEnv) listed(t *testing.T, id string) {
	t.Helper()
	for range 300 {
		it, err := e.c.ScheduleClient().List(context.Background(), client.ScheduleListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for it.HasNext() {
			s, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if s.ID == id {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("Temporal's list never showed %s", id)
}

// TestSyncSchedules: sync creates a Schedule per cron and every trigger, leaves them alone
// when nothing changed, updates them when their DAG file changed (the one whose cron changed
// has its new times), deletes the one whose trigger is gone, and never touches a Schedule
// it did not create.
func TestSyncSchedules(t *testing.T) {
	e := newScheduleEnv(t)
	ctx := context.Background()
	sc := e.c.ScheduleClient()
	// A Schedule seam did not create, in seam's id space all the same.
	foreign := ScheduleID(e.name, "foreign")
	if _, err := sc.Create(ctx, client.ScheduleOptions{ID: foreign, Spec: client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: time.Hour}}},
		Action: &client.ScheduleWorkflowAction{ID: "foreign-" + e.name, Workflow: WorkflowName, TaskQueue: "nowhere"}, Paused: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sc.GetHandle(ctx, foreign).Delete(ctx) })

	both := `  nightly:
    cron: "0 2 * * *"
    timezone: Europe/Berlin
    overlap: buffer_one
    jitter: 2m
    catchup: {window: 6h, runs: all}
    params: {since: "${{ trigger.scheduled_time }}"}
  hourly: {every: 1h, params: {since: "${{ trigger.scheduled_time }}"}}
  hook: {webhook: {}}
`
	if got, want := e.sync(t, e.write(t, both)), []string{"hourly=created", "nightly=created"}; !slices.Equal(got, want) {
		t.Fatalf("first sync: %q, want %q", got, want)
	}
	desc, err := sc.GetHandle(ctx, ScheduleID(e.name, "nightly")).Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := desc.Schedule
	if !slices.Equal(s.Spec.CronExpressions, nil) && len(s.Spec.Calendars) == 0 {
		t.Errorf("nightly's spec has no calendar: %+v", s.Spec)
	}
	if s.Spec.TimeZoneName != "Europe/Berlin" || s.Spec.Jitter != 2*time.Minute || s.Policy.Overlap != enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE || s.Policy.CatchupWindow != 6*time.Hour {
		t.Errorf("nightly: zone %q, jitter %s, overlap %s, catch-up window %s; want Europe/Berlin, 2m, buffer one, 6h",
			s.Spec.TimeZoneName, s.Spec.Jitter, s.Policy.Overlap, s.Policy.CatchupWindow)
	}
	if a, ok := s.Action.(*client.ScheduleWorkflowAction); !ok || a.ID != WorkflowID(e.name+".nightly") {
		t.Errorf("nightly's action: %+v, want the run workflow as %s", s.Action, WorkflowID(e.name+".nightly"))
	}
	next := desc.Info.NextActionTimes
	if len(next) == 0 || next[0].In(mustZone(t, "Europe/Berlin")).Hour() != 2 {
		t.Errorf("nightly's next times %v, want 02:00 in Berlin", next)
	}

	if got, want := e.sync(t, e.write(t, both)), []string{"hourly=unchanged", "nightly=unchanged"}; !slices.Equal(got, want) {
		t.Errorf("second sync: %q, want %q", got, want)
	}

	edited := strings.Replace(both, `"0 2 * * *"`, `"0 3 * * *"`, 1)
	if got, want := e.sync(t, e.write(t, edited)), []string{"hourly=updated", "nightly=updated"}; !slices.Equal(got, want) {
		// Each Schedule carries the DAG file as bundled: an edit of the file updates all.
		t.Errorf("sync of an edited cron: %q, want %q", got, want)
	}
	desc, err = sc.GetHandle(ctx, ScheduleID(e.name, "nightly")).Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next := desc.Info.NextActionTimes; len(next) == 0 || next[0].In(mustZone(t, "Europe/Berlin")).Hour() != 3 {
		t.Errorf("nightly's next times after the edit %v, want 03:00 in Berlin", next)
	}

	e.listed(t, ScheduleID(e.name, "hourly"))
	e.listed(t, foreign)
	gone := strings.Replace(edited, "  hourly: {every: 1h, params: {since: \"${{ trigger.scheduled_time }}\"}}\n", "", 1)
	if got, want := e.sync(t, e.write(t, gone)), []string{"hourly=deleted", "nightly=updated"}; !slices.Equal(got, want) {
		t.Errorf("sync of a removed trigger: %q, want %q", got, want)
	}
	if _, err := sc.GetHandle(ctx, ScheduleID(e.name, "hourly")).Describe(ctx); !notFound(err) {
		t.Errorf("hourly's Schedule after the sync: %v, want not found", err)
	}
	if _, err := sc.GetHandle(ctx, foreign).Describe(ctx); err != nil {
		t.Errorf("the Schedule seam did not create: %v, want it left", err)
	}

	// The file renames its DAG: the Schedules of the DAG it held are gone with it.
	e.listed(t, ScheduleID(e.name, "nightly"))
	old := e.name
	e.name += "-renamed"
	t.Cleanup(func() { _ = sc.GetHandle(ctx, ScheduleID(e.name, "nightly")).Delete(ctx) })
	ss, err := e.svc.Sync(ctx, []*dag.DAG{e.write(t, gone)}, []string{e.dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []service.Synced{
		{DAG: e.name, Trigger: "nightly", Schedule: ScheduleID(e.name, "nightly"), Did: service.SyncCreated},
		{DAG: old, Trigger: "nightly", Schedule: ScheduleID(old, "nightly"), Did: service.SyncDeleted},
	}
	if !slices.Equal(ss, want) {
		t.Errorf("sync of a renamed DAG: %+v, want %+v", ss, want)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestScheduleRuns: an every: 2s Schedule starts runs that the worker records with their
// trigger and scheduled time, with the params the trigger makes of that time and the fire
// in the store; pause pauses the Schedule with who and why.
func TestScheduleRuns(t *testing.T) {
	e := newScheduleEnv(t)
	ctx := context.Background()
	d := e.write(t, `  tick: {every: 2s, jitter: 1s, overlap: allow_all, params: {since: "${{ trigger.scheduled_time }}"}}
`)
	if got := e.sync(t, d); !slices.Equal(got, []string{"tick=created"}) {
		t.Fatalf("sync: %q", got)
	}
	var fs []runs.Fire
	for range 600 {
		var err error
		if fs, err = e.st.(runs.Fires).ListFires(ctx, e.name, "tick", 10); err != nil {
			t.Fatal(err)
		}
		if len(fs) > 0 && fs[0].RunID != "" {
			if r, _, err := e.st.GetRun(ctx, fs[0].RunID); err == nil && r.Status != dag.RunRunning {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(fs) == 0 {
		t.Fatal("no run of the Schedule was recorded")
	}
	f := fs[0]
	r, _, err := e.st.GetRun(ctx, f.RunID)
	if err != nil {
		t.Fatal(err)
	}
	at := f.Scheduled.UTC().Format(time.RFC3339)
	if f.Decision != runs.FireStarted || f.Scheduled.Unix()%2 != 0 || f.Scheduled.Nanosecond() != 0 {
		t.Errorf("fire %+v, want started at a multiple of 2s", f)
	}
	if r.ID != e.name+".tick-"+at || r.Trigger != "tick" || !r.Scheduled.Equal(f.Scheduled) || string(r.Params) != `{"since":"`+at+`"}` || r.Status != dag.RunSuccess || r.StartedBy != "schedule:"+e.name+"/tick" {
		t.Errorf("run %s: trigger %q for %v, params %v, %s, by %q; want %s.tick-%s, tick for %s, since %s, success, by schedule:%s/tick",
			r.ID, r.Trigger, r.Scheduled, r.Params, r.Status, r.StartedBy, e.name, at, at, at, e.name)
	}

	if err := e.svc.SetPaused(ctx, d, "tick", true, "maintenance"); err != nil {
		t.Fatal(err)
	}
	desc, err := e.c.ScheduleClient().GetHandle(ctx, ScheduleID(e.name, "tick")).Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := desc.Schedule.State; !st.Paused || !strings.HasSuffix(st.Note, ": maintenance") || !strings.HasPrefix(st.Note, "paused by ") {
		t.Errorf("the Schedule's state %+v, want paused, noting who and maintenance", st)
	}
	if err := e.svc.SetPaused(ctx, d, "tick", false, ""); err != nil {
		t.Fatal(err)
	}
	if desc, err = e.c.ScheduleClient().GetHandle(ctx, ScheduleID(e.name, "tick")).Describe(ctx); err != nil || desc.Schedule.State.Paused {
		t.Errorf("resumed: %+v %v, want not paused", desc.Schedule.State, err)
	}
}

// TestScheduleBackfill: a backfill asks the Schedule for the times of a past range, both
// ends included; each is a run recorded for its time. A backfill repeated starts nothing
// twice: the store holds each time's run already.
func TestScheduleBackfill(t *testing.T) {
	e := newScheduleEnv(t)
	ctx := context.Background()
	d := e.write(t, `  hourly: {cron: "0 * * * *", params: {since: "${{ trigger.scheduled_time }}"}}
`)
	if err := e.svc.SetPaused(ctx, d, "hourly", true, "backfill only"); err == nil || !strings.Contains(err.Error(), "run seam schedule sync first") {
		t.Errorf("pause before a sync: %v, want Temporal has no Schedule, run seam schedule sync first", err)
	}
	if got := e.sync(t, d); !slices.Equal(got, []string{"hourly=created"}) {
		t.Fatalf("sync: %q", got)
	}
	if err := e.svc.SetPaused(ctx, d, "hourly", true, "backfill only"); err != nil {
		t.Fatal(err)
	}
	from := time.Now().UTC().Truncate(time.Hour).Add(-5 * time.Hour)
	to := from.Add(2 * time.Hour)
	fs, err := e.svc.Backfill(ctx, d, "hourly", from, to, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{from, from.Add(time.Hour), to}
	if len(fs) != 3 || !fs[0].Asked {
		t.Fatalf("backfill: %+v, want the 3 times asked", fs)
	}
	var got []runs.Fire
	for range 600 {
		if got, err = e.st.(runs.Fires).ListFires(ctx, e.name, "hourly", 10); err != nil {
			t.Fatal(err)
		}
		if len(got) >= 3 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var times []time.Time
	for _, f := range got {
		times = append(times, f.Scheduled)
		if f.Decision != runs.FireStarted || f.RunID == "" {
			t.Errorf("fire %+v, want started", f)
		}
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	if !slices.EqualFunc(times, want, time.Time.Equal) {
		t.Errorf("backfilled times %v, want %v", times, want)
	}

	// The same range again: each time's workflow finds its run recorded, and fails
	// without touching it.
	before := map[string]time.Time{}
	for _, f := range got {
		r, _, err := e.st.GetRun(ctx, f.RunID)
		if err != nil {
			t.Fatal(err)
		}
		before[f.RunID] = r.Started
	}
	if _, err := e.svc.Backfill(ctx, d, "hourly", from, to, time.Now()); err != nil {
		t.Fatal(err)
	}
	for id := range before {
		for i := 0; ; i++ {
			desc, err := e.c.DescribeWorkflowExecution(ctx, WorkflowID(id), "")
			if err == nil && desc.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_FAILED {
				break
			}
			if i == 600 {
				t.Fatalf("the second backfill's workflow of %s: %v %v, want failed", id, desc.GetWorkflowExecutionInfo().GetStatus(), err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	again, err := e.st.(runs.Fires).ListFires(ctx, e.name, "hourly", 10)
	if err != nil || len(again) != 3 {
		t.Fatalf("fires after the second backfill: %+v %v, want the 3", again, err)
	}
	for id, started := range before {
		if r, _, err := e.st.GetRun(ctx, id); err != nil || r.Status != dag.RunSuccess || !r.Started.Equal(started) {
			t.Errorf("run %s after the second backfill: %+v %v, want it as it was", id, r, err)
		}
	}
}

// TestSyncErrors: the errors of sync, pause and backfill on Temporal say what to do.
func TestSyncErrors(t *testing.T) {
	path := writeDAG(t, `version: 1
name: bad
nodes:
  a: {type: const, with: {value: 1}}
  b: {type: const, with: {value: "${{ nodes.a.output.data.nope }}"}}
triggers:
  t: {every: 1h}
`)
	d, err := files().Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		svc  *service.Service
		lang i18n.Lang
		want string
	}{
		{"no Temporal", service.New(service.Options{}), "", "seam schedule sync makes Temporal Schedules: it needs Temporal (TEMPORAL_ADDRESS)"},
		{"no Temporal ja", service.New(service.Options{Lang: "ja"}), "ja", "Temporal"},
		{"lint errors", service.New(service.Options{Schedules: &Schedules{}}), "", path + ": not synced: lint found 1 error: SEAM-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.svc.Sync(context.Background(), []*dag.DAG{d}, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Sync: %v, want %q", err, c.want)
			}
			if c.lang == "ja" && err != nil && !strings.ContainsAny(err.Error(), "がをはにでの") {
				t.Errorf("Sync in Japanese: %v", err)
			}
		})
	}
	two := writeDAG(t, `version: 1
name: worse
nodes:
  a: {type: const, with: {value: 1}}
  b: {type: const, with: {value: "${{ nodes.a.output.data.nope }}"}}
  c: {type: const, with: {value: "${{ nodes.a.output.data.nope }}"}}
triggers:
  t: {every: 1h}
`)
	d2, err := files().Load(context.Background(), two)
	if err != nil {
		t.Fatal(err)
	}
	want := two + ": not synced: lint found 2 errors (seam lint shows them), the first: SEAM-"
	if _, err := service.New(service.Options{Schedules: &Schedules{}}).Sync(context.Background(), []*dag.DAG{d2}, nil); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Sync of a DAG with 2 lint errors: %v, want %q…", err, want)
	}
}

// TestScheduleTimesAgree: over a year, the times the Temporal Schedule sync makes takes
// (Temporal's own list of them, on the dev server) are the times seam's rule fires the cron
// at: in Europe/Berlin the spring-forward night's 02:30 at 03:00 (a calendar of sync's,
// where Temporal skips it) and the fall-back night's 02:30 at its first occurrence (an
// instant of sync's, where Temporal takes the second); a cron that keeps its pace at both
// occurrences; in UTC a cron whose day fields are both restricted on either day, and 7 as
// Sunday. Temporal may still take a fixed time's second occurrence, which the run workflow
// ends without a run (TestScheduledWorkflow).
func TestScheduleTimesAgree(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Hour)
	end := now.AddDate(1, 0, 0)
	for _, tc := range []struct {
		cron, zone string
		extra      int
	}{
		{"30 2 * * *", "Europe/Berlin", 0},
		{"0 2 1,15 * MON", "UTC", 0},
		{"0 2 * * 7", "UTC", 0},
		{"30 1 * * *", "America/New_York", 1}, // the second 01:30, which the workflow ends (TestScheduledWorkflow)
		{"*/30 1 * * *", "America/New_York", 0},
	} {
		t.Run(tc.cron+" "+tc.zone, func(t *testing.T) {
			tr := &dag.Trigger{ID: "t", Cron: tc.cron, Timezone: tc.zone}
			var b [4]byte
			_, _ = rand.Read(b[:])
			id := "seam-test/" + hex.EncodeToString(b[:])
			if _, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: id, Spec: spec(tr, now), Paused: true,
				Action: &client.ScheduleWorkflowAction{ID: id, Workflow: WorkflowName, TaskQueue: "nowhere"}}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.ScheduleClient().GetHandle(ctx, id).Delete(ctx) })
			resp, err := c.WorkflowService().ListScheduleMatchingTimes(ctx, &workflowservice.ListScheduleMatchingTimesRequest{
				Namespace: "default", ScheduleId: id, StartTime: timestamppb.New(now), EndTime: timestamppb.New(end)})
			if err != nil {
				t.Fatal(err)
			}
			// Temporal lists at most 1,000 times: compare up to the last either lists.
			theirs := map[int64]bool{} // by Unix second: the times' zones differ
			cut := end
			for _, ts := range resp.GetStartTime() {
				theirs[ts.AsTime().Unix()] = true
				cut = ts.AsTime().UTC()
			}
			ours, err := service.Times(tr, now, 1000, "")
			if err != nil {
				t.Fatal(err)
			}
			if last := ours[len(ours)-1]; last.Before(cut) {
				cut = last
			}
			var missing, extra []string
			n := 0
			for _, at := range ours {
				if at.After(cut) {
					break
				}
				n++
				if !theirs[at.Unix()] {
					missing = append(missing, at.In(mustZone(t, tc.zone)).Format(time.RFC3339))
				}
				delete(theirs, at.Unix())
			}
			for sec := range theirs {
				if at := time.Unix(sec, 0); !at.After(cut) {
					extra = append(extra, at.In(mustZone(t, tc.zone)).Format(time.RFC3339))
				}
			}
			slices.Sort(extra)
			if len(missing) > 0 || len(extra) != tc.extra || n < 50 {
				t.Errorf("of %d times up to %s: seam's that Temporal does not take %v; Temporal's extra %v, want %d",
					n, cut.Format(time.RFC3339), missing[:min(len(missing), 5)], extra[:min(len(extra), 5)], tc.extra)
			}
		})
	}
}

// TestScheduledWorkflow: the run workflow a Schedule starts takes its run id from its
// workflow id and its scheduled time from TemporalScheduledStartTime, records the run with
// its fire and the params the trigger makes of the time; it ends without a run for a time
// seam's rule does not fire (the second 01:30 of the night clocks fall back in New York),
// records a time whose params cannot be made missed, and refuses a start without a
// scheduled time or for a trigger the DAG does not have.
func TestScheduledWorkflow(t *testing.T) {
	path := writeDAG(t, `version: 1
name: sched
params: {type: object, properties: {since: {type: string}, n: {type: integer}}}
nodes:
  a: {type: exec, with: {command: [echo, hi], output: text}}
triggers:
  nightly: {cron: "30 1 * * *", timezone: America/New_York, params: {since: "${{ trigger.scheduled_time }}"}}
  broken: {cron: "30 1 * * *", params: {n: "${{ int(trigger.scheduled_time) }}"}}
`)
	b, err := newBundle(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Date(2027, 11, 7, 5, 30, 0, 0, time.UTC)  // 01:30 EDT
	second := time.Date(2027, 11, 7, 6, 30, 0, 0, time.UTC) // 01:30 EST
	for _, c := range []struct {
		name, trigger string
		at            time.Time // zero: no search attribute
		run           bool      // a run recorded
		fire          string    // the fire's decision; "" none
		err           string
	}{
		{"first occurrence", "nightly", first, true, runs.FireStarted, ""},
		{"second occurrence", "nightly", second, false, "", ""},
		{"params that cannot be made", "broken", time.Date(2027, 1, 1, 1, 30, 0, 0, time.UTC), false, runs.FireMissed, ""},
		{"no scheduled time", "nightly", time.Time{}, false, "", "run sched.nightly-x of schedule nightly has no scheduled time (TemporalScheduledStartTime): only its Temporal Schedule starts it"},
		{"no such trigger", "gone", first, false, "", "DAG sched has no schedule gone: run seam schedule sync"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := openStore(t)
			w := NewWorker(WorkerOptions{Store: st, Types: types(), Dir: t.TempDir()})
			var s testsuite.WorkflowTestSuite
			s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
			env := s.NewTestWorkflowEnvironment()
			w.Register(env)
			id := "sched.nightly-x"
			if !c.at.IsZero() {
				id = "sched." + c.trigger + "-" + c.at.Format(time.RFC3339)
				if err := env.SetTypedSearchAttributesOnStart(temporal.NewSearchAttributes(scheduledStartKey.ValueSet(c.at))); err != nil {
					t.Fatal(err)
				}
			}
			env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: WorkflowID(id)})
			env.ExecuteWorkflow(WorkflowName, RunInput{File: path, Bundle: b, Trigger: c.trigger})
			err := env.GetWorkflowError()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("workflow error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r, as, err := st.GetRun(context.Background(), id)
			if c.run != (err == nil) {
				t.Fatalf("run %s: %+v %v, want recorded %t", id, r, err, c.run)
			}
			if c.run && (r.Trigger != c.trigger || !r.Scheduled.Equal(c.at) || string(r.Params) != `{"since":"`+c.at.Format(time.RFC3339)+`"}` || r.Status != dag.RunSuccess) {
				t.Errorf("run: trigger %q for %v, params %s, %s (%s); want %s for %v, since it, success", r.Trigger, r.Scheduled, r.Params, r.Status, attemptList(as), c.trigger, c.at)
			}
			fs, err := st.(runs.Fires).ListFires(context.Background(), "sched", c.trigger, 10)
			if err != nil {
				t.Fatal(err)
			}
			if c.fire == "" && len(fs) > 0 || c.fire != "" && (len(fs) != 1 || fs[0].Decision != c.fire || !fs[0].Scheduled.Equal(c.at)) {
				t.Errorf("fires %+v, want %q at %v", fs, c.fire, c.at)
			}
			if c.fire == runs.FireMissed && !strings.Contains(fs[0].Note, "int") {
				t.Errorf("missed fire's note %q, want why the params could not be made", fs[0].Note)
			}
		})
	}
}

// TestSchedulesUnreachable: when Temporal does not answer, sync, pause and backfill say which
// trigger and which Schedule they could not reach.
func TestSchedulesUnreachable(t *testing.T) {
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	path := writeDAG(t, "version: 1\nname: far\nnodes:\n  a: {type: exec, with: {command: [echo], output: text}}\ntriggers:\n  t: {every: 1h}\n")
	d, err := files().Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := &Schedules{Client: c}
	now := time.Now()
	for _, tc := range []struct {
		name string
		do   func(ctx context.Context) error
		want string
	}{
		{"sync", func(ctx context.Context) error { _, err := s.Sync(ctx, []*dag.DAG{d}, nil, nil); return err }, "sync far t to Temporal: "},
		{"pause", func(ctx context.Context) error { return s.Pause(ctx, "far", "t", true, "x") }, "the Temporal Schedule seam/far/t: "},
		{"resume", func(ctx context.Context) error { return s.Pause(ctx, "far", "t", false, "") }, "the Temporal Schedule seam/far/t: "},
		{"backfill", func(ctx context.Context) error { return s.Backfill(ctx, "far", "t", now.Add(-time.Hour), now) }, "the Temporal Schedule seam/far/t: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := tc.do(ctx); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q…", tc.name, err, tc.want)
			}
		})
	}
}

// TestSyncPaused: a trigger the store has paused is created paused, with who paused it and
// why; a sync after leaves the Schedule's pause to Temporal.
func TestSyncPaused(t *testing.T) {
	e := newScheduleEnv(t)
	ctx := context.Background()
	if err := e.st.(runs.Fires).SetPaused(ctx, runs.TriggerState{DAG: e.name, Trigger: "nightly", Paused: true, Note: "migration", PausedBy: "alice", PausedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	d := e.write(t, "  nightly: {cron: \"0 2 * * *\"}\n")
	if got := e.sync(t, d); !slices.Equal(got, []string{"nightly=created"}) {
		t.Fatalf("sync: %q", got)
	}
	h := e.c.ScheduleClient().GetHandle(ctx, ScheduleID(e.name, "nightly"))
	desc, err := h.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := desc.Schedule.State; !st.Paused || st.Note != "paused by alice: migration" {
		t.Errorf("created: %+v, want paused by alice: migration", st)
	}
	if err := h.Unpause(ctx, client.ScheduleUnpauseOptions{}); err != nil {
		t.Fatal(err)
	}
	d = e.write(t, "  nightly: {cron: \"0 3 * * *\"}\n")
	if got := e.sync(t, d); !slices.Equal(got, []string{"nightly=updated"}) {
		t.Fatalf("sync: %q", got)
	}
	if desc, err := h.Describe(ctx); err != nil || desc.Schedule.State.Paused {
		t.Errorf("updated: %+v %v, want its pause (none) kept", desc.Schedule.State, err)
	}
}
