package temporal

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// startSpy is a store that keeps the start records written to it.
type startSpy struct {
	runs.Store
	mu     sync.Mutex
	starts []runs.Attempt
}

func (s *startSpy) RecordAttempts(ctx context.Context, batch []runs.Attempt) error {
	s.mu.Lock()
	for _, a := range batch {
		if a.Status == dag.NodeRunning {
			s.starts = append(s.starts, a)
		}
	}
	s.mu.Unlock()
	return s.Store.RecordAttempts(ctx, batch)
}

// TestWorkflowRecordsStarts: the attempt activity of an exec node that runs past
// engine.StartDelay records its start in the worker's store, as the embedded engine does;
// once it has ended, the store shows its finish only.
func TestWorkflowRecordsStarts(t *testing.T) {
	path := writeDAG(t, `version: 1
name: starts
nodes:
  slow: {type: exec, with: {command: [sleep, "0.5"], output: text}}
`)
	ctx := context.Background()
	b, err := newBundle(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	spy := &startSpy{Store: openStore(t)}
	w := NewWorker(WorkerOptions{Store: spy, Types: types(), Dir: t.TempDir()})
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	w.Register(env)
	params, _ := json.Marshal(map[string]any{})
	env.ExecuteWorkflow(WorkflowName, RunInput{RunID: pairRunID, File: path, Bundle: b, Params: params})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(spy.starts) != 1 {
		t.Fatalf("start records %+v, want slow's", spy.starts)
	}
	if a := spy.starts[0]; a.RunID != pairRunID || a.Node != "slow" || a.Item != -1 || a.Attempt != 1 || a.Type != "exec" || a.Session != 0 || a.Started.IsZero() {
		t.Errorf("start record %+v, want run %s, node slow, item -1, attempt 1, type exec, session 0, started", a, pairRunID)
	}
	_, as := stored(t, spy.Store)
	if len(as) != 1 || as[0].Status != dag.NodePassed {
		t.Errorf("stored attempts once the run ended %s, want slow passed only", attemptList(as))
	}
}
