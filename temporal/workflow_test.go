package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/workspace"
)

// types is the registry the tests' DAGs use: the built-ins and dag.
func types() *nodes.Registry { return files().Types() }

// files is an unconfined workspace with types, as the CLI's.
func files() *workspace.Workspace {
	w, err := workspace.New(workspace.Options{Types: func(w *workspace.Workspace) *nodes.Registry {
		reg := nodes.Builtin()
		engine.AddDAGType(reg, func(string) string { return "" }, w)
		return reg
	}})
	if err != nil {
		panic(err) // unconfined, reading no variable: New does not fail
	}
	return w
}

// newBundle loads the DAG file at path as a client does and bundles it.
func newBundle(ctx context.Context, path string) (*Bundle, error) {
	d, err := files().Load(ctx, path)
	if err != nil {
		return nil, err
	}
	return NewBundle(d, "", 0)
}

// pairOptions say how runPair runs a DAG.
type pairOptions struct {
	params map[string]any
	lang   i18n.Lang
	getenv func(string) string // both engines' environment; nil reads none
	// cancelAfter cancels both runs once it has passed (0: never): the embedded one by its
	// context, the workflow by Temporal's cancellation.
	cancelAfter time.Duration
	// setup is called on the test environment before the workflow starts (listeners).
	setup func(*testsuite.TestWorkflowEnvironment)
	// bundle, when set, changes the bundle before the workflow gets it.
	bundle func(*Bundle)
	// rawParams, when set, is the workflow's params as they travel (the embedded run gets
	// params).
	rawParams json.RawMessage
	// noStore gives the worker no store: the run is not recorded, and outputs cannot travel
	// by reference.
	noStore bool
	// split makes each history the workflow runs in as long as splitEvents, so that it
	// continues as new at its first pause after an attempt; each next history runs in an
	// environment of its own, from the input it continued with.
	split bool
}

// pair is one DAG file run on the embedded engine and as the workflow in Temporal's test
// environment, each recorded in a store of its own.
type pair struct {
	embedded, hosted       *dag.RunResult
	embeddedErr, hostedErr error // the runs' errors (refused before they started)
	embeddedStore          runs.Store
	hostedStore            runs.Store
	bundle                 *Bundle
	workerDir              string // the worker's bundles are under it, by hash
	// progress is what the progress query answered once the workflow completed.
	progress []dag.NodeResult
	// inputs are what each history of the workflow started from, in turn.
	inputs []RunInput
}

const pairRunID = "r1"

