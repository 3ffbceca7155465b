package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRunDAGParamDefaults checks that run_dag fills in the params schema's defaults before
// checking the params, as seam run does: a required param with a default may be left out,
// and the run records it.
func TestRunDAGParamDefaults(t *testing.T) {
	cs := serveLang(t, testRoot(t), "en")
	yaml := `version: 1
name: defaults
params: {type: object, required: [who], properties: {who: {type: string, default: ada}}}
nodes:
  greet:
    type: const
    with: {value: {status: pass, summary: "hello, ${{ params.who }}"}}
outputs:
  said: "${{ nodes.greet.output.summary }}"
`
	r := call(t, cs, "run_dag", map[string]any{"yaml": yaml, "wait": true, "raw": true})
	if code := errCode(r); code != "" {
		t.Fatalf("run_dag failed with %s: %v", code, r.env)
	}
	b, _ := json.Marshal(r.env["data"])
	if !strings.Contains(string(b), `"said":"hello, ada"`) {
		t.Errorf("data %s, want the output said: hello, ada", b)
	}
	id, _ := r.env["data"].(map[string]any)["id"].(string)
	g := call(t, cs, "get_run", map[string]any{"id": id, "raw": true})
	if b, _ := json.Marshal(g.env["data"]); !strings.Contains(string(b), `"params":{"who":"ada"}`) {
		t.Errorf("get_run %s, want the params recorded with their default", b)
	}
}
