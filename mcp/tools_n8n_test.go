package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/n8ntest"
)

// n8nToolNames are the tools registered with Options.N8N; the last two write.
var n8nToolNames = []string{"list_workflows", "get_workflow", "validate_workflow", "list_executions", "get_execution",
	"create_workflow", "update_workflow"}

// connectN8N connects to a server whose n8n tools use c.
func connectN8N(t *testing.T, c *n8n.Client, readOnly bool) *sdk.ClientSession {
	t.Helper()
	return connectWith(t, Options{Root: t.TempDir(), N8N: c, ReadOnly: readOnly})
}

// offlineClient is a client of an n8n that is not there: port 1 on loopback, no retries.
func offlineClient(t *testing.T) *n8n.Client {
	t.Helper()
	c, err := n8n.New(n8n.Config{URL: "http://127.0.0.1:1", APIKey: "offline-key-0123456789", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// text is a reply's text content.
func text(r reply) string {
	return r.res.Content[0].(*sdk.TextContent).Text
}

// toMap turns a workflow built in Go into the JSON object a client sends.
func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// badWorkflow has one runtime error: a node of a type n8n does not know, named Mystery.
func badWorkflow(name string) map[string]any {
	return map[string]any{
		"name": name,
		"nodes": []any{
			map[string]any{"id": "1", "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": []any{0, 0}, "parameters": map[string]any{}},
			map[string]any{"id": "2", "name": "Mystery", "type": "n8n-nodes-base.doesNotExist", "typeVersion": 1, "position": []any{200, 0}, "parameters": map[string]any{}},
		},
		"connections": map[string]any{"Start": map[string]any{"main": []any{[]any{map[string]any{"node": "Mystery", "type": "main", "index": 0}}}}},
	}
}

func keys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func hasKeys(t *testing.T, what string, m map[string]any, want []string, not []string) {
	t.Helper()
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: no %q in %v", what, k, keys(m))
		}
	}
	for _, k := range not {
		if _, ok := m[k]; ok {
			t.Errorf("%s: has %q, which it should leave out: %v", what, k, keys(m))
		}
	}
}

// TestN8NToolsRegistration checks which n8n tools a server offers, with truthful
// annotations, without any n8n being reached.
func TestN8NToolsRegistration(t *testing.T) {
	tests := []struct {
		name     string
		client   bool
		readOnly bool
		want     []string
	}{
		{"no n8n", false, false, nil},
		{"n8n", true, false, n8nToolNames},
		{"n8n read-only", true, true, n8nToolNames[:5]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c *n8n.Client
			if tc.client {
				c = offlineClient(t)
			}
			cs := connectN8N(t, c, tc.readOnly)
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			offered := map[string]*sdk.Tool{}
			for _, tool := range res.Tools {
				offered[tool.Name] = tool
			}
			for _, name := range n8nToolNames {
				tool, has := offered[name]
				if want := containsStr(tc.want, name); has != want {
					t.Errorf("%s offered %v, want %v", name, has, want)
				}
				if !has {
					continue
				}
				a := tool.Annotations
				if a.OpenWorldHint == nil || !*a.OpenWorldHint {
					t.Errorf("%s: not marked open world", name)
				}
				writes := name == "create_workflow" || name == "update_workflow"
				if a.ReadOnlyHint == writes {
					t.Errorf("%s: readOnly %v", name, a.ReadOnlyHint)
				}
				destructive := a.DestructiveHint != nil && *a.DestructiveHint
				if destructive != (name == "update_workflow") {
					t.Errorf("%s: destructive %v", name, destructive)
				}
				if a.IdempotentHint == (name == "create_workflow") {
					t.Errorf("%s: idempotent %v", name, a.IdempotentHint)
				}
				raw, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)["raw"].(map[string]any)
				if raw["default"] != false {
					t.Errorf("%s: raw %v", name, raw)
				}
			}
		})
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestN8NToolsOffline checks what works without n8n, and how an n8n that is not there is
// reported: validating workflow JSON makes no request; the rest fail with n8n_unreachable.
func TestN8NToolsOffline(t *testing.T) {
	cs := connectN8N(t, offlineClient(t), false)
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		code    string
		message string
	}{
		{"validate JSON", "validate_workflow", map[string]any{"workflow": toMap(t, n8ntest.GreetWorkflow("greet", "greet"))}, "", `workflow "greet" is valid (runtime): 0 errors`},
		{"validate invalid JSON", "validate_workflow", map[string]any{"workflow": badWorkflow("bad"), "profile": "minimal"}, "", `workflow "bad" is invalid (minimal): 1 error`},
		{"not a workflow", "validate_workflow", map[string]any{"workflow": map[string]any{"name": "x"}}, "", `workflow "x" is invalid`},
		{"list unreachable", "list_workflows", map[string]any{}, CodeN8NUnreachable, "n8n is unreachable: list workflows: n8n GET /api/v1/workflows"},
		{"validate by id unreachable", "validate_workflow", map[string]any{"id": "abc"}, CodeN8NUnreachable, "n8n is unreachable"},
		{"create refused before n8n", "create_workflow", map[string]any{"workflow": badWorkflow("bad")}, CodeInvalidWorkflow, `workflow "bad" was not written`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, tc.tool, tc.args)
			if got := errCode(r); got != tc.code {
				t.Fatalf("code %q, want %q: %v", got, tc.code, r.env)
			}
			if msg := r.env["message"].(string); !strings.Contains(msg, tc.message) {
				t.Errorf("message %q, want it to contain %q", msg, tc.message)
			}
			if strings.Contains(text(r), "offline-key-0123456789") {
				t.Errorf("the API key is in the answer: %s", text(r))
			}
		})
	}
}

