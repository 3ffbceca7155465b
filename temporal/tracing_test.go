package temporal

import (
	"context"
	"path/filepath"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/temporaltest"
)

// TestTracingLinksRun runs a DAG on the dev server with Temporal's interceptor on the client
// and the worker: starting the run, the workflow, the activity and seam's attempt span are
// one trace, the attempt under the activity that ran it.
func TestTracingLinksRun(t *testing.T) {
	temporaltest.Server(t) // skips before anything is set up without a server
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	tracer := tp.Tracer("seam-test")
	ti, err := Tracing(tracer)
	if err != nil {
		t.Fatal(err)
	}
	c := temporaltest.Client(t, client.Options{Interceptors: []interceptor.ClientInterceptor{ti}})
	queue := temporaltest.Worker(t, c, worker.Options{}, func(w worker.Worker) {
		NewWorker(WorkerOptions{Client: c, Types: types(), Tracer: tracer, Dir: t.TempDir()}).Register(w)
	})
	ctx := context.Background()
	path := filepath.Join("..", "dags", "hello.yaml")
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	eng := &Engine{Client: c, TaskQueue: queue}
	res, err := eng.Run(ctx, d, engine.RunOptions{})
	if err != nil || res.Status != dag.RunSuccess {
		t.Fatalf("run: %v %v", res, err)
	}
	if err := tp.ForceFlush(ctx); err != nil {
		t.Fatal(err)
	}
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range sr.Ended() {
		byName[s.Name()] = s
	}
	names := []string{"StartWorkflow:seam.run", "RunWorkflow:seam.run", "StartActivity:seam.attempt", "RunActivity:seam.attempt", "seam.attempt"}
	for _, n := range names {
		if byName[n] == nil {
			t.Fatalf("no span %s among %d spans", n, len(sr.Ended()))
		}
	}
	trace := byName["StartWorkflow:seam.run"].SpanContext().TraceID()
	for _, n := range names {
		if got := byName[n].SpanContext().TraceID(); got != trace {
			t.Errorf("span %s in trace %s, want %s", n, got, trace)
		}
	}
	if p, a := byName["seam.attempt"].Parent().SpanID(), byName["RunActivity:seam.attempt"].SpanContext().SpanID(); p != a {
		t.Errorf("seam.attempt's parent %s, want the RunActivity span %s", p, a)
	}
}
