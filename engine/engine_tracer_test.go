package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/seam-dag/seam/dag"
)

// TestTracerSpans checks the tracer on its own: pure nodes that passed share one seam.pure
// span, while an impure node and a pure node that failed get a seam.node span each, all under
// the run's span.
func TestTracerSpans(t *testing.T) {
	d := load(t, newRecorder(), `version: 1
name: tr
nodes:
  a: {type: const, with: {value: {status: pass, summary: s}}}
  b: {type: const, with: {value: {status: pass, summary: s}}}
  c: {type: const, with: {value: {status: fail, summary: s}}}
  p: {type: probe}
`)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	now := time.Now()
	res := &dag.RunResult{ID: "r", DAG: d.Name, Started: now, Nodes: make([]dag.NodeResult, len(d.Nodes))}
	tr := tracer{tr: tp.Tracer("seam"), d: d, res: res}
	ctx := tr.startRun(t.Context(), nil)
	tr.startNode(ctx, 3, now) // p: impure, so its span starts with it
	for i, status := range []dag.NodeStatus{dag.NodePassed, dag.NodePassed, dag.NodeFailed, dag.NodePassed} {
		res.Nodes[i] = dag.NodeResult{ID: d.Nodes[i].ID, Type: d.Nodes[i].Type.Name(), Status: status, Started: now, Ended: now}
		tr.endNode(int32(i))
	}
	res.Status, res.Ended = dag.RunFailed, now
	tr.endRun(ctx)

	var run sdktrace.ReadOnlySpan
	var got []string
	for _, s := range exp.GetSpans().Snapshots() {
		if s.Name() == "seam.run" {
			run = s
			continue
		}
		for _, kv := range s.Attributes() {
			switch kv.Key {
			case "seam.node":
				got = append(got, s.Name()+" "+kv.Value.AsString())
			case "seam.nodes":
				got = append(got, s.Name()+" "+strings.Join(kv.Value.AsStringSlice(), ","))
			}
		}
	}
	if run == nil {
		t.Fatal("no seam.run span")
	}
	for _, s := range exp.GetSpans().Snapshots() {
		if s.Name() != "seam.run" && s.Parent().SpanID() != run.SpanContext().SpanID() {
			t.Errorf("span %s is not under the run's", s.Name())
		}
	}
	slices.Sort(got)
	if want := []string{"seam.node c", "seam.node p", "seam.pure a,b"}; !slices.Equal(got, want) {
		t.Fatalf("spans %q, want %q", got, want)
	}
}
