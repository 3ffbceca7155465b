package temporal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/testsuite"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// types is the registry the tests' DAGs use: the built-ins and dag.
func types() *nodes.Registry {
	reg := nodes.Builtin()
	engine.AddDAGType(reg, func(string) string { return "" })
	return reg
}

// runBoth runs the DAG file at path on the embedded engine and on the workflow in Temporal's
// test environment, recording the workflow's run in a store, and returns both results.
func runBoth(t *testing.T, path string, params map[string]any) (embedded, hosted *dag.RunResult, st runs.Store) {
	t.Helper()
	ctx := context.Background()
	reg := types()
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: reg})
	if err != nil {
		t.Fatal(err)
	}
	if embedded, err = engine.Run(ctx, d, engine.RunOptions{Params: params}); err != nil {
		t.Fatal(err)
	}
	st, err = runs.Open(ctx, filepath.Join(t.TempDir(), "seam.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := NewBundle(ctx, path, dag.LoadOptions{Types: reg})
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	w := NewWorker(WorkerOptions{Store: st, Types: reg, Dir: t.TempDir()})
	w.Register(env)
	p, _ := json.Marshal(params)
	env.ExecuteWorkflow(WorkflowName, RunInput{RunID: "r1", File: path, Bundle: b, Params: p})
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	if err := env.GetWorkflowResult(&hosted); err != nil {
		t.Fatal(err)
	}
	return embedded, hosted, st
}

func TestWorkflowExamples(t *testing.T) {
	for _, name := range []string{"hello", "fan-in", "foreach", "retry-repair", "broken-contract", "transform", "sub-dag"} {
		t.Run(name, func(t *testing.T) {
			want, got, st := runBoth(t, filepath.Join("..", "dags", name+".yaml"), nil)
			if got.Status != want.Status {
				t.Errorf("status %s, embedded %s", got.Status, want.Status)
			}
			for i, n := range got.Nodes {
				w := want.Nodes[i]
				if n.ID != w.ID || n.Status != w.Status || n.Attempts != w.Attempts || n.Reason != w.Reason {
					t.Errorf("node %s: %s after %d attempts (%q), embedded %s %s after %d (%q)", n.ID, n.Status, n.Attempts, n.Reason, w.ID, w.Status, w.Attempts, w.Reason)
				}
				a, _ := json.Marshal(n.Output)
				b, _ := json.Marshal(w.Output)
				if string(a) != string(b) {
					t.Errorf("node %s output %s, embedded %s", n.ID, a, b)
				}
			}
			r, _, err := st.GetRun(context.Background(), "r1")
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != got.Status {
				t.Errorf("stored status %s, want %s", r.Status, got.Status)
			}
		})
	}
}

// TestWorkflowOutputOverInline fails a node whose output Temporal could not carry, saying
// why, rather than letting Temporal retry the attempt for ever.
func TestWorkflowOutputOverInline(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.yaml")
	src := `version: 1
name: big
nodes:
  big:
    type: exec
    with:
      command: [sh, -c, 'printf "{\"status\":\"pass\",\"summary\":\"%s\"}" "$(head -c 1100000 /dev/zero | tr "\0" a)"']
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want, got, _ := runBoth(t, path, nil)
	if want.Status != dag.RunSuccess {
		t.Fatalf("embedded: %s", want.Status)
	}
	n := got.Nodes[0]
	if n.Status != dag.NodeFailed || n.Reason != "the output is over the 1048576 bytes a run on Temporal carries (docs/temporal.md)" {
		t.Errorf("big on Temporal: %s %q", n.Status, n.Reason)
	}
}
