package dag

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// TestApprovalForm: an approval's form, inline or from a file beside the DAG, is compiled
// into Node.Form, and the node's output contract holds the form's fields and its decision
// either way; a file that is not there is said as any schema file's absence is.
func TestApprovalForm(t *testing.T) {
	types := nodestest.LoadTypes()
	a, _ := nodes.Builtin().Lookup(nodes.ApprovalTypeName)
	types.Add(a)
	tests := []struct {
		name, form, err string
	}{
		{"inline", `{type: object, required: [reply], properties: {reply: {type: string, minLength: 1}}}`, ""},
		{"a file", `form.json`, ""},
		{"a missing file", `nope.json`, "testdata/approval/t.yaml:7:13: error SEAM-E111 node \"review\" with.form: schema file \"nope.json\" not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "version: 1\nname: t\nnodes:\n  review:\n    type: approval\n    with:\n      form: " + tt.form + "\n      title: Send?\n      approvers: anyone\n"
			d, err := LoadBytes(context.Background(), "testdata/approval/t.yaml", []byte(src), LoadOptions{Types: types})
			if tt.err != "" {
				if err == nil || len(err.Error()) < len(tt.err) || err.Error()[:len(tt.err)] != tt.err {
					t.Fatalf("err = %v, want it to start %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := d.ByID["review"]
			if n.Form == nil {
				t.Fatal("Form is nil")
			}
			if vs := n.Form.Validate(map[string]any{"reply": ""}, i18n.English); len(vs) != 1 {
				t.Errorf("the form accepts an empty reply: %v", vs)
			}
			good := map[string]any{"status": "pass", "summary": "s", "data": map[string]any{"decision": "approve", "reply": "hi"}}
			if vs := n.Effective.Validate(good, i18n.English); len(vs) != 0 {
				t.Errorf("the output contract rejects an answer: %v", vs)
			}
			bad := map[string]any{"status": "pass", "summary": "s", "data": map[string]any{"decision": "maybe", "reply": "hi"}}
			if vs := n.Effective.Validate(bad, i18n.English); len(vs) != 1 {
				b, _ := json.Marshal(vs)
				t.Errorf("the output contract takes a decision not offered: %s", b)
			}
			if up := d.Upstream("review"); len(up) != 0 {
				t.Errorf("Upstream = %v", up)
			}
		})
	}
}
