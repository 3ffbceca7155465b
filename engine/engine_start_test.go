package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

// startRecorder closes seen once the starts of every node in want are recorded.
type startRecorder struct {
	mu     sync.Mutex
	want   map[string]bool
	starts []dag.AttemptRecord
	all    []dag.AttemptRecord
	seen   chan struct{}
}

func (s *startRecorder) BeginRun(context.Context, dag.RunRecord) error { return nil }
func (s *startRecorder) FinishRun(context.Context, *dag.RunResult) error {
	return nil
}

func (s *startRecorder) RecordAttempts(_ context.Context, batch []dag.AttemptRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range batch {
		s.all = append(s.all, a)
		if a.Status != dag.NodeRunning {
			continue
		}
		s.starts = append(s.starts, a)
		delete(s.want, a.Node)
		if len(s.want) == 0 {
			close(s.seen)
		}
	}
	return nil
}

// TestRunRecordsStarts checks that an attempt of an impure node still running after
// StartDelay is recorded running, a plain node's and a foreach item's alike, before it ends,
// and that a pure node's is not.
func TestRunRecordsStarts(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, `version: 1
name: starts
nodes:
  first: {type: const, with: {value: {status: pass, summary: s}}}
  slow: {type: probe, with: {block: true}, needs: [first]}
  each: {type: probe, foreach: [1], with: {block: true}, needs: [first]}
`)
	sr := &startRecorder{want: map[string]bool{"slow": true, "each": true}, seen: make(chan struct{})}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-sr.seen:
		case <-time.After(30 * time.Second): // the test fails below
		}
		cancel()
	}()
	_, err := Run(ctx, d, RunOptions{RunID: "r", Recorder: sr})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-sr.seen:
	default:
		t.Fatalf("starts recorded %+v, want slow's and each's", sr.starts)
	}
	items := map[string]int{"slow": -1, "each": 0}
	for _, a := range sr.starts {
		if a.Attempt != 1 || a.Item != items[a.Node] || a.Type != "probe" || a.Final || a.Started.IsZero() || !a.Ended.IsZero() || a.Key == "" {
			t.Errorf("start record %+v: want attempt 1 of item %d, type probe, not final, started, not ended, keyed", a, items[a.Node])
		}
	}
	for _, a := range sr.all {
		if a.Node == "first" && a.Status == dag.NodeRunning {
			t.Errorf("the pure node's start was recorded: %+v", a)
		}
	}
	// Each start comes before its attempt's end.
	for _, node := range []string{"slow", "each"} {
		start, end := -1, -1
		for i, a := range sr.all {
			switch {
			case a.Node == node && a.Status == dag.NodeRunning:
				start = i
			case a.Node == node && a.Status == dag.NodeCanceled && a.Item == items[node]:
				end = i
			}
		}
		if start < 0 || end < start {
			t.Errorf("%s: start record at %d, its end at %d", node, start, end)
		}
	}
}
