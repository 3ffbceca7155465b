package engine

import (
	"math"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/seam-dag/seam/dag"
)

// decide classifies attempt a of u: its status, whether it is final, and when not, how long
// to wait before the next attempt. Repairs (on_invalid.repair) come first for a broken
// contract, and run at once; retries follow the node's retry policy with its backoff.
func (r *runner) decide(node *dag.Node, u *unit, a attempt) (dag.NodeStatus, bool, time.Duration) {
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
		if u.repairs < node.Repair && !r.stopped {
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
	if r.stopped || u.retries+1 >= node.Retry.Attempts || !slices.Contains(node.Retry.On, kind) {
		return dag.NodeFailed, true, 0
	}
	u.retries++
	return dag.NodeFailed, false, backoff(node.Retry, u.retries, r.jitter())
}

// retryAfter queues u's next attempt once delay has passed.
func (r *runner) retryAfter(u *unit, delay time.Duration) {
	if delay <= 0 {
		r.runnable = append(r.runnable, u)
		return
	}
	if r.host != nil {
		r.hosted.after(u, delay)
		return
	}
	r.timers[u] = time.AfterFunc(delay, func() {
		select {
		case r.due <- u:
		case <-r.quit:
		}
	})
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

// jitter draws the random part of a retry's backoff.
func (r *runner) jitter() float64 {
	if r.host != nil {
		return r.host.Jitter()
	}
	return mrand.Float64()
}
