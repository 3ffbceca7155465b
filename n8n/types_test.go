package n8n

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seam-dag/seam/nodes"
)

func testTypes(env map[string]string) map[string]nodes.Type {
	m := map[string]nodes.Type{}
	for _, t := range Types(Options{Getenv: func(k string) string { return env[k] }}) {
		m[t.Name()] = t
	}
	return m
}

func TestTypeSchemasAreJSON(t *testing.T) {
	for name, typ := range testTypes(nil) {
		for what, b := range map[string][]byte{"config": typ.ConfigSchema(), "output": typ.OutputSchema()} {
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("%s %s schema: %v", name, what, err)
			}
		}
		if !strings.HasPrefix(name, "n8n.") || typ.Doc() == "" {
			t.Errorf("type %q: name or doc", name)
		}
	}
}

// TestRunConfigErrors: what a node's with gets wrong is said before any request is made.
func TestRunConfigErrors(t *testing.T) {
	env := map[string]string{EnvURL: "http://127.0.0.1:1", EnvAPIKey: testKey}
	tests := []struct {
		typ  string
		with map[string]any
		env  map[string]string
		want string
	}{
		{"n8n.workflows.get", map[string]any{}, env, "with/id: required"},
		{"n8n.workflows.get", map[string]any{"id": true}, env, "with/id: id must be a string or a number, got bool"},
		{"n8n.workflows.get", map[string]any{"id": "1"}, map[string]string{EnvAPIKey: testKey},
			"no n8n URL: set url in the node's with or the DAG's n8n block, or N8N_URL"},
		{"n8n.workflows.get", map[string]any{"id": "1"}, map[string]string{EnvURL: "http://127.0.0.1:1"},
			"no n8n API key: the environment variable N8N_API_KEY is empty or unset"},
		{"n8n.workflows.get", map[string]any{"id": "1", "url": "http://n8n.example.com"}, env,
			"n8n: refusing plain http:// to n8n.example.com, which is not loopback"},
		{"n8n.workflows.get", map[string]any{"id": "1", "url": 5}, env, "with/url: must be a string, got int"},
		{"n8n.workflows.get", map[string]any{"id": "1", "insecure": "yes"}, env, "with/insecure: must be a boolean, got string"},
		{"n8n.workflows.get", map[string]any{"id": "1", "api_key_env": "not a name"}, env,
			`with/api_key_env: "not a name" is not an environment variable name`},
		{"n8n.workflows.list", map[string]any{"limit": 500}, env, "with/limit: must be between 1 and 250, got 500"},
		{"n8n.workflows.list", map[string]any{"limit": 2.5}, env, "with/limit: must be a whole number, got 2.5"},
		{"n8n.workflows.list", map[string]any{"tags": []any{"a", 3}}, env, "with/tags/1: must be a string, got int"},
		{"n8n.workflows.list", map[string]any{"tags": 3}, env, "with/tags: must be a list of tag names, got int"},
		{"n8n.workflows.list", map[string]any{"active": "yes"}, env, "with/active: must be a boolean, got string"},
		{"n8n.workflows.create", map[string]any{}, env, "with/workflow: required"},
		{"n8n.workflows.create", map[string]any{"workflow": "x"}, env, "with/workflow: must be an object (name, nodes, connections), got string"},
		{"n8n.workflows.create", map[string]any{"workflow": map[string]any{"nodes": []any{}}}, env, "with/workflow/name: required"},
		{"n8n.workflows.create", map[string]any{"workflow": map[string]any{"name": "x", "nodes": 5}}, env, "with/workflow: not a workflow: json: cannot unmarshal"},
		{"n8n.workflows.update", map[string]any{"workflow": map[string]any{"name": "x"}}, env, "with/id: required"},
		{"n8n.workflows.activate", map[string]any{"id": ""}, env, "with/id: id is empty"},
		{"n8n.executions.list", map[string]any{"status": "failed"}, env, `with/status: must be one of canceled, error, running, success, waiting, got "failed"`},
		{"n8n.executions.list", map[string]any{"includeData": 1}, env, "with/includeData: must be a boolean, got int"},
		{"n8n.executions.list", map[string]any{"limit": 101}, env, "with/limit: must be between 1 and 100, got 101"},
		{"n8n.executions.list", map[string]any{"limit": 0}, env, "with/limit: must be between 1 and 100, got 0"},
		{"n8n.executions.list", map[string]any{"startDate": "yesterday"}, env,
			`with/startDate: "yesterday" is not an ISO 8601 date or time: want e.g. 2026-01-02 or 2026-01-02T15:04:05Z`},
		{"n8n.executions.list", map[string]any{"endDate": "2026-13-01"}, env, `with/endDate: "2026-13-01" is not an ISO 8601 date or time`},
		{"n8n.executions.list", map[string]any{"endDate": "2026-01-02T15:04:05"}, env, `with/endDate: "2026-01-02T15:04:05" is not an ISO 8601 date or time`},
		{"n8n.executions.list", map[string]any{"startDate": 5}, env, "with/startDate: must be a string, got int"},
		{"n8n.executions.list", map[string]any{"startDate": "2026-02-01", "endDate": "2026-01-31"}, env,
			"with/startDate: startDate 2026-02-01T00:00:00Z is after endDate 2026-01-31T23:59:59Z"},
		{"n8n.executions.get", map[string]any{"id": 1.5}, env, "with/id: id must be a whole number, got 1.5"},
		{"n8n.webhook", map[string]any{}, env, "with/path: required: the Webhook node's path"},
		{"n8n.webhook", map[string]any{"path": "p", "method": "TRACE"}, env, `with/method: must be one of GET, POST, PUT, PATCH, DELETE, HEAD, got "TRACE"`},
		{"n8n.webhook", map[string]any{"path": "p", "method": "get", "body": 1}, env, "with/body: a GET request has no body; use query"},
		{"n8n.webhook", map[string]any{"path": "p", "headers": map[string]any{"X": 1}}, env, "with/headers/X: must be a string, got int"},
		{"n8n.webhook", map[string]any{"path": "p", "headers": "x"}, env, "with/headers: must be a mapping of header names to strings, got string"},
		{"n8n.webhook", map[string]any{"path": "p", "query": map[string]any{"q": []any{}}}, env, "with/query/q: must be a string, number or boolean, got []interface {}"},
		{"n8n.webhook", map[string]any{"path": "p", "query": 1}, env, "with/query: must be a mapping of names to values, got int"},
		{"n8n.webhook", map[string]any{"path": "p", "timeout": "soon"}, env, `with/timeout: must be a positive duration such as 30s or 2m, got "soon"`},
		{"n8n.webhook", map[string]any{"path": "p", "poll_interval": "-1s"}, env, `with/poll_interval: must be a positive duration such as 30s or 2m, got "-1s"`},
		{"n8n.webhook", map[string]any{"path": "p", "include_data": true}, env, "with/include_data: needs wait: true (the items come from the execution)"},
		{"n8n.webhook", map[string]any{"path": "p", "url": "http://10.1.2.3:5678"}, env, "n8n: refusing plain http:// to 10.1.2.3:5678, which is not loopback"},
		{"n8n.webhook", map[string]any{"path": "p", "wait": true}, map[string]string{EnvURL: "http://127.0.0.1:1"},
			"no n8n API key: the environment variable N8N_API_KEY is empty or unset"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.want, func(t *testing.T) {
			typ := testTypes(tt.env)[tt.typ]
			_, err := typ.Run(context.Background(), &nodes.Call{Node: "n", With: tt.with})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Fatalf("error shows the key: %v", err)
			}
		})
	}
}

