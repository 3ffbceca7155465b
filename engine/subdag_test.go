package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	pathpkg "path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/workspace"
)

// loadFiles writes files into a temporary directory and loads the first with the built-in
// types, dag and a probe.
func loadFiles(t *testing.T, rec *recorder, files map[string]string, main string) (*dag.DAG, error) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := subDAGWorkspace(t, probe{rec: rec})
	return w.Load(context.Background(), filepath.Join(dir, main))
}

// subDAGWorkspace is an unconfined workspace with the built-in types, dag (loading through
// the workspace) and more.
func subDAGWorkspace(t *testing.T, more ...nodes.Type) *workspace.Workspace {
	t.Helper()
	w, err := workspace.New(workspace.Options{Types: func(w *workspace.Workspace) *nodes.Registry {
		reg := nodes.Builtin()
		for _, typ := range more {
			reg.Add(typ)
		}
		AddDAGType(reg, nil, w)
		return reg
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

const scoreDAG = `version: 1
name: score
params:
  type: object
  required: [n]
  properties:
    n: {type: integer}
nodes:
  double:
    type: const
    with: {value: {status: pass, summary: doubled, data: {v: "${{ params.n * 2 }}"}}}
  check: {type: probe, needs: [double], with: {error: "${{ params.n > 100 ? 'too big' : '' }}"}}
outputs:
  doubled: "${{ nodes.double.output.data.v }}"
`

func TestRunSubDAG(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d, err := loadFiles(t, rec, map[string]string{"score.yaml": scoreDAG, "main.yaml": `version: 1
name: main
params: {type: object}
nodes:
  sub: {type: dag, with: {file: score.yaml}, input: {n: "${{ params.n }}"}}
  use: {type: probe, input: "${{ nodes.sub.output.data.doubled }}"}
`}, "main.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d.ByID["sub"].InputContract == nil {
		t.Fatal("the sub-DAG's params did not become the node's input contract")
	}
	tests := []struct {
		n      any
		status dag.NodeStatus
		reason string
	}{
		{21, dag.NodePassed, ""},
		{"x", dag.NodeFailed, "input breaks its contract"},
		{500, dag.NodeFailed, "sub-run * (score) failed: node check: too big"},
	}
	for _, tt := range tests {
		res := mustRun(t, d, RunOptions{Params: map[string]any{"n": tt.n}})
		sub := node(t, res, "sub")
		if ok, _ := pathpkg.Match(tt.reason, sub.Reason); sub.Status != tt.status || !ok {
			t.Errorf("n=%v: sub %s %q, want %s %q", tt.n, sub.Status, sub.Reason, tt.status, tt.reason)
		}
		if tt.status == dag.NodePassed {
			if sub.Summary != "score succeeded: 2 nodes: 2 passed" || !strings.Contains(sub.Log, "check passed") {
				t.Errorf("summary %q, log %q", sub.Summary, sub.Log)
			}
			if got := rec.inputs["use"]; got != json.Number("42") {
				t.Errorf("use got %v (%T)", got, got)
			}
		}
	}
}

func TestLoadSubDAGErrors(t *testing.T) {
	main := func(file string) string {
		return "version: 1\nname: main\nnodes:\n  sub: {type: dag, with: {file: " + file + "}}\n"
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{{
		name:  "itself",
		files: map[string]string{"main.yaml": main("main.yaml")},
		want:  `main.yaml:4:33: error SEAM-E107 node "sub": DAG files form a cycle: main.yaml → main.yaml`,
	}, {
		name:  "a cycle through another file",
		files: map[string]string{"main.yaml": main("b.yaml"), "b.yaml": "version: 1\nname: b\nnodes:\n  back: {type: dag, with: {file: main.yaml}}\n"},
		want:  `main.yaml:4:33: error SEAM-E118 node "sub": b.yaml does not load (1 error); the first: b.yaml:4:34: SEAM-E107 node "back": DAG files form a cycle: main.yaml → b.yaml → main.yaml`,
	}, {
		name:  "a missing file",
		files: map[string]string{"main.yaml": main("nope.yaml")},
		want:  `main.yaml:4:33: error SEAM-E118 node "sub": cannot read the DAG file nope.yaml: no such file or directory`,
	}, {
		name:  "a broken file",
		files: map[string]string{"main.yaml": main("bad.yaml"), "bad.yaml": "version: 1\nname: bad\nnodes:\n  a: {type: nope}\n"},
		want:  `main.yaml:4:33: error SEAM-E118 node "sub": bad.yaml does not load (1 error); the first: bad.yaml:4:13: SEAM-E104 unknown node type "nope"`,
	}, {
		name:  "a reference as the file",
		files: map[string]string{"main.yaml": "version: 1\nname: main\nparams: {type: object, properties: {f: {type: string}}}\nnodes:\n  sub: {type: dag, with: {file: \"${{ params.f }}\"}}\n"},
		want:  "must be a file name, not a reference",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadFiles(t, newRecorder(), tt.files, "main.yaml")
			var ds dag.Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("err = %v", err)
			}
			got := ds[0].String()
			if !strings.Contains(got, tt.want) {
				t.Errorf("diagnostic:\n%s\nwant it to contain\n%s", got, tt.want)
			}
		})
	}
}

// subRecorder records runs and their sub-runs, each through a recorder of its own.
type subRecorder struct {
	begun *[]dag.RunRecord
}

func (r subRecorder) BeginRun(_ context.Context, run dag.RunRecord) error {
	*r.begun = append(*r.begun, run)
	return nil
}
func (subRecorder) RecordAttempts(context.Context, []dag.AttemptRecord) error { return nil }
func (subRecorder) FinishRun(context.Context, *dag.RunResult) error           { return nil }
func (r subRecorder) Sub(*dag.DAG) dag.Recorder                               { return r }

// TestRunSubDAGRecorded checks that a recorder that records sub-runs gets the sub-run of a
// dag node as a run of its own, linked to the parent run and node, and that the node's
// reason names it.
func TestRunSubDAGRecorded(t *testing.T) {
	noLeaks(t)
	d, err := loadFiles(t, newRecorder(), map[string]string{"score.yaml": scoreDAG, "main.yaml": `version: 1
name: main
nodes:
  sub: {type: dag, with: {file: score.yaml}, input: {n: 500}}
`}, "main.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var begun []dag.RunRecord
	res := mustRun(t, d, RunOptions{RunID: "parent", Recorder: subRecorder{&begun}})
	if len(begun) != 2 {
		t.Fatalf("recorded %d runs, want the run and its sub-run: %+v", len(begun), begun)
	}
	sub := begun[1]
	if sub.DAG != "score" || sub.Parent != "parent" || sub.ParentNode != "sub" || begun[0].Parent != "" {
		t.Errorf("sub-run recorded as %+v, want score under parent/sub", sub)
	}
	want := "sub-run " + sub.ID + " (score) failed: node check: too big"
	if n := node(t, res, "sub"); n.Reason != want {
		t.Errorf("reason %q, want %q", n.Reason, want)
	}
}
