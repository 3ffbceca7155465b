package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/telemetry/otlptest"
)

// tracedDAG has a node that passes on its second attempt (and says the secret on stderr on
// its first), a node whose output breaks its contract, a node skipped behind it, and an
// http node that sends the secret to a server that echoes it back in an error.
const tracedDAG = `version: 1
name: traced
env: [N8N_API_KEY]
nodes:
  fetch:
    type: exec
    retry: {attempts: 2}
    with:
      shell: true
      command: |
        if [ "$SEAM_ATTEMPT" -lt 2 ]; then echo "busy; key $N8N_API_KEY" >&2; exit 75; fi
        echo "{\"status\": \"pass\", \"summary\": \"fetched\", \"data\": {\"tp\": \"$TRACEPARENT\"}}"
  classify:
    type: const
    needs: [fetch]
    with:
      value: {status: pass, summary: classified, data: {confidence: 0.4}}
    contract:
      output:
        type: object
        properties:
          data: {type: object, required: [label]}
  publish:
    type: exec
    with:
      command: [echo, "${{ nodes.classify.output.summary }}"]
      output: text
  call:
    type: http
    with:
      url: URL/items
      headers: {Authorization: "Bearer ${{ env.N8N_API_KEY }}"}
`

// TestRunOTLP runs seam run against an OTLP/HTTP receiver on loopback, under a caller's
// TRACEPARENT, and checks the whole tree that crossed the wire: the run span under the
// caller's span, the lint span and the node spans under the run, attempts under their nodes,
// the violation as an event; metrics too; and that no secret of the environment (the DAG's
// env value, the OTLP headers) is in any exported byte.
func TestRunOTLP(t *testing.T) {
	const (
		secret     = "n8n-k3y-5ecret-value"
		otlpSecret = "otlp-t0ken-5ecret"
		callerTID  = "4bf92f3577b34da6a3ce929d0e0e4736"
		callerSID  = "00f067aa0ba902b7"
	)
	recv := otlptest.Start(t)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad key: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	t.Cleanup(echo.Close)
	dir := t.TempDir()
	file := filepath.Join(dir, "traced.yaml")
	if err := os.WriteFile(file, []byte(strings.Replace(tracedDAG, "URL", echo.URL, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// exec nodes inherit the process environment.
	t.Setenv("N8N_API_KEY", secret)
	vars := map[string]string{
		"SEAM_LANG":                   "en",
		"N8N_API_KEY":                 secret,
		"OTEL_TRACES_EXPORTER":        "otlp",
		"OTEL_METRICS_EXPORTER":       "otlp",
		"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL,
		"OTEL_EXPORTER_OTLP_HEADERS":  "x-api-key=" + otlpSecret,
		"TRACEPARENT":                 "00-" + callerTID + "-" + callerSID + "-01",
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--no-store", "--json", file}, strings.NewReader(""), &stdout, &stderr,
		func(k string) string { return vars[k] })
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the run fails)\nstderr: %s", code, stderr.String())
	}

	spans := recv.Spans()
	byID := map[string]otlptest.Span{}
	nodeSpans := map[string]otlptest.Span{}
	var runSpan, lintSpan otlptest.Span
	for _, s := range spans {
		byID[s.SpanID] = s
		switch s.Name {
		case "seam.run":
			runSpan = s
		case "seam.lint":
			lintSpan = s
		case "seam.node":
			nodeSpans[s.Attributes["seam.node"]] = s
		}
		if s.TraceID != callerTID {
			t.Errorf("%s is in trace %s, not the caller's", s.Name, s.TraceID)
		}
	}
	if runSpan.ParentSpanID != callerSID || runSpan.Attributes["seam.dag"] != "traced" || runSpan.Attributes["seam.status"] != "failed" ||
		runSpan.StatusCode != "error" || runSpan.Resource["service.name"] != "seam" {
		t.Errorf("run span: %+v", runSpan)
	}
	if lintSpan.ParentSpanID != runSpan.SpanID || lintSpan.StatusCode != "unset" {
		t.Errorf("lint span: %+v", lintSpan)
	}
	want := map[string]struct{ status, attempts string }{
		"fetch": {"passed", "2"}, "classify": {"failed", "1"}, "publish": {"skipped", "0"}, "call": {"failed", "1"},
	}
	for id, w := range want {
		s, ok := nodeSpans[id]
		if !ok {
			t.Errorf("no span for node %s", id)
			continue
		}
		if s.ParentSpanID != runSpan.SpanID || s.Attributes["seam.status"] != w.status || s.Attributes["seam.attempts"] != w.attempts {
			t.Errorf("%s: parent %s, %v", id, s.ParentSpanID, s.Attributes)
		}
	}
	if r := nodeSpans["publish"].Attributes["seam.skipped_reason"]; r != "upstream classify failed" {
		t.Errorf("publish skipped_reason %q", r)
	}
	var violations, attempts int
	for _, s := range spans {
		if s.Name != "seam.attempt" {
			continue
		}
		attempts++
		if p := byID[s.ParentSpanID]; p.Name != "seam.node" {
			t.Errorf("attempt under %q", p.Name)
		}
		for _, ev := range s.Events {
			if ev.Name == "contract.violation" {
				violations++
				if ev.Attributes["seam.pointer"] != "/data/label" || ev.Attributes["seam.keyword"] == "" || ev.Attributes["seam.message"] == "" {
					t.Errorf("violation event: %v", ev.Attributes)
				}
			}
		}
	}
	if attempts != 4 || violations != 1 {
		t.Errorf("%d attempt spans, %d violation events; want 4, 1", attempts, violations)
	}
	// fetch's second attempt saw its own span as TRACEPARENT.
	var fetch2 string
	for _, s := range spans {
		if s.Name == "seam.attempt" && s.Attributes["seam.attempt"] == "2" && s.ParentSpanID == nodeSpans["fetch"].SpanID {
			fetch2 = s.SpanID
		}
	}
	if fetch2 == "" || !strings.Contains(stdout.String(), "00-"+callerTID+"-"+fetch2+"-01") {
		t.Errorf("fetch's output lacks the TRACEPARENT of its attempt %s:\n%s", fetch2, stdout.String())
	}

	metrics := recv.MetricNames()
	for _, m := range []string{"seam.runs", "seam.node.duration", "seam.node.attempts", "seam.contract.violations"} {
		if !slices.Contains(metrics, m) {
			t.Errorf("metric %s not received (got %v)", m, metrics)
		}
	}
	for _, h := range recv.Headers() {
		if h.Get("X-Api-Key") != otlpSecret {
			t.Errorf("x-api-key header %q did not reach the receiver", h.Get("X-Api-Key"))
		}
	}
	// The grep: not one exported byte holds a secret, although fetch printed it on stderr
	// and the http server echoed it.
	for _, b := range recv.Bodies() {
		for _, s := range []string{secret, otlpSecret} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("an export request contains the secret %q", s)
			}
		}
	}
	if bytes.Contains(stderr.Bytes(), []byte(otlpSecret)) {
		t.Errorf("stderr shows the OTLP header: %s", stderr.String())
	}
}

