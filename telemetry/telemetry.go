// Package telemetry sets up seam's traces and metrics from the standard OpenTelemetry
// variables (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, …) and hands the engine a
// tracer and its instruments. Nothing is global: no provider is registered with the otel
// package; callers pass Telemetry's Tracer and Metrics to engine.RunOptions. When every exporter
// is off (the default) both are nil and a run pays nothing for telemetry.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
)

// DefaultShutdownTimeout bounds Shutdown: an unreachable collector must not hold seam's exit.
const DefaultShutdownTimeout = 5 * time.Second

// scope names seam's tracer and meter.
const scope = "github.com/seam-dag/seam"

// Options configure Setup.
type Options struct {
	// Getenv reads the environment (os.Getenv when nil). Only the standard OTEL_* variables,
	// TRACEPARENT and TRACESTATE are read.
	Getenv func(string) string
	// TraceFile, when not empty, is a file that receives every span as a line of JSON
	// (seam run --trace FILE), whatever OTEL_TRACES_EXPORTER says.
	TraceFile string
	// Console is where the console exporters write (os.Stderr when nil: stdout carries
	// seam's own results, e.g. seam run --json).
	Console io.Writer
	// Version is seam's version, the resource's service.version when not empty.
	Version string
	// ShutdownTimeout bounds Shutdown; DefaultShutdownTimeout when 0.
	ShutdownTimeout time.Duration
	// Lang is the language of Setup's configuration errors: "en" (the default) or "ja".
	Lang i18n.Lang
}

// Telemetry holds what Setup built. Tracer and Metrics go into engine.RunOptions; both are nil
// when their signal is off.
type Telemetry struct {
	Tracer  trace.Tracer
	Metrics *engine.Metrics

	tp                    *sdktrace.TracerProvider
	mp                    *sdkmetric.MeterProvider
	parent                trace.SpanContext // from TRACEPARENT/TRACESTATE in seam's environment
	timeout               time.Duration
	secrets               *secretSet // masked in every exported span
	traceErrs, metricErrs exportErrors
}

// Setup reads the environment and builds the exporters it asks for. Exporters connect
// lazily: Setup fails only on configuration errors (unknown exporter, malformed endpoint
// or headers, a trace file that cannot be created), never because a collector is down.
func Setup(ctx context.Context, opts Options) (*Telemetry, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var console io.Writer = os.Stderr
	if opts.Console != nil {
		console = opts.Console
	}
	// The trace and metric console exporters write from their own goroutines, at the same
	// time during Shutdown.
	console = &syncWriter{w: console}
	t := &Telemetry{
		timeout: opts.ShutdownTimeout,
		parent:  ParentFromEnv(getenv),
		secrets: &secretSet{},
	}
	if t.timeout <= 0 {
		t.timeout = DefaultShutdownTimeout
	}
	var traceExp, metricExp []string
	// OTEL_SDK_DISABLED turns off what the variables ask for; --trace FILE is asked for
	// explicitly, so it stays.
	if !strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		var err error
		if traceExp, err = exporters(getenv, traces, opts.Lang); err != nil {
			return nil, err
		}
		if metricExp, err = exporters(getenv, metrics, opts.Lang); err != nil {
			return nil, err
		}
	}
	if len(traceExp) == 0 && len(metricExp) == 0 && opts.TraceFile == "" {
		return t, nil // off: nothing to build, nothing to flush
	}
	attrs, err := resourceAttrs(getenv, opts.Lang)
	if err != nil {
		return nil, err
	}
	attrs = append(attrs,
		attribute.String("telemetry.sdk.name", "opentelemetry"),
		attribute.String("telemetry.sdk.language", "go"),
		attribute.String("telemetry.sdk.version", sdk.Version()),
	)
	if opts.Version != "" {
		attrs = append(attrs, attribute.String("service.version", opts.Version))
	}
	res := resource.NewSchemaless(attrs...)

	if len(traceExp) > 0 || opts.TraceFile != "" {
		if err := t.setupTraces(ctx, getenv, traceExp, opts.TraceFile, console, res, opts.Lang); err != nil {
			return nil, err
		}
	}
	if len(metricExp) > 0 {
		if err := t.setupMetrics(ctx, getenv, metricExp, console, res, opts.Lang); err != nil {
			if t.tp != nil {
				_ = t.tp.Shutdown(ctx) // nothing was traced yet
			}
			return nil, err
		}
	}
	return t, nil
}

