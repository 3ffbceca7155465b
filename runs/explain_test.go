package runs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
)

// explainDAGs are the DAG files the explanations are about.
var explainDAGs = map[string]string{
	"standard.yaml": `version: 1
name: standard
nodes:
  draft:
    type: const
    with:
      value: {summary: drafted, data: {}}
    contract:
      output:
        type: object
        required: [data]
`,
	"broken.yaml": `version: 1
name: broken
nodes:
  classify:
    type: const
    with:
      value: {status: pass, summary: classified, data: {confidence: 2}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [label]
            properties:
              confidence: {type: number, maximum: 1}
  publish:
    type: exec
    with:
      command: [echo, "${{ nodes.classify.output.data.label }}"]
      output: text
`,
	"input.yaml": `version: 1
name: input
nodes:
  recommend:
    type: const
    with:
      value: {status: pass, summary: two, items: [a, 7], priority: urgent}
  prioritise:
    type: transform
    input:
      recs: "${{ nodes.recommend.output.items }}"
      priority: "${{ nodes.recommend.output.priority }}"
    with:
      program: '{status: "pass", summary: "x"}'
    contract:
      input:
        type: object
        properties:
          priority: {type: string, enum: [low, medium, high]}
          recs: {type: array, items: {type: string}}
`,
	"default.yaml": `version: 1
name: default
nodes:
  source:
    type: const
    with:
      value: {status: pass, summary: n, data: {n: "three"}}
  check:
    type: transform
    needs: [source]
    with:
      program: '{status: "pass", summary: "x"}'
    contract:
      input:
        type: object
        properties:
          source:
            type: object
            properties:
              data: {type: object, properties: {n: {type: integer}}}
`,
	"fails.yaml": `version: 1
name: fails
nodes:
  boom:
    type: exec
    with:
      command: 'echo went wrong >&2; exit 3'
      shell: true
`,
}

// recordRuns runs each of explainDAGs (written to a temporary directory) into s, and returns
// the directory and the run of each file.
func recordRuns(t *testing.T, s Store) (string, map[string]string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	ids := map[string]string{}
	for name, src := range explainDAGs {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := dag.Load(ctx, path, dag.LoadOptions{Types: nodes.Builtin()})
		if err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		res, err := engine.Run(ctx, d, engine.RunOptions{Lang: "en", Recorder: NewRecorder(s, d, RecorderOptions{})})
		if err != nil {
			t.Fatalf("run %s: %v", name, err)
		}
		ids[name] = res.ID
	}
	return dir, ids
}

func TestExplain(t *testing.T) { eachBackend(t, testExplain) }

