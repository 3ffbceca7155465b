package engine

import (
	"context"
	"sync"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
)

// LiveInterval is how often, at most, the log of a running attempt is recorded: each write
// is a commit (and, on PostgreSQL, a notification to every watcher of the run), so a node
// printing 10,000 lines costs the store one write a second, not 10,000.
const LiveInterval = time.Second

// LiveLogLimit bounds the log recorded while an attempt runs: its end, from a line. The
// attempt's finished record keeps what the node type keeps (exec: stderr_limit).
const LiveLogLimit = 8 << 10

// liveLogs records, once every LiveInterval, what the running attempts of impure nodes
// have printed so far (masked) into their start records, for a watcher of the run. The
// scheduler adds and removes attempts; a goroutine of its own writes, so that a slow store
// delays no hand-off.
type liveLogs struct {
	rec     dag.LogRecorder
	secrets []string // the run's

	mu      sync.Mutex
	running map[*unit]*liveAttempt
}

// liveAttempt is one attempt under way, and the log last recorded of it.
type liveAttempt struct {
	rec  dag.AttemptRecord
	log  *nodes.LiveLog
	last string
}

// newLiveLogs returns the live logs of a run recorded by rec, or nil when rec cannot record
// them.
func newLiveLogs(rec dag.Recorder, secrets []string) *liveLogs {
	lr, ok := rec.(dag.LogRecorder)
	if !ok {
		return nil
	}
	return &liveLogs{rec: lr, secrets: secrets, running: map[*unit]*liveAttempt{}}
}

// add follows the attempt of u, of node, about to be handed to a worker: its call gets a
// LiveLog to write to.
func (l *liveLogs) add(runID string, u *unit, node *dag.Node) {
	log := nodes.NewLiveLog(LiveLogLimit)
	u.call.Live = log
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running[u] = &liveAttempt{log: log, rec: dag.AttemptRecord{
		RunID: runID, Node: node.ID, Type: node.Type.Name(), Attempt: u.attempts, Item: u.item, Status: dag.NodeRunning,
	}}
}

// remove stops following u's attempt, which came back.
func (l *liveLogs) remove(u *unit) {
	if u.call != nil {
		u.call.Live = nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.running, u)
}

// pump records the logs that changed every LiveInterval until quit is closed.
func (l *liveLogs) pump(ctx context.Context, quit <-chan struct{}) {
	t := time.NewTicker(LiveInterval)
	defer t.Stop()
	for {
		select {
		case <-quit:
			return
		case <-t.C:
			l.record(ctx)
		}
	}
}

// record writes the log of each attempt running whose log changed since it was last
// recorded. A failed write loses a watcher a view, not the run: the next tick tries again,
// and the attempt's finish is recorded (and checked) as ever.
func (l *liveLogs) record(ctx context.Context) {
	type change struct {
		a   *liveAttempt
		log string
	}
	var changes []change
	l.mu.Lock()
	for _, a := range l.running {
		// Masked before it leaves the engine: the store never holds a secret.
		if s := nodes.MaskString(a.log.String(), l.secrets); s != a.last {
			changes = append(changes, change{a, s})
		}
	}
	l.mu.Unlock()
	for _, c := range changes {
		rec := c.a.rec
		rec.Log = c.log
		if found, err := l.rec.RecordLog(ctx, rec); err == nil && found {
			l.mu.Lock()
			c.a.last = c.log
			l.mu.Unlock()
		}
	}
}