// TestRunTelemetryCollectorDown: an unreachable collector neither fails the run nor holds
// the exit longer than the flush bound; a line on stderr says the spans were not delivered.
func TestRunTelemetryCollectorDown(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(file, []byte("version: 1\nname: ok\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: ok}}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A port that was free a moment ago: connections are refused.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	vars := map[string]string{"SEAM_LANG": "en", "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": url,
		"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20sup3rs3cret-token"}
	var stderr bytes.Buffer
	code := run([]string{"run", "--no-store", file}, strings.NewReader(""), io.Discard, &stderr, func(k string) string { return vars[k] })
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, stderr.String())
	}
	if !strings.HasPrefix(stderr.String(), "seam: telemetry: flush traces: ") || strings.Contains(stderr.String(), "sup3rs3cret") {
		t.Errorf("stderr: %q", stderr.String())
	}
}

// TestRunTraceN8N: with tracing on, an n8n node's request is a client span under the node's
// attempt and carries that span's traceparent to n8n; the API key is in no span.
func TestRunTraceN8N(t *testing.T) {
	const key = "n8n-api-k3y-value"
	var traceparent, gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		traceparent, gotKey = r.Header.Get("Traceparent"), r.Header.Get("X-N8N-API-KEY")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data": [], "nextCursor": null}`)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	file := filepath.Join(dir, "n8n.yaml")
	if err := os.WriteFile(file, []byte("version: 1\nname: n8n\nnodes:\n  list: {type: n8n.workflows.list, with: {}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	traceFile := filepath.Join(dir, "t.jsonl")
	vars := map[string]string{"SEAM_LANG": "en", "N8N_URL": srv.URL, "N8N_API_KEY": key}
	var stderr bytes.Buffer
	code := run([]string{"run", "--no-store", "--trace", traceFile, file}, strings.NewReader(""), io.Discard, &stderr,
		func(k string) string { return vars[k] })
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, stderr.String())
	}
	if gotKey != key {
		t.Fatalf("n8n got API key %q", gotKey)
	}
	b, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), key) {
		t.Error("the API key is in the trace")
	}
	checkClientSpan(t, b, traceparent, "n8n")
}

