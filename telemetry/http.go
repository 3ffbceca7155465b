package telemetry

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
)

// Transport wraps base (http.DefaultTransport when nil) so that each request is a client
// span under the span in its context (a node's attempt) and carries the W3C traceparent and
// tracestate headers to the server. With tracing off base is returned as is: nothing is
// added to a request. The spans' URLs pass through the same redaction as every span, so a
// secret in a query string is masked once Redact knows it.
func (t *Telemetry) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if t == nil || t.tp == nil {
		return base
	}
	// otelhttp would otherwise use otel's global providers.
	var mp metric.MeterProvider = noop.NewMeterProvider()
	if t.mp != nil {
		mp = t.mp
	}
	return otelhttp.NewTransport(base,
		otelhttp.WithTracerProvider(t.tp),
		otelhttp.WithMeterProvider(mp),
		otelhttp.WithPropagators(propagation.TraceContext{}),
	)
}
