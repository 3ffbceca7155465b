// Package otlptest is a small OTLP/HTTP receiver for tests and benchmarks: it listens on
// loopback, decodes the export requests that OTLP exporters send (protobuf, or JSON for
// traces), and keeps the spans
// (and the names of metrics) so that a test can assert what crossed the wire.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, flattened for assertions. Attribute values are in their
// string form.
type Span struct {
	Name          string
	TraceID       string
	SpanID        string
	ParentSpanID  string // empty for a root
	Attributes    map[string]string
	Events        []Event
	StatusCode    string // "unset", "ok", "error"
	StatusMessage string
	Resource      map[string]string
}

// Event is one span event.
type Event struct {
	Name       string
	Attributes map[string]string
}

// Receiver is a running OTLP/HTTP receiver. Its methods are safe for concurrent use.
type Receiver struct {
	// URL is the receiver's base URL, the value for OTEL_EXPORTER_OTLP_ENDPOINT.
	URL string

	keep bool // keep spans and bodies, not only counts

	mu      sync.Mutex
	spans   []Span
	metrics []string
	bodies  [][]byte
	headers []http.Header
	count   int // spans received
}

// Start starts a receiver that keeps everything it receives; it stops when the test ends.
func Start(tb testing.TB) *Receiver { return start(tb, true) }

// StartCounting starts a receiver that decodes requests but only counts the spans, for
// benchmarks that send many.
func StartCounting(tb testing.TB) *Receiver { return start(tb, false) }

func start(tb testing.TB, keep bool) *Receiver {
	r := &Receiver{keep: keep}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.traces)
	mux.HandleFunc("POST /v1/metrics", r.metricsHandler)
	srv := httptest.NewServer(mux) // 127.0.0.1
	tb.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// body reads a request's body, gunzipping it when the exporter compressed it.
func body(req *http.Request) ([]byte, error) {
	var rd io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		rd = zr
	}
	return io.ReadAll(rd)
}

func (r *Receiver) traces(w http.ResponseWriter, req *http.Request) {
	b, err := body(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg collectortrace.ExportTraceServiceRequest
	unmarshal := proto.Unmarshal
	if req.Header.Get("Content-Type") == "application/json" { // OTLP/HTTP JSON
		unmarshal = protojson.Unmarshal
	}
	if err := unmarshal(b, &msg); err != nil {
		http.Error(w, "decode: "+err.Error(), http.StatusBadRequest)
		return
	}
	var spans []Span
	n := 0
	for _, rs := range msg.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			n += len(ss.GetSpans())
			if !r.keep {
				continue
			}
			for _, s := range ss.GetSpans() {
				spans = append(spans, flatten(s, res))
			}
		}
	}
	r.mu.Lock()
	r.count += n
	if r.keep {
		r.spans = append(r.spans, spans...)
		r.bodies = append(r.bodies, b)
		r.headers = append(r.headers, req.Header.Clone())
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *Receiver) metricsHandler(w http.ResponseWriter, req *http.Request) {
	b, err := body(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg collectormetrics.ExportMetricsServiceRequest
	if err := proto.Unmarshal(b, &msg); err != nil {
		http.Error(w, "decode: "+err.Error(), http.StatusBadRequest)
		return
	}
	var names []string
	for _, rm := range msg.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				names = append(names, m.GetName())
			}
		}
	}
	r.mu.Lock()
	r.metrics = append(r.metrics, names...)
	if r.keep {
		r.bodies = append(r.bodies, b)
		r.headers = append(r.headers, req.Header.Clone())
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectormetrics.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func flatten(s *tracepb.Span, res map[string]string) Span {
	out := Span{
		Name:          s.GetName(),
		TraceID:       hex.EncodeToString(s.GetTraceId()),
		SpanID:        hex.EncodeToString(s.GetSpanId()),
		Attributes:    attrs(s.GetAttributes()),
		StatusMessage: s.GetStatus().GetMessage(),
		Resource:      res,
	}
	if p := s.GetParentSpanId(); len(p) > 0 {
		out.ParentSpanID = hex.EncodeToString(p)
	}
	switch s.GetStatus().GetCode() {
	case tracepb.Status_STATUS_CODE_OK:
		out.StatusCode = "ok"
	case tracepb.Status_STATUS_CODE_ERROR:
		out.StatusCode = "error"
	default:
		out.StatusCode = "unset"
	}
	for _, ev := range s.GetEvents() {
		out.Events = append(out.Events, Event{Name: ev.GetName(), Attributes: attrs(ev.GetAttributes())})
	}
	return out
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = value(kv.GetValue())
	}
	return m
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue: // e.g. seam.pure's seam.nodes: [a,b]
		vs := make([]string, len(x.ArrayValue.GetValues()))
		for k, e := range x.ArrayValue.GetValues() {
			vs[k] = value(e)
		}
		return "[" + strings.Join(vs, ",") + "]"
	}
	return v.String()
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// SpanCount is the number of spans received so far.
func (r *Receiver) SpanCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

// MetricNames returns the names of the metrics received so far, one per metric per export.
func (r *Receiver) MetricNames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.metrics...)
}

// Bodies returns the raw (decompressed) request bodies, for tests that grep the bytes that
// crossed the wire.
func (r *Receiver) Bodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.bodies...)
}

// Headers returns the headers of every request.
func (r *Receiver) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.headers...)
}
