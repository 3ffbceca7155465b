package temporal

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/temporaltest"
)

// TestWhoOnTemporal: the principal who starts a run, and the one who resumes it, travel with
// the workflow's input to the worker that records the run.
func TestWhoOnTemporal(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	st := openStore(t)
	queue := temporaltest.Worker(t, c, worker.Options{}, func(w worker.Worker) {
		NewWorker(WorkerOptions{Client: c, Store: st, Types: types(), Dir: t.TempDir()}).Register(w)
	})
	fixed := filepath.Join(t.TempDir(), "fixed")
	path := writeDAG(t, `version: 1
name: who
nodes:
  b:
    type: exec
    with:
      command: [sh, -c, 'test -f `+fixed+` && printf "{\"status\":\"pass\",\"summary\":\"b\"}" || exit 3']
`)
	ctx := context.Background()
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	eng := &Engine{Client: c, TaskQueue: queue}
	first, err := eng.Run(ctx, d, engine.RunOptions{By: "alice"})
	if err != nil || first.Status != dag.RunFailed {
		t.Fatalf("first run: %v %v", first, err)
	}
	if r, _, err := st.GetRun(ctx, first.ID); err != nil || r.StartedBy != "alice" || r.ResumedBy != "" {
		t.Fatalf("stored run: %+v %v, want started by alice", r, err)
	}
	if err := os.WriteFile(fixed, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	reuse, err := st.Reusable(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := eng.Run(ctx, d, engine.RunOptions{RunID: first.ID, Reuse: reuse, Resumes: 0, By: "os:bob"})
	if err != nil || again.Status != dag.RunSuccess {
		t.Fatalf("resume: %v %v", again, err)
	}
	r, _, err := st.GetRun(ctx, first.ID)
	if err != nil || r.StartedBy != "alice" || r.ResumedBy != "os:bob" || r.Resumed.IsZero() {
		t.Errorf("stored run: started by %q, resumed by %q at %v (%v)", r.StartedBy, r.ResumedBy, r.Resumed, err)
	}
}
