package runs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

var fireTime = time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)

func firedRun(id string, scheduled time.Time) Run {
	return Run{ID: id, DAG: "nightly", Status: dag.RunRunning, Started: scheduled.Add(time.Second), Trigger: "nightly", Scheduled: scheduled}
}

// TestFiresStartOnce: a run a schedule starts is created with its fire, so a second run for
// the same time (a retry, a restart, a second scheduler) is refused, and the run records
// what started it.
func TestFiresStartOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s, where := b.open(t)
		fs := s.(Fires)
		if err := s.CreateRun(ctx, firedRun("r1", fireTime)); err != nil {
			t.Fatal(err)
		}
		err := s.CreateRun(ctx, firedRun("r2", fireTime))
		want := fmt.Sprintf("create run r2 in %s: time 2026-03-29T01:00:00Z of trigger nightly: this time of the trigger was decided already", where)
		if b.name == "postgres" {
			want = "create run r2 in " + s.Path() + ": time 2026-03-29T01:00:00Z of trigger nightly: this time of the trigger was decided already"
		}
		if !errors.Is(err, ErrFired) || err.Error() != want {
			t.Errorf("second run for the time: %v\nwant %s", err, want)
		}
		if n := count(t, s, `SELECT count(*) FROM runs`); n != 1 {
			t.Errorf("%d runs, want 1", n)
		}
		r, _, err := s.GetRun(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if r.Trigger != "nightly" || !r.Scheduled.Equal(fireTime) || r.TriggerKey != "" {
			t.Errorf("run records trigger %q scheduled %s key %q", r.Trigger, r.Scheduled, r.TriggerKey)
		}
		got, err := fs.ListFires(ctx, "nightly", "nightly", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Decision != FireStarted || got[0].RunID != "r1" || !got[0].Scheduled.Equal(fireTime) {
			t.Errorf("fires = %+v", got)
		}
		// A manual run records no fire.
		if err := s.CreateRun(ctx, Run{ID: "r3", DAG: "nightly", Status: dag.RunRunning, Started: fireTime}); err != nil {
			t.Fatal(err)
		}
		if n := count(t, s, `SELECT count(*) FROM fires`); n != 1 {
			t.Errorf("%d fires, want 1", n)
		}
	})
}

// TestFiresDecisions: a time skipped or missed is decided too: it starts no run after.
func TestFiresDecisions(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s, _ := b.open(t)
		fs := s.(Fires)
		later := fireTime.Add(24 * time.Hour)
		for _, f := range []Fire{
			{DAG: "nightly", Trigger: "nightly", Scheduled: fireTime, Decision: FireSkipped, At: fireTime, Note: "run r0 still going"},
			{DAG: "nightly", Trigger: "nightly", Scheduled: later, Decision: FireMissed, At: later.Add(7 * time.Hour), Note: "outside the 6h window"},
		} {
			if err := fs.RecordFire(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		err := fs.RecordFire(ctx, Fire{DAG: "nightly", Trigger: "nightly", Scheduled: later, Decision: FireSkipped, At: later})
		if !errors.Is(err, ErrFired) || !strings.HasPrefix(err.Error(), "record skipped of nightly/nightly at 2026-03-30T01:00:00Z in ") {
			t.Errorf("a second decision: %v", err)
		}
		if err := s.CreateRun(ctx, firedRun("r1", fireTime)); !errors.Is(err, ErrFired) {
			t.Errorf("a run for a skipped time: %v", err)
		}
		got, err := fs.ListFires(ctx, "nightly", "nightly", 10)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, f := range got {
			lines = append(lines, f.Scheduled.Format(time.RFC3339)+" "+f.Decision+" "+f.Note)
		}
		want := "2026-03-30T01:00:00Z missed outside the 6h window\n2026-03-29T01:00:00Z skipped run r0 still going"
		if strings.Join(lines, "\n") != want {
			t.Errorf("fires:\n%s\nwant\n%s", strings.Join(lines, "\n"), want)
		}
	})
}

// TestFiresRace: schedulers starting the same time at once start one run.
func TestFiresRace(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s, _ := b.open(t)
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.CreateRun(ctx, firedRun(fmt.Sprintf("r%d", i), fireTime))
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, ErrFired):
				t.Errorf("unexpected error: %v", err)
			}
		}
		if ok != 1 || count(t, s, `SELECT count(*) FROM runs`) != 1 {
			t.Errorf("%d of %d creates succeeded, %d runs; want 1", ok, n, count(t, s, `SELECT count(*) FROM runs`))
		}
	})
}

// TestSchedulerLease: one scheduler holds the store's lease; another takes it only once it
// expired.
func TestSchedulerLease(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s, _ := b.open(t)
		fs := s.(Fires)
		t0 := fireTime
		steps := []struct {
			owner string
			now   time.Time
			want  string
		}{
			{"a", t0, "a"},                       // free: a takes it until t0+30s
			{"b", t0.Add(10 * time.Second), "a"}, // a holds it
			{"a", t0.Add(20 * time.Second), "a"}, // a renews until t0+50s
			{"b", t0.Add(45 * time.Second), "a"}, // still a's
			{"b", t0.Add(51 * time.Second), "b"}, // a stopped renewing: b takes over
			{"a", t0.Add(52 * time.Second), "b"}, // a, back, waits
		}
		for i, st := range steps {
			got, err := fs.TakeSchedulerLease(ctx, st.owner, st.now, st.now.Add(LeaseFor))
			if err != nil {
				t.Fatal(err)
			}
			if got != st.want {
				t.Errorf("step %d: %s at +%s: holder %s, want %s", i, st.owner, st.now.Sub(t0), got, st.want)
			}
		}
	})
}

