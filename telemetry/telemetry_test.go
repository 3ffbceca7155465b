package telemetry_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/telemetry"
	"github.com/seam-dag/seam/telemetry/otlptest"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// smallDAG has a passing node and a node whose output breaks its contract.
const smallDAG = `version: 1
name: small
nodes:
  ok:
    type: const
    with: {value: {status: pass, summary: fine}}
  bad:
    type: const
    with: {value: {status: pass, summary: "x", data: {n: "three"}}}
    contract:
      output: {type: object, properties: {data: {type: object, properties: {n: {type: integer}}}}}
`

// runSmall runs smallDAG with tel's tracer and instruments, under tel's parent.
func runSmall(t *testing.T, tel *telemetry.Telemetry) *dag.RunResult {
	t.Helper()
	ctx := context.Background()
	d, err := dag.LoadBytes(ctx, "small.yaml", []byte(smallDAG), dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(tel.Context(ctx), d, engine.RunOptions{Tracer: tel.Tracer, Metrics: tel.Metrics})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func setup(t *testing.T, env map[string]string, opts telemetry.Options) *telemetry.Telemetry {
	t.Helper()
	opts.Getenv = envOf(env)
	tel, err := telemetry.Setup(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return tel
}

// TestOff: with no variables set, nothing is built, so a run pays nothing.
func TestOff(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"unset":    nil,
		"none":     {"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"},
		"disabled": {"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "bogus", "OTEL_METRICS_EXPORTER": "otlp"},
	} {
		t.Run(name, func(t *testing.T) {
			tel := setup(t, env, telemetry.Options{})
			if tel.Tracer != nil || tel.Metrics != nil || tel.Enabled() || tel.TracerProvider() != nil || tel.Meter() != nil {
				t.Errorf("built: tracer %v, metrics %v", tel.Tracer, tel.Metrics)
			}
			if err := tel.Shutdown(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	var nilTel *telemetry.Telemetry
	if err := nilTel.Shutdown(context.Background()); err != nil || nilTel.Enabled() {
		t.Errorf("nil telemetry: %v", err)
	}
}

func TestSetupErrors(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		file    string
		wantErr string
	}{
		{"traces exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "",
			`OTEL_TRACES_EXPORTER: unknown exporter "zipkin"; want otlp, console or none`},
		{"metrics exporter", map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}, "",
			`OTEL_METRICS_EXPORTER: unknown exporter "prometheus"; want otlp, console or none`},
		{"sampler", map[string]string{"OTEL_TRACES_EXPORTER": "console", "OTEL_TRACES_SAMPLER": "often"}, "",
			`OTEL_TRACES_SAMPLER: unknown sampler "often"`},
		{"resource", map[string]string{"OTEL_METRICS_EXPORTER": "console", "OTEL_RESOURCE_ATTRIBUTES": "novalue"}, "",
			`OTEL_RESOURCE_ATTRIBUTES: entry 1 ("novalue") is not key=value`},
		{"trace headers", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_HEADERS": "tok3n-s3cret"}, "",
			"OTEL_EXPORTER_OTLP_HEADERS: entry 1 is not key=value (values are not shown: they may be secrets)"},
		{"metric protocol", map[string]string{"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/json"}, "",
			"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: http/json is not supported for metrics; use http/protobuf or grpc"},
		{"trace file", nil, filepath.Join("no", "such", "dir", "t.jsonl"),
			"trace file: open no/such/dir/t.jsonl: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := telemetry.Setup(context.Background(), telemetry.Options{Getenv: envOf(tt.env), TraceFile: tt.file})
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v\nwant  %s", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the message shows a header value: %v", err)
			}
		})
	}
}

// TestOTLPHTTP sends a run's spans and metrics to a receiver on loopback over OTLP/HTTP:
// the headers reach it, and no header value is in what was exported.
func TestOTLPHTTP(t *testing.T) {
	for _, tt := range []struct{ name, gzip, proto string }{
		{"protobuf", "none", "http/protobuf"},
		{"gzip", "gzip", "http/protobuf"},
		{"json", "none", "http/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := otlptest.Start(t)
			tel := setup(t, map[string]string{
				"OTEL_TRACES_EXPORTER":               "otlp",
				"OTEL_METRICS_EXPORTER":              "otlp",
				"OTEL_EXPORTER_OTLP_ENDPOINT":        r.URL,
				"OTEL_EXPORTER_OTLP_HEADERS":         "authorization=Bearer%20hunter2",
				"OTEL_EXPORTER_OTLP_COMPRESSION":     tt.gzip,
				"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": tt.proto,
				"OTEL_SERVICE_NAME":                  "seam-test",
				"OTEL_RESOURCE_ATTRIBUTES":           "deployment.environment=ci",
				"OTEL_EXPORTER_OTLP_TRACES_HEADER":   "ignored=1",
			}, telemetry.Options{Version: "v0.test"})
			res := runSmall(t, tel)
			if err := tel.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			spans := r.Spans()
			names := map[string]int{}
			for _, s := range spans {
				names[s.Name]++
			}
			// ok is pure and passed: listed on a seam.pure span, without spans of its own.
			if names["seam.run"] != 1 || names["seam.node"] != 1 || names["seam.attempt"] != 1 || names["seam.pure"] != 1 {
				t.Fatalf("spans: %v", names)
			}
			for _, s := range spans {
				if s.Resource["service.name"] != "seam-test" || s.Resource["deployment.environment"] != "ci" || s.Resource["service.version"] != "v0.test" {
					t.Fatalf("resource: %v", s.Resource)
				}
				if s.Name == "seam.run" && s.Attributes["seam.run_id"] != res.ID {
					t.Errorf("run span: %v", s.Attributes)
				}
			}
			var violations int
			for _, s := range spans {
				for _, ev := range s.Events {
					if ev.Name == "contract.violation" && ev.Attributes["seam.pointer"] == "/data/n" {
						violations++
					}
				}
			}
			if violations != 1 {
				t.Errorf("%d violation events", violations)
			}
			metrics := r.MetricNames()
			for _, m := range []string{"seam.node.duration", "seam.node.attempts", "seam.contract.violations", "seam.runs"} {
				if !slices.Contains(metrics, m) {
					t.Errorf("metric %s not received (got %v)", m, metrics)
				}
			}
			for _, h := range r.Headers() {
				if h.Get("Authorization") != "Bearer hunter2" {
					t.Errorf("authorization header = %q", h.Get("Authorization"))
				}
			}
			for _, b := range r.Bodies() {
				if bytes.Contains(b, []byte("hunter2")) {
					t.Error("a header value was exported")
				}
			}
		})
	}
}

// TestTraceFile: --trace FILE gets one JSON object per span and line.
func TestTraceFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	// OTEL_SDK_DISABLED turns off the OTLP exporter (whose flush would fail: nothing listens),
	// not the file that --trace asks for.
	tel := setup(t, map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp",
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, telemetry.Options{TraceFile: file})
	if tel.Tracer == nil || tel.Metrics != nil || tel.Meter() != nil {
		t.Fatalf("tracer %v, metrics %v", tel.Tracer, tel.Metrics)
	}
	runSmall(t, tel)
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type line struct {
		Name         string `json:"name"`
		TraceID      string `json:"trace_id"`
		SpanID       string `json:"span_id"`
		ParentSpanID string `json:"parent_span_id"`
		Status       string `json:"status"`
		Attributes   map[string]any
		Events       []struct {
			Name       string         `json:"name"`
			Attributes map[string]any `json:"attributes"`
		} `json:"events"`
		Service string `json:"service"`
	}
	var lines []line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not a JSON line: %s: %v", sc.Bytes(), err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 4 { // run, bad's node and attempt, the seam.pure span listing ok
		t.Fatalf("%d lines, want 4 spans", len(lines))
	}
	byID := map[string]line{}
	for _, l := range lines {
		byID[l.SpanID] = l
	}
	for _, l := range lines {
		if l.Service != "seam" || l.TraceID != lines[0].TraceID {
			t.Errorf("%s: service %q, trace %s", l.Name, l.Service, l.TraceID)
		}
		switch l.Name {
		case "seam.run":
			if l.ParentSpanID != "" || l.Status != "error" {
				t.Errorf("run: %+v", l)
			}
		case "seam.attempt":
			if byID[l.ParentSpanID].Name != "seam.node" {
				t.Errorf("attempt's parent: %+v", byID[l.ParentSpanID])
			}
			if l.Attributes["seam.attempt"] != float64(1) {
				t.Errorf("attempt: %v", l.Attributes)
			}
			if l.Status == "error" && (len(l.Events) != 1 || l.Events[0].Name != "contract.violation" ||
				l.Events[0].Attributes["seam.keyword"] == nil) {
				t.Errorf("failed attempt's events: %+v", l.Events)
			}
		}
	}
}

