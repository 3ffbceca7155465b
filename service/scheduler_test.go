package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

func hour(h int) time.Time { return time.Date(2026, 5, 4, h, 0, 0, 0, time.UTC) }

// hourlyDAG runs every hour, its params saying which hour.
const hourlyDAG = `version: 1
name: hourly
params:
  type: object
  required: [since]
  properties:
    since: {type: string, format: date-time}
nodes:
  a:
    type: transform
    input: {since: "${{ params.since }}"}
    with: {program: '{status: "pass", summary: .since}'}
triggers:
  tick:
    every: 1h
`

func newScheduler(t *testing.T, svc *Service, owner string, clock Clock, ds ...*dag.DAG) *Scheduler {
	t.Helper()
	sc, err := NewScheduler(svc, owner, clock, func(context.Context) ([]*dag.DAG, error) { return ds, nil })
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// tick ticks sc and returns its decisions as "15:04 action[ note]" lines; the runs started
// are waited for.
func tick(t *testing.T, sc *Scheduler) (bool, string) {
	t.Helper()
	active, made := tickNoWait(t, sc)
	for _, m := range made {
		if m.Run != nil {
			m.Run.Wait()
		}
	}
	return active, madeText(made)
}

func tickNoWait(t *testing.T, sc *Scheduler) (bool, []Made) {
	t.Helper()
	active, made, err := sc.Tick(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return active, made
}

func madeText(made []Made) string {
	var lines []string
	for _, m := range made {
		s := m.Time.UTC().Format("15:04") + " " + string(m.Action)
		if m.Note != "" {
			s += " (" + m.Note + ")"
		}
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

func history(t *testing.T, st runs.Store, d, tr string) string {
	t.Helper()
	fs, err := st.(runs.Fires).ListFires(t.Context(), d, tr, 100)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range fs {
		line := f.Scheduled.UTC().Format("15:04") + " " + f.Decision
		if f.RunID != "" {
			r, _, err := st.GetRun(t.Context(), f.RunID)
			if err != nil {
				t.Fatal(err)
			}
			line += " " + string(r.Params)
		}
		if f.Note != "" {
			line += " (" + f.Note + ")"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// TestSchedulerOnce: of two schedulers on one store one decides; a restarted one starts no
// time twice; the other takes over once the first stops renewing its lease.
func TestSchedulerOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		d := load(t, t.TempDir(), "hourly.yaml", strings.Replace(hourlyDAG, "    every: 1h\n", "    every: 1h\n    params: {since: \"${{ trigger.scheduled_time }}\"}\n", 1))
		clock := &testClock{t: hour(9).Add(30 * time.Minute)}
		svcA, svcB := newService(t, st, "en"), newService(t, st, "en")
		a, b := newScheduler(t, svcA, "a", clock, d), newScheduler(t, svcB, "b", clock, d)
		steps := []struct {
			at     time.Time
			sc     *Scheduler
			active bool
			made   string
		}{
			{hour(9).Add(30 * time.Minute), a, true, ""}, // a sees the trigger first
			{hour(10).Add(-10 * time.Second), a, true, ""},
			{hour(10).Add(5 * time.Second), b, false, ""}, // a's lease holds until 10:00:20
			{hour(10).Add(6 * time.Second), a, true, "10:00 start"},
			{hour(10).Add(7 * time.Second), newScheduler(t, svcA, "a", clock, d), true, ""}, // a restarted: 10:00 is decided
			{hour(11).Add(5 * time.Second), b, true, "11:00 start"},                         // a's lease expired
			{hour(11).Add(6 * time.Second), a, false, ""},
		}
		for i, s := range steps {
			clock.set(s.at)
			active, made := tick(t, s.sc)
			if active != s.active || made != s.made {
				t.Errorf("step %d: active %t made %q, want %t %q", i, active, made, s.active, s.made)
			}
		}
		svcA.Close()
		svcB.Close()
		want := `11:00 started {"since":"2026-05-04T11:00:00Z"}` + "\n" + `10:00 started {"since":"2026-05-04T10:00:00Z"}`
		if got := history(t, st, "hourly", "tick"); got != want {
			t.Errorf("history:\n%s\nwant\n%s", got, want)
		}
		r, _, err := st.ListRuns(t.Context(), runs.Filter{})
		if err != nil || len(r) != 2 || r[0].Trigger != "tick" || !r[0].Scheduled.Equal(hour(11)) {
			t.Errorf("runs %+v, %v", r, err)
		}
	})
}

// TestSchedulerCatchupPause: after downtime the times within the window start, each with
// its own time; a paused trigger's times are missed, with who paused it and why; a run that
// cannot start is missed with the reason.
func TestSchedulerCatchupPause(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		src := strings.Replace(hourlyDAG, "    every: 1h\n", "    every: 1h\n    catchup: {window: 3h, runs: all}\n    overlap: allow_all\n    params: {since: \"${{ trigger.scheduled_time }}\"}\n", 1)
		dir := t.TempDir()
		d := load(t, dir, "hourly.yaml", src)
		// A trigger that gives no params, which the params schema requires (lint says so).
		broken := load(t, dir, "broken.yaml", strings.Replace(hourlyDAG, "name: hourly", "name: broken", 1))
		clock := &testClock{t: hour(6).Add(30 * time.Minute)}
		svc := newService(t, st, "en")
		sc := newScheduler(t, svc, "a", clock, d, broken)
		tick(t, sc)
		clock.set(hour(10).Add(5 * time.Second))
		tick(t, sc)
		fires := st.(runs.Fires)
		if err := fires.SetPaused(t.Context(), runs.TriggerState{DAG: "hourly", Trigger: "tick", Paused: true, Note: "warehouse migration", PausedBy: "alice", PausedAt: clock.Now()}); err != nil {
			t.Fatal(err)
		}
		clock.set(hour(11).Add(5 * time.Second))
		tick(t, sc)
		svc.Close()
		want := "11:00 missed (paused by alice: warehouse migration)\n" +
			`10:00 started {"since":"2026-05-04T10:00:00Z"}` + "\n" +
			`09:00 started {"since":"2026-05-04T09:00:00Z"}` + "\n" +
			`08:00 started {"since":"2026-05-04T08:00:00Z"}` + "\n" +
			"07:00 missed (seen 3h0m5s late, outside the 3h0m0s window)"
		if got := history(t, st, "hourly", "tick"); got != want {
			t.Errorf("history of tick:\n%s\nwant\n%s", got, want)
		}
		want = "11:00 missed (could not start: params break the DAG's params schema\n  /since: missing required field: since)\n" +
			"10:00 missed (could not start: params break the DAG's params schema\n  /since: missing required field: since)\n" +
			"09:00 missed (seen 1h0m5s late, outside the 1m0s window)\n" +
			"08:00 missed (seen 2h0m5s late, outside the 1m0s window)\n" +
			"07:00 missed (seen 3h0m5s late, outside the 1m0s window)"
		if got := history(t, st, "broken", "tick"); got != want {
			t.Errorf("history of broken:\n%s\nwant\n%s", got, want)
		}
	})
}

// hangingDAG runs until the file release exists next to it, every hour.
const hangingDAG = `version: 1
name: hanging
nodes:
  wait:
    type: exec
    with:
      command: 'while [ ! -f release ]; do sleep 0.05; done; echo "{\"status\":\"pass\",\"summary\":\"released\"}"'
      shell: true
triggers:
  tick:
    every: 1h
    overlap: skip
`

// TestSchedulerOverlap: a time due while the trigger's run is still going is skipped.
func TestSchedulerOverlap(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		dir := t.TempDir()
		d := load(t, dir, "hanging.yaml", hangingDAG)
		clock := &testClock{t: hour(9).Add(30 * time.Minute)}
		svc := newService(t, st, "en")
		sc := newScheduler(t, svc, "a", clock, d)
		tick(t, sc)
		clock.set(hour(10).Add(5 * time.Second))
		if _, made := tickNoWait(t, sc); madeText(made) != "10:00 start" {
			t.Fatalf("10:00: %s", madeText(made))
		}
		clock.set(hour(11).Add(5 * time.Second))
		if _, made := tick(t, sc); made != "11:00 skip (1 run of the trigger is still going)" {
			t.Errorf("11:00: %s", made)
		}
		if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		svc.Close()
	})
}

