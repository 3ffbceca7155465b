package runs

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestWatchRun follows a run written through another handle (as another process would):
// the watcher sees it grow, then end, and WatchRun returns once it has ended.
func TestWatchRun(t *testing.T) { eachBackend(t, testWatchRun) }

func testWatchRun(t *testing.T, b backend) {
	ctx := t.Context()
	s, loc := b.open(t)
	w, err := Open(ctx, loc) // the writer's own handle
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "running", Started: t0}); err != nil {
		t.Fatal(err)
	}
	const n = 5
	seen := make(chan int, 100)
	done := make(chan error, 1)
	var calls []string
	go func() {
		done <- s.WatchRun(ctx, "r1", func(r *Run, as []Attempt) error {
			calls = append(calls, fmt.Sprintf("%s/%d", r.Status, len(as)))
			seen <- len(as)
			return nil
		})
	}()
	// Each attempt is written once the watcher has seen the one before: every state shows.
	for i := range n {
		for got := -1; got != i; {
			select {
			case got = <-seen:
			case err := <-done:
				t.Fatalf("WatchRun returned early: %v", err)
			case <-time.After(30 * time.Second):
				t.Fatalf("the watcher did not see attempt %d within 30s", i)
			}
		}
		if err := recordAttempt(ctx, w, Attempt{RunID: "r1", Node: fmt.Sprintf("n%d", i), Item: -1, Attempt: 1, Status: "passed", Final: true}, nil); err != nil {
			t.Fatal(err)
		}
	}
	<-seen
	if err := finishRun(ctx, w, "r1", "success", t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("WatchRun did not return once the run ended")
	}
	want := []string{"running/0", "running/1", "running/2", "running/3", "running/4", "running/5", "success/5"}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("states seen %v, want %v", calls, want)
	}

	// An ended run is shown once; an unknown one is an error; fn's error ends the watch.
	calls = nil
	if err := s.WatchRun(ctx, "r1", func(r *Run, as []Attempt) error { calls = append(calls, string(r.Status)); return nil }); err != nil || len(calls) != 1 {
		t.Errorf("watch an ended run: %v, %d calls", err, len(calls))
	}
	if err := s.WatchRun(ctx, "nope", func(*Run, []Attempt) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Errorf("watch an unknown run: %v", err)
	}
	stop := errors.New("stop")
	if err := s.WatchRun(ctx, "r1", func(*Run, []Attempt) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("fn's error: %v", err)
	}
}

// TestWatchRunInterrupted: a run whose lease expires while it is watched (its owner died:
// nothing more is written) is shown once more, interrupted, before WatchRun returns, so that
// a follower says so without reading the run again.
func TestWatchRunInterrupted(t *testing.T) { eachBackend(t, testWatchRunInterrupted) }

func testWatchRunInterrupted(t *testing.T, b backend) {
	ctx := t.Context()
	s, loc := b.open(t)
	w, err := Open(ctx, loc) // the owner's own handle
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	run := Run{ID: "r1", DAG: "d", Status: "running", Started: t0, LeaseOwner: "h/1/a", LeaseUntil: time.Now().Add(time.Hour)}
	if err := w.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	var calls []string
	done := make(chan error, 1)
	go func() {
		done <- s.WatchRun(ctx, "r1", func(r *Run, as []Attempt) error {
			calls = append(calls, fmt.Sprintf("%s interrupted=%t", r.Status, r.Interrupted()))
			if len(calls) == 1 { // the owner dies: its lease is not renewed and expires
				return w.TakeLease(ctx, "r1", run.LeaseOwner, time.Now().Add(-time.Second))
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("WatchRun did not return once the run's lease expired")
	}
	want := []string{"running interrupted=false", "running interrupted=true"}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("states seen %v, want %v", calls, want)
	}
}
