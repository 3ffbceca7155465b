package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/telemetry"
)

// runTelemetry is seam run's telemetry: the exporters the OTEL_* variables ask for (or
// --trace FILE), and the lint step's span.
//
// The lint runs before engine.Run starts the seam.run span, yet it belongs in the run's trace:
// the lint span is held back and started, with the times it was measured at, as a child of
// seam.run the moment that span starts. A run that never starts (lint errors, bad params)
// gets the lint span under the caller's parent instead.
type runTelemetry struct {
	e   *env
	tel *telemetry.Telemetry

	mu      sync.Mutex
	pending *lintSpan // a lint span waiting for seam.run
}

// lintSpan is a measured lint step.
type lintSpan struct {
	parent     context.Context
	start, end time.Time
	dagName    string
	file       string
	err        error
}

// setupTelemetry builds seam run's telemetry; configuration errors are usage errors (exit 2).
func setupTelemetry(ctx context.Context, e *env, traceFile string, l i18n.Lang) (*runTelemetry, error) {
	tel, err := telemetry.Setup(ctx, telemetry.Options{Getenv: e.getenv, TraceFile: traceFile, Console: e.stderr, Lang: l})
	if err != nil {
		return nil, usage(fmt.Errorf("telemetry: %w", err))
	}
	rt := &runTelemetry{e: e, tel: tel}
	e.tel = rt
	return rt, nil
}

// n8nOptions are the options of the n8n node types. With tracing on their requests go
// through an otelhttp transport: each is a client span under its node's attempt, and carries
// traceparent to n8n.
func n8nOptions(e *env) n8n.Options {
	o := n8n.Options{Getenv: e.getenv}
	if e.tel != nil && e.tel.tel.Tracer != nil {
		o.HTTPClient = &http.Client{Transport: e.tel.tel.Transport(n8n.NewTransport())}
	}
	return o
}

// httpTransport wraps the http node type's transport when tracing is on (nil when off): each
// request is a client span under its node's attempt, and carries traceparent.
func httpTransport(e *env) func(http.RoundTripper) http.RoundTripper {
	if e.tel == nil || e.tel.tel.Tracer == nil {
		return nil
	}
	return e.tel.tel.Transport
}

// context returns ctx under the caller's span (TRACEPARENT in seam's environment), if any.
func (rt *runTelemetry) context(ctx context.Context) context.Context {
	return rt.tel.Context(ctx)
}

// apply hands the tracer and the instruments to the run of d, and has the exporters mask
// its secrets: the values of the variables d lists under env, and the n8n API key.
func (rt *runTelemetry) apply(opts *engine.RunOptions, d *dag.DAG) {
	opts.Metrics = rt.tel.Metrics
	keys := append(append([]string{n8n.EnvAPIKey}, n8nKeyVars(d)...), d.SecretNames()...)
	for _, k := range keys {
		rt.tel.Redact(rt.e.getenv(k))
	}
	if rt.tel.Tracer != nil {
		opts.Tracer = runTracer{Tracer: rt.tel.Tracer, rt: rt}
	}
}

// n8nKeyVars names the variables d's n8n nodes read their API key from (api_key_env, from
// the node or the DAG's n8n block), where the node's with is literal.
func n8nKeyVars(d *dag.DAG) []string {
	var names []string
	for _, n := range d.Nodes {
		if !strings.HasPrefix(n.Type.Name(), "n8n.") {
			continue
		}
		w, _ := n.With.Literal()
		if m, ok := w.(map[string]any); ok {
			if k, ok := m["api_key_env"].(string); ok && !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
	}
	return names
}

// lint runs the lint step fn and measures it for its span.
func (rt *runTelemetry) lint(ctx context.Context, d *dag.DAG, fn func(context.Context) error) error {
	if rt.tel.Tracer == nil {
		return fn(ctx)
	}
	ls := &lintSpan{parent: ctx, start: time.Now(), dagName: d.Name, file: d.File}
	err := fn(ctx)
	ls.end, ls.err = time.Now(), err
	if err != nil {
		rt.emitLint(ls, ctx) // no run follows
		return err
	}
	rt.mu.Lock()
	rt.pending = ls
	rt.mu.Unlock()
	return nil
}

// emitLint records ls as a span under parent.
func (rt *runTelemetry) emitLint(ls *lintSpan, parent context.Context) {
	_, span := rt.tel.Tracer.Start(parent, "seam.lint", trace.WithTimestamp(ls.start), trace.WithAttributes(
		attribute.String("seam.dag", ls.dagName),
		attribute.String("seam.file", ls.file),
	))
	if ls.err != nil {
		// The findings themselves are printed on stderr; the span says that lint stopped the run.
		span.SetStatus(codes.Error, "lint found errors: the run did not start")
	}
	span.End(trace.WithTimestamp(ls.end))
}

// runStarted is called with the context of a new seam.run span.
func (rt *runTelemetry) runStarted(ctx context.Context) {
	rt.mu.Lock()
	ls := rt.pending
	rt.pending = nil
	rt.mu.Unlock()
	if ls != nil {
		rt.emitLint(ls, ctx)
	}
}

// shutdown flushes the exporters (bounded; also after Ctrl-C). A failure is reported on
// stderr but does not change the exit status: the run itself is what the status reports.
func (rt *runTelemetry) shutdown(ctx context.Context) {
	rt.mu.Lock()
	ls := rt.pending
	rt.pending = nil
	rt.mu.Unlock()
	if ls != nil {
		rt.emitLint(ls, ls.parent) // the run never started its span
	}
	err := rt.tel.Shutdown(ctx)
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok { // traces and metrics: a line each
		errs = j.Unwrap()
	}
	for _, err := range errs {
		fmt.Fprintln(rt.e.stderr, "seam: telemetry:", err)
	}
}

// runTracer is the tracer the engine gets: it tells rt when the run's span starts, so that
// the lint span can join it.
type runTracer struct {
	trace.Tracer
	rt *runTelemetry
}

func (t runTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	ctx, span := t.Tracer.Start(ctx, name, opts...)
	if name == "seam.run" {
		t.rt.runStarted(ctx)
	}
	return ctx, span
}
