package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// explainFiles are DAG files the explain_node tests record runs of, relative to the root
// (outside/ is beside it).
var explainFiles = map[string]string{
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
	"long.yaml": `version: 1
name: long
nodes:
  say:
    type: const
    with:
      value: {status: pass, summary: "` + strings.Repeat("many words ", 10) + `"}
    contract:
      output:
        type: object
        properties:
          summary: {type: string, maxLength: 20}
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
	"../outside/hidden.yaml": `version: 1
name: hidden
nodes:
  leak:
    type: const
    with:
      value: {status: pass, summary: x, data: {}}
    contract:
      output:
        type: object
        properties:
          data: {type: object, required: [label]}  # TOP-SECRET: only the file has this
`,
}

// recordRun runs the DAG file at path into st as the CLI would, without the server: runs of
// files outside the root, and runs that lint would refuse, get into the store this way.
func recordRun(t *testing.T, st runs.Store, path string) string {
	t.Helper()
	d, err := dag.Load(t.Context(), path, dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	res, err := engine.Run(t.Context(), d, engine.RunOptions{Lang: "en", Recorder: runs.NewRecorder(st, d, runs.RecorderOptions{})})
	if err != nil {
		t.Fatalf("run %s: %v", path, err)
	}
	return res.ID
}

func TestExplainNode(t *testing.T) {
	root := testRoot(t)
	for name, body := range explainFiles {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := tempStore(t)
	cs := connectWith(t, Options{Root: root, Store: st})

	// The failed run comes through the server, as an agent would make it.
	if r := call(t, cs, "run_dag", map[string]any{"path": "dags/broken-contract.yaml", "wait": true}); errCode(r) != "" {
		t.Fatalf("run_dag: %v", r.env)
	}
	broken := call(t, cs, "explain_node", map[string]any{"run": "latest", "node": "classify"}).data()["run"].(string)
	input := recordRun(t, st, filepath.Join(root, "input.yaml"))
	fails := recordRun(t, st, filepath.Join(root, "fails.yaml"))
	long := recordRun(t, st, filepath.Join(root, "long.yaml"))
	hidden := recordRun(t, st, filepath.Join(root, "../outside/hidden.yaml"))
	if r := call(t, cs, "run_dag", map[string]any{"path": "greet.yaml", "wait": true, "params": map[string]any{"who": "ada"}}); errCode(r) != "" {
		t.Fatalf("run_dag: %v", r.env)
	}

	tests := []struct {
		name    string
		args    map[string]any
		code    string // "" for success
		message string // the whole message, with RUN for the run's id, or a part of it
		check   func(t *testing.T, d map[string]any)
	}{
		{"output breaks its contract", map[string]any{"run": broken, "node": "classify"}, "",
			"node classify failed in run RUN: output breaks its contract: /data/label: field 'data.label' is required",
			func(t *testing.T, d map[string]any) {
				want := map[string]any{"run": broken, "node": "classify", "status": "failed", "attempts": 1.0,
					"reason": "output breaks its contract", "count": 1.0, "violations": []any{map[string]any{
						"pointer": "/data/label", "message": "field 'data.label' is required",
						"missing": true, "from": "classify's own output"}}}
				if !reflect.DeepEqual(d, want) {
					t.Errorf("data\n%v\nwant\n%v", d, want)
				}
			}},
		{"contract lines, raw", map[string]any{"run": broken, "node": "classify", "raw": true}, "", "node classify failed",
			func(t *testing.T, d map[string]any) {
				v := d["violations"].([]any)[0].(map[string]any)
				if _, ok := v["value"]; ok || v["missing"] != true {
					t.Errorf("violation %v: want missing and no value", v)
				}
				c, _ := v["contract"].(map[string]any)
				lines, _ := c["lines"].([]any)
				if c["file"] != "dags/broken-contract.yaml" || c["path"] != "contract.output/properties/data/required" || len(lines) == 0 {
					t.Fatalf("contract %v: want the lines of dags/broken-contract.yaml", c)
				}
				last := lines[len(lines)-1].(map[string]any)
				if !strings.Contains(last["text"].(string), "required: [label, confidence]") || num(last, "n") != num(c, "line") {
					t.Errorf("last contract line %v, want the required keyword at line %v", last, c["line"])
				}
			}},
		{"value and producer of an input", map[string]any{"run": input, "node": "prioritise"}, "",
			"node prioritise failed in run RUN: input breaks its contract: /priority: field 'priority' must be one of: low, medium, high (from node recommend) (and 1 more violation)",
			func(t *testing.T, d map[string]any) {
				vs := d["violations"].([]any)
				v := vs[0].(map[string]any)
				// The values are JSON values, not JSON text in a string.
				if v["value"] != "urgent" || v["missing"] != nil || !strings.HasPrefix(v["from"].(string), "node recommend, its output at /priority (recommend passed)") {
					t.Errorf("violation %v: want the value and the producer", v)
				}
				if v := vs[1].(map[string]any); v["value"] != 7.0 {
					t.Errorf("violation %v: want the number 7", v)
				}
			}},
		{"values raw", map[string]any{"run": input, "node": "prioritise", "raw": true}, "", "node prioritise failed",
			func(t *testing.T, d map[string]any) {
				vs := d["violations"].([]any)
				if v := vs[0].(map[string]any); v["value"] != "urgent" || v["contract"] == nil {
					t.Errorf("violation %v: want the value as JSON and the contract", v)
				}
				if v := vs[1].(map[string]any); v["value"] != 7.0 {
					t.Errorf("violation %v: want the number 7", v)
				}
			}},
		{"a long value, minimal", map[string]any{"run": long, "node": "say"}, "", "node say failed",
			func(t *testing.T, d map[string]any) {
				v := d["violations"].([]any)[0].(map[string]any)
				s, _ := v["value"].(string)
				if v["truncated"] != true || !strings.HasPrefix(s, `"many words many words`) || len([]rune(s)) != explainValueLimit {
					t.Errorf("violation %v: want the first %d characters of the JSON, truncated", v, explainValueLimit)
				}
			}},
		{"a long value, raw", map[string]any{"run": long, "node": "say", "raw": true}, "", "node say failed",
			func(t *testing.T, d map[string]any) {
				v := d["violations"].([]any)[0].(map[string]any)
				if v["truncated"] != nil || v["value"] != strings.Repeat("many words ", 10) {
					t.Errorf("violation %v: want the whole value", v)
				}
			}},
		{"skipped points upstream", map[string]any{"run": broken, "node": "publish"}, "",
			"node publish skipped in run RUN: upstream classify failed; explain_node classify says why",
			func(t *testing.T, d map[string]any) {
				if d["upstream"] != "classify" || d["status"] != "skipped" || d["violations"] != nil {
					t.Errorf("data %v", d)
				}
			}},
		{"failed without violations", map[string]any{"run": fails, "node": "boom"}, "",
			"node boom failed in run RUN: exec sh -c: exit status 3; stderr: went wrong", nil},
		{"passed", map[string]any{"run": "latest", "node": "hello"}, "", "node hello passed in run", func(t *testing.T, d map[string]any) {
			if d["status"] != "passed" || d["violations"] != nil {
				t.Errorf("data %v", d)
			}
		}},
		{"file outside the root", map[string]any{"run": hidden, "node": "leak", "raw": true}, "",
			"node leak failed in run RUN: output breaks its contract",
			func(t *testing.T, d map[string]any) {
				if note, _ := d["file_note"].(string); !strings.Contains(note, "outside the server's root") {
					t.Errorf("file_note %q: want it to say the file is outside the root", note)
				}
				c := d["violations"].([]any)[0].(map[string]any)["contract"].(map[string]any)
				if c["lines"] != nil || c["file"] != nil {
					t.Errorf("contract %v: want no lines from outside the root", c)
				}
			}},
		{"unknown node", map[string]any{"run": broken, "node": "nope"}, CodeNotFound, `run RUN has no node "nope"; its nodes: classify, publish`, nil},
		{"unknown run", map[string]any{"run": "20990101T000000.000-00000000", "node": "a"}, CodeRunNotFound, `no run "20990101T000000.000-00000000"`, nil},
		{"empty node", map[string]any{"run": "latest", "node": ""}, CodeInvalidArgument, "node is empty", nil},
		{"empty run", map[string]any{"run": "", "node": "a"}, CodeInvalidArgument, "run is empty", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, "explain_node", tc.args)
			if got := errCode(r); got != tc.code {
				t.Fatalf("code %q, want %q: %v", got, tc.code, r.env)
			}
			want := tc.message
			if id, _ := tc.args["run"].(string); id != "" {
				want = strings.ReplaceAll(want, "RUN", id)
			}
			if msg := r.env["message"].(string); !strings.Contains(msg, want) {
				t.Errorf("message %q, want it to contain %q", msg, want)
			}
			if tc.check != nil {
				tc.check(t, r.data())
			}
		})
	}

	t.Run("unknown node details", func(t *testing.T) {
		r := call(t, cs, "explain_node", map[string]any{"run": broken, "node": "nope"})
		details, _ := r.env["error"].(map[string]any)["details"].(map[string]any)
		if nodes, _ := details["nodes"].([]any); !reflect.DeepEqual(nodes, []any{"classify", "publish"}) {
			t.Errorf("details %v: want the run's nodes", details)
		}
	})
	t.Run("nothing from outside the root", func(t *testing.T) {
		for _, raw := range []bool{false, true} {
			r := call(t, cs, "explain_node", map[string]any{"run": hidden, "node": "leak", "raw": raw})
			if b, _ := json.Marshal(r.env); strings.Contains(string(b), "TOP-SECRET") {
				t.Errorf("raw %v: the answer shows the file outside the root: %s", raw, b)
			}
		}
	})
	t.Run("raw vs minimal", func(t *testing.T) {
		for _, tc := range []struct {
			node, run string
			field     string // in data, or in its first violation
			inFirst   bool
		}{
			{"boom", fails, "log", false},
			{"classify", broken, "contract", true},
			{"prioritise", input, "producer", true},
		} {
			for _, raw := range []bool{false, true} {
				d := call(t, cs, "explain_node", map[string]any{"run": tc.run, "node": tc.node, "raw": raw}).data()
				if tc.inFirst {
					d = d["violations"].([]any)[0].(map[string]any)
				}
				// Minimal answers keep what the next call needs; raw adds the rest.
				if _, has := d[tc.field]; has != raw {
					t.Errorf("%s, raw %v: has %q = %v, want %v: %v", tc.node, raw, tc.field, has, raw, d)
				}
			}
		}
	})
}

func TestExplainNodeNoStore(t *testing.T) {
	cs := connect(t, testRoot(t), false)
	r := call(t, cs, "explain_node", map[string]any{"run": "latest", "node": "a"})
	if errCode(r) != CodeNoStore {
		t.Errorf("code %q, want %q: %v", errCode(r), CodeNoStore, r.env)
	}
}
