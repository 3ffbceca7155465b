package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSubRunsOverMCP checks that the sub-run of a dag node is listed with its parent, and
// that explain_node follows the dag node's failure into it.
func TestSubRunsOverMCP(t *testing.T) {
	root := testRoot(t)
	files := map[string]string{
		"score.yaml": `version: 1
name: score
params: {type: object, required: [w], properties: {w: {type: integer}}}
nodes:
  x:
    type: transform
    input: {w: "${{ params.w }}"}
    with: {program: '{status: "fail", summary: "too heavy: \(.w)"}'}
`,
		"parent.yaml": `version: 1
name: parent
nodes:
  score: {type: dag, with: {file: score.yaml}, input: {w: 7}}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := serveLang(t, root, "en")
	r := call(t, cs, "run_dag", map[string]any{"path": "parent.yaml", "wait": true})
	parent, _ := r.env["data"].(map[string]any)["id"].(string)
	l := call(t, cs, "list_runs", map[string]any{"dag": "score", "raw": true})
	var list struct {
		Runs []struct {
			Parent     string `json:"parent"`
			ParentNode string `json:"parent_node"`
		}
	}
	if b, _ := json.Marshal(l.env["data"]); json.Unmarshal(b, &list) != nil || len(list.Runs) != 1 ||
		list.Runs[0].Parent != parent || list.Runs[0].ParentNode != "score" {
		t.Errorf("list_runs %s, want the sub-run of %s/score", b, parent)
	}
	// Both answers follow into the sub-run: the minimal one too, as an agent reads it first.
	for _, raw := range []bool{true, false} {
		x := call(t, cs, "explain_node", map[string]any{"run": parent, "node": "score", "raw": raw})
		var ex struct {
			SubRun *struct{ DAG, Node, Status, Reason string } `json:"sub_run"`
		}
		b, _ := json.Marshal(x.env["data"])
		if json.Unmarshal(b, &ex) != nil || ex.SubRun == nil ||
			*ex.SubRun != (struct{ DAG, Node, Status, Reason string }{"score", "x", "failed", "too heavy: 7"}) {
			t.Errorf("explain_node raw=%v: %s, want it to follow into the sub-run's node x", raw, b)
		}
	}
}