// TestConsole: the console exporters write spans and metrics to Options.Console.
func TestConsole(t *testing.T) {
	var buf bytes.Buffer
	tel := setup(t, map[string]string{"OTEL_TRACES_EXPORTER": "console", "OTEL_METRICS_EXPORTER": "console"},
		telemetry.Options{Console: &buf})
	runSmall(t, tel)
	// Meter is the same provider's: what is measured with it is exported with the rest.
	c, err := tel.Meter().Int64Counter("seam.test")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 1)
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Name":"seam.run"`, `"Name":"seam.attempt"`, `"contract.violation"`, `"Name":"seam.runs"`, `"Name":"seam.test"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("console output lacks %s", want)
		}
	}
}

// TestParent: a TRACEPARENT in seam's environment becomes the run span's parent; a malformed
// one is ignored.
func TestParent(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	tests := []struct {
		name        string
		traceparent string
		wantParent  string
	}{
		{"valid", "00-" + traceID + "-" + spanID + "-01", spanID},
		{"malformed", "00-nonsense-01", ""},
		{"absent", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "t.jsonl")
			tel := setup(t, map[string]string{"TRACEPARENT": tt.traceparent, "TRACESTATE": "vendor=x"}, telemetry.Options{TraceFile: file})
			runSmall(t, tel)
			if err := tel.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				var s struct {
					Name         string `json:"name"`
					TraceID      string `json:"trace_id"`
					ParentSpanID string `json:"parent_span_id"`
				}
				if err := json.Unmarshal([]byte(l), &s); err != nil {
					t.Fatal(err)
				}
				if s.Name != "seam.run" {
					continue
				}
				if s.ParentSpanID != tt.wantParent || (tt.wantParent != "" && s.TraceID != traceID) {
					t.Errorf("run span: trace %s parent %q, want parent %q", s.TraceID, s.ParentSpanID, tt.wantParent)
				}
			}
			if got := tel.Parent(); got.IsValid() != (tt.wantParent != "") || (got.IsValid() && got.TraceState().Get("vendor") != "x") {
				t.Errorf("Parent() = %v", got)
			}
		})
	}
}