// n8nFixture is what TestN8NTools works on, in the real n8n: an active greeting workflow
// with a tag and two successful executions, and an active workflow with one failed one.
type n8nFixture struct {
	c                *n8n.Client
	greet, throw     *n8n.Workflow
	tag              string
	okExec, failExec string
}

func newN8NFixture(t *testing.T) *n8nFixture {
	t.Helper()
	c := n8ntest.Client(t)
	ctx := context.Background()
	f := &n8nFixture{c: c}
	path := n8ntest.Unique("mcp-greet")
	f.greet = n8ntest.Create(t, c, n8ntest.GreetWorkflow(path, path), true)
	f.tag = n8ntest.Unique("mcp-tag")
	tag, err := c.CreateTag(ctx, f.tag)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteTag(t, tag.ID) })
	if _, err := c.SetWorkflowTags(ctx, f.greet.ID, []n8n.ID{tag.ID}); err != nil {
		t.Fatal(err)
	}
	n8ntest.Trigger(t, path, `{"name": "ada"}`, 2)
	throwPath := n8ntest.Unique("mcp-throw")
	f.throw = n8ntest.Create(t, c, n8ntest.ThrowWorkflow(throwPath, throwPath, "payment API answered 503"), true)
	n8ntest.Trigger(t, throwPath, `{}`, 1)
	f.okExec = string(n8ntest.WaitFinished(t, c, f.greet.ID, 2)[0].ID)
	f.failExec = string(n8ntest.WaitFinished(t, c, f.throw.ID, 1)[0].ID)
	return f
}

// deleteTag deletes a tag the fixture made; the client has no call for it, so it is a plain
// request with the test server's key.
func deleteTag(t *testing.T, id n8n.ID) {
	url, key := n8ntest.Env(t)
	req, err := http.NewRequest(http.MethodDelete, url+"/api/v1/tags/"+string(id), nil)
	if err != nil {
		t.Logf("cleanup: %v", err)
		return
	}
	req.Header.Set("X-N8N-API-KEY", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Logf("cleanup: delete tag %s: %v", id, err)
		return
	}
	resp.Body.Close()
}

