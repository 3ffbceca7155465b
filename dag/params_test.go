package dag

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// TestWithDefaults checks which defaults of the params schema a run's params get.
func TestWithDefaults(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		params string
		want   string
	}{
		{"top level", `{"type":"object","properties":{"weight":{"type":"integer","default":2}}}`, `{}`, `{"weight":2}`},
		{"given wins", `{"type":"object","properties":{"weight":{"default":2}}}`, `{"weight":7}`, `{"weight":7}`},
		{"null is given", `{"type":"object","properties":{"weight":{"default":2}}}`, `{"weight":null}`, `{"weight":null}`},
		{"no default", `{"type":"object","properties":{"weight":{"type":"integer"}}}`, `{}`, `{}`},
		{"nested in a given object", `{"properties":{"o":{"properties":{"a":{"default":"x"},"b":{"default":1}}}}}`,
			`{"o":{"b":2}}`, `{"o":{"a":"x","b":2}}`},
		{"nested in a defaulted object", `{"properties":{"o":{"default":{},"properties":{"a":{"default":[1]}}}}}`,
			`{}`, `{"o":{"a":[1]}}`},
		{"absent object without default", `{"properties":{"o":{"properties":{"a":{"default":1}}}}}`, `{}`, `{}`},
		{"not through $ref", `{"$defs":{"w":{"default":3}},"properties":{"w":{"$ref":"#/$defs/w"}}}`, `{}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var schema any
			if err := json.Unmarshal([]byte(tt.schema), &schema); err != nil {
				t.Fatal(err)
			}
			s, err := contract.NewCompiler(contract.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ps, err := s.Inline("params", schema)
			if err != nil {
				t.Fatal(err)
			}
			var params map[string]any
			if err := json.Unmarshal([]byte(tt.params), &params); err != nil {
				t.Fatal(err)
			}
			d := &DAG{Params: ps}
			got, _ := json.Marshal(d.WithDefaults(params))
			if string(got) != tt.want {
				t.Errorf("WithDefaults(%s) = %s, want %s", tt.params, got, tt.want)
			}
			if before, _ := json.Marshal(params); string(before) != tt.params {
				t.Errorf("params changed to %s", before)
			}
		})
	}
}

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
	if c := node(t, res, "c"); c.Status != NodePassed || c.Summary != "weight 2" {
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
		if fs := Lint(context.Background(), d, LintOptions{Params: params}); len(fs) != 0 {
			t.Errorf("params %v: findings %v, want none", params, fs)
		}
	}
	d = load(t, newRecorder(), strings.Replace(defaultsDAG, "default: 2", "default: 7", 1))
	fs := Lint(context.Background(), d, LintOptions{Params: map[string]any{}})
	if len(fs) != 1 || fs[0].Code != CodeLintConstraint {
		t.Errorf("findings %v, want one %s for the default 7", fs, CodeLintConstraint)
	}
}