// runPair runs the DAG file at path on both engines.
func runPair(t *testing.T, path string, o pairOptions) *pair {
	t.Helper()
	ctx := context.Background()
	reg := types()
	getenv := o.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	p := &pair{embeddedStore: openStore(t), hostedStore: openStore(t), workerDir: t.TempDir()}
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: reg})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.cancelAfter > 0 {
		time.AfterFunc(o.cancelAfter, cancel)
	}
	rec := runs.NewRecorder(p.embeddedStore, d, runs.RecorderOptions{})
	p.embedded, p.embeddedErr = engine.Run(rctx, d, engine.RunOptions{RunID: pairRunID, Params: o.params, Lang: o.lang, Getenv: getenv, Recorder: rec})

	if p.bundle, err = NewBundle(d, "", 0); err != nil {
		t.Fatal(err)
	}
	in := RunInput{RunID: pairRunID, File: path, Bundle: p.bundle, Params: o.rawParams, Lang: o.lang}
	if in.Params == nil {
		in.Params, _ = json.Marshal(o.params)
	}
	if o.bundle != nil {
		b := *p.bundle
		b.Files = maps.Clone(p.bundle.Files)
		o.bundle(&b)
		in.Bundle = &b
	}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	wo := WorkerOptions{Store: p.hostedStore, Types: reg, Dir: p.workerDir, Getenv: getenv}
	if o.noStore {
		wo.Store = nil
	}
	w := NewWorker(wo)
	var env *testsuite.TestWorkflowEnvironment
	for {
		env = s.NewTestWorkflowEnvironment()
		w.Register(env)
		if o.setup != nil {
			o.setup(env)
		}
		if o.cancelAfter > 0 {
			env.RegisterDelayedCallback(env.CancelWorkflow, o.cancelAfter)
		}
		if o.split {
			env.SetCurrentHistoryLength(splitEvents)
		}
		p.inputs = append(p.inputs, in)
		env.ExecuteWorkflow(WorkflowName, in)
		if !env.IsWorkflowCompleted() {
			t.Fatal("the workflow did not complete")
		}
		var next *workflow.ContinueAsNewError
		if !errors.As(env.GetWorkflowError(), &next) {
			break
		}
		in = RunInput{}
		if err := converter.GetDefaultDataConverter().FromPayloads(next.Input, &in); err != nil {
			t.Fatal(err)
		}
	}
	if p.hostedErr = env.GetWorkflowError(); p.hostedErr == nil {
		if err := env.GetWorkflowResult(&p.hosted); err != nil {
			t.Fatal(err)
		}
		v, err := env.QueryWorkflow(ProgressQuery)
		if err != nil {
			t.Fatalf("query %s: %v", ProgressQuery, err)
		}
		if err := v.Get(&p.progress); err != nil {
			t.Fatal(err)
		}
		// The client's query: a first answer brings pending nodes to the same; asked again,
		// nothing changed since.
		v, err = env.QueryWorkflow(ProgressSinceQuery, ProgressAsk{})
		if err != nil {
			t.Fatalf("query %s: %v", ProgressSinceQuery, err)
		}
		var a ProgressAnswer
		if err := v.Get(&a); err != nil {
			t.Fatal(err)
		}
		got := pending(d)
		a.apply(ProgressAsk{}, got, d)
		if !reflect.DeepEqual(got, p.progress) {
			t.Errorf("progress from %s:\n got %+v\nwant %+v", ProgressSinceQuery, got, p.progress)
		}
		v, err = env.QueryWorkflow(ProgressSinceQuery, ProgressAsk{History: a.History, Seq: a.Seq})
		if err != nil {
			t.Fatalf("query %s: %v", ProgressSinceQuery, err)
		}
		var again ProgressAnswer
		if err := v.Get(&again); err != nil || len(again.Changed) != 0 || again.Seq != a.Seq {
			t.Errorf("asked again: %+v, %v; want no change at seq %d", again, err, a.Seq)
		}
	}
	return p
}

