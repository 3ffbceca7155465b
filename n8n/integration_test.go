package n8n_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/n8ntest"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/schemas"
)

// These tests run against the real n8n that scripts/test.sh starts (see n8ntest.Env).

// typeByName returns the n8n type called name, reading the test server's environment.
func typeByName(t *testing.T, getenv func(string) string, name string) nodes.Type {
	t.Helper()
	for _, typ := range n8n.Types(n8n.Options{Getenv: getenv}) {
		if typ.Name() == name {
			return typ
		}
	}
	t.Fatalf("no type %s", name)
	return nil
}

// runNode runs one attempt of type name with with, and checks that the output meets the
// standard contract and the type's output schema, as the engine would.
func runNode(t *testing.T, name string, with map[string]any) (map[string]any, error) {
	t.Helper()
	typ := typeByName(t, n8ntest.Getenv(t), name)
	res, err := typ.Run(context.Background(), &nodes.Call{Node: "test", With: with})
	if err != nil {
		return nil, err
	}
	checkOutput(t, typ, res.Output)
	var out map[string]any
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	return out, nil
}

func checkOutput(t *testing.T, typ nodes.Type, out []byte) {
	t.Helper()
	comp, err := contract.NewCompiler(contract.Options{Standard: schemas.NodeOutput})
	if err != nil {
		t.Fatal(err)
	}
	sv, err := contract.ParseJSON(typ.OutputSchema())
	if err != nil {
		t.Fatal(err)
	}
	s, err := comp.Inline(typ.Name()+" output", sv)
	if err != nil {
		t.Fatal(err)
	}
	eff, err := comp.Effective(comp.Standard(), s)
	if err != nil {
		t.Fatal(err)
	}
	v, err := contract.ParseJSON(out)
	if err != nil {
		t.Fatal(err)
	}
	if vs := eff.Validate(v, "en"); len(vs) > 0 {
		t.Fatalf("%s output breaks its schema: %+v\n%s", typ.Name(), vs, out)
	}
}

// path reads a value from decoded JSON: path("data", "items", 0, "greeting").
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func TestWebhookWait(t *testing.T) {
	c := n8ntest.Client(t)
	hook := n8ntest.Unique("greet")
	wf := n8ntest.Create(t, c, n8ntest.GreetWorkflow(hook, hook), true)

	tests := []struct {
		name string
		with map[string]any
	}{
		{"by workflowId", map[string]any{"path": hook, "body": map[string]any{"name": "ada"}, "wait": true, "include_data": true, "workflowId": string(wf.ID)}},
		{"found by path", map[string]any{"path": "/" + hook, "body": map[string]any{"name": "ada"}, "wait": true, "include_data": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runNode(t, "n8n.webhook", tt.with)
			if err != nil {
				t.Fatal(err)
			}
			if out["status"] != "pass" {
				t.Fatalf("status %v: %v", out["status"], out["summary"])
			}
			if got := path(out, "data", "items", 0, "greeting"); got != "hello ada" {
				t.Fatalf("items[0].greeting = %v; output %v", got, out)
			}
			if got := path(out, "data", "execution", "status"); got != "success" {
				t.Fatalf("execution status %v", got)
			}
			if got := path(out, "data", "execution", "workflowId"); got != string(wf.ID) {
				t.Fatalf("execution of workflow %v, want %s", got, wf.ID)
			}
			want := "execution " + path(out, "data", "execution", "id").(string) + " succeeded; Set returned 1 item"
			if s := out["summary"].(string); !strings.Contains(s, want) {
				t.Fatalf("summary %q, want it to contain %q", s, want)
			}
		})
	}

	// Without wait, the node reports the webhook's answer.
	out, err := runNode(t, "n8n.webhook", map[string]any{"path": hook, "body": map[string]any{"name": "bob"}})
	if err != nil {
		t.Fatal(err)
	}
	if out["summary"] != "webhook POST "+hook+" answered 200: Workflow was started" || path(out, "data", "statusCode") != float64(200) {
		t.Fatalf("output %v", out)
	}
}

