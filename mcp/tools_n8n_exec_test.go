package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/n8ntest"
)

// TestN8NExecutionTools runs a four-node workflow through its webhook, once through and once
// failing in its middle node, and reads the executions through list_executions and
// get_execution: per-node results with the failed node first, the data only in a raw answer
// with include_data, and lists by date.
func TestN8NExecutionTools(t *testing.T) {
	c := n8ntest.Client(t)
	hook := n8ntest.Unique("mcp-pipeline")
	wf := n8ntest.Create(t, c, n8ntest.PipelineWorkflow(hook, hook, "stock check failed"), true)
	before := time.Now().UTC().Add(-time.Second)
	n8ntest.Trigger(t, hook, `{}`, 1)
	n8ntest.Trigger(t, hook, `{"fail":true}`, 1)
	ex := n8ntest.WaitFinished(t, c, wf.ID, 2)
	failed, ok := string(ex[0].ID), string(ex[1].ID)
	cs := connectN8N(t, c, true)
	id := string(wf.ID)

	r := call(t, cs, "get_execution", map[string]any{"id": failed})
	if want := "execution " + failed + " of workflow " + id + ": error in Check: stock check failed [line 2]"; r.env["message"] != want {
		t.Errorf("message %q, want %q", r.env["message"], want)
	}
	d := r.data()
	nodes := d["nodes"].([]any)
	if len(nodes) != 3 {
		t.Fatalf("nodes %v: want Webhook, Prepare and Check", nodes)
	}
	if n := nodes[0].(map[string]any); n["name"] != "Check" || n["status"] != "error" || n["error"] != "stock check failed [line 2]" {
		t.Errorf("first node %v: want the failed Check", n)
	}
	if n := nodes[1].(map[string]any); n["name"] != "Webhook" || n["status"] != "success" || num(n, "items") != 1 {
		t.Errorf("second node %v", n)
	}
	if e := d["error"].(map[string]any); e["node"] != "Check" || d["workflow"] != hook {
		t.Errorf("data %v", d)
	}
	hasKeys(t, "minimal node", nodes[0].(map[string]any), []string{"name", "status", "duration_ms", "items"}, []string{"nodeId", "startTime"})

	for _, withData := range []bool{false, true} {
		raw := call(t, cs, "get_execution", map[string]any{"id": failed, "raw": true, "include_data": withData}).data()
		if _, has := raw["data"]; has != withData {
			t.Errorf("include_data %v: data in the raw answer: %v", withData, has)
		}
		ne := raw["nodeExecutions"].([]any)
		n := ne[2].(map[string]any) // in the order they ran
		if len(ne) != 3 || n["nodeName"] != "Check" || n["nodeType"] != "n8n-nodes-base.code" || n["nodeId"] == nil || n["startTime"] == nil ||
			n["endTime"] == nil || n["hasData"] != false || raw["workflowName"] != hook || raw["settings"] == nil {
			t.Errorf("raw %v", raw)
		}
	}
	if m := call(t, cs, "get_execution", map[string]any{"id": ok}).env["message"]; m != "execution "+ok+" of workflow "+id+": success; Done returned 2 items" {
		t.Errorf("message %q", m)
	}

	tests := []struct {
		name  string
		args  map[string]any
		count int
		msg   string
	}{
		{"no range", map[string]any{}, 2, "2 executions: 1 error, 1 success"},
		{"a range holding both", map[string]any{"start_date": before.Format(time.RFC3339Nano), "end_date": time.Now().UTC().Format(time.RFC3339Nano)}, 2, "2 executions: 1 error, 1 success"},
		// Dates: from the first one's day to the last one's, both whole.
		{"days", map[string]any{"start_date": ex[1].StartedAt.UTC().Format(time.DateOnly), "end_date": ex[0].StartedAt.UTC().Format(time.DateOnly)}, 2, "2 executions: 1 error, 1 success"},
		{"a range before them", map[string]any{"end_date": before.Format(time.RFC3339Nano)}, 0, "0 executions"},
		{"a range after them", map[string]any{"start_date": time.Now().UTC().Add(time.Hour).Format(time.RFC3339)}, 0, "0 executions"},
		{"one per page", map[string]any{"start_date": before.Format(time.RFC3339Nano), "limit": 1}, 1, "1 execution: 1 error; more with cursor: next_cursor"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["workflow_id"] = id
			r := call(t, cs, "list_executions", tc.args)
			if errCode(r) != "" || num(r.data(), "count") != tc.count || r.env["message"] != tc.msg {
				t.Errorf("got %v, want %d executions and %q", r.env, tc.count, tc.msg)
			}
		})
	}
}

