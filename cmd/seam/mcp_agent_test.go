package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/n8ntest"
)

// TestMCPAgentSession is the "done when", through the built binary over stdio with
// nothing but the tools: an agent lints a DAG, runs it, watches it fail, asks why, fixes the
// file, resumes the run, then validates an n8n workflow, fixes it and creates it in n8n.
func TestMCPAgentSession(t *testing.T) {
	url, key := n8ntest.Env(t)
	client := n8ntest.Client(t)
	dir := t.TempDir()
	src, err := os.ReadFile("../../dags/broken-contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "triage.yaml")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cs, _, _ := startSeamMCP(ctx, t, dir, []string{n8n.EnvURL + "=" + url, n8n.EnvAPIKey + "=" + key},
		"--root", dir, "--store", filepath.Join(dir, "runs.db"))
	defer cs.Close()

	if l := stdioCall(t, ctx, cs, "lint_dag", map[string]any{"path": "triage.yaml"}); l.Data["errors"] != float64(0) {
		t.Fatalf("lint: %+v", l)
	}
	id, _ := stdioCall(t, ctx, cs, "run_dag", map[string]any{"path": "triage.yaml"}).Data["id"].(string)
	var run stdioEnvelope
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		run = stdioCall(t, ctx, cs, "get_run", map[string]any{"id": id})
		if run.Data["status"] != "running" || time.Now().After(deadline) {
			break
		}
	}
	if run.Data["status"] != "failed" {
		t.Fatalf("the run ended %v, want failed: %+v", run.Data["status"], run)
	}
	why := stdioCall(t, ctx, cs, "explain_node", map[string]any{"run": id, "node": "classify"})
	if !strings.Contains(why.Message, "/data/label") {
		t.Fatalf("explain_node: %q does not name the field", why.Message)
	}
	// The agent fixes the node's output and resumes.
	fixed := strings.Replace(string(src), "data: {confidence: 0.4}", "data: {confidence: 0.4, label: bug}", 1)
	if fixed == string(src) {
		t.Fatal("the fix does not apply to dags/broken-contract.yaml any more")
	}
	if err := os.WriteFile(file, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	again := stdioCall(t, ctx, cs, "resume_run", map[string]any{"id": id, "wait": true})
	if again.Data["id"] != id || again.Data["status"] != "success" {
		t.Fatalf("resume_run: %+v", again)
	}

	name := n8ntest.Unique("seam-agent")
	wf := map[string]any{"name": name, "settings": map[string]any{}, "nodes": []any{
		map[string]any{"id": "1", "name": "Webhook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "position": []any{0, 0},
			"parameters": map[string]any{"path": name, "httpMethod": "POST"}, "webhookId": "0f8c3c1e-2a54-4c1b-9d7e-3b1f2a6c5d40"},
		map[string]any{"id": "2", "name": "Set", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": []any{200, 0}, "parameters": map[string]any{}},
	}, "connections": map[string]any{"Webhook": map[string]any{"main": []any{[]any{map[string]any{"node": "Sett", "type": "main", "index": 0}}}}}}
	v := stdioCall(t, ctx, cs, "validate_workflow", map[string]any{"workflow": wf})
	if v.Data["valid"] != false || !strings.Contains(v.Message, `"Sett"`) {
		t.Fatalf("validate_workflow: %+v", v)
	}
	wf["connections"] = map[string]any{"Webhook": map[string]any{"main": []any{[]any{map[string]any{"node": "Set", "type": "main", "index": 0}}}}}
	created := stdioCall(t, ctx, cs, "create_workflow", map[string]any{"workflow": wf})
	wid, _ := created.Data["id"].(string)
	if wid == "" {
		t.Fatalf("create_workflow: %+v", created)
	}
	t.Cleanup(func() {
		if _, err := client.DeleteWorkflow(context.Background(), n8n.ID(wid)); err != nil {
			t.Errorf("delete workflow %s: %v", wid, err)
		}
	})
	got := stdioCall(t, ctx, cs, "get_workflow", map[string]any{"id": wid, "raw": true})
	if b, _ := json.Marshal(got.Data); !strings.Contains(string(b), name) {
		t.Errorf("get_workflow %s: %s", wid, b)
	}
}
