package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/catalog"
	"github.com/seam-dag/seam/n8n/n8ntest"
	"github.com/seam-dag/seam/n8n/validate"
)

var loader catalog.Loader

func cat(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := loader.Get()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// corpus returns the realistic workflows of testdata/corpus, by file name.
func corpus(t *testing.T) map[string]*n8n.Workflow {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	out := map[string]*n8n.Workflow{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var w n8n.Workflow
		if err := json.Unmarshal(b, &w); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = &w
	}
	return out
}

func validateWF(t *testing.T, w *n8n.Workflow, p validate.Profile) *validate.Result {
	t.Helper()
	r, err := validate.Validate(context.Background(), &validate.Workflow{Name: w.Name, Nodes: w.Nodes, Connections: w.Connections, Settings: w.Settings},
		validate.Options{Profile: p, Catalog: cat(t)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCorpusValid: every realistic workflow, and every workflow the n8n package's tests run
// in the real n8n, validates with no error in the runtime profile (and in every profile but
// strict, whose advice may be errors).
func TestCorpusValid(t *testing.T) {
	all := corpus(t)
	all["n8ntest-greet"] = n8ntest.GreetWorkflow("greet", "greet")
	all["n8ntest-throw"] = n8ntest.ThrowWorkflow("throw", "throw", "boom")
	all["n8ntest-check"] = n8ntest.CheckWorkflow("check", "check", "boom")
	all["n8ntest-code"] = n8ntest.CodeWorkflow("code", "code", "return [{ json: { ok: true } }];")
	for name, w := range all {
		for _, p := range []validate.Profile{validate.Minimal, validate.Runtime, validate.AIFriendly} {
			r := validateWF(t, w, p)
			if !r.Valid {
				t.Errorf("%s (%s): %+v", name, p, r.Errors)
			}
		}
	}
}

// TestCorpusAcceptedByN8N proves the corpus is real: n8n creates and activates every
// workflow (activation is where n8n checks required parameters and credentials), and the
// webhook ones answer as built.
func TestCorpusAcceptedByN8N(t *testing.T) {
	c := n8ntest.Client(t)
	url, key := n8ntest.Env(t)
	credID := createCredential(t, url, key)
	paths := map[string]string{}
	parent := t // the workflows live until the webhooks have been called
	for name, w := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			for _, n := range w.Nodes {
				if p, ok := n["parameters"].(map[string]any)["path"].(string); ok {
					paths[name] = n8ntest.Unique(p)
					n["parameters"].(map[string]any)["path"] = paths[name]
					n["webhookId"] = strings.TrimPrefix(n8ntest.Unique("w"), "w-") + "-0000-4000-8000-000000000000"
				}
				if cr, ok := n["credentials"].(map[string]any); ok {
					for _, v := range cr {
						v.(map[string]any)["id"] = credID
					}
				}
			}
			w.Name = n8ntest.Unique(w.Name)
			if r := validateWF(t, w, validate.Runtime); !r.Valid {
				t.Fatalf("invalid: %+v", r.Errors)
			}
			created := n8ntest.Create(parent, c, w, true)
			if !created.Active {
				t.Fatalf("not active after activation")
			}
		})
	}
	call := func(method, path, body string) (int, string) {
		t.Helper()
		var resp *http.Response
		var err error
		// A freshly activated webhook can take a moment to register.
		for range 20 {
			req, _ := http.NewRequest(method, url+"/webhook/"+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err = http.DefaultClient.Do(req)
			if err == nil && resp.StatusCode != http.StatusNotFound {
				break
			}
			if resp != nil {
				resp.Body.Close()
			}
			time.Sleep(250 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := call("POST", paths["webhook-respond.json"], `{"sku": "A-1"}`); st != 201 || !strings.Contains(body, `"sku":"A-1"`) {
		t.Errorf("webhook-respond with sku: %d %s", st, body)
	}
	if st, body := call("POST", paths["webhook-respond.json"], `{}`); st != 400 || !strings.Contains(body, "sku is required") {
		t.Errorf("webhook-respond without sku: %d %s", st, body)
	}
	// The HTTP Request fails (nothing listens on port 9): its error output answers.
	if st, body := call("GET", paths["http-error-output.json"]+"?sku=A-1", ""); st != 200 || !strings.Contains(body, `"error"`) {
		t.Errorf("http-error-output: %d %s", st, body)
	}
	if st, body := call("POST", paths["switch-merge.json"], `{"kind": "bug"}`); st != 200 {
		t.Errorf("switch-merge: %d %s", st, body)
	}
}

// createCredential makes an OpenAI credential (a fake key: nothing calls OpenAI) that the AI
// workflow needs to be activated, and deletes it when the test ends.
func createCredential(t *testing.T, url, key string) string {
	t.Helper()
	body := `{"name": "` + n8ntest.Unique("seam-openai") + `", "type": "openAiApi", "data": {"apiKey": "sk-test", "header": false}}`
	req, _ := http.NewRequest("POST", url+"/api/v1/credentials", bytes.NewReader([]byte(body)))
	req.Header.Set("X-N8N-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.ID == "" {
		t.Fatalf("create credential: HTTP %d %v", resp.StatusCode, err)
	}
	t.Cleanup(func() {
		req, _ := http.NewRequest("DELETE", url+"/api/v1/credentials/"+out.ID, nil)
		req.Header.Set("X-N8N-API-KEY", key)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return out.ID
}

// TestN8NAgrees: what seam reports as errors in the runtime profile, the real n8n refuses
// to activate, or fails on every call.
func TestN8NAgrees(t *testing.T) {
	c := n8ntest.Client(t)
	url, _ := n8ntest.Env(t)
	webhook := func(path, mode string) map[string]any {
		return map[string]any{"id": "w", "name": "Webhook", "type": "n8n-nodes-base.webhook", "typeVersion": 2.0, "position": []any{0.0, 0.0},
			"webhookId":  strings.TrimPrefix(n8ntest.Unique("w"), "w-") + "-0000-4000-8000-000000000000",
			"parameters": map[string]any{"httpMethod": "GET", "path": path, "responseMode": mode}}
	}
	node := func(typ string, version float64, params map[string]any) map[string]any {
		return map[string]any{"id": "n", "name": "Next", "type": typ, "typeVersion": version, "position": []any{200.0, 0.0}, "parameters": params}
	}
	respond := map[string]any{"id": "r", "name": "Respond", "type": "n8n-nodes-base.respondToWebhook", "typeVersion": 1.1, "position": []any{400.0, 0.0},
		"parameters": map[string]any{"respondWith": "text", "responseBody": "ok"}}
	tests := []struct {
		name     string
		mode     string
		next     map[string]any
		extra    map[string]any
		code     string
		activate string // n8n's activation error, or "" when it activates and the call fails
		call     string
	}{
		{"unknown type", "onReceived", node("n8n-nodes-base.noOps", 1, map[string]any{}), nil, "UNKNOWN_NODE_TYPE", "Unrecognized node type", ""},
		{"required parameter", "onReceived", node("n8n-nodes-base.httpRequest", 4.2, map[string]any{}), nil, "REQUIRED_PARAMETER_MISSING", "Missing or invalid required parameters", ""},
		{"credentials", "onReceived", node("n8n-nodes-base.slack", 2.3, map[string]any{"select": "channel", "channelId": map[string]any{"__rl": true, "mode": "id", "value": "C1"}, "text": "hi", "otherOptions": map[string]any{}}), nil, "CREDENTIALS_MISSING", "Missing required credential", ""},
		{"unknown version", "onReceived", node("n8n-nodes-base.httpRequest", 4.15, map[string]any{"url": "http://127.0.0.1:9"}), nil, "TYPE_VERSION_UNKNOWN", "execute", ""},
		{"no respond node", "responseNode", node("n8n-nodes-base.noOp", 1, map[string]any{}), nil, "WEBHOOK_RESPONSE_NODE_MISSING", "", "No Respond to Webhook node found"},
		{"respond unused", "onReceived", node("n8n-nodes-base.noOp", 1, map[string]any{}), respond, "RESPOND_TO_WEBHOOK_UNUSED", "", "Unused Respond to Webhook node"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := n8ntest.Unique("agree")
			w := &n8n.Workflow{Name: n8ntest.Unique("agree"), Nodes: []map[string]any{webhook(path, tt.mode), tt.next},
				Connections: map[string]any{"Webhook": map[string]any{"main": []any{[]any{map[string]any{"node": "Next", "type": "main", "index": 0.0}}}}},
				Settings:    map[string]any{}}
			if tt.extra != nil {
				w.Nodes = append(w.Nodes, tt.extra)
				w.Connections["Next"] = map[string]any{"main": []any{[]any{map[string]any{"node": "Respond", "type": "main", "index": 0.0}}}}
			}
			r := validateWF(t, w, validate.Runtime)
			if is := findIssue(r.Errors, tt.code); is == nil {
				t.Fatalf("seam does not report %s: %+v %+v", tt.code, r.Errors, r.Warnings)
			}
			created := n8ntest.Create(t, c, w, false)
			_, err := c.ActivateWorkflow(context.Background(), created.ID)
			if tt.activate != "" {
				if err == nil || !strings.Contains(err.Error(), tt.activate) {
					t.Fatalf("n8n activation: %v, want %q", err, tt.activate)
				}
				return
			}
			if err != nil {
				t.Fatalf("n8n activation: %v", err)
			}
			resp, err := http.Get(url + "/webhook/" + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(b), tt.call) {
				t.Fatalf("n8n answered %d %s, want %q", resp.StatusCode, b, tt.call)
			}
		})
	}
}

func findIssue(l []validate.Issue, code string) *validate.Issue {
	for i := range l {
		if l[i].Code == code {
			return &l[i]
		}
	}
	return nil
}

// TestN8NAgreesAI: the AI Agent errors seam reports are the ones n8n's run fails with.
func TestN8NAgreesAI(t *testing.T) {
	c := n8ntest.Client(t)
	url, key := n8ntest.Env(t)
	credID := createCredential(t, url, key)
	model := map[string]any{"id": "m", "name": "Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1.2, "position": []any{100.0, 200.0},
		"parameters":  map[string]any{"model": map[string]any{"__rl": true, "mode": "id", "value": "gpt-4o-mini"}, "options": map[string]any{"maxRetries": 0.0}},
		"credentials": map[string]any{"openAiApi": map[string]any{"id": credID, "name": "OpenAI"}}}
	memory := func(name string) map[string]any {
		return map[string]any{"id": name, "name": name, "type": "@n8n/n8n-nodes-langchain.memoryBufferWindow", "typeVersion": 1.3, "position": []any{200.0, 200.0},
			"parameters": map[string]any{"sessionIdType": "customKey", "sessionKey": "s"}}
	}
	sub := func(t, to string) map[string]any {
		return map[string]any{t: []any{[]any{map[string]any{"node": to, "type": t, "index": 0.0}}}}
	}
	tests := []struct {
		name  string
		nodes []map[string]any
		conns map[string]any
		code  string
		n8n   string // the execution's error
	}{
		{"no model", nil, map[string]any{}, "AI_LANGUAGE_MODEL_MISSING", "A Chat Model sub-node must be connected"},
		{"two memories", []map[string]any{model, memory("M1"), memory("M2")},
			map[string]any{"Model": sub("ai_languageModel", "Agent"), "M1": sub("ai_memory", "Agent"), "M2": sub("ai_memory", "Agent")},
			"AI_TOO_MANY_MEMORIES", "Only 1 ai_memory sub-nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := n8ntest.Unique("agree-ai")
			nodes := []map[string]any{
				{"id": "w", "name": "Webhook", "type": "n8n-nodes-base.webhook", "typeVersion": 2.0, "position": []any{0.0, 0.0},
					"webhookId":  strings.TrimPrefix(n8ntest.Unique("w"), "w-") + "-0000-4000-8000-000000000000",
					"parameters": map[string]any{"httpMethod": "POST", "path": path, "responseMode": "lastNode", "options": map[string]any{}}},
				{"id": "a", "name": "Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 2.2, "position": []any{200.0, 0.0},
					"parameters": map[string]any{"promptType": "define", "text": "={{ $json.body.q }}", "options": map[string]any{"systemMessage": "Be brief."}}},
			}
			conns := map[string]any{"Webhook": map[string]any{"main": []any{[]any{map[string]any{"node": "Agent", "type": "main", "index": 0.0}}}}}
			for k, v := range tt.conns {
				conns[k] = v
			}
			w := &n8n.Workflow{Name: n8ntest.Unique("agree-ai"), Nodes: append(nodes, tt.nodes...), Connections: conns, Settings: map[string]any{}}
			if is := findIssue(validateWF(t, w, validate.Runtime).Errors, tt.code); is == nil {
				t.Fatalf("seam does not report %s", tt.code)
			}
			wf := n8ntest.Create(t, c, w, true)
			resp, err := http.Post(url+"/webhook/"+path, "application/json", strings.NewReader(`{"q": "hi"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			execs := n8ntest.WaitFinished(t, c, wf.ID, 1)
			e, err := c.GetExecution(context.Background(), execs[0].ID, true)
			if err != nil {
				t.Fatal(err)
			}
			o, err := e.Outcome(i18n.English)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(o.Error, tt.n8n) {
				t.Fatalf("n8n's run ended with %q, want %q", o.Error, tt.n8n)
			}
		})
	}
}
