package telemetry

import (
	"context"
	"fmt"
	"sync"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// exportErrors keeps the first export error of a signal and counts what was lost. The
// exporters' wrappers swallow their errors (the SDK would hand them to otel's global error
// handler, which logs to the process's stderr); Shutdown reports them once, through the
// caller.
type exportErrors struct {
	mu    sync.Mutex
	first error
	lost  int // spans, or metric exports
}

func (e *exportErrors) record(err error, n int) {
	if err == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == nil {
		e.first = err
	}
	e.lost += n
}

// err describes what was lost, nil when nothing was.
func (e *exportErrors) err(what string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == nil {
		return nil
	}
	return fmt.Errorf("%s lost: %d; first error: %w", what, e.lost, e.first)
}

// metricExporter keeps a metric exporter's errors.
type metricExporter struct {
	sdkmetric.Exporter
	errs *exportErrors
}

func (m metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	m.errs.record(m.Exporter.Export(ctx, rm), 1)
	return nil
}