// TestExecutionsConfigErrorsJapanese: the date and limit errors of n8n.executions.list read
// in Japanese where the run's language is.
func TestExecutionsConfigErrorsJapanese(t *testing.T) {
	typ := testTypes(map[string]string{EnvURL: "http://127.0.0.1:1", EnvAPIKey: testKey})["n8n.executions.list"]
	tests := []struct {
		with map[string]any
		want string
	}{
		{map[string]any{"startDate": "yesterday"}, `with/startDate: "yesterday" は ISO 8601 の日付でも時刻でもありません。2026-01-02 や 2026-01-02T15:04:05Z のように指定してください`},
		{map[string]any{"startDate": "2026-02-01", "endDate": "2026-01-31"}, "with/startDate: startDate 2026-02-01T00:00:00Z が endDate 2026-01-31T23:59:59Z より後です"},
		{map[string]any{"limit": 250}, "with/limit: 1 から 100 の間である必要がありますが、250 です"},
	}
	for _, tt := range tests {
		_, err := typ.Run(context.Background(), &nodes.Call{Node: "n", With: tt.with})
		var ce *nodes.ConfigError
		if !errors.As(err, &ce) || ce.Text("ja") != tt.want {
			t.Errorf("%v: error %v, want %q", tt.with, err, tt.want)
		}
	}
}

// TestWebhookCheck: the load-time check reports what the schema cannot, and leaves what
// references decide to run time.
func TestWebhookCheck(t *testing.T) {
	c := testTypes(nil)["n8n.webhook"].(nodes.Checker)
	if err := c.Check(map[string]any{"path": "p", "timeout": "soon"}); err == nil || !strings.Contains(err.Error(), "with/timeout") {
		t.Fatalf("error = %v", err)
	}
	if err := c.Check(map[string]any{"path": "${{ params.path }}", "wait": true, "include_data": true}); err != nil {
		t.Fatalf("error = %v", err)
	}
}