// TestN8NTools calls every n8n tool against the real n8n, minimal and raw, and its failures.
func TestN8NTools(t *testing.T) {
	f := newN8NFixture(t)
	_, key := n8ntest.Env(t)
	cs := connectN8N(t, f.c, false)
	greetID, throwID := string(f.greet.ID), string(f.throw.ID)
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		code    string // "" for success
		message string // a part of the message
		minimal func(t *testing.T, d map[string]any)
		raw     func(t *testing.T, d map[string]any) // called with raw: true added
	}{
		{"list by name", "list_workflows", map[string]any{"name": f.greet.Name}, "", "1 workflow, 1 active",
			func(t *testing.T, d map[string]any) {
				ws := d["workflows"].([]any)
				if len(ws) != 1 || num(d, "count") != 1 {
					t.Fatalf("data %v", d)
				}
				w := ws[0].(map[string]any)
				if len(w) != 3 || w["id"] != greetID || w["active"] != true || w["name"] != f.greet.Name {
					t.Errorf("minimal workflow %v, want id, name and active", w)
				}
			},
			func(t *testing.T, d map[string]any) {
				w := d["workflows"].([]any)[0].(map[string]any)
				hasKeys(t, "raw workflow", w, []string{"nodes", "connections", "settings", "tags"}, nil)
			}},
		{"list inactive by name", "list_workflows", map[string]any{"name": f.greet.Name, "active": false}, "", "0 workflows", nil, nil},
		{"list by tag", "list_workflows", map[string]any{"tags": []any{f.tag}}, "", "1 workflow", func(t *testing.T, d map[string]any) {
			if ws := d["workflows"].([]any); len(ws) != 1 || ws[0].(map[string]any)["id"] != greetID {
				t.Errorf("data %v", d)
			}
		}, nil},
		{"list page", "list_workflows", map[string]any{"limit": 1}, "", "more with cursor: next_cursor", func(t *testing.T, d map[string]any) {
			cursor, _ := d["next_cursor"].(string)
			if cursor == "" || num(d, "count") != 1 {
				t.Fatalf("data %v", d)
			}
			next := call(t, cs, "list_workflows", map[string]any{"limit": 1, "cursor": cursor}).data()
			if next["workflows"].([]any)[0].(map[string]any)["id"] == d["workflows"].([]any)[0].(map[string]any)["id"] {
				t.Errorf("the next page repeats the first: %v", next)
			}
		}, nil},
		{"list limit too large", "list_workflows", map[string]any{"limit": 300}, CodeInvalidArgument, "limit 300: want 1 to 250", nil, nil},
		{"get workflow", "get_workflow", map[string]any{"id": greetID}, "", "(id " + greetID + "): 2 nodes, active",
			func(t *testing.T, d map[string]any) {
				hasKeys(t, "minimal workflow", d, []string{"id", "name", "active", "tags", "node_count", "nodes"}, []string{"connections", "settings"})
				n := d["nodes"].([]any)[1].(map[string]any)
				if len(n) != 2 || n["name"] != "Set" || n["type"] != "n8n-nodes-base.set" {
					t.Errorf("minimal node %v, want its name and type", n)
				}
				if tags := d["tags"].([]any); len(tags) != 1 || tags[0] != f.tag {
					t.Errorf("tags %v", tags)
				}
			},
			func(t *testing.T, d map[string]any) {
				hasKeys(t, "raw workflow", d, []string{"id", "connections", "settings", "updatedAt"}, nil)
				if n := d["nodes"].([]any)[1].(map[string]any); n["parameters"] == nil {
					t.Errorf("raw node without parameters: %v", n)
				}
			}},
		{"get unknown workflow", "get_workflow", map[string]any{"id": "noSuchWorkflow42"}, CodeNotFound, "HTTP 404", nil, nil},
		{"get empty id", "get_workflow", map[string]any{"id": " "}, CodeInvalidArgument, "id is empty", nil, nil},
		{"get id naming another path", "get_workflow", map[string]any{"id": "a/b"}, CodeInvalidArgument, `id "a/b" is not an n8n id`, nil, nil},
		{"validate by id", "validate_workflow", map[string]any{"id": greetID}, "", "is valid (runtime): 0 errors", func(t *testing.T, d map[string]any) {
			if d["valid"] != true || d["id"] != greetID || d["workflow"] != f.greet.Name {
				t.Errorf("data %v", d)
			}
		}, nil},
		{"validate invalid", "validate_workflow", map[string]any{"workflow": badWorkflow("bad"), "profile": "strict"}, "", `workflow "bad" is invalid (strict): `,
			func(t *testing.T, d map[string]any) {
				first := d["first"].([]any)
				if d["valid"] != false || d["profile"] != "strict" || num(d, "errors") < 1 || len(first) == 0 || len(first) > minimalErrors {
					t.Fatalf("data %v", d)
				}
				if e := first[0].(map[string]any); e["node"] != "Mystery" || e["severity"] != "error" || e["message"] == "" {
					t.Errorf("first finding %v", e)
				}
				if s, _ := d["suggestions"].([]any); len(s) > minimalSuggestions {
					t.Errorf("%d suggestions", len(s))
				}
				hasKeys(t, "minimal validation", d, nil, []string{"statistics", "warnings_list"})
			},
			func(t *testing.T, d map[string]any) {
				hasKeys(t, "raw validation", d, []string{"statistics", "errors", "warnings", "suggestions"}, nil)
				if errs := d["errors"].([]any); errs[0].(map[string]any)["code"] == nil {
					t.Errorf("raw error without code: %v", errs[0])
				}
			}},
		{"validate bad profile", "validate_workflow", map[string]any{"id": greetID, "profile": "lenient"}, CodeInvalidArgument, `arguments: profile "lenient": want one of minimal, runtime, ai-friendly, strict`, nil, nil},
		{"validate neither", "validate_workflow", map[string]any{}, CodeInvalidArgument, "give workflow", nil, nil},
		{"validate both", "validate_workflow", map[string]any{"id": greetID, "workflow": badWorkflow("x")}, CodeInvalidArgument, "not both", nil, nil},
		{"validate unknown id", "validate_workflow", map[string]any{"id": "noSuchWorkflow42"}, CodeNotFound, "HTTP 404", nil, nil},
		{"list executions", "list_executions", map[string]any{"workflow_id": greetID}, "", "2 executions: 2 success", func(t *testing.T, d map[string]any) {
			es := d["executions"].([]any)
			if len(es) != 2 || num(d["counts"].(map[string]any), "success") != 2 {
				t.Fatalf("data %v", d)
			}
			e := es[0].(map[string]any)
			if e["status"] != "success" || e["id"] != f.okExec || d["workflow_id"] != greetID || d["workflow"] != f.greet.Name {
				t.Errorf("minimal execution %v in %v, want the newest, the workflow's id and name once", e, d)
			}
			hasKeys(t, "minimal execution", e, []string{"id", "status", "started_at", "duration_ms"}, []string{"workflow", "workflowId", "mode"})
		}, func(t *testing.T, d map[string]any) {
			hasKeys(t, "raw execution", d["executions"].([]any)[0].(map[string]any), []string{"id", "workflowId", "workflowName", "mode",
				"startedAt", "stoppedAt", "executionTime", "finished"}, nil)
		}},
		{"list failed executions", "list_executions", map[string]any{"workflow_id": throwID, "status": "error"}, "", "1 execution: 1 error", nil, nil},
		{"list executions page", "list_executions", map[string]any{"workflow_id": greetID, "limit": 1}, "", "more with cursor", func(t *testing.T, d map[string]any) {
			next := call(t, cs, "list_executions", map[string]any{"workflow_id": greetID, "limit": 1, "cursor": d["next_cursor"]}).data()
			if a, b := d["executions"].([]any)[0], next["executions"].([]any)[0]; a.(map[string]any)["id"] == b.(map[string]any)["id"] {
				t.Errorf("the next page repeats the first: %v", next)
			}
		}, nil},
		{"list executions of all workflows", "list_executions", map[string]any{"status": "error", "limit": 100}, "", "error", func(t *testing.T, d map[string]any) {
			found := false
			for _, e := range d["executions"].([]any) {
				e := e.(map[string]any)
				if e["workflow"] == nil {
					t.Fatalf("execution %v without its workflow", e)
				}
				found = found || e["id"] == f.failExec && e["workflow"] == f.throw.Name
			}
			if !found || d["workflow_id"] != nil {
				t.Errorf("failed execution %s of %s not listed: %v", f.failExec, throwID, d)
			}
		}, nil},
		{"list bad status", "list_executions", map[string]any{"status": "failed"}, CodeInvalidArgument, `status "failed": want one of canceled, error, running, success, waiting`, nil, nil},
		{"get execution", "get_execution", map[string]any{"id": f.okExec}, "", "of workflow " + greetID + ": success", func(t *testing.T, d map[string]any) {
			nodes, _ := d["nodes"].([]any)
			if d["status"] != "success" || d["mode"] != "webhook" || d["started_at"] == nil || d["workflow"] != f.greet.Name || len(nodes) != 2 {
				t.Errorf("data %v", d)
			}
		}, func(t *testing.T, d map[string]any) {
			hasKeys(t, "raw execution", d, []string{"workflowId", "workflowName", "stoppedAt", "nodeExecutions", "settings"}, []string{"data"})
		}},
		{"get execution data", "get_execution", map[string]any{"id": f.okExec, "include_data": true}, "", "; Set returned 1 item", func(t *testing.T, d map[string]any) {
			last, _ := d["nodes"].([]any)[1].(map[string]any)
			if last["name"] != "Set" || num(last, "items") != 1 || d["error"] != nil {
				t.Errorf("data %v", d)
			}
			hasKeys(t, "minimal execution", d, nil, []string{"data"})
		}, func(t *testing.T, d map[string]any) {
			data, _ := d["data"].(map[string]any)
			if data["resultData"] == nil {
				t.Errorf("raw execution without its data: %v", keys(d))
			}
		}},
		{"get failed execution", "get_execution", map[string]any{"id": f.failExec, "include_data": true}, "", "error in Code: payment API answered 503", func(t *testing.T, d map[string]any) {
			e, _ := d["error"].(map[string]any)
			if d["status"] != "error" || e["node"] != "Code" || !strings.Contains(e["message"].(string), "payment API answered 503") {
				t.Errorf("data %v", d)
			}
		}, nil},
		{"get unknown execution", "get_execution", map[string]any{"id": "999999999"}, CodeNotFound, "HTTP 404", nil, nil},
		{"get execution empty id", "get_execution", map[string]any{"id": ""}, CodeInvalidArgument, "id is empty", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, tc.tool, tc.args)
			if got := errCode(r); got != tc.code {
				t.Fatalf("code %q, want %q: %v", got, tc.code, r.env)
			}
			if msg := r.env["message"].(string); !strings.Contains(msg, tc.message) {
				t.Errorf("message %q, want it to contain %q", msg, tc.message)
			}
			if strings.Contains(text(r), key) {
				t.Fatalf("the API key is in the answer")
			}
			if tc.minimal != nil {
				tc.minimal(t, r.data())
			}
			if tc.raw != nil {
				args := map[string]any{"raw": true}
				for k, v := range tc.args {
					args[k] = v
				}
				rr := call(t, cs, tc.tool, args)
				if errCode(rr) != "" {
					t.Fatalf("raw: %v", rr.env)
				}
				tc.raw(t, rr.data())
			}
		})
	}
}

