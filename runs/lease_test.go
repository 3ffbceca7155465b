package runs

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

// clock is a time a test moves by hand: the lease logic reads it, nothing sleeps.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestLease follows a run's lease through its life on each store: taken as the run begins,
// live while renewed, expired LeaseFor after the last renewal (the run then reads
// interrupted and may be released), taken over by a resume, and released only under the
// lease its releaser read.
func TestLease(t *testing.T) { eachBackend(t, testLease) }

func testLease(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	d := loadRecorderDAG(t)
	c := &clock{t: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)}
	owner := NewLeaser(s, c.now)
	const id = "20261204T120000.000-1ea5e000"
	// Another host's process: only the lease can tell whether it lives.
	rec := NewRecorder(s, d, RecorderOptions{PID: 42, Host: "elsewhere", Lease: owner})
	if err := rec.BeginRun(ctx, dag.RunRecord{ID: id, DAG: "rec", Started: c.t}); err != nil {
		t.Fatal(err)
	}
	get := func() *Run {
		t.Helper()
		r, _, err := s.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := get()
	if r.LeaseOwner != owner.Owner() || !r.LeaseUntil.Equal(c.t.Add(LeaseFor)) {
		t.Fatalf("lease after BeginRun: %q until %v, want %q until %v", r.LeaseOwner, r.LeaseUntil, owner.Owner(), c.t.Add(LeaseFor))
	}

	// The owner renews before the lease expires: the run is live past the first term.
	c.advance(LeaseRenew)
	if n, err := owner.Renew(ctx); err != nil || n != 1 {
		t.Fatalf("Renew: %d, %v; want 1 lease renewed", n, err)
	}
	stale := r.LeaseUntil
	r = get()
	steps := []struct {
		at          time.Duration // from the clock's time now
		interrupted bool
	}{
		{0, false},
		{LeaseFor, false},                  // the last instant of the lease
		{LeaseFor + time.Nanosecond, true}, // its owner renewed nothing since: gone
	}
	for _, st := range steps {
		now := c.t.Add(st.at)
		if got := r.InterruptedAt(now); got != st.interrupted {
			t.Errorf("InterruptedAt(+%v) = %t, want %t", st.at, got, st.interrupted)
		}
		if got := r.Releasable(now); got != st.interrupted {
			t.Errorf("Releasable(+%v) = %t, want %t", st.at, got, st.interrupted)
		}
		want := dag.RunRunning
		if st.interrupted {
			want = StatusInterrupted
		}
		if got := r.DisplayStatus(now); got != want {
			t.Errorf("DisplayStatus(+%v) = %s, want %s", st.at, got, want)
		}
	}
	// A release decided on the lease read before the renewal does nothing.
	if err := s.ReleaseRun(ctx, id, stale, c.t); !errors.Is(err, ErrLeaseChanged) {
		t.Fatalf("ReleaseRun under a renewed lease: %v, want ErrLeaseChanged", err)
	}

	// The owner dies; a resume by another process takes the run's lease over, and the dead
	// owner's renewal (a pid reused, say) extends nothing.
	c.advance(LeaseFor + time.Second)
	if !get().InterruptedAt(c.t) {
		t.Fatal("the run of a dead owner is not interrupted")
	}
	heir := NewLeaser(s, c.now)
	rec2 := NewRecorder(s, d, RecorderOptions{Resume: true, PID: 43, Host: "elsewhere", Lease: heir})
	if err := rec2.BeginRun(ctx, dag.RunRecord{ID: id, DAG: "rec", Started: c.t}); err != nil {
		t.Fatal(err)
	}
	if n, err := owner.Renew(ctx); err != nil || n != 0 {
		t.Fatalf("the old owner's Renew: %d, %v; want 0", n, err)
	}
	r = get()
	if r.LeaseOwner != heir.Owner() || r.InterruptedAt(c.t) || r.Releasable(c.t) {
		t.Fatalf("after the resume: lease %q until %v; want %q's, live", r.LeaseOwner, r.LeaseUntil, heir.Owner())
	}

	// The heir dies too: the run is released, once.
	c.advance(LeaseFor + time.Second)
	if err := s.ReleaseRun(ctx, id, r.LeaseUntil, c.t); err != nil {
		t.Fatal(err)
	}
	if r = get(); r.Status != dag.RunCanceled || !r.Ended.Equal(c.t) || r.InterruptedAt(c.t) {
		t.Errorf("released run: %s, ended %v", r.Status, r.Ended)
	}
	if err := s.ReleaseRun(ctx, id, r.LeaseUntil, c.t); !errors.Is(err, ErrNotRunning) {
		t.Errorf("ReleaseRun of a released run: %v, want ErrNotRunning", err)
	}
	if err := s.ReleaseRun(ctx, "no-such-run", time.Time{}, c.t); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReleaseRun of no run: %v, want ErrNotFound", err)
	}
	if n, err := heir.Renew(ctx); err != nil || n != 0 {
		t.Errorf("Renew of an ended run's lease: %d, %v; want 0", n, err)
	}
}

// TestReleasableWithoutLease covers the runs recorded before leases: released unless their
// process is known to live on this host.
func TestReleasableWithoutLease(t *testing.T) {
	host, _ := os.Hostname()
	now := time.Now()
	tests := []struct {
		name string
		run  Run
		want bool
	}{
		{"this process", Run{Status: "running", PID: os.Getpid(), Host: host}, false},
		{"another host", Run{Status: "running", PID: 42, Host: host + "-elsewhere"}, true},
		{"on Temporal", Run{Status: "running", PID: -1, Host: HostTemporal}, true},
		{"finished", Run{Status: "failed", PID: 42, Host: host + "-elsewhere"}, false},
		{"a live lease", Run{Status: "running", PID: 42, Host: host + "-elsewhere", LeaseUntil: now.Add(time.Second)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.run.Releasable(now); got != tc.want {
				t.Errorf("Releasable = %t, want %t", got, tc.want)
			}
		})
	}
}

// TestSettleStarts shows the start records of attempts that no longer run as interrupted:
// those of an earlier session of a resumed run, and every one of a run whose owner is gone
// or that has ended; a start record of the live session of a live run still runs.
func TestSettleStarts(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	live := Run{Status: dag.RunRunning, Resumes: 1, Host: "elsewhere", LeaseUntil: now.Add(time.Second)}
	gone := live
	gone.LeaseUntil = now.Add(-time.Second)
	ended := live
	ended.Status = dag.RunFailed
	tests := []struct {
		name string
		run  Run
		want []dag.NodeStatus // of the attempts: a start of session 0, a pass of session 1, a start of session 1
	}{
		{"live", live, []dag.NodeStatus{AttemptInterrupted, dag.NodePassed, dag.NodeRunning}},
		{"owner gone", gone, []dag.NodeStatus{AttemptInterrupted, dag.NodePassed, AttemptInterrupted}},
		{"ended", ended, []dag.NodeStatus{AttemptInterrupted, dag.NodePassed, AttemptInterrupted}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			as := []Attempt{
				{Session: 0, Node: "a", Attempt: 1, Status: dag.NodeRunning, Started: now.Add(-time.Hour)},
				{Session: 1, Node: "b", Attempt: 1, Status: dag.NodePassed},
				{Session: 1, Node: "a", Attempt: 1, Status: dag.NodeRunning, Started: now.Add(-time.Minute)},
			}
			SettleStarts(&tc.run, as, now)
			for i := range as {
				if as[i].Status != tc.want[i] {
					t.Errorf("attempt %d: %s, want %s", i, as[i].Status, tc.want[i])
				}
			}
		})
	}
}
