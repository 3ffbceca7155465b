package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/seam-dag/seam/dag"
)

// committer keeps a run's attempts for the recorder and writes them in batches, holding back
// each node whose final attempt is not written yet: nothing is handed on before its record
// commits, so a crash loses nothing a dependent has seen. It belongs to the scheduler
// goroutine but for the fields that say otherwise.
type committer struct {
	rec   dag.Recorder // nil: the run is not recorded, and nothing waits for a commit
	guard guard
	runID string
	// hosted is set on a host, whose recorder writes on the scheduler's goroutine, each write
	// a step in the host's history.
	hosted bool
	s      scheduler
	// quit is closed by the scheduler once its loop is over; the timer goroutines that send
	// on linger and startDue read it, so that one firing later does not block.
	quit <-chan struct{}

	// records are attempts not yet given to the recorder.
	records []dag.AttemptRecord
	// lastBatch is the number of records the last commit took.
	lastBatch int
	// err is the recorder's first failure: from then on nothing is handed on.
	err error
	// waiting are nodes with a final attempt waiting for a commit to be handed on.
	waiting []*nodeRun
	// inflight is the commit under way, if any.
	inflight *inflight
	// done carries the outcome of a commit written on a goroutine of its own: that goroutine
	// writes it, the scheduler reads it.
	done chan error
	// lingering is set while a timer will commit the attempts of pure nodes that wait for no
	// commit, so that the store shows them within lingerDelay even while nothing else lands.
	lingering bool
	// linger is written by that timer's goroutine and read by the scheduler.
	linger chan struct{}
	// starts are the attempts of impure nodes handed to workers whose start is not recorded:
	// one still running after StartDelay is recorded running (recordStarts); a quicker one
	// costs the store nothing. starting is set while a timer will look at them.
	starts   []pendingStart
	starting bool
	// startDue is written by that timer's goroutine and read by the scheduler.
	startDue chan struct{}
}

// scheduler is what a committer needs of the loop it commits for. All three are called on
// the scheduler goroutine.
type scheduler interface {
	// apply hands on a node whose final attempt is committed (or failed to be: err says so).
	apply(ctx context.Context, run *nodeRun)
	// idle reports whether nothing could run while a commit is written.
	idle() bool
	// halt stops the run: the recorder failed, nothing more can be handed on safely.
	halt()
}

// newCommitter returns a committer of run runID's attempts to rec, for s; its guard is set
// once the run's secrets are known.
func newCommitter(rec dag.Recorder, runID string, hosted bool, s scheduler, quit <-chan struct{}) committer {
	return committer{
		rec: rec, runID: runID, hosted: hosted, s: s, quit: quit,
		done:     make(chan error, 1),
		linger:   make(chan struct{}),
		startDue: make(chan struct{}),
	}
}

// inflight is a commit under way: its attempts, and the nodes to hand on once it is done.
// The scheduler fills it before the commit starts and reads it again once done says the
// commit is over; between the two only the goroutine writing the commit reads records.
type inflight struct {
	records []dag.AttemptRecord
	nodes   []*nodeRun
}

// maxPending bounds the attempts of pure nodes waiting for a commit.
const maxPending = 1024

// lingerDelay bounds how long the attempts of pure nodes wait for a commit.
const lingerDelay = 50 * time.Millisecond

// record keeps an attempt for the recorder, if there is one.
func (c *committer) record(a dag.AttemptRecord) {
	if c.rec != nil {
		if c.records == nil {
			// Batches come out alike: the last one's size saves growing this one.
			c.records = make([]dag.AttemptRecord, 0, c.lastBatch)
		}
		c.records = append(c.records, a)
	}
}

// handOn hands run, whose final attempt is recorded, on once that record is committed; at
// once when the run is not recorded or run's node is pure: a resume computes a pure node
// again, so a crash loses nothing handed on, and a chain of pure nodes does not wait for a
// commit at every edge.
func (c *committer) handOn(ctx context.Context, run *nodeRun, pure bool) {
	if pure || c.rec == nil {
		c.s.apply(ctx, run)
		return
	}
	c.waiting = append(c.waiting, run)
}

// commit starts committing the attempts recorded so far on a goroutine of its own, unless a
// commit is under way: then they go with the next one. Meanwhile the scheduler goes on
// starting and collecting attempts, so a commit idles no worker, and attempts that finish
// during a commit share the next (group commit). Nodes waiting for it are handed on by
// committed.
func (c *committer) commit(ctx context.Context) {
	if c.inflight != nil || c.rec == nil {
		return
	}
	if c.hosted {
		// A host's recorder writes on the scheduler's goroutine, each write a step in the
		// host's history: at once for the nodes waiting to be handed on, while the attempts
		// of pure nodes gather until then, until maxPending, or until the scheduler waits
		// for the host (runHosted).
		if len(c.waiting) > 0 || len(c.records) >= maxPending {
			c.commitNow(ctx)
		}
		return
	}
	if len(c.waiting) == 0 && len(c.records) < maxPending {
		// Only pure nodes' attempts wait: nothing needs them soon, so they gather for a
		// while, but a run watched in the store must not look stuck behind a long node.
		if len(c.records) > 0 && !c.lingering {
			c.lingering = true
			time.AfterFunc(lingerDelay, func() {
				select {
				case c.linger <- struct{}{}:
				case <-c.quit:
				}
			})
		}
		return
	}
	c.commitNow(ctx)
}