// release lets the runs of hangingDAG in dir end.
func release(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSchedulerBufferOne: as on Temporal, the first time due while a run goes waits for it,
// the times due while it waits are dropped, and it starts once the run ended.
func TestSchedulerBufferOne(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		dir := t.TempDir()
		d := load(t, dir, "hanging.yaml", strings.Replace(hangingDAG, "overlap: skip", "overlap: buffer_one\n    catchup: {window: 3h}", 1))
		clock := &testClock{t: hour(9).Add(30 * time.Minute)}
		svc := newService(t, st, "en")
		defer svc.Close()
		sc := newScheduler(t, svc, "a", clock, d)
		tick(t, sc)
		clock.set(hour(10).Add(5 * time.Second))
		_, made := tickNoWait(t, sc)
		if madeText(made) != "10:00 start" {
			t.Fatalf("10:00: %s", madeText(made))
		}
		steps := []struct {
			at   time.Time
			want string
		}{
			{hour(11).Add(5 * time.Second), "11:00 wait"},
			{hour(12).Add(5 * time.Second), "11:00 wait\n12:00 skip (1 run of the trigger is still going; the buffer holds 2026-05-04T11:00:00Z already)"},
			{hour(12).Add(6 * time.Second), "11:00 wait"},
		}
		for _, s := range steps {
			clock.set(s.at)
			if _, got := tickNoWait(t, sc); madeText(got) != s.want {
				t.Errorf("%s: %s\nwant %s", s.at.Format("15:04:05"), madeText(got), s.want)
			}
		}
		release(t, dir)
		made[0].Run.Wait()
		clock.set(hour(12).Add(7 * time.Second))
		if _, got := tick(t, sc); got != "11:00 start" {
			t.Errorf("after the run ended: %s", got)
		}
		clock.set(hour(12).Add(8 * time.Second))
		if _, got := tick(t, sc); got != "" {
			t.Errorf("once the waiting time started: %s", got)
		}
		want := "12:00 skipped (1 run of the trigger is still going; the buffer holds 2026-05-04T11:00:00Z already)\n11:00 started {}\n10:00 started {}"
		if got := history(t, st, "hanging", "tick"); got != want {
			t.Errorf("history:\n%s\nwant\n%s", got, want)
		}
	})
}

