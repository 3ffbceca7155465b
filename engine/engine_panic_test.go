package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// panicky is a node type whose Run panics with its with.why.
type panicky struct{}

func (panicky) Name() string         { return "panicky" }
func (panicky) Doc() string          { return "panics" }
func (panicky) ConfigSchema() []byte { return []byte(`{"type": "object"}`) }
func (panicky) OutputSchema() []byte { return nil }
func (panicky) Run(_ context.Context, call *nodes.Call) (*nodes.Result, error) {
	panic(call.With["why"])
}

// panickyObserver panics at every event.
type panickyObserver struct{}

func (panickyObserver) Event(engine.Event) { panic("observer broke") }

// TestRunRecoversPanics checks that a panic in a node type, in output validation or in the
// observer fails that node (or loses that event) and nothing else: the process lives, the
// other nodes run, the run is recorded failed in a real store, and the stack is logged.
func TestRunRecoversPanics(t *testing.T) {
	ctx := context.Background()
	reg := nodes.Builtin()
	reg.Add(panicky{})
	d, err := dag.LoadBytes(ctx, "panics.yaml", []byte(`version: 1
name: panics
env: [TOKEN]
nodes:
  bad: {type: panicky, with: {why: "boom ${{ env.TOKEN }}"}}
  broken: {type: const, with: {value: {status: pass, summary: broken}}}
  brokenexec: {type: exec, with: {command: [echo, '{"status": "pass", "summary": "x"}']}}
  after: {type: const, needs: [bad], with: {value: {status: pass, summary: after}}}
  ok: {type: exec, with: {command: [echo, '{"status": "pass", "summary": "fine"}']}}
`), dag.LoadOptions{Types: reg})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range d.Nodes {
		if strings.HasPrefix(n.ID, "broken") {
			// A schema that was never compiled: validating against it panics, as a validator
			// bug would (jsonschema v6.0.3 did on 1e-10000000 against maximum).
			n.Effective = new(contract.Schema)
		}
	}
	store, err := runs.Open(ctx, filepath.Join(t.TempDir(), "seam.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var log bytes.Buffer
	res, err := engine.Run(ctx, d, engine.RunOptions{
		Recorder: runs.NewRecorder(store, d, runs.RecorderOptions{}),
		Observer: panickyObserver{},
		Logger:   slog.New(slog.NewTextHandler(&log, nil)),
		Getenv:   func(string) string { return "s3cr3t-t0k3n" },
	})
	if err != nil {
		t.Fatal(err)
	}
	const invalidMemory = "internal error in output validation: runtime error: invalid memory address or nil pointer dereference"
	want := map[string]struct {
		status dag.NodeStatus
		reason string
	}{
		"bad":        {dag.NodeFailed, "internal error in node type panicky: boom ***"},
		"broken":     {dag.NodeFailed, invalidMemory},
		"brokenexec": {dag.NodeFailed, invalidMemory},
		"after":      {dag.NodeSkipped, "upstream bad failed"},
		"ok":         {dag.NodePassed, ""},
	}
	for _, n := range res.Nodes {
		if w := want[n.ID]; n.Status != w.status || n.Reason != w.reason {
			t.Errorf("%s: %s %q, want %s %q", n.ID, n.Status, n.Reason, w.status, w.reason)
		}
	}
	if res.Status != dag.RunFailed || res.Error != "" {
		t.Errorf("run: %s %q", res.Status, res.Error)
	}

	run, attempts, err := store.GetRun(ctx, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "failed" || run.Interrupted() {
		t.Errorf("stored run: %s (interrupted: %t)", run.Status, run.Interrupted())
	}
	reasons := map[string]string{}
	for _, a := range attempts {
		reasons[a.Node] = a.Reason
	}
	if reasons["bad"] != want["bad"].reason || reasons["broken"] != invalidMemory {
		t.Errorf("stored reasons: %q", reasons)
	}

	logged := log.String()
	for _, s := range []string{
		"internal error in node type panicky: boom ***",
		"internal error in output validation",
		"internal error in observer: observer broke",
		"panicky.Run", // the stack, down to the frame that panicked
		"run=" + res.ID,
	} {
		if !strings.Contains(logged, s) {
			t.Errorf("log lacks %q:\n%s", s, logged)
		}
	}
	if strings.Contains(logged, "t0k3n") {
		t.Errorf("log holds the secret:\n%s", logged)
	}
}
