package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

// gateRecorder keeps the batches it is given; while gate is not nil, each write waits for a
// value on it, so that a test holds a commit under way.
type gateRecorder struct {
	mu      sync.Mutex
	batches [][]dag.AttemptRecord
	gate    chan struct{}
	err     error
}

func (g *gateRecorder) BeginRun(context.Context, dag.RunRecord) error   { return nil }
func (g *gateRecorder) FinishRun(context.Context, *dag.RunResult) error { return nil }

func (g *gateRecorder) RecordAttempts(_ context.Context, batch []dag.AttemptRecord) error {
	if g.gate != nil {
		<-g.gate
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.batches = append(g.batches, slices.Clone(batch))
	return g.err
}

// nodesOf lists the node of each record in each batch written.
func (g *gateRecorder) nodesOf() [][]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out [][]string
	for _, b := range g.batches {
		var ids []string
		for _, a := range b {
			ids = append(ids, a.Node)
		}
		out = append(out, ids)
	}
	return out
}

// fakeScheduler stands for the runner a committer commits for.
type fakeScheduler struct {
	c       *committer
	busy    bool // other work could run while a commit is written
	applied []string
	errs    []error // the committer's error as each node was applied
	halted  int
}

func (f *fakeScheduler) apply(_ context.Context, run *nodeRun) {
	f.applied = append(f.applied, run.key)
	f.errs = append(f.errs, f.c.err)
}
func (f *fakeScheduler) idle() bool { return !f.busy }
func (f *fakeScheduler) halt()      { f.halted++ }

// newTestCommitter returns a committer writing to rec (none when nil), for a scheduler that
// is busy or not.
func newTestCommitter(t *testing.T, rec dag.Recorder, hosted, busy bool) (*committer, *fakeScheduler) {
	t.Helper()
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit) })
	s := &fakeScheduler{busy: busy}
	g := guard{log: slog.New(slog.NewTextHandler(io.Discard, nil)), lang: "en"}
	c := newCommitter(rec, "run", hosted, s, quit)
	c.guard = g
	s.c = &c
	return &c, s
}

// finalOf records the final attempt of node id and hands the node on (a pure node or not).
func finalOf(ctx context.Context, c *committer, id string, pure bool) {
	c.record(dag.AttemptRecord{RunID: "run", Node: id, Attempt: 1, Item: -1, Status: dag.NodePassed, Final: true})
	c.handOn(ctx, &nodeRun{key: id}, pure)
	c.commit(ctx)
}