// TestWebhookConcurrent: calls at once each find their own execution.
func TestWebhookConcurrent(t *testing.T) {
	c := n8ntest.Client(t)
	hook := n8ntest.Unique("greet")
	wf := n8ntest.Create(t, c, n8ntest.GreetWorkflow(hook, hook), true)
	names := []string{"ann", "ben", "cy", "dee"}
	typ := typeByName(t, n8ntest.Getenv(t), "n8n.webhook")
	outs := make([][]byte, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			res, err := typ.Run(context.Background(), &nodes.Call{With: map[string]any{
				"path": hook, "body": map[string]any{"name": name}, "wait": true, "include_data": true, "workflowId": string(wf.ID),
			}})
			if err == nil {
				outs[i] = res.Output
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, name := range names {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		checkOutput(t, typ, outs[i])
		var out map[string]any
		if err := json.Unmarshal(outs[i], &out); err != nil {
			t.Fatal(err)
		}
		if got := path(out, "data", "items", 0, "greeting"); got != "hello "+name {
			t.Errorf("call %d got %v, want %q", i, got, "hello "+name)
		}
	}
}

// TestWebhookExecutionFails: a Code node that throws fails the seam node with n8n's message.
func TestWebhookExecutionFails(t *testing.T) {
	c := n8ntest.Client(t)
	hook := n8ntest.Unique("throw")
	wf := n8ntest.Create(t, c, n8ntest.ThrowWorkflow(hook, hook, "seam test boom"), true)
	out, err := runNode(t, "n8n.webhook", map[string]any{"path": hook, "body": map[string]any{}, "wait": true, "workflowId": string(wf.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if out["status"] != "fail" {
		t.Fatalf("status %v, want fail: %v", out["status"], out)
	}
	want := ` of workflow ` + string(wf.ID) + ` failed in node "Code": seam test boom [line 1]`
	if s := out["summary"].(string); !strings.Contains(s, want) || !strings.HasPrefix(s, "n8n execution ") {
		t.Fatalf("summary %q, want it to contain %q", s, want)
	}
	if got := path(out, "data", "execution", "error"); got != "seam test boom [line 1]" {
		t.Fatalf("data.execution.error = %v", got)
	}
}

func TestWebhookErrors(t *testing.T) {
	n8ntest.Env(t)
	out, err := runNode(t, "n8n.webhook", map[string]any{"path": "seam-no-such-hook"})
	if err == nil || !strings.Contains(err.Error(), `webhook POST seam-no-such-hook: HTTP 404 Not Found: The requested webhook "POST seam-no-such-hook" is not registered.`) {
		t.Fatalf("error %v, output %v", err, out)
	}
	_, err = runNode(t, "n8n.webhook", map[string]any{"path": "seam-no-such-hook", "wait": true})
	if err == nil || err.Error() != "webhook POST seam-no-such-hook: no active workflow has a Webhook node for POST seam-no-such-hook; activate it, or set workflowId" {
		t.Fatalf("error = %v", err)
	}
}

// TestExecutionsPaging makes more than one page of executions and pages through them.
func TestExecutionsPaging(t *testing.T) {
	c := n8ntest.Client(t)
	hook := n8ntest.Unique("page")
	wf := n8ntest.Create(t, c, n8ntest.GreetWorkflow(hook, hook), true)
	const total = 7
	n8ntest.Trigger(t, hook, `{"name":"p"}`, total)
	n8ntest.WaitFinished(t, c, wf.ID, total)

	// One page at a time, by hand: newest first, no repeats.
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > total {
			t.Fatal("cursor never ends")
		}
		with := map[string]any{"workflowId": string(wf.ID), "limit": 3}
		if cursor != "" {
			with["cursor"] = cursor
		}
		out, err := runNode(t, "n8n.executions.list", with)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range path(out, "data", "executions").([]any) {
			ids = append(ids, e.(map[string]any)["id"].(string))
		}
		next, _ := path(out, "data", "nextCursor").(string)
		if next == "" {
			break
		}
		if !strings.HasSuffix(out["summary"].(string), "; more on the next page") {
			t.Errorf("summary %q does not say there is more", out["summary"])
		}
		cursor = next
	}
	if len(ids) != total {
		t.Fatalf("paged through %d executions, want %d: %v", len(ids), total, ids)
	}
	seen := map[string]bool{}
	for i, id := range ids {
		if seen[id] {
			t.Fatalf("execution %s twice: %v", id, ids)
		}
		seen[id] = true
		if i > 0 && len(id) == len(ids[i-1]) && id > ids[i-1] {
			t.Fatalf("not newest first: %v", ids)
		}
	}

	// all: true follows the cursor itself.
	out, err := runNode(t, "n8n.executions.list", map[string]any{"workflowId": string(wf.ID), "limit": 3, "all": true})
	if err != nil {
		t.Fatal(err)
	}
	if got := path(out, "data", "count"); got != float64(total) {
		t.Fatalf("count %v, want %d", got, total)
	}
	if s := out["summary"]; s != "7 executions, 0 failed" {
		t.Fatalf("summary %q", s)
	}
}

func TestExecutionsGetAndList(t *testing.T) {
	c := n8ntest.Client(t)
	hook, bad := n8ntest.Unique("get"), n8ntest.Unique("bad")
	wf := n8ntest.Create(t, c, n8ntest.GreetWorkflow(hook, hook), true)
	badWF := n8ntest.Create(t, c, n8ntest.ThrowWorkflow(bad, bad, "no luck"), true)
	n8ntest.Trigger(t, hook, `{"name":"eve"}`, 1)
	n8ntest.Trigger(t, bad, `{}`, 2)
	ex := n8ntest.WaitFinished(t, c, wf.ID, 1)
	n8ntest.WaitFinished(t, c, badWF.ID, 2)

	id := ex[0].ID
	out, err := runNode(t, "n8n.executions.get", map[string]any{"id": string(id), "includeData": true})
	if err != nil {
		t.Fatal(err)
	}
	if got := path(out, "data", "execution", "items", 0, "greeting"); got != "hello eve" {
		t.Fatalf("items[0].greeting = %v", got)
	}
	if got := path(out, "data", "execution", "lastNode"); got != "Set" {
		t.Fatalf("lastNode = %v", got)
	}
	if path(out, "data", "execution", "executionData", "resultData") == nil {
		t.Fatal("no executionData.resultData")
	}
	want := "execution " + string(id) + " of workflow " + string(wf.ID) + ": success in "
	if s := out["summary"].(string); !strings.HasPrefix(s, want) || !strings.HasSuffix(s, "; Set returned 1 item") {
		t.Fatalf("summary %q", s)
	}

	// A numeric id works as well as a string, and without data there is none.
	n, err := json.Number(id).Int64()
	if err != nil {
		t.Fatalf("execution id %q is not a number", id)
	}
	out, err = runNode(t, "n8n.executions.get", map[string]any{"id": n})
	if err != nil {
		t.Fatal(err)
	}
	if path(out, "data", "execution", "executionData") != nil || path(out, "data", "execution", "id") != string(id) {
		t.Fatalf("output %v", out)
	}

	// The list counts failures; with status: error only those, with their message.
	out, err = runNode(t, "n8n.executions.list", map[string]any{"workflowId": string(badWF.ID), "status": "error", "includeData": true})
	if err != nil {
		t.Fatal(err)
	}
	if out["summary"] != "2 executions with status error" || path(out, "data", "failed") != float64(2) {
		t.Fatalf("output summary %v, failed %v", out["summary"], path(out, "data", "failed"))
	}
	if got := path(out, "data", "executions", 0, "error"); got != "no luck [line 1]" {
		t.Fatalf("executions[0].error = %v", got)
	}

	// Retry makes a new execution that says what it retries.
	r, err := c.RetryExecution(context.Background(), n8n.ID(path(out, "data", "executions", 0, "id").(string)), false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "error" || r.RetryOf == "" {
		t.Fatalf("retry: %+v", r)
	}
	if _, err := c.DeleteExecution(context.Background(), r.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetExecution(context.Background(), r.ID, false)
	if n8n.StatusCode(err) != 404 {
		t.Fatalf("get a deleted execution: %v", err)
	}
}

func TestWorkflowTypes(t *testing.T) {
	c := n8ntest.Client(t)
	hook := n8ntest.Unique("crud")
	def := n8ntest.GreetWorkflow(hook, hook)
	wfJSON, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	var wfValue map[string]any
	if err := json.Unmarshal(wfJSON, &wfValue); err != nil {
		t.Fatal(err)
	}

	out, err := runNode(t, "n8n.workflows.create", map[string]any{"workflow": wfValue, "activate": true})
	if err != nil {
		t.Fatal(err)
	}
	id := path(out, "data", "id").(string)
	t.Cleanup(func() { _, _ = c.DeleteWorkflow(context.Background(), n8n.ID(id)) })
	if want := `created workflow "` + hook + `" (id ` + id + `): 2 nodes, active`; out["summary"] != want {
		t.Fatalf("summary %q, want %q", out["summary"], want)
	}

	wfValue["name"] = hook + "-renamed"
	wfValue["active"] = false // read-only in n8n: not sent
	out, err = runNode(t, "n8n.workflows.update", map[string]any{"id": id, "workflow": wfValue})
	if err != nil {
		t.Fatal(err)
	}
	if path(out, "data", "name") != hook+"-renamed" {
		t.Fatalf("update: %v", out["summary"])
	}

	out, err = runNode(t, "n8n.workflows.deactivate", map[string]any{"id": id})
	if err != nil {
		t.Fatal(err)
	}
	if path(out, "data", "active") != false || !strings.HasPrefix(out["summary"].(string), "deactivated workflow") {
		t.Fatalf("deactivate: %v", out["summary"])
	}
	if _, err := runNode(t, "n8n.workflows.activate", map[string]any{"id": id}); err != nil {
		t.Fatal(err)
	}

	tag, err := c.CreateTag(context.Background(), n8ntest.Unique("seam"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetWorkflowTags(context.Background(), n8n.ID(id), []n8n.ID{tag.ID}); err != nil {
		t.Fatal(err)
	}
	tags, err := c.WorkflowTags(context.Background(), n8n.ID(id))
	if err != nil || len(tags) != 1 || tags[0].Name != tag.Name {
		t.Fatalf("tags %+v, %v", tags, err)
	}

	out, err = runNode(t, "n8n.workflows.list", map[string]any{"tags": []any{tag.Name}, "active": true})
	if err != nil {
		t.Fatal(err)
	}
	if path(out, "data", "count") != float64(1) || path(out, "data", "workflows", 0, "id") != id ||
		path(out, "data", "workflows", 0, "tags", 0) != tag.Name || out["summary"] != "1 workflow, 1 active" {
		t.Fatalf("list: %v", out)
	}

	out, err = runNode(t, "n8n.workflows.get", map[string]any{"id": id})
	if err != nil {
		t.Fatal(err)
	}
	if path(out, "data", "nodeCount") != float64(2) || path(out, "data", "workflow", "nodes", 1, "name") != "Set" {
		t.Fatalf("get: %v", out)
	}

	if _, err := c.DeleteWorkflow(context.Background(), n8n.ID(id)); err != nil {
		t.Fatal(err)
	}
	_, err = runNode(t, "n8n.workflows.get", map[string]any{"id": id})
	if err == nil || !strings.Contains(err.Error(), "get workflow "+id+": n8n GET /api/v1/workflows/"+id+": HTTP 404 Not Found") {
		t.Fatalf("get deleted: %v", err)
	}
}

// TestWrongAPIKey: n8n's 401 becomes a clear error that never shows the key.
func TestWrongAPIKey(t *testing.T) {
	url, _ := n8ntest.Env(t)
	const wrong = "wrong-key-0123456789-abcdefghij"
	getenv := func(k string) string {
		switch k {
		case "N8N_URL":
			return url
		case "MY_N8N_KEY":
			return wrong
		}
		return ""
	}
	typ := typeByName(t, getenv, "n8n.executions.list")
	_, err := typ.Run(context.Background(), &nodes.Call{With: map[string]any{"api_key_env": "MY_N8N_KEY"}})
	if err == nil {
		t.Fatal("no error with a wrong key")
	}
	msg := err.Error()
	want := "list executions: n8n GET /api/v1/executions: HTTP 401 Unauthorized: unauthorized (check the API key: N8N_API_KEY, or the variable api_key_env names)"
	if msg != want {
		t.Fatalf("error %q, want %q", msg, want)
	}
	if strings.Contains(msg, wrong) {
		t.Fatal("the error shows the key")
	}

	// In a Japanese run the client's words are Japanese; n8n's own message stays as n8n said it.
	_, err = typ.Run(context.Background(), &nodes.Call{With: map[string]any{"api_key_env": "MY_N8N_KEY"}, Lang: i18n.Japanese})
	want = "実行一覧の取得: n8n GET /api/v1/executions: HTTP 401 Unauthorized: unauthorized（API キーを確認してください: N8N_API_KEY か、api_key_env が指す変数）"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}

	// An unset key variable is said so, by name.
	_, err = typ.Run(context.Background(), &nodes.Call{With: map[string]any{"api_key_env": "UNSET_KEY"}})
	if err == nil || err.Error() != "no n8n API key: the environment variable UNSET_KEY is empty or unset" {
		t.Fatalf("error = %v", err)
	}
}

// TestWorkflowGate checks that create and update refuse a workflow the runtime validation
// finds errors in, that force writes it anyway and says so, and that n8n holds nothing refused.
func TestWorkflowGate(t *testing.T) {
	c := n8ntest.Client(t)
	name := n8ntest.Unique("gate")
	bad := map[string]any{
		"name": name,
		"nodes": []any{
			map[string]any{"id": "1", "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": []any{0, 0}, "parameters": map[string]any{}},
			map[string]any{"id": "2", "name": "Mystery", "type": "n8n-nodes-base.doesNotExist", "typeVersion": 1, "position": []any{200, 0}, "parameters": map[string]any{}},
		},
		"connections": map[string]any{"Start": map[string]any{"main": []any{[]any{map[string]any{"node": "Mystery", "type": "main", "index": 0}}}}},
	}
	_, err := runNode(t, "n8n.workflows.create", map[string]any{"workflow": bad})
	if err == nil || !strings.Contains(err.Error(), "n8n would reject or break this workflow: 1 error; the first:") ||
		!strings.Contains(err.Error(), `node "Mystery"`) || !strings.Contains(err.Error(), "set force: true to write it anyway") {
		t.Fatalf("create an invalid workflow: %v", err)
	}
	list, err := c.ListWorkflows(context.Background(), n8n.WorkflowFilter{Name: name})
	if err != nil || len(list.Data) != 0 {
		t.Fatalf("a refused workflow is in n8n: %+v, %v", list, err)
	}

	out, err := runNode(t, "n8n.workflows.create", map[string]any{"workflow": bad, "force": true})
	if err != nil {
		t.Fatal(err)
	}
	id := path(out, "data", "id").(string)
	t.Cleanup(func() { _, _ = c.DeleteWorkflow(context.Background(), n8n.ID(id)) })
	if path(out, "data", "validation", "forced") != true || path(out, "data", "validation", "errors") != float64(1) {
		t.Fatalf("forced create: %v", path(out, "data", "validation"))
	}
	if _, err := runNode(t, "n8n.workflows.update", map[string]any{"id": id, "workflow": bad}); err == nil ||
		!strings.Contains(err.Error(), "n8n would reject or break this workflow") {
		t.Fatalf("update with an invalid workflow: %v", err)
	}
}