func openStore(t *testing.T) runs.Store {
	t.Helper()
	st, err := runs.Open(context.Background(), filepath.Join(t.TempDir(), "seam.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// ran returns both results, failing the test when a run was refused.
func (p *pair) ran(t *testing.T) (embedded, hosted *dag.RunResult) {
	t.Helper()
	if p.embeddedErr != nil || p.hostedErr != nil {
		t.Fatalf("embedded: %v; workflow: %v", p.embeddedErr, p.hostedErr)
	}
	return p.embedded, p.hosted
}

// same checks that both engines gave the run and each node the same status, attempts,
// reason, repair, violations and output, and that both stores hold the same run. The nodes
// byRef name have an output that travelled by reference: on Temporal the result holds its
// stub, with the status and summary of the embedded engine's output.
func (p *pair) same(t *testing.T, byRef ...string) {
	t.Helper()
	want, got := p.ran(t)
	if got.Status != want.Status || got.Error != want.Error {
		t.Errorf("run %s (%q), embedded %s (%q)", got.Status, got.Error, want.Status, want.Error)
	}
	if len(got.Nodes) != len(want.Nodes) {
		t.Fatalf("%d nodes, embedded %d", len(got.Nodes), len(want.Nodes))
	}
	for i, n := range got.Nodes {
		w := want.Nodes[i]
		if n.ID != w.ID || n.Status != w.Status || n.Attempts != w.Attempts || n.Reason != w.Reason || n.Repaired != w.Repaired || n.Summary != w.Summary {
			t.Errorf("node %s: %s after %d attempts (%q, repaired %t), embedded %s %s after %d (%q, repaired %t)",
				n.ID, n.Status, n.Attempts, n.Reason, n.Repaired, w.ID, w.Status, w.Attempts, w.Reason, w.Repaired)
		}
		if a, b := jsonOf(n.Violations), jsonOf(w.Violations); a != b {
			t.Errorf("node %s violations %s, embedded %s", n.ID, a, b)
		}
		if slices.Contains(byRef, n.ID) {
			stub, _ := n.Output.(map[string]any)
			obj, _ := w.Output.(map[string]any)
			if _, ok := stub[engine.RefKey].(string); !ok || stub["status"] != obj["status"] || stub["summary"] != obj["summary"] || len(stub) != 3 {
				t.Errorf("node %s output %.200s, want the stub of the embedded output", n.ID, jsonOf(n.Output))
			}
		} else if a, b := jsonOf(n.Output), jsonOf(w.Output); a != b {
			t.Errorf("node %s output %.200s, embedded %.200s", n.ID, a, b)
		}
	}
	for i, n := range p.progress {
		if w := got.Nodes[i]; n.ID != w.ID || n.Status != w.Status || n.Attempts != w.Attempts || n.Output != nil {
			t.Errorf("progress: node %s %s after %d attempts (output %v), the result's %s %s after %d", n.ID, n.Status, n.Attempts, n.Output, w.ID, w.Status, w.Attempts)
		}
	}
	if len(p.progress) != len(got.Nodes) {
		t.Errorf("progress: %d nodes, want %d", len(p.progress), len(got.Nodes))
	}
	if a, b := jsonOf(got.Outputs), jsonOf(want.Outputs); a != b {
		t.Errorf("outputs %s, embedded %s", a, b)
	}
	wr, wa := stored(t, p.embeddedStore)
	gr, ga := stored(t, p.hostedStore)
	if gr.Status != wr.Status || gr.Status != got.Status {
		t.Errorf("stored status %s, embedded's %s, the workflow's result %s", gr.Status, wr.Status, got.Status)
	}
	if a, b := attemptList(ga), attemptList(wa); a != b {
		t.Errorf("stored attempts:\n%s\nembedded:\n%s", a, b)
	}
}

// stored returns the run pairRunID as st holds it.
func stored(t *testing.T, st runs.Store) (*runs.Run, []runs.Attempt) {
	t.Helper()
	r, as, err := st.GetRun(context.Background(), pairRunID)
	if err != nil {
		t.Fatal(err)
	}
	return r, as
}

// attemptList lists what must match between the engines' stored attempts, one per line, in
// an order that does not depend on how concurrent nodes interleaved.
func attemptList(as []runs.Attempt) string {
	lines := make([]string, len(as))
	for i, a := range as {
		lines[i] = fmt.Sprintf("%s[%d]#%d %s final=%t repaired=%t reason=%q violations=%d output=%t",
			a.Node, a.Item, a.Attempt, a.Status, a.Final, a.Repaired, a.Reason, len(a.Violations), a.OutputHash != "")
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// writeDAG writes src as a DAG file in a folder of its own and returns its path.
func writeDAG(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dag.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// node returns the node id of res.
func node(t *testing.T, res *dag.RunResult, id string) dag.NodeResult {
	t.Helper()
	for _, n := range res.Nodes {
		if n.ID == id {
			return n
		}
	}
	t.Fatalf("no node %s in the result", id)
	return dag.NodeResult{}
}

// errorText is the message of a workflow's error, down to the application error's own.
func errorText(err error) string {
	var s []string
	for ; err != nil; err = errors.Unwrap(err) {
		s = append(s, err.Error())
	}
	return strings.Join(s, " <- ")
}

func TestWorkflowExamples(t *testing.T) {
	for _, name := range []string{"hello", "fan-in", "foreach", "retry-repair", "broken-contract", "transform", "sub-dag", "continue-on-failure"} {
		t.Run(name, func(t *testing.T) {
			runPair(t, filepath.Join("..", "dags", name+".yaml"), pairOptions{}).same(t)
		})
	}
}

// TestWorkflowOutputOverInline: a worker without a store fails a node whose output Temporal
// could not carry, saying why, rather than letting Temporal retry the attempt for ever; a
// worker with one passes it by reference.
func TestWorkflowOutputOverInline(t *testing.T) {
	path := writeDAG(t, `version: 1
name: big
nodes:
  big:
    type: exec
    with:
      command: [sh, -c, 'printf "{\"status\":\"pass\",\"summary\":\"big\",\"data\":{\"s\":\"%s\"}}" "$(head -c 1100000 /dev/zero | tr "\0" a)"']
`)
	p := runPair(t, path, pairOptions{noStore: true})
	if p.embedded.Status != dag.RunSuccess || p.hostedErr != nil {
		t.Fatalf("embedded: %s %q; workflow: %v", p.embedded.Status, node(t, p.embedded, "big").Reason, p.hostedErr)
	}
	n := node(t, p.hosted, "big")
	if n.Status != dag.NodeFailed || n.Reason != "the output is over the 1048576 bytes a run on Temporal carries (docs/temporal.md)" {
		t.Errorf("big on Temporal without a store: %s %q", n.Status, n.Reason)
	}
	p = runPair(t, path, pairOptions{})
	p.same(t, "big")
}

// TestWorkflowSubDAGCancel: a `dag` node's sub-run is a child workflow, recorded as a sub-run
// of the run; cancelling the run cancels it, and its node, as on the embedded engine.
func TestWorkflowSubDAGCancel(t *testing.T) {
	path := writeDAG(t, `version: 1
name: parent
nodes:
  child:
    type: dag
    with: {file: child.yaml}
`)
	child := `version: 1
name: child
nodes:
  slow: {type: exec, with: {command: [sleep, "5"]}}
`
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "child.yaml"), []byte(child), 0o644); err != nil {
		t.Fatal(err)
	}
	var children []string
	p := runPair(t, path, pairOptions{cancelAfter: 500 * time.Millisecond, setup: func(env *testsuite.TestWorkflowEnvironment) {
		env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, _ converter.EncodedValues) {
			children = append(children, info.WorkflowExecution.ID)
		})
	}})
	if p.hosted.Status != dag.RunCanceled || node(t, p.hosted, "child").Status != dag.NodeCanceled {
		t.Fatalf("run %s, child %s (%q); want both canceled; embedded %s %q", p.hosted.Status, node(t, p.hosted, "child").Status, node(t, p.hosted, "child").Reason, p.embedded.Status, node(t, p.embedded, "child").Reason)
	}
	if len(children) != 1 {
		t.Fatalf("child workflows started: %v, want one", children)
	}
	list, _, err := p.hostedStore.ListRuns(t.Context(), runs.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var sub *runs.Run
	for i := range list {
		if list[i].Parent == pairRunID {
			sub = &list[i]
		}
	}
	if sub == nil || sub.ParentNode != "child" || sub.Status != dag.RunCanceled || "seam-"+sub.ID != children[0] {
		t.Errorf("stored sub-run %+v (child workflow %v), want one of %s/child, canceled", sub, children, pairRunID)
	}
}

// TestWorkflowContinueAsNew runs a chain of exec nodes whose workflow continues as new at
// every pause its history allows (splitEvents): it ends as on the embedded engine (same
// statuses, attempts, DAG outputs, stored attempts, each once), recorded as one run, and
// each history after the first starts from a checkpoint and the run's store session.
func TestWorkflowContinueAsNew(t *testing.T) {
	const n = 30
	var b strings.Builder
	b.WriteString("version: 1\nname: chain\noutputs:\n  first: \"${{ nodes.n0.output.summary }}\"\n  last: \"${{ nodes.n29.output.summary }}\"\nnodes:\n")
	for i := range n {
		fmt.Fprintf(&b, "  n%d: {type: exec, with: {command: [printf, n%d], output: text}", i, i)
		if i > 0 {
			fmt.Fprintf(&b, ", needs: [n%d]", i-1)
		}
		b.WriteString("}\n")
	}
	b.WriteString("  skipped: {type: exec, needs: [n3], when: \"${{ false }}\", with: {command: [\"true\"]}}\n")
	p := runPair(t, writeDAG(t, b.String()), pairOptions{split: true})
	want, got := p.ran(t)
	if len(p.inputs) < 3 {
		t.Fatalf("%d histories, want at least 3", len(p.inputs))
	}
	if got.Status != want.Status || jsonOf(got.Outputs) != jsonOf(want.Outputs) || jsonOf(got.Outputs) == "null" {
		t.Errorf("run %s, outputs %s; embedded %s, %s", got.Status, jsonOf(got.Outputs), want.Status, jsonOf(want.Outputs))
	}
	for i, node := range got.Nodes {
		w := want.Nodes[i]
		if node.ID != w.ID || node.Status != w.Status || node.Attempts != w.Attempts || node.Reason != w.Reason || node.Summary != w.Summary {
			t.Errorf("node %s: %s after %d (%q %q), embedded %s after %d (%q %q)", node.ID, node.Status, node.Attempts, node.Reason, node.Summary, w.Status, w.Attempts, w.Reason, w.Summary)
		}
	}
	for i, n := range p.progress {
		if w := got.Nodes[i]; n.ID != w.ID || n.Status != w.Status || n.Attempts != w.Attempts {
			t.Errorf("progress of the last history: node %s %s after %d attempts, the result's %s after %d", n.ID, n.Status, n.Attempts, w.Status, w.Attempts)
		}
	}
	for k, in := range p.inputs[1:] {
		if in.Checkpoint == nil || in.Recorded == nil || in.Recorded.Session != p.inputs[len(p.inputs)-1].Recorded.Session || in.Resume != nil {
			t.Fatalf("history %d started from checkpoint %v, recorded %+v, resume %v", k+1, in.Checkpoint != nil, in.Recorded, in.Resume)
		}
		// Each checkpoint holds the outputs still read: the last settled node's, for the
		// next, and n0's, for the DAG's outputs.
		var kept []string
		for _, o := range in.Checkpoint.Outputs {
			kept = append(kept, p.bundleNode(t, o.Node))
		}
		if len(kept) > 2 || !slices.Contains(kept, "n0") {
			t.Errorf("history %d: the checkpoint holds the outputs of %v", k+1, kept)
		}
	}
	runsList, _, err := p.hostedStore.ListRuns(t.Context(), runs.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runsList) != 1 {
		t.Errorf("%d runs stored, want 1", len(runsList))
	}
	wr, wa := stored(t, p.embeddedStore)
	gr, ga := stored(t, p.hostedStore)
	if gr.Status != wr.Status {
		t.Errorf("stored status %s, embedded's %s", gr.Status, wr.Status)
	}
	if a, b := attemptList(ga), attemptList(wa); a != b {
		t.Errorf("stored attempts:\n%s\nembedded:\n%s", a, b)
	}
}

// bundleNode names node i of the pair's DAG.
func (p *pair) bundleNode(t *testing.T, i int) string {
	t.Helper()
	if i < 0 || i >= len(p.embedded.Nodes) {
		t.Fatalf("no node %d", i)
	}
	return p.embedded.Nodes[i].ID
}

// TestWorkflowContinueAsNewTooLarge fails the run, recorded and saying why, when its input
// to go on in a new history would be over what Temporal takes (a bundle made larger than a
// client would send, standing for a large bundle with a large checkpoint).
func TestWorkflowContinueAsNewTooLarge(t *testing.T) {
	p := runPair(t, writeDAG(t, `version: 1
name: chain
nodes:
  a: {type: exec, with: {command: [printf, a], output: text}}
  b: {type: exec, needs: [a], with: {command: [printf, b], output: text}}
`), pairOptions{split: true, bundle: func(b *Bundle) {
		b.Files["big.bin"] = make([]byte, 1600<<10)
		b.Hash = b.hash()
	}})
	_, got := p.ran(t)
	const msg = "the run cannot go on in a new Temporal history: its bundle and the state of its 2 nodes hold"
	if len(p.inputs) != 1 || got.Status != dag.RunFailed || !strings.HasPrefix(got.Error, msg) || !strings.Contains(got.Error, "split the DAG into sub-DAGs") {
		t.Fatalf("%d histories, run %s: %q", len(p.inputs), got.Status, got.Error)
	}
	if a, b := node(t, got, "a"), node(t, got, "b"); a.Status != dag.NodePassed || b.Status != dag.NodeCanceled || b.Reason != got.Error {
		t.Errorf("a %s, b %s (%q)", a.Status, b.Status, b.Reason)
	}
	r, as := stored(t, p.hostedStore)
	if r.Status != dag.RunFailed || len(as) != 2 || as[1].Node != "b" || as[1].Status != dag.NodeCanceled {
		t.Errorf("stored run %s, attempts %s", r.Status, attemptList(as))
	}
}

// TestProgressSince: the progress answer holds the nodes that changed since the asker's
// last answer, all that left pending for an asker of another history or of none, and the
// client's copy follows the workflow's.
func TestProgressSince(t *testing.T) {
	d, err := dag.LoadBytes(context.Background(), "p.yaml", []byte(`version: 1
name: p
nodes:
  a: {type: const, with: {value: {status: pass, summary: a}}}
  b: {type: const, with: {value: {status: pass, summary: b}}}
  c: {type: const, with: {value: {status: pass, summary: c}}}
`), dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	p := newProgress(d)
	client := pending(d)
	ask := ProgressAsk{}
	step := func(history string, want []int) {
		t.Helper()
		a := p.since(history, ask)
		if !slices.Equal(a.Changed, want) {
			t.Errorf("ask %+v of %s: changed %v, want %v", ask, history, a.Changed, want)
		}
		a.apply(ask, client, d)
		if !reflect.DeepEqual(client, p.nodes) {
			t.Errorf("the client's copy:\n got %+v\nwant %+v", client, p.nodes)
		}
		ask = ProgressAsk{History: a.History, Seq: a.Seq}
	}
	step("h1", nil)
	p.Event(engine.Event{Node: dag.NodeResult{ID: "b", Type: "const", Status: dag.NodeRunning}})
	step("h1", []int{1})
	step("h1", nil)
	p.Event(engine.Event{Node: dag.NodeResult{ID: "b", Type: "const", Status: dag.NodePassed, Attempts: 1}})
	p.Event(engine.Event{Node: dag.NodeResult{ID: "c", Type: "const", Status: dag.NodeRunning}})
	step("h1", []int{1, 2})
	// The run continued as new: its new history answers every node that left pending.
	p.Event(engine.Event{Node: dag.NodeResult{ID: "a", Type: "const", Status: dag.NodeSkipped}})
	step("h2", []int{0, 1, 2})
	step("h2", nil)
	// A history that goes on from a checkpoint answers the nodes it settled, not the others.
	p = newProgress(d)
	p.restore([]dag.NodeResult{
		{ID: "a", Type: "const", Status: dag.NodePassed, Attempts: 1},
		{ID: "b", Type: "const", Status: dag.NodePending},
		{ID: "c", Type: "const", Status: dag.NodeSkipped},
	})
	step("h3", []int{0, 2})
	step("h3", nil)
}

// TestCompact: a run's result over maxResult leaves out its nodes' outputs, logs and
// violations first, then the nodes that passed; one within it is left whole.
func TestCompact(t *testing.T) {
	big := strings.Repeat("x", maxResult)
	node := func(id string, status dag.NodeStatus, summary string) dag.NodeResult {
		return dag.NodeResult{ID: id, Status: status, Summary: summary, Output: map[string]any{"s": "out"}, Log: "log"}
	}
	tests := []struct {
		name    string
		nodes   []dag.NodeResult
		ids     []string // the nodes kept
		outputs bool     // whether they keep their outputs and logs
	}{
		{"within", []dag.NodeResult{node("a", dag.NodePassed, ""), node("b", dag.NodeFailed, "")}, []string{"a", "b"}, true},
		{"a large log", []dag.NodeResult{node("a", dag.NodePassed, ""), {ID: "b", Status: dag.NodeFailed, Log: big}}, []string{"a", "b"}, false},
		{"large summaries", []dag.NodeResult{node("a", dag.NodePassed, big), node("b", dag.NodeFailed, "")}, []string{"b"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := compact(&dag.RunResult{ID: "r1", Status: dag.RunFailed, Nodes: tt.nodes})
			var ids []string
			for _, n := range res.Nodes {
				ids = append(ids, n.ID)
				if kept := n.Output != nil && n.Log != ""; kept != tt.outputs {
					t.Errorf("%s: output %v, log %.10q; want them kept: %t", n.ID, n.Output, n.Log, tt.outputs)
				}
			}
			if !slices.Equal(ids, tt.ids) {
				t.Errorf("nodes %v, want %v", ids, tt.ids)
			}
		})
	}
}
