package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
)

const defaultsDAG = `version: 1
name: defaults
params:
  type: object
  required: [weight]
  properties:
    weight: {type: integer, maximum: 5, default: 2}
nodes:
  c:
    type: const
    input: {w: "${{ params.weight }}"}
    contract:
      input: {type: object, required: [w], properties: {w: {type: integer, maximum: 5}}}
    with: {value: {status: pass, summary: "weight ${{ params.weight }}"}}
`

// TestRunParamDefaults checks that a run fills in the params schema's defaults before
// validating them (weight is required), reads them and records them (a resume reuses them).
func TestRunParamDefaults(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, defaultsDAG)
	mem := &memRecorder{rec: rec, d: d}
	res, err := Run(context.Background(), d, RunOptions{Recorder: mem})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if c := node(t, res, "c"); c.Status != dag.NodePassed || c.Summary != "weight 2" {
		t.Errorf("c: %s %q, want passed with weight 2", c.Status, c.Summary)
	}
	if len(mem.begun) != 1 || mem.begun[0].Params["weight"] == nil {
		t.Fatalf("recorded params %v, want weight", mem.begun)
	}
	if w, _ := json.Marshal(mem.begun[0].Params); string(w) != `{"weight":2}` {
		t.Errorf("recorded params %s, want {\"weight\":2}", w)
	}
	res = mustRun(t, d, RunOptions{Params: map[string]any{"weight": json.Number("4")}})
	if c := node(t, res, "c"); c.Summary != "weight 4" {
		t.Errorf("c: %q, want weight 4", c.Summary)
	}
}

// TestLintParamDefaults checks that lint sees a param with a default as always present, and
// with known params, that a missing one takes its default.
func TestLintParamDefaults(t *testing.T) {
	d := load(t, newRecorder(), strings.Replace(defaultsDAG, "  required: [weight]\n", "", 1))
	for _, params := range []map[string]any{nil, {}} {
		if fs := lint.Lint(context.Background(), d, lint.Options{Params: params}); len(fs) != 0 {
			t.Errorf("params %v: findings %v, want none", params, fs)
		}
	}
	d = load(t, newRecorder(), strings.Replace(defaultsDAG, "default: 2", "default: 7", 1))
	fs := lint.Lint(context.Background(), d, lint.Options{Params: map[string]any{}})
	if len(fs) != 1 || fs[0].Code != lint.CodeConstraint {
		t.Errorf("findings %v, want one %s for the default 7", fs, lint.CodeConstraint)
	}
}

// TestLintParamValues checks how lint words an edge from given params into a sub-DAG, in
// both languages, and leaves alone edges where a param is only part of the value.
func TestLintParamValues(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "score.yaml", `version: 1
name: score
params: {type: object, required: [weight], properties: {weight: {type: integer, maximum: 10}}}
nodes:
  s: {type: const, with: {value: {status: pass, summary: ok}}}
`)
	writeFile(t, dir, "parent.yaml", `version: 1
name: parent
params: {type: object, properties: {weight: {type: integer}}}
nodes:
  score:
    type: dag
    with: {file: score.yaml}
    input: {weight: "${{ params.weight }}"}
  c:
    type: const
    input: {w: "${{ params.weight }} kg"}
    contract: {input: {type: object, properties: {w: {maxLength: 2}}}}
    with: {value: {status: pass, summary: ok}}
  whole:
    type: const
    input: "${{ params }}"
    contract: {input: {type: object, properties: {weight: {maximum: 5}}}}
    with: {value: {status: pass, summary: ok}}
`)
	d, err := subDAGWorkspace(t).Load(context.Background(), filepath.Join(dir, "parent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		lang   string
		params map[string]any
		want   []string
	}{
		{"en", map[string]any{"weight": json.Number("20")}, []string{
			"SEAM-E303 param weight=20: the sub-DAG score does not accept it (field 'weight' must be ≤ 10)" +
				" / pass a value of weight that the sub-DAG score accepts.",
			// Interpolated: the param is not the whole value, so the edge is worded as ever.
			"SEAM-W301 edge params → c: UNKNOWN — 'w' may not fit c's contract.input, but the arriving value is only partly known (an interpolated string is only known to be a string). / ",
			"SEAM-E303 param weight=20: whole's contract.input does not accept it (field 'weight' must be ≤ 5)" +
				" / pass a value of weight that whole's contract.input accepts."}},
		{"ja", map[string]any{"weight": json.Number("20")}, []string{
			"SEAM-E303 パラメータ weight=20：サブ DAG score はこの値を受け付けません（フィールド 'weight' は ≤ 10 である必要があります）" +
				" / サブ DAG score が受け付ける weight の値を渡してください。"}},
		{"en", map[string]any{}, []string{
			"SEAM-E304 param weight is not given: the sub-DAG score needs it (missing required field: weight)" +
				" / pass weight, or give it a default in the params schema."}},
		{"ja", map[string]any{}, []string{
			"SEAM-E304 パラメータ weight が指定されていません：サブ DAG score はこれを必要とします（必須フィールドがありません：weight）" +
				" / weight を渡すか、params スキーマで default を与えてください。"}},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range lint.Lint(context.Background(), d, lint.Options{Lang: i18n.Lang(tt.lang), Params: tt.params}) {
			if f.Consumer == "score" || tt.lang == "en" && len(tt.params) > 0 {
				got = append(got, f.Code+" "+f.Message+" / "+f.Hint)
			}
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s %v:\n got %q\nwant %q", tt.lang, tt.params, got, tt.want)
		}
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