// TestRunTraceHTTP: with tracing on, an http node's request is a client span under the
// node's attempt and carries that span's traceparent; with tracing off, no header is added.
func TestRunTraceHTTP(t *testing.T) {
	var traceparent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		traceparent = r.Header.Get("Traceparent")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status": "pass", "summary": "ok"}`)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	file := filepath.Join(dir, "http.yaml")
	if err := os.WriteFile(file, []byte("version: 1\nname: h\nnodes:\n  call: {type: http, with: {url: \""+srv.URL+"/x\"}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "SEAM_LANG" {
			return "en"
		}
		return ""
	}
	var stderr bytes.Buffer
	if code := run([]string{"run", "--no-store", file}, strings.NewReader(""), io.Discard, &stderr, getenv); code != 0 {
		t.Fatalf("untraced: exit %d; stderr: %s", code, stderr.String())
	}
	if traceparent != "" {
		t.Errorf("untraced run sent traceparent %q", traceparent)
	}
	traceFile := filepath.Join(dir, "t.jsonl")
	if code := run([]string{"run", "--no-store", "--trace", traceFile, file}, strings.NewReader(""), io.Discard, &stderr, getenv); code != 0 {
		t.Fatalf("traced: exit %d; stderr: %s", code, stderr.String())
	}
	b, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	checkClientSpan(t, b, traceparent, "server")
}

// TestN8NKeyVars checks that the exporters learn the variables n8n nodes read their key from,
// whether the DAG's n8n block or the node names it.
func TestN8NKeyVars(t *testing.T) {
	e := &env{getenv: func(string) string { return "" }}
	d, err := dag.LoadBytes(context.Background(), "k.yaml", []byte(`version: 1
name: keys
n8n: {url: "http://127.0.0.1:5678", api_key_env: PROD_N8N_KEY}
nodes:
  a: {type: n8n.executions.list, with: {limit: 5}}
  b: {type: n8n.workflows.list, with: {api_key_env: OTHER_KEY}}
  c: {type: const, with: {value: {status: pass, summary: c}}}
`), dag.LoadOptions{Types: registry(e)})
	if err != nil {
		t.Fatal(err)
	}
	if got := n8nKeyVars(d); !slices.Equal(got, []string{"PROD_N8N_KEY", "OTHER_KEY"}) {
		t.Errorf("n8nKeyVars = %q", got)
	}
}

// checkClientSpan checks, in a --trace file's lines, that the HTTP client span sits under an
// attempt span and that who received that span's traceparent.
func checkClientSpan(t *testing.T, lines []byte, traceparent, who string) {
	t.Helper()
	type span struct {
		Name, Kind   string
		SpanID       string `json:"span_id"`
		TraceID      string `json:"trace_id"`
		ParentSpanID string `json:"parent_span_id"`
	}
	spans := map[string]span{}
	var client span
	for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var s span
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		spans[s.SpanID] = s
		if s.Kind == "client" {
			client = s
		}
	}
	if spans[client.ParentSpanID].Name != "seam.attempt" {
		t.Fatalf("client span %+v is not under an attempt", client)
	}
	if want := "00-" + client.TraceID + "-" + client.SpanID + "-01"; traceparent != want {
		t.Errorf("%s got traceparent %q, want %q", who, traceparent, want)
	}
}
