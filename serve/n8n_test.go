package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n/n8ntest"
)

// TestServeN8NExecutions: against the real n8n, the executions page lists a workflow's
// executions with their status, and an execution's page says its error, the node it failed
// in, and each node's timing; a filter n8n does not know is said on the page.
func TestServeN8NExecutions(t *testing.T) {
	c := n8ntest.Client(t) // skips with SEAM_SKIP_N8N=1
	hook := n8ntest.Unique("serve-pipeline")
	wf := n8ntest.Create(t, c, n8ntest.PipelineWorkflow(hook, hook, "stock check failed"), true)
	n8ntest.Trigger(t, hook, `{}`, 1)
	n8ntest.Trigger(t, hook, `{"fail":true}`, 1)
	ex := n8ntest.WaitFinished(t, c, wf.ID, 2) // newest first
	f := newFixture(t, Options{N8N: c})

	resp, page := f.get(nil, "/n8n/executions?workflow="+string(wf.ID))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("executions page: %d\n%s", resp.StatusCode, page)
	}
	for _, want := range []string{`href="/n8n/executions/` + string(ex[0].ID) + `"`, `href="/n8n/executions/` + string(ex[1].ID) + `"`, hook, "st-error", "st-success"} {
		if !strings.Contains(page, want) {
			t.Errorf("executions page does not hold %q:\n%s", want, page)
		}
	}
	resp, page = f.get(nil, "/n8n/executions/"+string(ex[0].ID))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("execution page: %d\n%s", resp.StatusCode, page)
	}
	for _, want := range []string{"stock check failed", `id="execution-error"`, `<tr data-node="Webhook">`, " ms</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("execution page does not hold %q:\n%s", want, page)
		}
	}
	resp, page = f.get(nil, "/n8n/executions?status=bogus")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "--status &#34;bogus&#34;: want one of") {
		t.Errorf("a bogus status: %d\n%s", resp.StatusCode, page)
	}
	resp, page = f.get(nil, "/n8n/executions/999999999")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "get execution 999999999: n8n GET /api/v1/executions/999999999: HTTP 404 Not Found") {
		t.Errorf("an execution n8n does not have: %d, want 404 and the client's error\n%s", resp.StatusCode, page)
	}
	// In Japanese the client's own words are Japanese too.
	f.srv.opts.Lang = i18n.Japanese
	resp, page = f.get(nil, "/n8n/executions/999999999")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "実行 999999999 の取得: n8n GET /api/v1/executions/999999999: HTTP 404 Not Found") {
		t.Errorf("in Japanese, an execution n8n does not have: %d\n%s", resp.StatusCode, page)
	}
}