// TestGRPC: the gRPC exporters are built lazily (no collector needed to start), and a
// collector that is not there costs at most the bound at exit, reported as lost spans.
func TestGRPC(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // a port nothing listens on
	tel := setup(t, map[string]string{
		"OTEL_TRACES_EXPORTER":        "otlp",
		"OTEL_METRICS_EXPORTER":       "otlp",
		"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_EXPORTER_OTLP_ENDPOINT": url,
		"OTEL_EXPORTER_OTLP_HEADERS":  "authorization=Bearer%20grpc-s3cret",
	}, telemetry.Options{ShutdownTimeout: 500 * time.Millisecond})
	if tel.Tracer == nil || tel.Metrics == nil {
		t.Fatal("grpc: nothing built")
	}
	runSmall(t, tel)
	start := time.Now()
	err := tel.Shutdown(context.Background())
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Shutdown took %v", took)
	}
	if err == nil || !strings.Contains(err.Error(), "flush traces: ") || strings.Contains(err.Error(), "grpc-s3cret") {
		t.Errorf("err = %v", err)
	}
}

// TestShutdownBound: a collector that never answers does not hold the exit longer than the
// bound.
func TestShutdownBound(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	tel := setup(t, map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL},
		telemetry.Options{ShutdownTimeout: 300 * time.Millisecond})
	runSmall(t, tel)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as after Ctrl-C: the bound still applies, not the canceled context
	start := time.Now()
	err := tel.Shutdown(ctx)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Shutdown took %v", took)
	}
	if err == nil || !strings.HasPrefix(err.Error(), "flush traces: ") {
		t.Errorf("err = %v", err)
	}
}