// TestSchedulerCancelOther: as on Temporal, cancel_other cancels the runs going, wherever
// they run (here one a scheduler in another process started before a takeover, reached by
// the store's cancel request), and starts the time once they ended.
func TestSchedulerCancelOther(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		dir := t.TempDir()
		d := load(t, dir, "hanging.yaml", strings.Replace(hangingDAG, "overlap: skip", "overlap: cancel_other", 1))
		clock := &testClock{t: hour(9).Add(30 * time.Minute)}
		svcA, svcB := newService(t, st, "en"), newService(t, st, "en")
		defer svcA.Close()
		defer svcB.Close()
		a, b := newScheduler(t, svcA, "a", clock, d), newScheduler(t, svcB, "b", clock, d)
		tick(t, a)
		clock.set(hour(10).Add(5 * time.Second))
		_, made := tickNoWait(t, a)
		if madeText(made) != "10:00 start" {
			t.Fatalf("10:00: %s", madeText(made))
		}
		// a stops; b takes over once a's lease expired, and cancels a's run through the store.
		clock.set(hour(11).Add(5 * time.Second))
		if _, got := tickNoWait(t, b); madeText(got) != "11:00 cancel (1 run of the trigger is still going: canceled)" {
			t.Errorf("11:00: %s", madeText(got))
		}
		res, _ := made[0].Run.Wait()
		if res.Status != dag.RunCanceled {
			t.Fatalf("the run going ended %s, want canceled", res.Status)
		}
		release(t, dir)
		clock.set(hour(11).Add(6 * time.Second))
		if _, got := tick(t, b); got != "11:00 start" {
			t.Errorf("after the cancel: %s", got)
		}
		r, _, err := st.GetRun(t.Context(), made[0].Run.ID)
		if err != nil || r.Status != dag.RunCanceled || r.CanceledBy == "" {
			t.Errorf("run %s: %+v, %v", made[0].Run.ID, r, err)
		}
	})
}

