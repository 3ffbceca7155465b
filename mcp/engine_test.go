package mcp

import (
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/temporaltest"
	"github.com/seam-dag/seam/temporal"
)

func TestRunDAGUnknownEngine(t *testing.T) {
	cs := connect(t, testRoot(t), true)
	r := call(t, cs, "run_dag", map[string]any{"path": "dags/hello.yaml", "engine": "nosuch", "wait": true})
	if errCode(r) != CodeInvalidArgument {
		t.Fatalf("code %q, want %q: %v", errCode(r), CodeInvalidArgument, r.env)
	}
	if msg, _ := r.env["message"].(string); msg != `unknown engine "nosuch": this server offers embedded` {
		t.Errorf("message %q", msg)
	}
}

// TestRunDAGOnTemporal runs a DAG through run_dag on a Temporal worker in this process, which
// records it in the server's store: get_run finds it there.
func TestRunDAGOnTemporal(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	st := tempStore(t)
	queue := temporaltest.Worker(t, c, worker.Options{}, func(w worker.Worker) {
		// A worker runs sub-DAGs as child workflows: its dag type loads nothing itself.
		temporal.NewWorker(temporal.WorkerOptions{Client: c, Store: st, Types: testTypes(nil), Dir: t.TempDir()}).Register(w)
	})
	eng := &temporal.Engine{Client: c, TaskQueue: queue}
	cs := connectWith(t, Options{Root: testRoot(t), Store: st, Engines: map[string]engine.Engine{"temporal": eng}})
	r := call(t, cs, "run_dag", map[string]any{"path": "dags/fan-in.yaml", "engine": "temporal", "wait": true})
	d := r.data()
	if d["status"] != "warn" { // west warns, as on the embedded engine
		t.Fatalf("run_dag on temporal: %v", r.env)
	}
	id, _ := d["id"].(string)
	g := call(t, cs, "get_run", map[string]any{"id": id})
	if g.data()["status"] != "warn" {
		t.Errorf("get_run %s: %v", id, g.env)
	}
	// Without wait, run_dag answers once the workflow has started; a worker records the run.
	a := call(t, cs, "run_dag", map[string]any{"path": "dags/hello.yaml", "engine": "temporal"})
	msg, _ := a.env["message"].(string)
	id, _ = strings.CutPrefix(msg, "run ")
	id, _, _ = strings.Cut(id, " ")
	deadline := time.Now().Add(30 * time.Second)
	for {
		g := call(t, cs, "get_run", map[string]any{"id": id})
		if s := g.data()["status"]; s == "success" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("run %s (%q) did not succeed: %v", id, msg, g.env)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A failed run resumes on Temporal, reusing what passed.
	f := call(t, cs, "run_dag", map[string]any{"path": "dags/broken-contract.yaml", "engine": "temporal", "wait": true})
	fid, _ := f.data()["id"].(string)
	if f.data()["status"] != "failed" {
		t.Fatalf("broken-contract on temporal: %v", f.env)
	}
	rr := call(t, cs, "resume_run", map[string]any{"id": fid, "engine": "temporal", "wait": true})
	if rr.data()["status"] != "failed" || rr.data()["id"] != fid {
		t.Errorf("resume_run on temporal: %v", rr.env)
	}
	u := call(t, cs, "run_dag", map[string]any{"path": "dags/hello.yaml", "engine": "nosuch"})
	if msg, _ := u.env["message"].(string); msg != `unknown engine "nosuch": this server offers embedded, temporal` {
		t.Errorf("message %q", msg)
	}
}