func (t *Telemetry) setupTraces(ctx context.Context, getenv func(string) string, names []string, file string, console io.Writer, res *resource.Resource, lang i18n.Lang) error {
	smp, err := sampler(getenv, lang)
	if err != nil {
		return err
	}
	var exps []sdktrace.SpanExporter
	fail := func(err error) error {
		for _, e := range exps {
			_ = e.Shutdown(ctx)
		}
		return err
	}
	for _, name := range names {
		var exp sdktrace.SpanExporter
		switch name {
		case exporterOTLP:
			exp, err = otlpTraceExporter(ctx, getenv, lang)
		case exporterConsole:
			exp, err = stdouttrace.New(stdouttrace.WithWriter(console))
			if err != nil {
				err = fmt.Errorf("console trace exporter: %w", err)
			}
		}
		if err != nil {
			return fail(err)
		}
		exps = append(exps, exp)
	}
	if file != "" {
		f, err := os.Create(file)
		if err != nil {
			return fail(fmt.Errorf("trace file: %w", err))
		}
		exps = append(exps, newFileExporter(f))
	}
	// The OTLP headers' values are credentials: they must not come back in a span either.
	for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS"} {
		if h, err := parseHeaders(k, getenv(k), lang); err == nil {
			for _, v := range h {
				t.secrets.add(v)
				for _, f := range strings.Fields(v) { // the token of "Bearer <token>"
					if len(f) >= 8 {
						t.secrets.add(f)
					}
				}
			}
		}
	}
	popts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(smp)}
	for _, e := range exps {
		popts = append(popts, sdktrace.WithBatcher(redactingExporter{next: e, secrets: t.secrets, errs: &t.traceErrs}))
	}
	t.tp = sdktrace.NewTracerProvider(popts...)
	t.Tracer = t.tp.Tracer(scope)
	return nil
}

func otlpTraceExporter(ctx context.Context, getenv func(string) string, lang i18n.Lang) (sdktrace.SpanExporter, error) {
	c, err := otlpFromEnv(getenv, traces, lang)
	if err != nil {
		return nil, err
	}
	var exp sdktrace.SpanExporter
	if c.protocol == protoGRPC {
		o := []otlptracegrpc.Option{otlptracegrpc.WithEndpointURL(c.endpoint), otlptracegrpc.WithHeaders(c.headers)}
		if c.timeout > 0 {
			o = append(o, otlptracegrpc.WithTimeout(c.timeout))
		}
		if c.compression {
			o = append(o, otlptracegrpc.WithCompressor("gzip"))
		}
		exp, err = otlptracegrpc.New(ctx, o...)
	} else {
		enc := otlptracehttp.EncodingProtobuf
		if c.protocol == protoHTTPJSON {
			enc = otlptracehttp.EncodingJSON
		}
		o := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(c.endpoint), otlptracehttp.WithHeaders(c.headers),
			otlptracehttp.WithEncoding(enc)}
		if c.timeout > 0 {
			o = append(o, otlptracehttp.WithTimeout(c.timeout))
		}
		if c.compression {
			o = append(o, otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
		}
		exp, err = otlptracehttp.New(ctx, o...)
	}
	if err != nil {
		// Not wrapped with the configuration: it holds the headers.
		return nil, fmt.Errorf("otlp trace exporter (%s): %w", c.protocol, err)
	}
	return exp, nil
}

func (t *Telemetry) setupMetrics(ctx context.Context, getenv func(string) string, names []string, console io.Writer, res *resource.Resource, lang i18n.Lang) error {
	var readers []sdkmetric.Reader
	for _, name := range names {
		var exp sdkmetric.Exporter
		var err error
		switch name {
		case exporterOTLP:
			exp, err = otlpMetricExporter(ctx, getenv, lang)
		case exporterConsole:
			exp, err = stdoutmetric.New(stdoutmetric.WithWriter(console))
			if err != nil {
				err = fmt.Errorf("console metric exporter: %w", err)
			}
		}
		if err != nil {
			for _, r := range readers {
				_ = r.Shutdown(ctx)
			}
			return err
		}
		readers = append(readers, sdkmetric.NewPeriodicReader(metricExporter{Exporter: exp, errs: &t.metricErrs}))
	}
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	for _, r := range readers {
		mopts = append(mopts, sdkmetric.WithReader(r))
	}
	t.mp = sdkmetric.NewMeterProvider(mopts...)
	m, err := engine.NewMetrics(t.mp.Meter(scope))
	if err != nil {
		_ = t.mp.Shutdown(ctx)
		t.mp = nil
		return err
	}
	t.Metrics = m
	return nil
}

