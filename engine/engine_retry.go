package engine

import (
	"math"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/seam-dag/seam/dag"
)

// retrier decides whether an attempt is tried again and when, and keeps the embedded engine's
// units waiting out their backoff (a host keeps its own: hostedLoop.after). It belongs to the
// scheduler goroutine but for the fields that say otherwise.
type retrier struct {
	// jitter draws the random part of a backoff: the host's, when there is one, since a
	// workflow must draw the same numbers when it is replayed.
	jitter func() float64
	timers map[*unit]*time.Timer
	// due is written by a timer's goroutine once its unit's backoff has passed, and read by
	// the scheduler.
	due chan *unit
	// quit is closed by the scheduler once its loop is over, and read by the timers'
	// goroutines, so that one firing later does not block.
	quit <-chan struct{}
}

// newRetrier returns a retrier drawing jitter from host, if not nil.
func newRetrier(host Host, quit <-chan struct{}) retrier {
	jitter := mrand.Float64
	if host != nil {
		jitter = host.Jitter
	}
	return retrier{jitter: jitter, timers: make(map[*unit]*time.Timer), due: make(chan *unit), quit: quit}
}

// decide classifies attempt a of u: its status, whether it is final, and when not, how long
// to wait before the next attempt. Repairs (on_invalid.repair) come first for a broken
// contract, and run at once; retries follow the node's retry policy with its backoff. Once
// the run is stopped, nothing is tried again.
func (rt *retrier) decide(node *dag.Node, u *unit, a attempt, stopped bool) (dag.NodeStatus, bool, time.Duration) {
	var kind string
	switch {
	case a.canceled:
		return dag.NodeCanceled, true, 0
	case a.timedOut:
		kind = "timeout"
	case a.reason != "":
		kind = "error"
	case !a.valid:
		kind = "contract"
		if u.repairs < node.Repair && !stopped {
			u.repairs++
			return dag.NodeFailed, false, 0
		}
	default:
		obj, _ := a.output.(map[string]any) // the standard contract makes it an object
		switch obj["status"] {
		case "pass":
			return dag.NodePassed, true, 0
		case "warn":
			return dag.NodeWarned, true, 0
		}
		return dag.NodeFailed, true, 0 // "fail": a node's own verdict is not retried
	}
	if stopped || u.retries+1 >= node.Retry.Attempts || !slices.Contains(node.Retry.On, kind) {
		return dag.NodeFailed, true, 0
	}
	u.retries++
	return dag.NodeFailed, false, backoff(node.Retry, u.retries, rt.jitter())
}

// after sends u to due once delay has passed.
func (rt *retrier) after(u *unit, delay time.Duration) {
	rt.timers[u] = time.AfterFunc(delay, func() {
		select {
		case rt.due <- u:
		case <-rt.quit:
		}
	})
}

// fired forgets the timer of u, which due just gave.
func (rt *retrier) fired(u *unit) { delete(rt.timers, u) }

// waiting reports whether a unit waits out its backoff.
func (rt *retrier) waiting() bool { return len(rt.timers) > 0 }

// stop drops the units waiting out their backoff: they will not run.
func (rt *retrier) stop() {
	for u, t := range rt.timers {
		t.Stop()
		delete(rt.timers, u)
	}
}

// backoff is the wait before retry n (1-based): backoff × factor^(n-1), at most max_backoff,
// with jitter so that nodes failing together do not retry in lockstep. The wait is drawn
// from [d/2, d): jitter, in [0, 1), is where in it. It comes from the host when there is
// one: a workflow must draw the same numbers when it is replayed.
func backoff(p dag.Retry, n int, jitter float64) time.Duration {
	if p.Backoff <= 0 {
		return 0
	}
	d := float64(p.Backoff) * math.Pow(max(p.Factor, 1), float64(n-1))
	if p.MaxBackoff > 0 && d > float64(p.MaxBackoff) {
		d = float64(p.MaxBackoff)
	}
	return time.Duration(d/2 + jitter*d/2)
}
