package runs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/workspace"
)

// TestSubRuns checks that the sub-run of a dag node is stored as a run of its own, linked to
// its parent run and node, left out of TopLevel lists, and followed by Explain.
func TestSubRuns(t *testing.T) { eachBackend(t, testSubRuns) }

func testSubRuns(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	res := runRecorded(t, s, "", map[string]string{
		"score.yaml": `version: 1
name: score
params: {type: object, required: [w], properties: {w: {type: integer}}}
nodes:
  ok: {type: const, with: {value: {status: pass, summary: fine}}}
  x:
    type: const
    needs: [ok]
    with: {value: {status: pass, summary: heavy, data: {w: "${{ params.w }}"}}}
    contract: {output: {properties: {data: {properties: {w: {maximum: 5}}}}}}
`,
		"parent.yaml": `version: 1
name: parent
nodes:
  score: {type: dag, with: {file: score.yaml}, input: {w: 7}}
`,
	})

	all, _, err := s.ListRuns(ctx, Filter{})
	if err != nil || len(all) != 2 {
		t.Fatalf("ListRuns = %+v, %v; want the run and its sub-run", all, err)
	}
	// Two runs started in the same millisecond list in either order.
	sub := all[0]
	if sub.Parent == "" {
		sub = all[1]
	}
	if sub.DAG != "score" || sub.Parent != res.ID || sub.ParentNode != "score" || all[0].Parent != "" && all[1].Parent != "" {
		t.Errorf("runs %+v, want score as the sub-run of %s/score", all, res.ID)
	}
	top, _, err := s.ListRuns(ctx, Filter{TopLevel: true})
	if err != nil || len(top) != 1 || top[0].ID != res.ID {
		t.Errorf("top-level runs %+v, %v; want only %s", top, err, res.ID)
	}

	r, as, err := s.GetRun(ctx, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The dag node's reason is recorded (not only the run result's), and names the sub-run.
	want := "sub-run " + sub.ID + " (score) failed: node x: output breaks its contract"
	if n := Summarize(as)[0]; n.Final.Reason != want {
		t.Errorf("recorded reason %q, want %q", n.Final.Reason, want)
	}
	x, err := Explain(ctx, s, r, as, "score", ExplainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if x.Reason != want || x.SubRun == nil {
		t.Fatalf("explanation %+v, want the reason %q and the sub-run's", x, want)
	}
	in := x.SubRun
	if in.Run != sub.ID || in.DAG != "score" || in.Node != "x" || in.Status != "failed" ||
		len(in.Violations) != 1 || !strings.Contains(in.Violations[0].Message, "must be ≤ 5") || in.Violations[0].Value != "7" {
		t.Errorf("sub-run explanation %+v, want x's violation of maximum 5 by 7", in)
	}
	// Only a sub-run of this run, named by the reason, is followed.
	for _, tt := range []struct{ parent, reason string }{
		{"another-run", want},
		{res.ID, "input breaks its contract"},
		{res.ID, "sub-run nope (score) failed: node x: …"},
	} {
		if x, err := explainSubRun(ctx, s, tt.parent, tt.reason, ExplainOptions{}, 1); err != nil || x != nil {
			t.Errorf("parent %s, reason %q: followed into %+v, %v; want nothing", tt.parent, tt.reason, x, err)
		}
	}
}

// runRecorded writes files (name → content) to a temporary directory, then runs its
// parent.yaml in lang with dag nodes enabled, recorded in s.
func runRecorded(t *testing.T, s Store, lang string, files map[string]string) *dag.RunResult {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := workspace.New(workspace.Options{Types: func(w *workspace.Workspace) *nodes.Registry {
		reg := nodes.Builtin()
		engine.AddDAGType(reg, nil, w)
		return reg
	}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := w.Load(t.Context(), filepath.Join(dir, "parent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(t.Context(), d, engine.RunOptions{Lang: i18n.Lang(lang), Recorder: NewRecorder(s, d, RecorderOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