// TestN8NWriteTools checks create_workflow and update_workflow against the real n8n: an
// invalid workflow is refused with its first errors and not written, force writes it, and
// update replaces a workflow (and refuses an invalid one the same way).
func TestN8NWriteTools(t *testing.T) {
	c := n8ntest.Client(t)
	cs := connectN8N(t, c, false)
	ctx := context.Background()
	name := n8ntest.Unique("mcp-write")
	inN8N := func(t *testing.T, name string) int {
		t.Helper()
		p, err := c.ListWorkflows(ctx, n8n.WorkflowFilter{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Data)
	}

	refused := call(t, cs, "create_workflow", map[string]any{"workflow": badWorkflow(name)})
	if errCode(refused) != CodeInvalidWorkflow {
		t.Fatalf("invalid workflow: %v", refused.env)
	}
	msg := refused.env["message"].(string)
	for _, want := range []string{"was not written: the runtime validation found 1 error", `first: node "Mystery": `, "force: true writes it anyway"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	details := refused.env["error"].(map[string]any)["details"].(map[string]any)
	if first := details["first"].([]any); len(first) != 1 || first[0].(map[string]any)["node"] != "Mystery" || details["valid"] != false {
		t.Errorf("details %v: want the first errors", details)
	}
	rawRefused := call(t, cs, "create_workflow", map[string]any{"workflow": badWorkflow(name), "raw": true})
	if d := rawRefused.env["error"].(map[string]any)["details"].(map[string]any); d["statistics"] == nil || len(d["errors"].([]any)) != 1 {
		t.Errorf("raw details %v: want the whole validation", d)
	}
	if n := inN8N(t, name); n != 0 {
		t.Fatalf("a refused workflow is in n8n (%d)", n)
	}

	forced := call(t, cs, "create_workflow", map[string]any{"workflow": badWorkflow(name), "force": true})
	if errCode(forced) != "" {
		t.Fatalf("forced create: %v", forced.env)
	}
	d := forced.data()
	id, _ := d["id"].(string)
	if id == "" {
		t.Fatalf("no id: %v", d)
	}
	t.Cleanup(func() {
		if _, err := c.DeleteWorkflow(context.Background(), n8n.ID(id)); err != nil {
			t.Logf("cleanup: %v", err)
		}
	})
	v := d["validation"].(map[string]any)
	if v["forced"] != true || num(v, "errors") != 1 || d["active"] != false || num(d, "node_count") != 2 {
		t.Errorf("forced create %v", d)
	}
	if !strings.Contains(forced.env["message"].(string), "forced past 1 validation error") {
		t.Errorf("message %q", forced.env["message"])
	}
	hasKeys(t, "minimal create", d, nil, []string{"nodes", "connections", "workflow"})

	newName := name + "-v2"
	good := toMap(t, n8ntest.GreetWorkflow(newName, n8ntest.Unique("mcp-write")))
	updated := call(t, cs, "update_workflow", map[string]any{"id": id, "workflow": good, "raw": true})
	if errCode(updated) != "" {
		t.Fatalf("update: %v", updated.env)
	}
	ud := updated.data()
	if w := ud["workflow"].(map[string]any); w["name"] != newName || w["connections"] == nil || ud["forced"] != false {
		t.Errorf("raw update %v", ud)
	}
	if got, err := c.GetWorkflow(ctx, n8n.ID(id)); err != nil || got.Name != newName || len(got.Nodes) != 2 {
		t.Fatalf("after update n8n has %+v, %v", got, err)
	}

	tests := []struct {
		name    string
		args    map[string]any
		code    string
		message string
	}{
		{"invalid", map[string]any{"id": id, "workflow": badWorkflow(name)}, CodeInvalidWorkflow, "was not written"},
		{"unknown id", map[string]any{"id": "noSuchWorkflow42", "workflow": good}, CodeNotFound, "HTTP 404"},
		{"empty id", map[string]any{"id": "", "workflow": good}, CodeInvalidArgument, "id is empty"},
		{"no name", map[string]any{"id": id, "workflow": map[string]any{"nodes": []any{}, "connections": map[string]any{}}}, CodeInvalidArgument, "workflow has no name"},
	}
	for _, tc := range tests {
		t.Run("update "+tc.name, func(t *testing.T) {
			r := call(t, cs, "update_workflow", tc.args)
			if errCode(r) != tc.code || !strings.Contains(r.env["message"].(string), tc.message) {
				t.Errorf("got %v, want code %s and %q", r.env, tc.code, tc.message)
			}
		})
	}
	if got, err := c.GetWorkflow(ctx, n8n.ID(id)); err != nil || got.Name != newName {
		t.Errorf("a refused update changed the workflow: %+v, %v", got, err)
	}
}

// TestN8NUnauthorized checks that a wrong API key is reported as n8n_unauthorized, says
// what to fix, and shows neither the wrong key nor the right one.
func TestN8NUnauthorized(t *testing.T) {
	url, key := n8ntest.Env(t)
	wrong := "wrong-api-key-Zq8Xv3Lp0Tn5Rw2Y"
	c, err := n8n.New(n8n.Config{URL: url, APIKey: wrong})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectN8N(t, c, false)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"list_workflows", map[string]any{}},
		{"get_workflow", map[string]any{"id": "abc"}},
		{"list_executions", map[string]any{"raw": true}},
		{"create_workflow", map[string]any{"workflow": toMap(t, n8ntest.GreetWorkflow("x", "x"))}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			r := call(t, cs, tc.tool, tc.args)
			if errCode(r) != CodeN8NUnauthorized {
				t.Fatalf("code %q: %v", errCode(r), r.env)
			}
			msg := r.env["message"].(string)
			if !strings.Contains(msg, "n8n refused the API key of this server (N8N_API_KEY)") || !strings.Contains(msg, "HTTP 401") {
				t.Errorf("message %q: want it to say the key was refused", msg)
			}
			if s := text(r); strings.Contains(s, wrong) || strings.Contains(s, key) || strings.Contains(s, wrong[len(wrong)-8:]) {
				t.Errorf("the API key is in the answer: %s", s)
			}
		})
	}
}

// TestN8NInvalidArguments checks that arguments breaking a tool's input schema (a missing
// id, a wrong type) are refused before the tool runs.
func TestN8NInvalidArguments(t *testing.T) {
	cs := connectN8N(t, offlineClient(t), false)
	tests := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"missing id", "get_workflow", map[string]any{}},
		{"missing execution id", "get_execution", map[string]any{"include_data": true}},
		{"missing workflow", "create_workflow", map[string]any{"force": true}},
		{"workflow not an object", "validate_workflow", map[string]any{"workflow": "{}"}},
		{"active not a boolean", "list_workflows", map[string]any{"active": "yes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatalf("protocol error %v, want an error result", err)
			}
			if !res.IsError {
				t.Fatalf("no error for %v", tc.args)
			}
		})
	}
}