// TestWebhookAnswers: the webhook's own answer, fault-injected: a 4xx fails the node with
// n8n's message, a 2xx without wait passes with the answer as data.
func TestWebhookAnswers(t *testing.T) {
	var gotHeader, gotBody, gotQuery, gotCT string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHeader, gotQuery, gotCT = r.Header.Get(RequestHeader), r.URL.RawQuery, r.Header.Get("X-Custom")
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		switch r.URL.Path {
		case "/webhook/ok":
			fmt.Fprint(w, `{"message":"Workflow was started"}`)
		case "/webhook/text":
			fmt.Fprint(w, "plain answer")
		case "/webhook/auth":
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"code":403,"message":"Authorization data is wrong!"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"code":404,"message":"The requested webhook \"%s %s\" is not registered."}`, r.Method, strings.TrimPrefix(r.URL.Path, "/webhook/"))
		}
	}))
	defer srv.Close()
	typ := testTypes(map[string]string{EnvURL: srv.URL + "/api/v1"})["n8n.webhook"]

	res, err := typ.Run(context.Background(), &nodes.Call{With: map[string]any{
		"path": "/ok/", "body": map[string]any{"a": 1}, "query": map[string]any{"x": 2}, "headers": map[string]any{"X-Custom": "c"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data":{"response":{"message":"Workflow was started"},"statusCode":200},"status":"pass","summary":"webhook POST ok answered 200: Workflow was started"}`
	if string(res.Output) != want {
		t.Fatalf("output %s\nwant   %s", res.Output, want)
	}
	if len(gotHeader) != 24 || gotBody != `{"a":1}` || gotQuery != "x=2" || gotCT != "c" {
		t.Fatalf("request: header %q body %q query %q custom %q", gotHeader, gotBody, gotQuery, gotCT)
	}

	res, err = typ.Run(context.Background(), &nodes.Call{With: map[string]any{"path": "text", "method": "GET"}})
	if err != nil || !strings.Contains(string(res.Output), `"response":"plain answer"`) {
		t.Fatalf("text answer: %s, %v", res.Output, err)
	}

	for path, want := range map[string]string{
		"auth": "webhook POST auth: HTTP 403 Forbidden: Authorization data is wrong!",
		"gone": `webhook POST gone: HTTP 404 Not Found: The requested webhook "POST gone" is not registered.`,
	} {
		_, err := typ.Run(context.Background(), &nodes.Call{With: map[string]any{"path": path}})
		if err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	}

	// An answer over the output limit is refused, not truncated.
	_, err = typ.Run(context.Background(), &nodes.Call{With: map[string]any{"path": "ok"}, OutputLimit: 10})
	if err == nil || err.Error() != "webhook POST ok: output exceeds the 10 bytes limit" {
		t.Fatalf("error = %v", err)
	}
}

func TestExecutionsSentence(t *testing.T) {
	tests := []struct {
		n, failed int
		counts    map[string]int
		status    string
		want      string
	}{
		{0, 0, nil, "", "no executions"},
		{0, 0, nil, "error", "no executions with status error"},
		{1, 0, map[string]int{"success": 1}, "", "1 execution, 0 failed"},
		{12, 3, map[string]int{"success": 8, "error": 3, "running": 1}, "", "12 executions, 3 failed, 1 running"},
		{4, 4, map[string]int{"error": 4}, "error", "4 executions with status error"},
	}
	for _, tt := range tests {
		if got := executionsSentence(tt.n, tt.failed, tt.counts, tt.status); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

// TestWebhookTimeouts: timeout bounds the call, and with wait the wait for the execution,
// which a fake n8n keeps running.
func TestWebhookTimeouts(t *testing.T) {
	var listings atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/webhook/slow":
			<-r.Context().Done()
		case "/webhook/fast":
			fmt.Fprint(w, `{"message":"Workflow was started"}`)
		case "/api/v1/executions":
			// The first listing is before the call: execution 1. Then 2 appears and runs on.
			if listings.Add(1) == 1 {
				fmt.Fprint(w, `{"data":[{"id":1,"status":"success","workflowId":"w1"}],"nextCursor":null}`)
				return
			}
			fmt.Fprint(w, `{"data":[{"id":2,"status":"running","workflowId":"w1"},{"id":1,"status":"success","workflowId":"w1"}],"nextCursor":null}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	typ := testTypes(map[string]string{EnvURL: srv.URL, EnvAPIKey: testKey})["n8n.webhook"]

	_, err := typ.Run(context.Background(), &nodes.Call{With: map[string]any{"path": "slow", "timeout": "50ms"}})
	if err == nil || err.Error() != "webhook POST slow: no answer within 50ms; raise timeout to wait longer" {
		t.Fatalf("error = %v", err)
	}
	_, err = typ.Run(context.Background(), &nodes.Call{With: map[string]any{
		"path": "fast", "wait": true, "workflowId": "w1", "timeout": "300ms", "poll_interval": "10ms",
	}})
	want := "webhook POST fast: no finished execution of workflow w1 within 300ms (execution 2 is running); raise timeout to wait longer"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant %s", err, want)
	}
}
