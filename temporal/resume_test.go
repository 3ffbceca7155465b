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
	"github.com/seam-dag/seam/service"
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

// TestRerunFromOnTemporal reruns a finished run from a node on the dev server, through the
// run service: that node and its dependent run again, the others are reused, and the store
// has the run resumed once, in success.
func TestRerunFromOnTemporal(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	st := openStore(t)
	queue := temporaltest.Worker(t, c, worker.Options{}, func(w worker.Worker) {
		NewWorker(WorkerOptions{Client: c, Store: st, Types: types(), Dir: t.TempDir()}).Register(w)
	})
	dir := t.TempDir()
	exec := func(id, needs string) string {
		return "  " + id + ":\n    type: exec\n    needs: [" + needs + "]\n    with:\n      command: [sh, -c, 'echo ran >> " + dir + "/" + id +
			`; printf "{\"status\":\"pass\",\"summary\":\"` + id + `\"}"']` + "\n"
	}
	path := writeDAG(t, "version: 1\nname: chain\nnodes:\n"+exec("a", "")+exec("b", "a")+exec("c", "b")+exec("d", "a"))
	ctx := context.Background()
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(service.Options{Store: st, Engine: &Engine{Client: c, TaskQueue: queue}})
	t.Cleanup(svc.Close)
	first, err := svc.Start(ctx, d, service.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := first.Wait(); err != nil || res.Status != dag.RunSuccess {
		t.Fatalf("first run: %v %v", res, err)
	}
	rs, err := svc.Resumable(ctx, first.ID, service.ResumeCheck{From: "b"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := svc.Resume(ctx, rs, d, service.Request{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := again.Wait()
	if err != nil || res.Status != dag.RunSuccess || res.ID != first.ID {
		t.Fatalf("rerun from b: %v %v", res, err)
	}
	for id, want := range map[string]int{"a": 1, "b": 2, "c": 2, "d": 1} {
		b, _ := os.ReadFile(filepath.Join(dir, id))
		if got := strings.Count(string(b), "ran"); got != want {
			t.Errorf("%s ran %d times, want %d", id, got, want)
		}
		if n := node(t, res, id); n.Reused != (want == 1) {
			t.Errorf("%s reused: %v, want %v", id, n.Reused, want == 1)
		}
	}
	if r, _, err := st.GetRun(ctx, first.ID); err != nil || r.Status != dag.RunSuccess || r.Resumes != 1 {
		t.Errorf("stored run: %+v %v", r, err)
	}
}
