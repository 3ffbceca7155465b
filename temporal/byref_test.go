package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// byRefDAG has a node printing about 600 KiB of output, and nodes reading it whole: by
// default input, by an input template, nested in an input object, and a transform (pure).
const byRefDAG = `version: 1
name: byref
nodes:
  big:
    type: exec
    with:
      command: [sh, -c, 'printf "{\"status\":\"pass\",\"summary\":\"big\",\"data\":{\"s\":\"%s\"}}" "$(head -c 600000 /dev/zero | tr "\0" a)"']
  default:
    type: exec
    needs: [big]
    with:
      command: [sh, -c, 'printf "{\"status\":\"pass\",\"summary\":\"got %s bytes\"}" "$(wc -c | tr -d " ")"']
  templated:
    type: exec
    input: "${{ nodes.big.output }}"
    contract:
      input: {type: object, required: [data], properties: {data: {type: object, required: [s]}}}
    with:
      command: [sh, -c, 'printf "{\"status\":\"pass\",\"summary\":\"got %s bytes\"}" "$(wc -c | tr -d " ")"']
  nested:
    type: exec
    input: {whole: ["${{ nodes.big.output }}"], summary: "${{ nodes.big.output.summary }}"}
    with:
      command: [sh, -c, 'printf "{\"status\":\"pass\",\"summary\":\"got %s bytes\"}" "$(wc -c | tr -d " ")"']
  measure:
    type: transform
    input: "${{ nodes.big.output }}"
    with:
      program: '{status: "pass", summary: "\(.data.s | length) characters", data: {n: (.data.s | length)}}'
  after:
    type: transform
    input: "${{ nodes.measure.output.data }}"
    with:
      program: '{status: "pass", summary: "n is \(.n)", data: .}'
`

// TestWorkflowByReference: an output over ByReference travels by reference: the history
// carries no payload over it, the store holds the whole output, and every node reading it,
// exec or transform, gets it whole, so the run means what it means on the embedded engine.
func TestWorkflowByReference(t *testing.T) {
	var largest int
	var started []string
	size := func(v any) {
		b, _ := json.Marshal(v)
		largest = max(largest, len(b))
	}
	p := runPair(t, writeDAG(t, byRefDAG), pairOptions{setup: func(env *testsuite.TestWorkflowEnvironment) {
		env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
			var in AttemptInput
			if err := args.Get(&in); err != nil {
				t.Error(err)
			}
			started = append(started, in.Request.Node)
			size(in)
		})
		env.SetOnActivityCompletedListener(func(_ *activity.Info, result converter.EncodedValue, err error) {
			var o engine.AttemptOutcome
			if result != nil && result.HasValue() {
				if err := result.Get(&o); err != nil {
					t.Error(err)
				}
			}
			size(o)
		})
		env.SetOnLocalActivityStartedListener(func(_ *activity.Info, _ context.Context, args []any) {
			size(args)
		})
	}})
	p.same(t, "big")
	if largest == 0 || largest > ByReference {
		t.Errorf("the largest activity input, result or record is %d bytes, want some and at most %d", largest, ByReference)
	}
	// The transform reading the whole output runs as an activity; the one after it, reading
	// a small output, runs in the workflow.
	want := map[string]bool{"big": true, "default": true, "templated": true, "nested": true, "measure": true}
	for _, n := range started {
		if !want[n] {
			t.Errorf("%s ran as an activity", n)
		}
		delete(want, n)
	}
	if len(want) > 0 {
		t.Errorf("did not run as activities: %v", want)
	}
	for id, summary := range map[string]string{"measure": "600000 characters", "after": "n is 600000"} {
		if n := node(t, p.hosted, id); n.Summary != summary {
			t.Errorf("%s: %q, want %q", id, n.Summary, summary)
		}
	}
	if n := node(t, p.hosted, "default"); n.Summary == "got 0 bytes" || len(n.Summary) < len("got 600000 bytes") {
		t.Errorf("default: %q, want the whole output", n.Summary)
	}
	// Both stores hold the same attempts under the same keys and output hashes, so a resume
	// reuses what it would on the embedded engine; the stored output is the whole one.
	_, wa := stored(t, p.embeddedStore)
	_, ga := stored(t, p.hostedStore)
	hashes := func(as []runs.Attempt) map[string][2]string {
		m := map[string][2]string{}
		for _, a := range as {
			m[a.Node] = [2]string{a.Key, a.OutputHash}
		}
		return m
	}
	w, g := hashes(wa), hashes(ga)
	for id, kh := range w {
		if g[id] != kh {
			t.Errorf("%s: key and output hash %v on Temporal, %v embedded", id, g[id], kh)
		}
	}
	out, err := p.hostedStore.Output(t.Context(), g["big"][1])
	if err != nil || len(out) < 600000 {
		t.Fatalf("the stored output of big: %d bytes (%v)", len(out), err)
	}
	if p.hosted.Status != dag.RunSuccess {
		t.Errorf("run %s", p.hosted.Status)
	}
}