// lingered commits the attempts that gathered while the linger timer ran.
func (c *committer) lingered(ctx context.Context) {
	c.lingering = false
	c.commitNow(ctx)
}

// commitNow starts committing the attempts recorded so far, unless a commit is under way.
func (c *committer) commitNow(ctx context.Context) {
	if c.inflight != nil || len(c.records) == 0 && len(c.waiting) == 0 {
		return
	}
	f := &inflight{records: c.records, nodes: c.waiting}
	c.lastBatch = len(c.records)
	c.records, c.waiting = nil, nil
	c.inflight = f
	rec := c.rec
	g := c.guard
	// The records must land even when the run is being canceled.
	record := func() error {
		var err error
		perr := g.call("run store", func() { err = rec.RecordAttempts(context.WithoutCancel(ctx), f.records) })
		return cmp.Or(perr, err)
	}
	if c.hosted || len(f.nodes) > 0 && c.s.idle() {
		// Nodes wait for this commit and nothing could run meanwhile (a chain): committing
		// here saves starting a goroutine and two hand-offs, which a chain of nodes pays at
		// every edge. A commit of pure nodes' attempts alone holds nothing up: it goes on
		// beside the run.
		c.committed(ctx, record())
		return
	}
	go func() { c.done <- record() }()
}

// committed hands on the nodes whose attempts the commit under way held, and starts the next.
func (c *committer) committed(ctx context.Context, err error) {
	f := c.inflight
	c.inflight = nil
	if err != nil && c.err == nil {
		c.err = err
		c.s.halt()
	}
	for _, run := range f.nodes {
		c.s.apply(ctx, run)
	}
	c.commit(ctx)
}

// flush gives the recorder the attempts not recorded yet. A recorder that fails stops the
// run: nothing more can be handed on safely.
func (c *committer) flush(ctx context.Context) {
	if len(c.records) == 0 {
		return
	}
	if c.rec != nil && c.err == nil {
		// The records must land even when the run is being canceled.
		var err error
		perr := c.guard.call("run store", func() { err = c.rec.RecordAttempts(context.WithoutCancel(ctx), c.records) })
		if err = cmp.Or(perr, err); err != nil {
			c.err = err
			c.s.halt()
		}
	}
	clear(c.records)
	c.records = c.records[:0]
}

// StartDelay is how long an attempt of an impure node runs before its start is recorded
// (an attempt with status running), on every engine: a run watched in the store shows a
// node running within about that, and an attempt that ends sooner, as most do, costs the
// store no row for its start.
const StartDelay = 50 * time.Millisecond

// pendingStart is an attempt of node handed to a worker at since, whose start is not
// recorded yet.
type pendingStart struct {
	u     *unit
	node  *dag.Node
	since time.Time
}

// noteStart keeps the attempt of u, of node, just handed to a worker, when a recorder
// records the run and node is impure: a pure node's attempt takes microseconds.
func (c *committer) noteStart(u *unit, node *dag.Node) {
	if c.rec == nil || pureNode(node) {
		return
	}
	u.since = time.Now()
	c.starts = append(c.starts, pendingStart{u, node, u.since})
	if !c.starting {
		c.startAfter(StartDelay)
	}
}

// startAfter makes the scheduler look at the attempts started once d has passed.
func (c *committer) startAfter(d time.Duration) {
	c.starting = true
	time.AfterFunc(d, func() {
		select {
		case c.startDue <- struct{}{}:
		case <-c.quit:
		}
	})
}

// recordStarts, once startDue fired, records running the attempts under way for StartDelay
// or more, and commits them: nothing waits for that commit, but a watcher of the store does.
func (c *committer) recordStarts(ctx context.Context) {
	c.starting = false
	now := time.Now()
	left, recorded := c.starts[:0], false
	for _, p := range c.starts {
		u := p.u
		switch {
		case u.since != p.since: // it came back, and maybe went out again (noted anew)
		case now.Sub(p.since) < StartDelay:
			left = append(left, p)
		default:
			c.record(dag.AttemptRecord{
				RunID: c.runID, Node: p.node.ID, Type: p.node.Type.Name(), Attempt: u.attempts, Item: u.item,
				Status: dag.NodeRunning, Key: u.nr.key, Started: p.since,
			})
			recorded = true
		}
	}
	clear(c.starts[len(left):])
	c.starts = left
	if len(left) > 0 {
		// The oldest comes first: noted in the order they started.
		c.startAfter(StartDelay - now.Sub(left[0].since))
	}
	if recorded {
		c.commitNow(ctx)
	}
}