// waitCommit waits for the commit under way on its goroutine and lets c take its outcome.
func waitCommit(t *testing.T, ctx context.Context, c *committer) {
	t.Helper()
	select {
	case err := <-c.done:
		c.committed(ctx, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the commit under way never ended")
	}
}

// TestCommitterGroupCommit checks that attempts ending while a commit is under way go
// together in the next one, and that no node is handed on before its record is committed.
func TestCommitterGroupCommit(t *testing.T) {
	ctx := t.Context()
	rec := &gateRecorder{gate: make(chan struct{})}
	c, s := newTestCommitter(t, rec, false, true)

	finalOf(ctx, c, "a", false)
	if c.inflight == nil {
		t.Fatal("no commit under way after a's final attempt")
	}
	finalOf(ctx, c, "b", false)
	finalOf(ctx, c, "c", false)
	if len(s.applied) > 0 {
		t.Fatalf("handed on %v before any record was committed", s.applied)
	}

	rec.gate <- struct{}{}
	waitCommit(t, ctx, c)
	if !slices.Equal(s.applied, []string{"a"}) {
		t.Fatalf("after the first commit handed on %v, want [a]", s.applied)
	}
	if c.inflight == nil {
		t.Fatal("the attempts of b and c did not go out once the first commit landed")
	}
	rec.gate <- struct{}{}
	waitCommit(t, ctx, c)
	if !slices.Equal(s.applied, []string{"a", "b", "c"}) {
		t.Fatalf("handed on %v, want [a b c]", s.applied)
	}
	if got, want := rec.nodesOf(), [][]string{{"a"}, {"b", "c"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("batches %v, want %v", got, want)
	}
	if c.inflight != nil || s.halted != 0 {
		t.Fatalf("after the last commit: inflight %v, halted %d", c.inflight, s.halted)
	}
}

// TestCommitterHandOn checks when a node with a final attempt is handed on: at once without a
// recorder or for a pure node, at once after a commit written on the scheduler when nothing
// else could run meanwhile (or on a host), else only once the commit's goroutine is done.
func TestCommitterHandOn(t *testing.T) {
	tests := []struct {
		name         string
		recorded     bool
		hosted, busy bool
		pure         bool
		atOnce       bool // handed on when commit returns
		batches      int  // written by then
	}{
		{name: "not recorded", atOnce: true},
		{name: "pure", recorded: true, busy: true, pure: true, atOnce: true},
		{name: "idle", recorded: true, atOnce: true, batches: 1},
		{name: "hosted", recorded: true, hosted: true, busy: true, atOnce: true, batches: 1},
		{name: "busy", recorded: true, busy: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			rec := &gateRecorder{}
			var r dag.Recorder
			if tt.recorded {
				r = rec
			}
			c, s := newTestCommitter(t, r, tt.hosted, tt.busy)
			finalOf(ctx, c, "a", tt.pure)
			if got := len(s.applied) == 1; got != tt.atOnce {
				t.Fatalf("handed on at once: %v, want %v", got, tt.atOnce)
			}
			if got := len(rec.nodesOf()); got != tt.batches {
				t.Fatalf("%d batches written by then, want %d", got, tt.batches)
			}
			if !tt.atOnce {
				waitCommit(t, ctx, c)
				if len(s.applied) != 1 {
					t.Fatalf("handed on %v after the commit, want [a]", s.applied)
				}
			}
		})
	}
}

// TestCommitterPureLinger checks that the attempts of pure nodes, which nothing waits for,
// gather and are committed by the linger timer.
func TestCommitterPureLinger(t *testing.T) {
	ctx := t.Context()
	rec := &gateRecorder{}
	c, s := newTestCommitter(t, rec, false, true)
	finalOf(ctx, c, "a", true)
	finalOf(ctx, c, "b", true)
	if len(rec.nodesOf()) > 0 || c.inflight != nil || !c.lingering {
		t.Fatalf("pure attempts committed at once (%v), want them to linger", rec.nodesOf())
	}
	select {
	case <-c.linger:
		c.lingered(ctx)
	case <-time.After(10 * time.Second):
		t.Fatal("the linger timer never fired")
	}
	waitCommit(t, ctx, c)
	if got, want := rec.nodesOf(), [][]string{{"a", "b"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("batches %v, want %v", got, want)
	}
	if !slices.Equal(s.applied, []string{"a", "b"}) {
		t.Fatalf("handed on %v, want [a b]", s.applied)
	}
}

// TestCommitterFailedCommit checks that a commit that fails halts the run once, hands its
// nodes on with the failure known (so that the runner fails them), and that nothing is
// written after it.
func TestCommitterFailedCommit(t *testing.T) {
	ctx := t.Context()
	boom := errors.New("disk full")
	rec := &gateRecorder{err: boom}
	c, s := newTestCommitter(t, rec, false, false)
	finalOf(ctx, c, "a", false)
	if !errors.Is(c.err, boom) || s.halted != 1 {
		t.Fatalf("after a failed commit: err %v, halted %d; want %v, 1", c.err, s.halted, boom)
	}
	if len(s.errs) != 1 || !errors.Is(s.errs[0], boom) {
		t.Fatalf("a handed on with err %v, want it to know the commit failed", s.errs)
	}
	c.record(dag.AttemptRecord{Node: "b"})
	c.flush(ctx)
	if got := len(rec.nodesOf()); got != 1 || s.halted != 1 {
		t.Fatalf("after the failure: %d batches, halted %d; want 1, 1", got, s.halted)
	}
}

// TestCommitterStartRecord checks that the attempt of an impure node still running after
// StartDelay is recorded running, and that neither a pure node's attempt nor one that came
// back is.
func TestCommitterStartRecord(t *testing.T) {
	ctx := t.Context()
	d := load(t, newRecorder(), `version: 1
name: starts
nodes:
  slow: {type: probe, with: {block: true}}
  quick: {type: probe, with: {block: true}}
  pure: {type: const, with: {value: {status: pass, summary: s}}}
`)
	rec := &gateRecorder{}
	c, _ := newTestCommitter(t, rec, false, true)
	slow := &unit{nr: &nodeRun{key: "k"}, item: 2, attempts: 3}
	quick := &unit{nr: &nodeRun{}, item: -1, attempts: 1}
	pure := &unit{nr: &nodeRun{}, item: -1, attempts: 1}
	c.noteStart(slow, d.Nodes[0])
	c.noteStart(quick, d.Nodes[1])
	c.noteStart(pure, d.Nodes[2])
	if !pure.since.IsZero() || len(c.starts) != 2 {
		t.Fatalf("%d starts noted, pure's at %v; want slow's and quick's", len(c.starts), pure.since)
	}
	quick.since = time.Time{} // it came back, as finish says
	select {
	case <-c.startDue:
		c.recordStarts(ctx)
	case <-time.After(10 * time.Second):
		t.Fatal("the start timer never fired")
	}
	waitCommit(t, ctx, c)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.batches) != 1 || len(rec.batches[0]) != 1 {
		t.Fatalf("batches %v, want one with slow's start", rec.batches)
	}
	a := rec.batches[0][0]
	want := dag.AttemptRecord{RunID: "run", Node: "slow", Type: "probe", Attempt: 3, Item: 2,
		Status: dag.NodeRunning, Key: "k", Started: slow.since}
	if a.RunID != want.RunID || a.Node != want.Node || a.Type != want.Type || a.Attempt != want.Attempt ||
		a.Item != want.Item || a.Status != want.Status || a.Key != want.Key || !a.Started.Equal(want.Started) ||
		a.Final || !a.Ended.IsZero() {
		t.Fatalf("start record %+v, want %+v", a, want)
	}
	if len(c.starts) != 0 || c.starting {
		t.Fatalf("starts left %d, timer set %v; want none", len(c.starts), c.starting)
	}
}
