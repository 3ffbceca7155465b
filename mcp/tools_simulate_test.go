package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSimulateDAG: simulate_dag simulates a DAG under the root over a real session: every
// branch the contracts allow, no side effect; the minimal answer leaves the generated
// outputs out, raw has them; a stub that breaks its contract is refused.
func TestSimulateDAG(t *testing.T) {
	root := testRoot(t)
	src := `version: 1
name: sim
nodes:
  classify:
    type: exec
    with: {command: [touch, ran]}
    contract: {output: {type: object, required: [data], properties: {data: {type: object, required: [kind], properties: {kind: {enum: [bug, feature]}}}}}}
  notify:
    when: "${{ nodes.classify.output.data.kind == 'bug' }}"
    type: const
    with: {value: {status: pass, summary: notified}}
`
	if err := os.WriteFile(filepath.Join(root, "sim.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, root, false)
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		message string
		data    string // JSON of the data's branches (minimal) or error details; "" not checked
	}{
		{"minimal", map[string]any{"path": "sim.yaml"}, false, "sim.yaml simulated: 2 paths, 2 combinations tried",
			`[{"false":[2],"kind":"when","node":"notify","pos":{"Col":16,"File":"sim.yaml","Line":9},"src":"nodes.classify.output.data.kind == 'bug'","true":[1]}]`},
		{"stub", map[string]any{"path": "sim.yaml", "stubs": map[string]any{"classify": map[string]any{"status": "pass", "summary": "s", "data": map[string]any{"kind": "feature"}}}},
			false, "sim.yaml simulated: 1 path, 2 combinations tried", ""},
		{"stub that breaks the contract", map[string]any{"path": "sim.yaml", "stubs": map[string]any{"classify": map[string]any{"status": "pass", "summary": "s"}}},
			true, "--stub classify: the output breaks the node's contract at /data: missing required field: data", ""},
		{"outside the root", map[string]any{"path": "../sim.yaml"}, true, `path "../sim.yaml" is outside the root: name a file under it`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, cs, "simulate_dag", tt.args)
			if r.res.IsError != tt.isError || r.env["message"] != tt.message {
				t.Fatalf("isError %v, message %q; want %v, %q", r.res.IsError, r.env["message"], tt.isError, tt.message)
			}
			if tt.data != "" {
				b, _ := json.Marshal(r.data()["branches"])
				if string(b) != tt.data {
					t.Errorf("branches\n%s\nwant\n%s", b, tt.data)
				}
				if p := r.data()["paths"].([]any)[0].(map[string]any); p["generated"] != nil {
					t.Errorf("the minimal answer has the generated outputs: %v", p)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); !os.IsNotExist(err) {
		t.Errorf("the exec node ran: %v", err)
	}
	raw := call(t, cs, "simulate_dag", map[string]any{"path": "sim.yaml", "raw": true})
	if p := raw.data()["paths"].([]any)[0].(map[string]any); p["generated"] == nil {
		t.Errorf("the raw answer lacks the generated outputs: %v", p)
	}
}
