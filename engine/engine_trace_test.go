package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/dag"
)

// traced runs d with an in-memory span exporter and returns the result and the spans.
func traced(t *testing.T, ctx context.Context, d *dag.DAG, opts RunOptions) (*dag.RunResult, tracetest.SpanStubs) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	opts.Tracer = tp.Tracer("seam")
	res, err := Run(ctx, d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, exp.GetSpans()
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// TestRunTrace checks the span tree of a run with a retried node, a repaired node, a failed
// node and a skipped node: names, parents, attributes, events and statuses.
func TestRunTrace(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), `version: 1
name: traced
nodes:
  flaky: {type: probe, retry: {attempts: 2}, with: {fail_attempts: 1}}
  fixed: {type: probe, on_invalid: {repair: 1}, with: {broken_attempts: 1}}
  broken: {type: probe, with: {broken_attempts: 1}}
  after: {type: probe, needs: [broken]}
`)
	res, spans := traced(t, context.Background(), d, RunOptions{RunID: "r1"})
	if res.Status != dag.RunFailed {
		t.Fatalf("run %s", res.Status)
	}
	byID := map[trace.SpanID]tracetest.SpanStub{}
	var run tracetest.SpanStub
	nodeSpans := map[string]tracetest.SpanStub{}
	attempts := map[string][]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	for _, s := range spans {
		switch s.Name {
		case "seam.run":
			run = s
		case "seam.node":
			nodeSpans[attrs(s.Attributes)["seam.node"]] = s
		}
	}
	for _, s := range spans {
		if s.Name == "seam.attempt" {
			parent := byID[s.Parent.SpanID()]
			id := attrs(parent.Attributes)["seam.node"]
			attempts[id] = append(attempts[id], s)
		}
	}
	ra := attrs(run.Attributes)
	if ra["seam.dag"] != "traced" || ra["seam.run_id"] != "r1" || ra["seam.status"] != "failed" || len(ra["seam.params_hash"]) != 16 ||
		run.Status.Code != codes.Error || run.Parent.IsValid() {
		t.Errorf("run span: %v, status %v, parent %v", ra, run.Status, run.Parent)
	}
	want := map[string]struct {
		status   string
		attempts int
		code     codes.Code
	}{
		"flaky":  {"passed", 2, codes.Unset},
		"fixed":  {"passed", 2, codes.Unset},
		"broken": {"failed", 1, codes.Error},
		"after":  {"skipped", 0, codes.Unset},
	}
	for id, w := range want {
		s, ok := nodeSpans[id]
		if !ok {
			t.Errorf("no span for %s", id)
			continue
		}
		a := attrs(s.Attributes)
		if s.Parent.SpanID() != run.SpanContext.SpanID() || a["seam.status"] != w.status || a["seam.node_type"] != "probe" ||
			s.Status.Code != w.code || len(attempts[id]) != w.attempts {
			t.Errorf("%s: %v, status %v, %d attempt spans", id, a, s.Status, len(attempts[id]))
		}
	}
	if a := attrs(nodeSpans["after"].Attributes); a["seam.skipped_reason"] != "upstream broken failed" {
		t.Errorf("after: %v", a)
	}
	if ev := nodeSpans["fixed"].Events; len(ev) != 1 || ev[0].Name != "contract.repaired" {
		t.Errorf("fixed's events: %v", ev)
	}
	first := attempts["flaky"][0]
	if a := attrs(first.Attributes); a["seam.attempt"] != "1" || a["seam.error"] != "flaky attempt 1" || first.Status.Code != codes.Error {
		t.Errorf("flaky's first attempt: %v %v", a, first.Status)
	}
	ev := attempts["broken"][0].Events
	if len(ev) != 1 || ev[0].Name != "contract.violation" {
		t.Fatalf("broken's attempt events: %v", ev)
	}
	if a := attrs(ev[0].Attributes); a["seam.pointer"] != "/summary" || a["seam.keyword"] != "/required" || a["seam.message"] == "" {
		t.Errorf("violation event: %v", a)
	}
}