// TestTriggerState: a trigger is known from when a scheduler first saw it, and keeps who
// paused it and why.
func TestTriggerState(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s, _ := b.open(t)
		fs := s.(Fires)
		st, err := fs.Trigger(ctx, "nightly", "nightly", fireTime)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Since.Equal(fireTime) || st.Paused {
			t.Errorf("new trigger: %+v", st)
		}
		pause := TriggerState{DAG: "nightly", Trigger: "nightly", Paused: true, Note: "migrating the warehouse", PausedBy: "alice", PausedAt: fireTime.Add(time.Hour)}
		if err := fs.SetPaused(ctx, pause); err != nil {
			t.Fatal(err)
		}
		st, err = fs.Trigger(ctx, "nightly", "nightly", fireTime.Add(2*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		pause.Since = fireTime
		if st != pause {
			t.Errorf("paused trigger:\n got %+v\nwant %+v", st, pause)
		}
	})
}

// TestWriteWhoTrigger: seam runs show says what started a run: a schedule's time, a
// webhook's key; nothing for a run started by hand.
func TestWriteWhoTrigger(t *testing.T) {
	tests := []struct {
		r    Run
		lang i18n.Lang
		want string
	}{
		{Run{}, i18n.English, ""},
		{Run{Trigger: "nightly", Scheduled: fireTime}, i18n.English, "trigger  nightly, for 2026-03-29T01:00:00Z\n"},
		{Run{Trigger: "push", TriggerKey: "abc"}, i18n.English, "trigger  push, key \"abc\"\n"},
		{Run{Trigger: "push"}, i18n.English, "trigger  push\n"},
		{Run{Trigger: "nightly", Scheduled: fireTime}, i18n.Japanese, "トリガー nightly（2026-03-29T01:00:00Z の分）\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		WriteWho(&b, &tt.r, tt.lang)
		if b.String() != tt.want {
			t.Errorf("WriteWho(%+v) = %q, want %q", tt.r, b.String(), tt.want)
		}
	}
}

// TestTriggerWaiting: the time buffer_one keeps waiting is kept with the trigger until it is
// cleared.
func TestTriggerWaiting(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s, _ := b.open(t)
		fs := s.(Fires)
		if _, err := fs.Trigger(ctx, "nightly", "nightly", fireTime); err != nil {
			t.Fatal(err)
		}
		for _, w := range []time.Time{fireTime.Add(time.Hour), {}} {
			if err := fs.SetWaiting(ctx, "nightly", "nightly", w); err != nil {
				t.Fatal(err)
			}
			st, err := fs.Trigger(ctx, "nightly", "nightly", fireTime.Add(2*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if !st.Waiting.Equal(w) || !st.Since.Equal(fireTime) {
				t.Errorf("waiting %s since %s, want %s since %s", st.Waiting, st.Since, w, fireTime)
			}
		}
	})
}

// TestCancelRequested: a cancel recorded on a running run is a request to the process
// holding its lease, until the run is resumed after it or ends.
func TestCancelRequested(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s, _ := b.open(t)
		cr := s.(CancelRequests)
		for _, id := range []string{"r1", "r2", "r3"} {
			if err := s.CreateRun(ctx, Run{ID: id, DAG: "d", Status: dag.RunRunning, Started: fireTime}); err != nil {
				t.Fatal(err)
			}
			if err := s.TakeLease(ctx, id, "a", fireTime.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		steps := []struct {
			id   string
			a    Action
			want string
		}{
			{"", Action{}, ""},
			{"r2", Action{Kind: ActionCancel, By: "bob", At: fireTime.Add(time.Minute)}, "r2"},
			{"r3", Action{Kind: ActionCancel, By: "bob", At: fireTime.Add(time.Minute)}, "r2 r3"},
			{"r3", Action{Kind: ActionResume, By: "bob", At: fireTime.Add(2 * time.Minute)}, "r2"}, // resumed after the request
		}
		for i, st := range steps {
			if st.id != "" {
				if err := s.RecordAction(ctx, st.id, st.a); err != nil {
					t.Fatal(err)
				}
			}
			ids, err := cr.CancelRequested(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(ids, " "); got != st.want {
				t.Errorf("step %d: requests %q, want %q", i, got, st.want)
			}
			if ids, _ := cr.CancelRequested(ctx, "b"); len(ids) != 0 {
				t.Errorf("step %d: owner b has requests %v", i, ids)
			}
		}
	})
}

// TestFiresClosedErrors: what the scheduler's reads and writes say when the store cannot
// answer, naming the trigger (or owner) and the store.
func TestFiresClosedErrors(t *testing.T) {
	s, path := openTemp(t)
	s.Close()
	ctx := context.Background()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"waiting", s.SetWaiting(ctx, "nightly", "t", fireTime), "keep a time of trigger nightly/t waiting in " + path + ": sql: database is closed"},
		{"cancel requests", func() error { _, err := s.CancelRequested(ctx, "a"); return err }(), "read the cancel requests of a in " + path + ": sql: database is closed"},
		{"trigger", func() error { _, err := s.Trigger(ctx, "nightly", "t", fireTime); return err }(), "read trigger nightly/t in " + path + ": sql: database is closed"},
	}
	for _, tt := range tests {
		if tt.err == nil || tt.err.Error() != tt.want {
			t.Errorf("%s: %v\nwant %s", tt.name, tt.err, tt.want)
		}
	}
}
