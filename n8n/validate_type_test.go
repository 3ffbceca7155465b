package n8n_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n/n8ntest"
	"github.com/seam-dag/seam/nodes"
)

func validateWorkflow(nodes []any, conns map[string]any) map[string]any {
	return map[string]any{"name": "wf", "nodes": nodes, "connections": conns}
}

func manual() map[string]any {
	return map[string]any{"id": "1", "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1.0, "position": []any{0.0, 0.0}, "parameters": map[string]any{}}
}

func TestValidateType(t *testing.T) {
	typ := typeByName(t, func(string) string { return "" }, "n8n.validate")
	noop := map[string]any{"id": "2", "name": "A", "type": "n8n-nodes-base.noOp", "typeVersion": 1.0, "position": []any{0.0, 0.0}, "parameters": map[string]any{}}
	tests := []struct {
		name    string
		with    map[string]any
		status  string
		summary string
		err     string
	}{
		{"valid", map[string]any{"workflow": validateWorkflow([]any{manual()}, map[string]any{})}, "pass", `workflow "wf" is valid (runtime): 0 errors, 0 warnings`, ""},
		{"warnings", map[string]any{"workflow": validateWorkflow([]any{manual(), noop}, map[string]any{})}, "warn", `workflow "wf" is valid (runtime): 0 errors, 1 warning`, ""},
		{"errors", map[string]any{"workflow": validateWorkflow([]any{manual()}, map[string]any{"Ghost": map[string]any{}}), "profile": "minimal"},
			"fail", `workflow "wf" is invalid (minimal): 1 error, 0 warnings; first: connections name a source node "Ghost" that does not exist`, ""},
		{"neither", map[string]any{}, "", "", "with: give either workflow or id"},
		{"both", map[string]any{"workflow": validateWorkflow(nil, nil), "id": "1"}, "", "", "with: give either workflow or id"},
		{"not an object", map[string]any{"workflow": "x"}, "", "", "with/workflow: must be an object (name, nodes, connections), got string"},
		{"bad profile", map[string]any{"workflow": validateWorkflow(nil, nil), "profile": "lax"}, "", "", `with/profile: unknown profile "lax"`},
		{"id without n8n", map[string]any{"id": "1"}, "", "", "no n8n URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := typ.Run(context.Background(), &nodes.Call{With: tt.with})
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Status, Summary string
				Data            map[string]any
			}
			if err := json.Unmarshal(res.Output, &out); err != nil {
				t.Fatal(err)
			}
			if out.Status != tt.status || out.Summary != tt.summary {
				t.Errorf("%s: %q, want %s: %q", out.Status, out.Summary, tt.status, tt.summary)
			}
			if _, ok := out.Data["statistics"]; !ok {
				t.Errorf("no statistics: %v", out.Data)
			}
		})
	}
	if err := typ.(nodes.Checker).Check(map[string]any{"profile": "strict"}); err != nil {
		t.Errorf("check strict: %v", err)
	}
	// The loader says a Check's error in its language.
	var ce *nodes.ConfigError
	err := typ.(nodes.Checker).Check(map[string]any{"profile": "lax"})
	want := `with/profile: 不明なプロファイル "lax" です（minimal、runtime、ai-friendly、strict のいずれかを指定してください）`
	if !errors.As(err, &ce) || ce.Text(i18n.Japanese) != want {
		t.Errorf("check lax, in Japanese: %v", err)
	}
}

// TestValidateTypeByID fetches the workflow from the real n8n.
func TestValidateTypeByID(t *testing.T) {
	c := n8ntest.Client(t)
	wf := n8ntest.Create(t, c, n8ntest.GreetWorkflow(n8ntest.Unique("validate-type"), n8ntest.Unique("vt")), false)
	typ := typeByName(t, n8ntest.Getenv(t), "n8n.validate")
	res, err := typ.Run(context.Background(), &nodes.Call{With: map[string]any{"id": string(wf.ID)}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Output), `"status":"pass"`) {
		t.Errorf("output %s", res.Output)
	}
}
