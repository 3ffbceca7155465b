package engine

import (
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

// TestRetrierDecide checks what follows each kind of attempt: final or not, and the wait.
func TestRetrierDecide(t *testing.T) {
	node := &dag.Node{ID: "n", Repair: 1, Retry: dag.Retry{
		Attempts: 3, On: []string{"error", "timeout"}, Backoff: time.Second, Factor: 2,
	}}
	pass := map[string]any{"status": "pass", "summary": "s"}
	tests := []struct {
		name             string
		a                attempt
		retries, repairs int // the unit's so far
		stopped          bool
		status           dag.NodeStatus
		final            bool
		delay            time.Duration
	}{
		{name: "canceled", a: attempt{canceled: true, reason: "x"}, status: dag.NodeCanceled, final: true},
		{name: "pass", a: attempt{valid: true, output: pass}, status: dag.NodePassed, final: true},
		{name: "warn", a: attempt{valid: true, output: map[string]any{"status": "warn"}}, status: dag.NodeWarned, final: true},
		{name: "own fail is not retried", a: attempt{valid: true, output: map[string]any{"status": "fail"}}, status: dag.NodeFailed, final: true},
		{name: "error retried after backoff", a: attempt{reason: "boom"}, status: dag.NodeFailed, delay: 500 * time.Millisecond},
		{name: "second retry backs off more", a: attempt{reason: "boom"}, retries: 1, status: dag.NodeFailed, delay: time.Second},
		{name: "attempts spent", a: attempt{reason: "boom"}, retries: 2, status: dag.NodeFailed, final: true},
		{name: "timeout retried", a: attempt{reason: "slow", timedOut: true}, status: dag.NodeFailed, delay: 500 * time.Millisecond},
		{name: "contract repaired at once", a: attempt{}, status: dag.NodeFailed},
		{name: "contract not retried once repaired", a: attempt{}, repairs: 1, status: dag.NodeFailed, final: true},
		{name: "stopped: no retry", a: attempt{reason: "boom"}, stopped: true, status: dag.NodeFailed, final: true},
		{name: "stopped: no repair", a: attempt{}, stopped: true, status: dag.NodeFailed, final: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newRetrier(nil, nil)
			rt.jitter = func() float64 { return 0 }
			u := &unit{retries: tt.retries, repairs: tt.repairs}
			status, final, delay := rt.decide(node, u, tt.a, tt.stopped)
			if status != tt.status || final != tt.final || delay != tt.delay {
				t.Fatalf("decide = %s, final %v, after %s; want %s, %v, %s", status, final, delay, tt.status, tt.final, tt.delay)
			}
		})
	}
}

// TestRetrierTimers checks that a unit comes back on due once its backoff has passed, and that
// stop drops the units still waiting.
func TestRetrierTimers(t *testing.T) {
	quit := make(chan struct{})
	defer close(quit)
	rt := newRetrier(nil, quit)
	u := &unit{}
	rt.after(u, time.Millisecond)
	select {
	case got := <-rt.due:
		if got != u {
			t.Fatalf("due gave %p, want %p", got, u)
		}
		rt.fired(got)
	case <-time.After(10 * time.Second):
		t.Fatal("the backoff never ended")
	}
	if rt.waiting() {
		t.Fatal("a unit still waits after it came back")
	}
	rt.after(&unit{}, time.Hour)
	if !rt.waiting() {
		t.Fatal("no unit waits out its backoff")
	}
	rt.stop()
	if rt.waiting() {
		t.Fatal("a unit still waits after stop")
	}
}