// TestRunTraceParent checks that an exec node sees its attempt's trace context, under the
// node's span, and that the run joins a trace the caller started.
func TestRunTraceParent(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), `version: 1
name: traceparent
nodes:
  show: {type: exec, with: {command: [sh, -c, 'printf "%s" "$TRACEPARENT"'], output: text}}
`)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	ctx, outer := tp.Tracer("caller").Start(context.Background(), "caller")
	res, err := Run(ctx, d, RunOptions{Tracer: tp.Tracer("seam")})
	outer.End()
	if err != nil || res.Status != dag.RunSuccess {
		t.Fatalf("run: %v %v", err, res.Status)
	}
	tp2 := node(t, res, "show").Summary // 00-<trace id>-<span id>-01
	parts := strings.Split(tp2, "-")
	if len(parts) != 4 {
		t.Fatalf("TRACEPARENT = %q", tp2)
	}
	spans := map[string]tracetest.SpanStub{}
	for _, s := range exp.GetSpans() {
		spans[s.Name] = s
	}
	att, nodeSpan, run := spans["seam.attempt"], spans["seam.node"], spans["seam.run"]
	if parts[1] != outer.SpanContext().TraceID().String() || parts[2] != att.SpanContext.SpanID().String() {
		t.Errorf("TRACEPARENT %s, want trace %s and the attempt span %s", tp2, outer.SpanContext().TraceID(), att.SpanContext.SpanID())
	}
	if att.Parent.SpanID() != nodeSpan.SpanContext.SpanID() || run.Parent.SpanID() != outer.SpanContext().SpanID() {
		t.Errorf("attempt's parent %s (node %s); run's parent %s (caller %s)", att.Parent.SpanID(), nodeSpan.SpanContext.SpanID(),
			run.Parent.SpanID(), outer.SpanContext().SpanID())
	}
}

// TestRunMetrics checks the engine's instruments after a run.
func TestRunMetrics(t *testing.T) {
	noLeaks(t)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	m, err := NewMetrics(mp.Meter("seam"))
	if err != nil {
		t.Fatal(err)
	}
	d := load(t, newRecorder(), `version: 1
name: metered
nodes:
  flaky: {type: probe, retry: {attempts: 2}, with: {fail_attempts: 1}}
  broken: {type: probe, with: {broken_attempts: 1}}
`)
	mustRun(t, d, RunOptions{Metrics: m})
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	sums := map[string]int64{}
	histCount := uint64(0)
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			switch data := mt.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range data.DataPoints {
					status, _ := dp.Attributes.Value("seam.status")
					sums[mt.Name+" "+status.Emit()] += dp.Value
				}
			case metricdata.Histogram[float64]:
				for _, dp := range data.DataPoints {
					histCount += dp.Count
				}
			}
		}
	}
	want := map[string]int64{
		"seam.node.attempts failed": 2, "seam.node.attempts passed": 1,
		"seam.contract.violations ": 1, "seam.runs failed": 1,
	}
	for k, v := range want {
		if sums[k] != v {
			t.Errorf("%s = %d, want %d (all: %v)", k, sums[k], v, sums)
		}
	}
	if histCount != 2 {
		t.Errorf("node duration recorded %d times, want 2", histCount)
	}
}

// traceEnv must write what the W3C propagator writes, which processes parse.
func TestTraceEnv(t *testing.T) {
	ts, err := trace.ParseTraceState("vendor=abc")
	if err != nil {
		t.Fatal(err)
	}
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	tests := []struct {
		name string
		sc   trace.SpanContext
	}{
		{"sampled with state", trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: ts})},
		{"not sampled", trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid})},
		{"unknown flag bits dropped", trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: 0xff})},
		{"invalid", trace.SpanContext{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			carrier := propagation.MapCarrier{}
			propagation.TraceContext{}.Inject(trace.ContextWithSpanContext(context.Background(), tc.sc), carrier)
			var want []string
			if v := carrier.Get("traceparent"); v != "" {
				want = append(want, "TRACEPARENT="+v)
			}
			if v := carrier.Get("tracestate"); v != "" {
				want = append(want, "TRACESTATE="+v)
			}
			if got := traceEnv(tc.sc); !slices.Equal(got, want) {
				t.Errorf("traceEnv = %q, want %q", got, want)
			}
		})
	}
}