// TestSchedulerFileChanged: a tick reads nothing of a trigger until its next time is due,
// but a trigger whose times changed in its file is decided by its new times at once.
func TestSchedulerFileChanged(t *testing.T) {
	st := backends[0].open(t)
	dir := t.TempDir()
	hourly := load(t, dir, "hourly.yaml", strings.Replace(hourlyDAG, "    every: 1h\n", "    every: 1h\n    params: {since: \"${{ trigger.scheduled_time }}\"}\n", 1))
	halfHourly := load(t, dir, "half.yaml", strings.Replace(hourlyDAG, "    every: 1h\n", "    every: 30m\n    params: {since: \"${{ trigger.scheduled_time }}\"}\n", 1))
	clock := &testClock{t: hour(9).Add(10 * time.Minute)}
	svc := newService(t, st, "en")
	ds := []*dag.DAG{hourly}
	sc, err := NewScheduler(svc, "a", clock, func(context.Context) ([]*dag.DAG, error) { return ds, nil })
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		at   time.Time
		d    *dag.DAG
		want string
	}{
		{hour(9).Add(10 * time.Minute), hourly, ""},
		{hour(9).Add(30*time.Minute + 5*time.Second), hourly, ""},
		{hour(9).Add(30*time.Minute + 6*time.Second), halfHourly, "09:30 start"},
		{hour(10).Add(5 * time.Second), halfHourly, "10:00 start"},
		{hour(10).Add(6 * time.Second), hourly, ""},
		{hour(11).Add(5 * time.Second), hourly, "11:00 start"},
	}
	for i, s := range steps {
		clock.set(s.at)
		ds = []*dag.DAG{s.d}
		if _, got := tick(t, sc); got != s.want {
			t.Errorf("step %d: %q, want %q", i, got, s.want)
		}
	}
}

// TestSchedulerWait: after a tick the scheduler waits until the next time it learned is due
// (not a whole interval from a tick whose phase is arbitrary), at most the interval, and only
// minTickGap once a time fell due while the tick worked.
func TestSchedulerWait(t *testing.T) {
	st, err := runs.Open(t.Context(), filepath.Join(t.TempDir(), "seam.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d := load(t, t.TempDir(), "hourly.yaml", hourlyDAG)
	clock := &testClock{t: hour(9).Add(59*time.Minute + 59*time.Second + 700*time.Millisecond)}
	sc := newScheduler(t, newService(t, st, "en"), "a", clock, d)
	if got := sc.wait(time.Second); got != time.Second {
		t.Errorf("before any tick: wait %v, want the interval", got)
	}
	tick(t, sc)
	if got := sc.wait(time.Second); got != 300*time.Millisecond {
		t.Errorf("10:00 due in 300ms: wait %v", got)
	}
	if got := sc.wait(100 * time.Millisecond); got != 100*time.Millisecond {
		t.Errorf("with a shorter interval: wait %v", got)
	}
	clock.set(hour(10).Add(20 * time.Millisecond))
	if got := sc.wait(time.Second); got != minTickGap {
		t.Errorf("10:00 fell due during the tick: wait %v, want %v", got, minTickGap)
	}
}