// TestTransport: a request through Transport is a client span under the caller's span, and
// the server receives its traceparent; with tracing off the transport is left alone.
func TestTransport(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
	}))
	t.Cleanup(srv.Close)

	off := setup(t, nil, telemetry.Options{})
	if rt := off.Transport(http.DefaultTransport); rt != http.DefaultTransport {
		t.Errorf("off: transport wrapped: %T", rt)
	}

	file := filepath.Join(t.TempDir(), "t.jsonl")
	tel := setup(t, nil, telemetry.Options{TraceFile: file})
	ctx, parent := tel.Tracer.Start(context.Background(), "seam.attempt")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/items?api_key=k3y-in-the-query", nil)
	if err != nil {
		t.Fatal(err)
	}
	tel.Redact("k3y-in-the-query")
	resp, err := (&http.Client{Transport: tel.Transport(nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	parent.End()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	tp := got.Get("Traceparent")
	if !strings.HasPrefix(tp, "00-"+parent.SpanContext().TraceID().String()+"-") {
		t.Fatalf("server got traceparent %q", tp)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "k3y-in-the-query") {
		t.Error("the query's secret was exported")
	}
	var client struct {
		Name         string `json:"name"`
		SpanID       string `json:"span_id"`
		ParentSpanID string `json:"parent_span_id"`
		Kind         string `json:"kind"`
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(l, `"kind":"client"`) {
			if err := json.Unmarshal([]byte(l), &client); err != nil {
				t.Fatal(err)
			}
		}
	}
	if client.ParentSpanID != parent.SpanContext().SpanID().String() || !strings.HasSuffix(tp[:len(tp)-3], client.SpanID) {
		t.Errorf("client span %+v, traceparent %s, parent %s", client, tp, parent.SpanContext().SpanID())
	}
}

// TestRedact: a value passed to Redact is masked wherever a span holds it (attributes,
// events, status), as is and escaped; so are the OTLP headers' values. Short values are not
// secrets worth masking ordinary text for.
func TestRedact(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.jsonl")
	tel := setup(t, map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20hdr-t0ken-value"}, telemetry.Options{TraceFile: file})
	tel.Redact("s3cret value", "abc", "", "s3cret/päss")
	_, span := tel.Tracer.Start(context.Background(), "seam.attempt", trace.WithAttributes(
		attribute.String("seam.error", "stderr: key=s3cret value"),
		attribute.String("url", "https://x/?k=s3cret+value"),
		attribute.String("hdr", "sent Bearer hdr-t0ken-value"),
		attribute.String("short", "abc stays"),
		// As an encoder other than Go's writes it into JSON (PHP's defaults: \/ and \u00e4).
		attribute.String("body", `{"k":"s3cret\/p\u00e4ss"}`),
		attribute.Int("n", 3),
	))
	span.AddEvent("contract.violation", trace.WithAttributes(attribute.String("seam.message", `got "s3cret value"`)))
	span.SetStatus(codes.Error, "failed: s3cret%20value")
	span.End()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, leak := range []string{"s3cret", "hdr-t0ken-value"} {
		if strings.Contains(got, leak) {
			t.Errorf("%q exported: %s", leak, got)
		}
	}
	for _, want := range []string{`"seam.error":"stderr: key=***"`, `"url":"https://x/?k=***"`, `"short":"abc stays"`, `"body":"{\"k\":\"***\"}"`,
		`"seam.message":"got \"***\""`, `"status_message":"failed: ***"`, `"n":3`} {
		if !strings.Contains(got, want) {
			t.Errorf("want %s in %s", want, got)
		}
	}
}