// TestWorkflowByReferenceStub: in the workflow a by-reference output shows its status and
// summary only: a template reading further fails, saying so; an input contract is checked on
// the whole output where the attempt runs, and a broken one still fails the node.
func TestWorkflowByReferenceStub(t *testing.T) {
	p := runPair(t, writeDAG(t, `version: 1
name: stub
nodes:
  big:
    type: exec
    with:
      command: [sh, -c, 'printf "{\"status\":\"pass\",\"summary\":\"big\",\"data\":{\"s\":\"%s\"}}" "$(head -c 300000 /dev/zero | tr "\0" a)"']
  summary:
    type: const
    with: {value: {status: pass, summary: "${{ nodes.big.output.summary }}"}}
  path:
    type: exec
    input: "${{ nodes.big.output.data.s }}"
    with: {command: [cat]}
  contracted:
    type: exec
    input: "${{ nodes.big.output }}"
    contract:
      input: {type: object, required: [data], properties: {data: {type: object, required: [t]}}}
    with: {command: [cat]}
`), pairOptions{})
	_, hosted := p.ran(t)
	if n := node(t, hosted, "summary"); n.Status != dag.NodePassed || n.Summary != "big" {
		t.Errorf("summary: %s %q", n.Status, n.Summary)
	}
	want := `input could not be resolved: ${{ nodes.big.output.data.s }}: no field "data" (the output of big travelled by reference: here it shows its status and summary only; pass it whole, as ${{ nodes.big.output }}, to read the rest; docs/temporal.md)`
	if n := node(t, hosted, "path"); n.Status != dag.NodeFailed || n.Reason != want {
		t.Errorf("path: %s %q, want failed %q", n.Status, n.Reason, want)
	}
	n, e := node(t, hosted, "contracted"), node(t, p.embedded, "contracted")
	if n.Status != dag.NodeFailed || n.Reason != e.Reason || jsonOf(n.Violations) != jsonOf(e.Violations) || len(n.Violations) != 1 {
		t.Errorf("contracted: %s %q %s; embedded %s %q %s", n.Status, n.Reason, jsonOf(n.Violations), e.Status, e.Reason, jsonOf(e.Violations))
	}
}

// TestWorkerByReferenceStoreFails: an output that must travel by reference but cannot be
// stored fails its node, saying why, rather than going inline.
func TestWorkerByReferenceStoreFails(t *testing.T) {
	path := writeDAG(t, "version: 1\nname: f\nnodes:\n  big: {type: exec, with: {command: [cat]}}\n")
	b, err := newBundle(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	st.Close() // a store that refuses every write
	w := NewWorker(WorkerOptions{Types: types(), Store: st, Dir: t.TempDir()})
	w.keep(b)
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(w.attempt, activity.RegisterOptions{Name: attemptActivity})
	big, _ := json.Marshal(map[string]any{"status": "pass", "summary": "big", "data": strings.Repeat("a", ByReference)})
	in := AttemptInput{Run: "r1", Bundle: b.Hash, Request: engine.AttemptRequest{Node: "big", Item: -1, Attempt: 1,
		With: []byte(`{"command": ["cat"]}`), Input: big, OutputLimit: nodes.DefaultOutputLimit}}
	_, err = env.ExecuteActivity(attemptActivity, in)
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != errNodeFailed || !strings.HasPrefix(app.Message(), "store the output by reference: store output ") {
		t.Fatalf("err %v, want %s saying the output could not be stored", err, errNodeFailed)
	}
}

// TestWorkflowByReferenceSplit: a run holding an output by reference that continues as new at
// every pause still reads it whole where it is read, the transform included, and ends as on
// the embedded engine.
func TestWorkflowByReferenceSplit(t *testing.T) {
	var started []string
	p := runPair(t, writeDAG(t, byRefDAG), pairOptions{split: true, setup: func(env *testsuite.TestWorkflowEnvironment) {
		env.SetOnActivityStartedListener(func(_ *activity.Info, _ context.Context, args converter.EncodedValues) {
			var in AttemptInput
			if err := args.Get(&in); err != nil {
				t.Error(err)
			}
			started = append(started, in.Request.Node)
		})
	}})
	// Nodes that settled in an earlier history show no output in the result (the store has
	// it): their statuses and summaries say what they read.
	want, got := p.ran(t)
	for i, n := range got.Nodes {
		if w := want.Nodes[i]; n.Status != w.Status || n.Summary != w.Summary {
			t.Errorf("node %s: %s %q, embedded %s %q", n.ID, n.Status, n.Summary, w.Status, w.Summary)
		}
	}
	if len(p.inputs) < 2 {
		t.Errorf("the run went through %d histories, want it to continue as new", len(p.inputs))
	}
	if !slices.Contains(started, "measure") {
		t.Errorf("the transform reading the whole output ran in the workflow (activities: %v)", started)
	}
}