// TestRunTracePure checks which nodes get spans: an exec node always, a pure node only when
// it has something to tell (a violation, an error, a skip), and the pure nodes that passed
// as the ids of seam.pure spans of at most pureBatchMax under the run, each listed once.
func TestRunTracePure(t *testing.T) {
	noLeaks(t)
	var src strings.Builder
	src.WriteString(`version: 1
name: pure
nodes:
  shout: {type: transform, with: {program: '{status: "pass", summary: "up"}'}}
  show: {type: exec, needs: [shout], with: {command: [echo, ok], output: text}}
  classify:
    type: const
    with: {value: {status: pass, summary: classified, data: {confidence: 0.4}}}
    contract: {output: {properties: {data: {required: [label]}}}}
  oops: {type: transform, with: {program: 'error("boom")'}}
  later: {type: const, needs: [oops], with: {value: {status: pass, summary: never}}}
`)
	passed := []string{"shout"}
	for i := range pureBatchMax + 6 { // two seam.pure spans at least
		fmt.Fprintf(&src, "  p%d: {type: const, with: {value: {status: pass, summary: p}}}\n", i)
		passed = append(passed, fmt.Sprintf("p%d", i))
	}
	d := load(t, newRecorder(), src.String())
	res, spans := traced(t, context.Background(), d, RunOptions{})
	if res.Status != dag.RunFailed {
		t.Fatalf("run %s", res.Status)
	}
	var run tracetest.SpanStub
	nodeSpans := map[string]tracetest.SpanStub{}
	attempts := map[trace.SpanID][]tracetest.SpanStub{} // by the node span
	var pure []tracetest.SpanStub
	for _, s := range spans {
		switch s.Name {
		case "seam.run":
			run = s
		case "seam.node":
			nodeSpans[attrs(s.Attributes)["seam.node"]] = s
		case "seam.attempt":
			attempts[s.Parent.SpanID()] = append(attempts[s.Parent.SpanID()], s)
		case "seam.pure":
			pure = append(pure, s)
		}
	}
	want := map[string]struct {
		status   string
		attempts int
		code     codes.Code
		event    string // of the attempt
	}{
		"show":     {"passed", 1, codes.Unset, ""},
		"classify": {"failed", 1, codes.Error, "contract.violation"},
		"oops":     {"failed", 1, codes.Error, ""},
		"later":    {"skipped", 0, codes.Unset, ""},
	}
	if len(nodeSpans) != len(want) {
		t.Errorf("node spans for %v, want only %v", slices.Sorted(maps.Keys(nodeSpans)), slices.Sorted(maps.Keys(want)))
	}
	for id, w := range want {
		s, ok := nodeSpans[id]
		if !ok {
			t.Errorf("no span for %s", id)
			continue
		}
		a, att := attrs(s.Attributes), attempts[s.SpanContext.SpanID()]
		if s.Parent.SpanID() != run.SpanContext.SpanID() || a["seam.status"] != w.status || s.Status.Code != w.code || len(att) != w.attempts {
			t.Errorf("%s: %v, status %v, %d attempt spans", id, a, s.Status, len(att))
			continue
		}
		if w.attempts == 0 {
			continue
		}
		if att[0].Status.Code != w.code || att[0].StartTime.Before(s.StartTime) || att[0].EndTime.After(s.EndTime) {
			t.Errorf("%s's attempt: status %v, %v–%v in the node's %v–%v", id, att[0].Status, att[0].StartTime, att[0].EndTime, s.StartTime, s.EndTime)
		}
		if w.event != "" {
			ev := att[0].Events
			if len(ev) != 1 || ev[0].Name != w.event || attrs(ev[0].Attributes)["seam.pointer"] != "/data/label" {
				t.Errorf("%s's attempt events: %v", id, ev)
			}
		}
	}
	if a := attrs(attempts[nodeSpans["oops"].SpanContext.SpanID()][0].Attributes); !strings.Contains(a["seam.error"], "boom") {
		t.Errorf("oops's attempt: %v", a)
	}
	var listed []string
	for _, s := range pure {
		var ids []string
		var n int64
		for _, kv := range s.Attributes {
			switch kv.Key {
			case "seam.nodes":
				ids = kv.Value.AsStringSlice()
			case "seam.node_count":
				n = kv.Value.AsInt64()
			}
		}
		if s.Parent.SpanID() != run.SpanContext.SpanID() || len(ids) == 0 || len(ids) > pureBatchMax || int64(len(ids)) != n ||
			s.EndTime.Before(s.StartTime) {
			t.Errorf("seam.pure span: %d ids, count %d, parent %s, %v–%v", len(ids), n, s.Parent.SpanID(), s.StartTime, s.EndTime)
		}
		listed = append(listed, ids...)
	}
	slices.Sort(listed)
	slices.Sort(passed)
	if !slices.Equal(listed, passed) {
		t.Errorf("seam.pure spans list %v, want %v", listed, passed)
	}
}
