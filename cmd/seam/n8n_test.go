package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

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

// TestN8NExecutionsScript runs testdata/n8n/*.txtar against the real n8n: a four-node
// workflow, run through its webhook once through and once failing in its middle node, is
// made first, and the scripts get its ids in $WF, $WFNAME, $OK and $FAILED, and dates around
// the executions in $BEFORE (a second before the first), $DAY0 and $DAY1 (the days of the
// first and the last).
func TestN8NExecutionsScript(t *testing.T) {
	url, key := n8ntest.Env(t)
	c := n8ntest.Client(t)
	hook := n8ntest.Unique("cli-pipeline")
	wf := n8ntest.Create(t, c, n8ntest.PipelineWorkflow(hook, hook, "stock check failed"), true)
	n8ntest.Trigger(t, hook, `{}`, 1)
	n8ntest.Trigger(t, hook, `{"fail":true}`, 1)
	ex := n8ntest.WaitFinished(t, c, wf.ID, 2) // newest first
	first, last := ex[1].StartedAt.UTC(), ex[0].StartedAt.UTC()
	vars := map[string]string{
		"SEAM_LANG": "en", n8n.EnvURL: url, n8n.EnvAPIKey: key,
		"WF": string(wf.ID), "WFNAME": hook, "OK": string(ex[1].ID), "FAILED": string(ex[0].ID),
		"BEFORE": first.Add(-time.Second).Format(time.RFC3339Nano),
		"DAY0":   first.Format(time.DateOnly), "DAY1": last.Format(time.DateOnly),
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/n8n",
		Setup: func(env *testscript.Env) error {
			for k, v := range vars {
				env.Setenv(k, v)
			}
			return nil
		},
	})
}
