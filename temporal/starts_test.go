package temporal

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
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

// logSpy is a store that keeps the live logs written to it.
type logSpy struct {
	runs.Store
	mu   sync.Mutex
	logs []runs.Attempt
}

func (s *logSpy) RecordLog(ctx context.Context, a runs.Attempt) (bool, error) {
	found, err := s.Store.RecordLog(ctx, a)
	if found {
		s.mu.Lock()
		s.logs = append(s.logs, a)
		s.mu.Unlock()
	}
	return found, err
}

// TestWorkflowRecordsLiveLogs: the attempt activity of an exec node records what the node
// has printed so far (stderr, and stdout for output: text) in its start record while it
// runs, masked, as the embedded engine does; a node that prints nothing records none.
func TestWorkflowRecordsLiveLogs(t *testing.T) {
	tests := []struct {
		name, command string
		want          []string // the lines of the last log recorded, in any order (two pipes); none for no log
	}{
		{"masked, both streams", `echo "token=${{ env.TOKEN }}" >&2; echo out; sleep 1.5`, []string{"out", "token=***"}},
		{"silent", `sleep 1.5`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeDAG(t, `version: 1
name: live
env: [TOKEN]
nodes:
  talk: {type: exec, with: {command: '`+tt.command+`', shell: true, output: text}}
`)
			ctx := context.Background()
			b, err := newBundle(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			spy := &logSpy{Store: openStore(t)}
			w := NewWorker(WorkerOptions{Store: spy, Types: types(), Dir: t.TempDir(), Getenv: func(string) string { return "hunter2-secret" }})
			var s testsuite.WorkflowTestSuite
			s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
			env := s.NewTestWorkflowEnvironment()
			w.Register(env)
			params, _ := json.Marshal(map[string]any{})
			env.ExecuteWorkflow(WorkflowName, RunInput{RunID: pairRunID, File: path, Bundle: b, Params: params})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			got := ""
			if n := len(spy.logs); n > 0 {
				a := spy.logs[n-1]
				got = a.Log
				if a.RunID != pairRunID || a.Node != "talk" || a.Attempt != 1 || a.Item != -1 {
					t.Errorf("log recorded for %+v, want run %s, node talk, attempt 1, item -1", a, pairRunID)
				}
			}
			lines := strings.Fields(got)
			slices.Sort(lines)
			if !slices.Equal(lines, tt.want) {
				t.Errorf("live log recorded %q, want the lines %q", got, tt.want)
			}
		})
	}
}