// TestN8NExecutionArgumentErrors: bad dates and limits are refused before n8n is asked (the
// client's n8n is not there), with messages in the server's language.
func TestN8NExecutionArgumentErrors(t *testing.T) {
	tests := []struct {
		args   map[string]any
		en, ja string
	}{
		{map[string]any{"start_date": "yesterday"},
			`start_date "yesterday" is not an ISO 8601 date or time: want e.g. 2026-01-02 or 2026-01-02T15:04:05Z`,
			`start_date "yesterday" は ISO 8601 の日付でも時刻でもありません。2026-01-02 や 2026-01-02T15:04:05Z のように指定してください`},
		{map[string]any{"end_date": "2026-01-02 10:00"},
			`end_date "2026-01-02 10:00" is not an ISO 8601 date or time: want e.g. 2026-01-02 or 2026-01-02T15:04:05Z`,
			`end_date "2026-01-02 10:00" は ISO 8601 の日付でも時刻でもありません。2026-01-02 や 2026-01-02T15:04:05Z のように指定してください`},
		{map[string]any{"start_date": "2026-02-01", "end_date": "2026-01-31"},
			"start_date 2026-02-01 is after end_date 2026-01-31: no execution can be in between",
			"start_date 2026-02-01 が end_date 2026-01-31 より後です：その間に入る実行はありません"},
		{map[string]any{"limit": 0}, "limit 0: want 1 to 100", "limit 0：1 から 100 までの値を指定してください"},
		{map[string]any{"limit": 101}, "limit 101: want 1 to 100", "limit 101：1 から 100 までの値を指定してください"},
		{map[string]any{"limit": -5}, "limit -5: want 1 to 100", "limit -5：1 から 100 までの値を指定してください"},
	}
	for _, lang := range []string{"en", "ja"} {
		cs := connectWith(t, Options{Root: t.TempDir(), N8N: offlineClient(t), Lang: i18n.Lang(lang)})
		for _, tc := range tests {
			r := call(t, cs, "list_executions", tc.args)
			want := tc.en
			if lang == "ja" {
				want = tc.ja
			}
			if errCode(r) != CodeInvalidArgument || r.env["message"] != want {
				t.Errorf("%s %v: %v, want %q", lang, tc.args, r.env, want)
			}
		}
	}
}

// TestN8NExecutionStatusesAsTheyAre: a status n8n reports beyond the filterable ones is shown
// as it is, in the list and its counts.
func TestN8NExecutionStatusesAsTheyAre(t *testing.T) {
	for _, status := range []string{"crashed", "new", "unknown"} {
		p := &n8n.ExecutionPage{Executions: []n8n.Execution{{ID: "1", WorkflowID: "w", Status: status}}, Names: map[n8n.ID]string{"w": "flow"}}
		l := executionList{n8n.Listing(p, "")}
		m := l.minimal().(n8n.ListingMinimal)
		if m.Executions[0].Status != status || m.Counts[status] != 1 || m.Executions[0].Workflow != "flow" {
			t.Errorf("%s: %+v", status, m)
		}
	}
}

// TestN8NClientErrorsInServerLanguage: what the n8n client says itself, which the answers
// quote as it is, is in the server's language too (TestMessagesFollowLang has an unreachable
// n8n's).
func TestN8NClientErrorsInServerLanguage(t *testing.T) {
	tests := []struct {
		tool   string
		args   map[string]any
		code   string
		en, ja string
	}{
		{"get_workflow", map[string]any{"id": "a/b"}, CodeInvalidArgument,
			`get workflow: id "a/b" is not an n8n id`, `ワークフローの取得: id "a/b" は n8n の id ではありません`},
		{"get_execution", map[string]any{"id": ".."}, CodeInvalidArgument,
			`get execution: id ".." is not an n8n id`, `実行の取得: id ".." は n8n の id ではありません`},
	}
	for _, lang := range []string{"en", "ja"} {
		cs := connectWith(t, Options{Root: t.TempDir(), N8N: offlineClient(t), Lang: i18n.Lang(lang)})
		for _, tc := range tests {
			r := call(t, cs, tc.tool, tc.args)
			want := tc.en
			if lang == "ja" {
				want = tc.ja
			}
			if msg, _ := r.env["message"].(string); errCode(r) != tc.code || !strings.Contains(msg, want) {
				t.Errorf("%s %s %v: %v, want %s with %q", lang, tc.tool, tc.args, r.env, tc.code, want)
			}
		}
	}
}
