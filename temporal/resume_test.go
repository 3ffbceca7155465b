package temporal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/temporaltest"
)

// TestResumeOnTemporal resumes a failed run on the dev server: the node that passed is reused,
// the one that failed runs again, and the store has one run, resumed once, that succeeded.
func TestResumeOnTemporal(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	st := openStore(t)
	queue := temporaltest.Worker(t, c, worker.Options{}, func(w worker.Worker) {
		NewWorker(WorkerOptions{Client: c, Store: st, Types: types(), Dir: t.TempDir()}).Register(w)
	})

	dir := t.TempDir()
	fixed := filepath.Join(dir, "fixed")
	path := writeDAG(t, `version: 1
name: flaky
nodes:
  a:
    type: exec
    with:
      command: [sh, -c, 'echo a >> `+dir+`/a; printf "{\"status\":\"pass\",\"summary\":\"a\"}"']
  b:
    type: exec
    needs: [a]
    with:
      command: [sh, -c, 'test -f `+fixed+` && printf "{\"status\":\"pass\",\"summary\":\"b\"}" || exit 3']
`)
	ctx := context.Background()
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	eng := &Engine{Client: c, TaskQueue: queue}
	first, err := eng.Run(ctx, d, engine.RunOptions{})
	if err != nil || first.Status != dag.RunFailed {
		t.Fatalf("first run: %v %v", first, err)
	}
	if err := os.WriteFile(fixed, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stored, _, err := st.GetRun(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	reuse, err := st.Reusable(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := eng.Run(ctx, d, engine.RunOptions{RunID: first.ID, Reuse: reuse, Resumes: stored.Resumes})
	if err != nil || again.Status != dag.RunSuccess {
		t.Fatalf("resume: %v %v", again, err)
	}
	if a := node(t, again, "a"); !a.Reused {
		t.Errorf("a was not reused: %+v", a)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); strings.Count(string(b), "a") != 1 {
		t.Errorf("a ran %d times, want once", strings.Count(string(b), "a"))
	}
	r, as, err := st.GetRun(ctx, first.ID)
	if err != nil || r.Status != dag.RunSuccess || r.Resumes != 1 {
		t.Fatalf("stored run: %+v %v", r, err)
	}
	var sessions []string
	for _, a := range as {
		sessions = append(sessions, a.Node+"@"+string(rune('0'+a.Session))+":"+string(a.Status))
	}
	if got := strings.Join(sessions, " "); got != "a@0:passed b@0:failed a@1:passed b@1:passed" {
		t.Errorf("stored attempts %s", got)
	}
}