func otlpMetricExporter(ctx context.Context, getenv func(string) string, lang i18n.Lang) (sdkmetric.Exporter, error) {
	c, err := otlpFromEnv(getenv, metrics, lang)
	if err != nil {
		return nil, err
	}
	var exp sdkmetric.Exporter
	if c.protocol == protoGRPC {
		o := []otlpmetricgrpc.Option{otlpmetricgrpc.WithEndpointURL(c.endpoint), otlpmetricgrpc.WithHeaders(c.headers)}
		if c.timeout > 0 {
			o = append(o, otlpmetricgrpc.WithTimeout(c.timeout))
		}
		if c.compression {
			o = append(o, otlpmetricgrpc.WithCompressor("gzip"))
		}
		exp, err = otlpmetricgrpc.New(ctx, o...)
	} else {
		o := []otlpmetrichttp.Option{otlpmetrichttp.WithEndpointURL(c.endpoint), otlpmetrichttp.WithHeaders(c.headers)}
		if c.timeout > 0 {
			o = append(o, otlpmetrichttp.WithTimeout(c.timeout))
		}
		if c.compression {
			o = append(o, otlpmetrichttp.WithCompression(otlpmetrichttp.GzipCompression))
		}
		exp, err = otlpmetrichttp.New(ctx, o...)
	}
	if err != nil {
		return nil, fmt.Errorf("otlp metric exporter (%s): %w", c.protocol, err)
	}
	return exp, nil
}

// syncWriter serialises writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Enabled reports whether anything is traced or measured.
func (t *Telemetry) Enabled() bool { return t != nil && (t.tp != nil || t.mp != nil) }

// TracerProvider returns the provider behind Tracer, nil when tracing is off: for
// instrumentation libraries (otelhttp) that take a provider rather than a tracer.
func (t *Telemetry) TracerProvider() trace.TracerProvider {
	if t == nil || t.tp == nil {
		return nil
	}
	return t.tp
}

// Meter returns seam's meter, nil when metrics are off: for instruments beside the engine's
// (the service's gauge of open approvals).
func (t *Telemetry) Meter() metric.Meter {
	if t == nil || t.mp == nil {
		return nil
	}
	return t.mp.Meter(scope)
}

// Context returns ctx carrying the trace context that seam's own environment gave it
// (TRACEPARENT, TRACESTATE), so that a run started with it is a child of the caller's span.
// ctx is returned as is when there is none.
func (t *Telemetry) Context(ctx context.Context) context.Context {
	if t == nil || !t.parent.IsValid() {
		return ctx
	}
	return trace.ContextWithRemoteSpanContext(ctx, t.parent)
}

// Parent is the span context read from TRACEPARENT and TRACESTATE; invalid when absent.
func (t *Telemetry) Parent() trace.SpanContext {
	if t == nil {
		return trace.SpanContext{}
	}
	return t.parent
}

// ParentFromEnv reads a W3C trace context from TRACEPARENT and TRACESTATE. A malformed
// TRACEPARENT is ignored, as the W3C specification asks: the run then starts a trace of its
// own.
func ParentFromEnv(getenv func(string) string) trace.SpanContext {
	return ParentFromHeaders(getenv("TRACEPARENT"), getenv("TRACESTATE"))
}

// ParentFromHeaders parses a W3C traceparent and tracestate (as an MCP request's _meta
// carries them); the result is invalid when traceparent is empty or malformed.
func ParentFromHeaders(traceparent, tracestate string) trace.SpanContext {
	traceparent = strings.TrimSpace(traceparent)
	if traceparent == "" {
		return trace.SpanContext{}
	}
	carrier := propagation.MapCarrier{"traceparent": traceparent}
	if ts := strings.TrimSpace(tracestate); ts != "" {
		carrier["tracestate"] = ts
	}
	return trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
}

// Shutdown flushes and stops the exporters, within the shutdown bound whatever ctx says: it
// runs on exit, also after a Ctrl-C has canceled the run's context. Safe on nil and when
// everything is off.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if !t.Enabled() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.timeout)
	defer cancel()
	// Traces and metrics flush side by side so that one slow collector does not use up the
	// other's share of the bound.
	var wg sync.WaitGroup
	var terr, merr error
	if t.tp != nil {
		wg.Go(func() {
			if err := t.tp.Shutdown(ctx); err != nil {
				terr = fmt.Errorf("flush traces: %w", err)
			} else if err := t.traceErrs.err("spans"); err != nil {
				terr = fmt.Errorf("flush traces: %w", err)
			}
		})
	}
	if t.mp != nil {
		wg.Go(func() {
			if err := t.mp.Shutdown(ctx); err != nil {
				merr = fmt.Errorf("flush metrics: %w", err)
			} else if err := t.metricErrs.err("metric exports"); err != nil {
				merr = fmt.Errorf("flush metrics: %w", err)
			}
		})
	}
	wg.Wait()
	return errors.Join(terr, merr)
}