func testExplain(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	dir, ids := recordRuns(t, s)
	show := ExplainOptions{ShowPath: filepath.Base}
	refuse := ExplainOptions{ShowPath: filepath.Base, ReadFile: func(string) ([]byte, error) {
		return nil, errors.New("outside the root")
	}}
	classifyOutput := []ExplainedViolation{{
		Pointer: "/data/label", Message: "field 'data.label' is required", From: "classify's own output",
		Contract: ContractRef{Keyword: "/allOf/1/properties/data/required", Declared: true, File: "broken.yaml", Line: 15,
			Path: "contract.output/properties/data/required", Lines: []SourceLine{
				{13, "          data:"}, {14, "            type: object"}, {15, "            required: [label]"}}},
	}, {
		Pointer: "/data/confidence", Message: "field 'data.confidence' must be ≤ 1", Value: "2", From: "classify's own output",
		Contract: ContractRef{Keyword: "/allOf/1/properties/data/properties/confidence/maximum", Declared: true, File: "broken.yaml", Line: 17,
			Path: "contract.output/properties/data/properties/confidence/maximum", Lines: []SourceLine{
				{17, "              confidence: {type: number, maximum: 1}"}}},
	}}
	priority := ExplainedViolation{
		Pointer: "/priority", Message: "field 'priority' must be one of: low, medium, high", Value: `"urgent"`, Input: true,
		From:     "node recommend, its output at /priority (recommend passed) (${{ nodes.recommend.output.priority }} at input.yaml:12)",
		Producer: "recommend",
		Contract: ContractRef{Keyword: "/properties/priority/enum", Declared: true, File: "input.yaml", Line: 19,
			Path: "contract.input/properties/priority/enum", Lines: []SourceLine{
				{19, "          priority: {type: string, enum: [low, medium, high]}"}}},
	}
	recs := ExplainedViolation{
		Pointer: "/recs/1", Message: "field 'recs[1]' must be a string, got number", Value: "7", Input: true,
		From:     "node recommend, its output at /items/1 (recommend passed) (${{ nodes.recommend.output.items }} at input.yaml:11)",
		Producer: "recommend",
		Contract: ContractRef{Keyword: "/properties/recs/items/type", Declared: true, File: "input.yaml", Line: 20,
			Path: "contract.input/properties/recs/items/type", Lines: []SourceLine{
				{20, "          recs: {type: array, items: {type: string}}"}}},
	}
	tests := []struct {
		name string
		file string // the run of this DAG file
		node string
		opts ExplainOptions
		edit func(t *testing.T, r *Run) // changes the run (or its file) before Explain
		want *Explanation               // Run is filled in
	}{
		{name: "output breaks its contract", file: "broken.yaml", node: "classify", opts: show, want: &Explanation{
			Node: "classify", Type: "const", Status: "failed", Attempts: 1, Reason: "output breaks its contract",
			Violations: classifyOutput, File: "broken.yaml",
		}},
		// No status breaks the standard contract (the first part of the effective one), not
		// the file's required: [data].
		{name: "standard contract", file: "standard.yaml", node: "draft", opts: show, want: &Explanation{
			Node: "draft", Type: "const", Status: "failed", Attempts: 1, Reason: "output breaks its contract",
			Violations: []ExplainedViolation{{
				Pointer: "/status", Message: "missing required field: status", From: "draft's own output",
				Contract: ContractRef{Keyword: "/allOf/0/required", Note: "the standard output contract"},
			}},
			File: "standard.yaml",
		}},
		{name: "skipped points upstream", file: "broken.yaml", node: "publish", opts: show, want: &Explanation{
			Node: "publish", Type: "exec", Status: "skipped", Reason: "upstream classify failed", Upstream: "classify",
		}},
		{name: "input from referenced fields", file: "input.yaml", node: "prioritise", opts: show, want: &Explanation{
			Node: "prioritise", Type: "transform", Status: "failed", Attempts: 1, Reason: "input breaks its contract",
			Violations: []ExplainedViolation{priority, recs}, File: "input.yaml",
		}},
		{name: "default input is the upstream outputs", file: "default.yaml", node: "check", opts: show, want: &Explanation{
			Node: "check", Type: "transform", Status: "failed", Attempts: 1, Reason: "input breaks its contract",
			Violations: []ExplainedViolation{{
				Pointer: "/source/data/n", Message: "field 'source.data.n' must be an integer, got string", Value: `"three"`, Input: true,
				From: "node source, its output at /data/n (source passed)", Producer: "source",
				Contract: ContractRef{Keyword: "/properties/source/properties/data/properties/n/type", Declared: true, File: "default.yaml", Line: 20,
					Path: "contract.input/properties/source/properties/data/properties/n/type", Lines: []SourceLine{
						{20, "              data: {type: object, properties: {n: {type: integer}}}"}}},
			}},
			File: "default.yaml",
		}},
		{name: "failed without violations", file: "fails.yaml", node: "boom", opts: show, want: &Explanation{
			Node: "boom", Type: "exec", Status: "failed", Attempts: 1, Reason: "exec sh -c: exit status 3; stderr:\nwent wrong",
			Log: "went wrong\n",
		}},
		{name: "passed", file: "input.yaml", node: "recommend", opts: show, want: &Explanation{
			Node: "recommend", Type: "const", Status: "passed", Attempts: 1,
		}},
		{name: "file changed since the run", file: "broken.yaml", node: "classify", opts: show,
			edit: func(t *testing.T, r *Run) { r.FileHash = "an earlier version" },
			want: &Explanation{
				Node: "classify", Type: "const", Status: "failed", Attempts: 1, Reason: "output breaks its contract",
				Violations: classifyOutput, File: "broken.yaml",
				FileNote: "broken.yaml changed since the run: the lines shown are today's",
			}},
		{name: "file refused", file: "input.yaml", node: "prioritise", opts: refuse, want: &Explanation{
			Node: "prioritise", Type: "transform", Status: "failed", Attempts: 1, Reason: "input breaks its contract",
			Violations: []ExplainedViolation{{
				Pointer: "/priority", Message: priority.Message, Value: `"urgent"`, Input: true,
				From:     "unknown (the run's DAG file was not read)",
				Contract: ContractRef{Keyword: "/properties/priority/enum", Note: "the run's DAG file was not read"},
			}, {
				Pointer: "/recs/1", Message: recs.Message, Value: "7", Input: true,
				From:     "unknown (the run's DAG file was not read)",
				Contract: ContractRef{Keyword: "/properties/recs/items/type", Note: "the run's DAG file was not read"},
			}},
			File:     "input.yaml",
			FileNote: "the run's DAG file could not be read (outside the root): no contract lines",
		}},
		{name: "keyword outside the declared contract", file: "broken.yaml", node: "classify", opts: show,
			edit: func(t *testing.T, r *Run) {
				// The file now declares another contract: the keywords are not in it.
				r.File, r.FileHash = filepath.Join(t.TempDir(), "broken.yaml"), ""
				src := "version: 1\nname: broken\nnodes:\n  classify:\n    type: const\n    contract:\n      output: {type: object}\n"
				if err := os.WriteFile(r.File, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: &Explanation{
				Node: "classify", Type: "const", Status: "failed", Attempts: 1, Reason: "output breaks its contract",
				Violations: []ExplainedViolation{{
					Pointer: "/data/label", Message: "field 'data.label' is required", From: "classify's own output",
					Contract: ContractRef{Keyword: "/allOf/1/properties/data/required", Declared: true,
						Note: "not in the node's contract.output (the standard output contract or the node type's)"},
				}, {
					Pointer: "/data/confidence", Message: "field 'data.confidence' must be ≤ 1", Value: "2", From: "classify's own output",
					Contract: ContractRef{Keyword: "/allOf/1/properties/data/properties/confidence/maximum", Declared: true,
						Note: "not in the node's contract.output (the standard output contract or the node type's)"},
				}},
				File: "broken.yaml",
			}},
		{name: "no file", file: "broken.yaml", node: "classify", opts: show,
			edit: func(t *testing.T, r *Run) { r.File = "" },
			want: &Explanation{
				Node: "classify", Type: "const", Status: "failed", Attempts: 1, Reason: "output breaks its contract",
				Violations: []ExplainedViolation{{
					Pointer: "/data/label", Message: "field 'data.label' is required", From: "classify's own output",
					Contract: ContractRef{Keyword: "/allOf/1/properties/data/required", Note: "the run's DAG file was not read"},
				}, {
					Pointer: "/data/confidence", Message: "field 'data.confidence' must be ≤ 1", Value: "2", From: "classify's own output",
					Contract: ContractRef{Keyword: "/allOf/1/properties/data/properties/confidence/maximum", Note: "the run's DAG file was not read"},
				}},
				FileNote: "the run was not loaded from a file: no contract lines",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, as, err := s.GetRun(ctx, ids[tc.file])
			if err != nil {
				t.Fatal(err)
			}
			if r.File != filepath.Join(dir, tc.file) {
				t.Fatalf("run file %q, want %q", r.File, filepath.Join(dir, tc.file))
			}
			if tc.edit != nil {
				tc.edit(t, r)
			}
			got, err := Explain(ctx, s, r, as, tc.node, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Run = r.ID
			if !reflect.DeepEqual(got, tc.want) {
				g, _ := json.MarshalIndent(got, "", "  ")
				w, _ := json.MarshalIndent(tc.want, "", "  ")
				t.Errorf("got\n%s\nwant\n%s", g, w)
			}
		})
	}
}

func TestExplainUnknownNode(t *testing.T) { eachBackend(t, testExplainUnknownNode) }

func testExplainUnknownNode(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	_, ids := recordRuns(t, s)
	r, as, err := s.GetRun(ctx, ids["broken.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	_, err = Explain(ctx, s, r, as, "nope", ExplainOptions{})
	var unknown *UnknownNodeError
	if !errors.As(err, &unknown) {
		t.Fatalf("error %v (%T), want an *UnknownNodeError", err, err)
	}
	if want := []string{"classify", "publish"}; unknown.Node != "nope" || unknown.Run != r.ID || !reflect.DeepEqual(unknown.Nodes, want) {
		t.Errorf("error %+v, want node nope of run %s, nodes %v", unknown, r.ID, want)
	}
	if want := `run ` + r.ID + ` has no node "nope"; its nodes: classify, publish`; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestExcerpt(t *testing.T) {
	for _, tt := range []struct {
		s     string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: not halved
		{"日本語", 4, "日…"},
		{"日本語", 6, "日本…"},
	} {
		if got := excerpt(tt.s, tt.limit); got != tt.want {
			t.Errorf("excerpt(%q, %d) = %q, want %q", tt.s, tt.limit, got, tt.want)
		}
	}
}
