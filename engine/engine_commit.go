package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/seam-dag/seam/dag"
)

// commit starts committing the attempts recorded so far on a goroutine of its own, unless a
// commit is under way: then they go with the next one. Meanwhile the scheduler goes on
// starting and collecting attempts, so a commit idles no worker, and attempts that finish
// during a commit share the next (group commit). Nodes waiting for it are handed on by
// committed.
func (r *runner) commit(ctx context.Context) {
	if r.inflight != nil || r.opts.Recorder == nil {
		return
	}
	if r.host != nil {
		// A host's recorder writes on the scheduler's goroutine, each write a step in the
		// host's history: at once for the nodes waiting to be handed on, while the attempts
		// of pure nodes gather until then, until maxPending, or until the scheduler waits
		// for the host (runHosted).
		if len(r.uncommitted) > 0 || len(r.records) >= maxPending {
			r.commitNow(ctx)
		}
		return
	}
	if len(r.uncommitted) == 0 && len(r.records) < maxPending {
		// Only pure nodes' attempts wait: nothing needs them soon, so they gather for a
		// while, but a run watched in the store must not look stuck behind a long node.
		if len(r.records) > 0 && !r.lingering {
			r.lingering = true
			time.AfterFunc(lingerDelay, func() {
				select {
				case r.linger <- struct{}{}:
				case <-r.quit:
				}
			})
		}
		return
	}
	r.commitNow(ctx)
}

// lingerDelay bounds how long the attempts of pure nodes wait for a commit.
const lingerDelay = 50 * time.Millisecond

// commitNow starts committing the attempts recorded so far, unless a commit is under way.
func (r *runner) commitNow(ctx context.Context) {
	if r.inflight != nil || len(r.records) == 0 && len(r.uncommitted) == 0 {
		return
	}
	c := &inflight{records: r.records, nodes: r.uncommitted}
	r.lastBatch = len(r.records)
	r.records, r.uncommitted = nil, nil
	r.inflight = c
	rec := r.opts.Recorder
	g := r.guard
	// The records must land even when the run is being canceled.
	record := func() error {
		var err error
		perr := g.call("run store", func() { err = rec.RecordAttempts(context.WithoutCancel(ctx), c.records) })
		return cmp.Or(perr, err)
	}
	if r.host != nil || len(c.nodes) > 0 && r.running == 0 && len(r.runnable) == 0 && len(r.graph.ready) == 0 {
		// Nodes wait for this commit and nothing could run meanwhile (a chain): committing
		// here saves starting a goroutine and two hand-offs, which a chain of nodes pays at
		// every edge. A commit of pure nodes' attempts alone holds nothing up: it goes on
		// beside the run.
		r.committed(ctx, record())
		return
	}
	go func() { r.commitDone <- record() }()
}

// committed hands on the nodes whose attempts the commit under way held, and starts the next.
func (r *runner) committed(ctx context.Context, err error) {
	c := r.inflight
	r.inflight = nil
	if err != nil && r.storeErr == nil {
		r.storeErr = err
		r.cancel()
	}
	for _, run := range c.nodes {
		r.apply(ctx, run)
	}
	r.commit(ctx)
}

// inflight is a commit under way: its attempts, and the nodes to hand on once it is done.
type inflight struct {
	records []dag.AttemptRecord
	nodes   []*nodeRun
}

// StartDelay is how long an attempt of an impure node runs before its start is recorded
// (an attempt with status running), on every engine: a run watched in the store shows a
// node running within about that, and an attempt that ends sooner, as most do, costs the
// store no row for its start.
const StartDelay = 50 * time.Millisecond

// pendingStart is an attempt handed to a worker at since, whose start is not recorded yet.
type pendingStart struct {
	u     *unit
	since time.Time
}

// noteStart keeps the attempt of u just handed to a worker, when a recorder records the run
// and u's node is impure: a pure node's attempt takes microseconds.
func (r *runner) noteStart(u *unit) {
	if r.opts.Recorder == nil || r.pure(u.nr.idx) {
		return
	}
	u.since = time.Now()
	r.starts = append(r.starts, pendingStart{u, u.since})
	if !r.starting {
		r.startAfter(StartDelay)
	}
}

// startAfter makes the scheduler look at the attempts started once d has passed.
func (r *runner) startAfter(d time.Duration) {
	r.starting = true
	time.AfterFunc(d, func() {
		select {
		case r.startDue <- struct{}{}:
		case <-r.quit:
		}
	})
}

// recordStarts records running the attempts under way for StartDelay or more, and commits
// them: nothing waits for that commit, but a watcher of the store does.
func (r *runner) recordStarts(ctx context.Context) {
	now := time.Now()
	left, recorded := r.starts[:0], false
	for _, p := range r.starts {
		u := p.u
		switch {
		case u.since != p.since: // it came back, and maybe went out again (noted anew)
		case now.Sub(p.since) < StartDelay:
			left = append(left, p)
		default:
			node := r.d.Nodes[u.nr.idx]
			r.record(dag.AttemptRecord{
				RunID: r.res.ID, Node: node.ID, Type: node.Type.Name(), Attempt: u.attempts, Item: u.item,
				Status: dag.NodeRunning, Key: u.nr.key, Started: p.since,
			})
			recorded = true
		}
	}
	clear(r.starts[len(left):])
	r.starts = left
	if len(left) > 0 {
		// The oldest comes first: noted in the order they started.
		r.startAfter(StartDelay - now.Sub(left[0].since))
	}
	if recorded {
		r.commitNow(ctx)
	}
}

// maxPending bounds the attempts of pure nodes waiting for a commit.
const maxPending = 1024

// record keeps an attempt for the recorder, if there is one.
func (r *runner) record(a dag.AttemptRecord) {
	if r.opts.Recorder != nil {
		if r.records == nil {
			// Batches come out alike: the last one's size saves growing this one.
			r.records = make([]dag.AttemptRecord, 0, r.lastBatch)
		}
		r.records = append(r.records, a)
	}
}

// flush gives the recorder the attempts not recorded yet. A recorder that fails stops the
// run: nothing more can be handed on safely.
func (r *runner) flush(ctx context.Context) {
	if len(r.records) == 0 {
		return
	}
	if r.opts.Recorder != nil && r.storeErr == nil {
		// The records must land even when the run is being canceled.
		var err error
		perr := r.guard.call("run store", func() { err = r.opts.Recorder.RecordAttempts(context.WithoutCancel(ctx), r.records) })
		if err = cmp.Or(perr, err); err != nil {
			r.storeErr = err
			r.cancel()
		}
	}
	clear(r.records)
	r.records = r.records[:0]
}
