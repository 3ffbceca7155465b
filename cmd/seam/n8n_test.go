package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/n8ntest"
)

// TestN8NValidateByID validates workflows fetched from the real n8n with --id.
func TestN8NValidateByID(t *testing.T) {
	c := n8ntest.Client(t)
	env := n8ntest.Getenv(t)
	getenv := func(k string) string {
		if k == "SEAM_LANG" {
			return "en"
		}
		return env(k)
	}
	good := n8ntest.Create(t, c, n8ntest.GreetWorkflow(n8ntest.Unique("validate-good"), n8ntest.Unique("vg")), false)
	broken := n8ntest.GreetWorkflow(n8ntest.Unique("validate-broken"), n8ntest.Unique("vb"))
	broken.Nodes[0]["parameters"].(map[string]any)["responseMode"] = "responseNode"
	bad := n8ntest.Create(t, c, broken, false)
	tests := []struct {
		name   string
		id     n8n.ID
		code   int
		stdout []string
		stderr string
	}{
		{"valid", good.ID, 0, []string{": valid — 0 errors, 0 warnings (profile runtime)\n", "2 nodes (2 enabled, 1 trigger)"}, ""},
		{"invalid", bad.ID, 1, []string{": invalid — 1 error", "error WEBHOOK_RESPONSE_NODE_MISSING"}, ""},
		{"unknown id", "no-such-workflow", 2, nil, "seam: --id no-such-workflow: get workflow no-such-workflow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{"n8n", "validate", "--id", string(tt.id)}, strings.NewReader(""), &out, &errb, getenv)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %s stderr %s", code, tt.code, out.String(), errb.String())
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			if tt.stderr != "" && !strings.HasPrefix(errb.String(), tt.stderr) {
				t.Errorf("stderr %q, want prefix %q", errb.String(), tt.stderr)
			}
		})
	}
}
