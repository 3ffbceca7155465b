package temporal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// TestAttemptActivity runs the attempt activity on its own: how it fails when it cannot have
// the run's DAG, and the errors Temporal must not retry.
func TestAttemptActivity(t *testing.T) {
	ctx := context.Background()
	path := writeDAG(t, `version: 1
name: act
nodes:
  ok: {type: exec, with: `+pass("ok")+`}
  broken:
    type: exec
    with: `+pass("broken")+`
    contract: {output: {type: object, required: [risks]}}
  sub: {type: dag, needs: [ok], with: {file: sub.yaml}}
`)
	sub := "version: 1\nname: sub\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: a}}}\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "sub.yaml"), []byte(sub), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := newBundle(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	request := func(node string, index int) AttemptInput {
		return AttemptInput{Run: "r1", Bundle: b.Hash, Request: engine.AttemptRequest{
			Node: node, Index: index, Item: -1, Attempt: 1, With: []byte(`{}`), Input: []byte(`null`), OutputLimit: nodes.DefaultOutputLimit,
		}}
	}
	tests := []struct {
		name  string
		types *nodes.Registry
		seen  bool
		in    AttemptInput
		typ   string // the error's type; "" for none
		msg   string
	}{
		{"a bundle this worker has not seen, without a client", types(), false, request("ok", 0), errBundle,
			"bundle " + b.Hash + ": not seen by this worker, which has no client to read it"},
		{"a bundle whose DAG this worker cannot load", nodes.Builtin(), true, request("ok", 0), errBundle, "unknown node type"},
		{"a node not in the DAG", types(), true, request("gone", 0), errNodeFailed, "no node gone in DAG act"},
		{"an output breaking its contract", types(), true, request("broken", 1), errContract, "output of broken breaks its contract"},
		{"a passing attempt", types(), true, request("ok", 0), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The attempt's own with is the node's resolved with; the tests' nodes print
			// what their DAG says, so send it.
			if tt.in.Request.Node == "ok" || tt.in.Request.Node == "broken" {
				tt.in.Request.With = []byte(`{"command": ["echo", "{\"status\": \"pass\", \"summary\": \"x\"}"]}`)
			}
			w := NewWorker(WorkerOptions{Types: tt.types, Dir: t.TempDir()})
			if tt.seen {
				w.keep(b)
			}
			var s testsuite.WorkflowTestSuite
			s.SetLogger(quietLogger())
			env := s.NewTestActivityEnvironment()
			env.RegisterActivityWithOptions(w.attempt, activity.RegisterOptions{Name: attemptActivity})
			v, err := env.ExecuteActivity(attemptActivity, tt.in)
			if tt.typ == "" {
				var o engine.AttemptOutcome
				if err != nil || v.Get(&o) != nil || !o.Valid {
					t.Fatalf("err %v, outcome %+v", err, o)
				}
				return
			}
			var app *temporal.ApplicationError
			if !errors.As(err, &app) {
				t.Fatalf("err %v, want an application error", err)
			}
			if app.Type() != tt.typ || !app.NonRetryable() || !strings.Contains(app.Message(), tt.msg) {
				t.Errorf("%s error %q (non-retryable %t), want %s with %q", app.Type(), app.Message(), app.NonRetryable(), tt.typ, tt.msg)
			}
		})
	}
}

// TestWorkerBundleFolder: a worker given no Dir writes the bundles its attempts run in under a
// folder of its own, which Close removes.
func TestWorkerBundleFolder(t *testing.T) {
	path := writeDAG(t, "version: 1\nname: f\nnodes:\n  ok: {type: exec, with: "+pass("ok")+"}\n")
	b, err := newBundle(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorker(WorkerOptions{Types: types()})
	w.keep(b)
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(w.attempt, activity.RegisterOptions{Name: attemptActivity})
	in := AttemptInput{Run: "r1", Bundle: b.Hash, Request: engine.AttemptRequest{Node: "ok", Item: -1, Attempt: 1,
		With: []byte(`{"command": ["echo", "{\"status\": \"pass\", \"summary\": \"x\"}"]}`), Input: []byte(`null`), OutputLimit: nodes.DefaultOutputLimit}}
	if _, err := env.ExecuteActivity(attemptActivity, in); err != nil {
		t.Fatal(err)
	}
	dir := w.tmp
	if _, err := os.Stat(filepath.Join(dir, b.Hash, "dag.yaml")); dir == "" || err != nil {
		t.Fatalf("no bundle written under the worker's folder %q: %v", dir, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the worker's folder %s is still there after Close (%v)", dir, err)
	}
}

// TestBeginRetried: a retry of the begin local activity whose first try committed (it timed
// out on a busy store, or the worker died before completing the workflow task: the retry then
// begins at a later workflow.Now) finds its own run and goes on; another run with the same id
// (an execution of the workflow that started after the run was recorded, or one that recorded
// it later than it begins) does not.
func TestBeginRetried(t *testing.T) {
	st, err := runs.Open(t.Context(), filepath.Join(t.TempDir(), "seam.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := NewWorker(WorkerOptions{Types: types(), Store: st})
	started := time.Date(2026, 12, 2, 13, 35, 53, 32_000_000, time.UTC)
	since := started.Add(-40 * time.Millisecond)
	in := BeginInput{Run: dag.RunRecord{ID: "20261202T133553.032-b5ae6d00", DAG: "small", Started: started}, Since: since}
	retried := in
	retried.Run.Started = started.Add(15 * time.Millisecond)
	for try, in := range []BeginInput{in, in, retried} {
		if session, err := w.begin(t.Context(), in); err != nil || session != 0 {
			t.Fatalf("begin, try %d: session %d, %v; want 0, nil", try+1, session, err)
		}
	}
	if r, _, err := st.GetRun(t.Context(), in.Run.ID); err != nil || !r.Started.Equal(started) {
		t.Errorf("run %+v %v; want it started when the first try began it", r, err)
	}
	later := in
	later.Since, later.Run.Started = started.Add(time.Second), started.Add(2*time.Second)
	earlier := in
	earlier.Run.Started = started.Add(-time.Millisecond)
	for name, other := range map[string]BeginInput{"a later execution": later, "an earlier begin": earlier} {
		if _, err := w.begin(t.Context(), other); err == nil || !strings.Contains(err.Error(), "a run with this id exists already") {
			t.Errorf("begin of another run with the same id (%s): %v, want it refused", name, err)
		}
	}

	// Its resume, tried again the same way, is the same resume; one counted from another
	// number of resumes is not.
	resume := BeginInput{Run: dag.RunRecord{ID: in.Run.ID, DAG: "small", Started: started.Add(time.Minute), Resumed: true}, Since: since}
	for try := 1; try <= 2; try++ {
		if session, err := w.begin(t.Context(), resume); err != nil || session != 1 {
			t.Fatalf("resume, try %d: session %d, %v; want 1, nil", try, session, err)
		}
	}
	stale := resume
	stale.Resumes = 5
	if _, err := w.begin(t.Context(), stale); err == nil || !strings.Contains(err.Error(), "resumed by another process meanwhile") {
		t.Errorf("a resume from 5 resumes: %v, want it refused", err)
	}
}
