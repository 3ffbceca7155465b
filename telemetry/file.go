package telemetry

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// fileExporter writes spans as JSON lines, one span per line, flat enough for grep and jq:
// the offline form of a trace (--trace FILE).
type fileExporter struct {
	mu     sync.Mutex
	w      *bufio.Writer
	closer io.Closer
	err    error // the first write error: later exports report it rather than write a torn file
}

func newFileExporter(w io.WriteCloser) *fileExporter {
	return &fileExporter{w: bufio.NewWriter(w), closer: w}
}

// jsonSpan is one line of the file.
type jsonSpan struct {
	Name          string         `json:"name"`
	TraceID       string         `json:"trace_id"`
	SpanID        string         `json:"span_id"`
	ParentSpanID  string         `json:"parent_span_id,omitempty"`
	Kind          string         `json:"kind"`
	Start         time.Time      `json:"start"`
	End           time.Time      `json:"end"`
	DurationMS    float64        `json:"duration_ms"`
	Status        string         `json:"status"` // unset, ok, error
	StatusMessage string         `json:"status_message,omitempty"`
	Attributes    map[string]any `json:"attributes,omitempty"`
	Events        []jsonEvent    `json:"events,omitempty"`
	Service       string         `json:"service,omitempty"`
}

type jsonEvent struct {
	Name       string         `json:"name"`
	Time       time.Time      `json:"time"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

func attrMap(kvs []attribute.KeyValue) map[string]any {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

func (e *fileExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return e.err
	}
	enc := json.NewEncoder(e.w)
	for _, s := range spans {
		js := jsonSpan{
			Name:       s.Name(),
			TraceID:    s.SpanContext().TraceID().String(),
			SpanID:     s.SpanContext().SpanID().String(),
			Kind:       s.SpanKind().String(),
			Start:      s.StartTime(),
			End:        s.EndTime(),
			DurationMS: float64(s.EndTime().Sub(s.StartTime()).Microseconds()) / 1000,
			Status:     statusName(s.Status().Code),
			Attributes: attrMap(s.Attributes()),
		}
		if s.Parent().IsValid() {
			js.ParentSpanID = s.Parent().SpanID().String()
		}
		js.StatusMessage = s.Status().Description
		if r := s.Resource(); r != nil {
			if v, ok := r.Set().Value("service.name"); ok {
				js.Service = v.AsString()
			}
		}
		for _, ev := range s.Events() {
			js.Events = append(js.Events, jsonEvent{Name: ev.Name, Time: ev.Time, Attributes: attrMap(ev.Attributes)})
		}
		if err := enc.Encode(js); err != nil {
			e.err = fmt.Errorf("trace file: %w", err)
			return e.err
		}
	}
	// Flushed per batch so that a crash loses at most what the batch processor still holds.
	if err := e.w.Flush(); err != nil {
		e.err = fmt.Errorf("trace file: %w", err)
	}
	return e.err
}

func (e *fileExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.err
	if ferr := e.w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("trace file: %w", ferr)
	}
	if cerr := e.closer.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("trace file: %w", cerr)
	}
	if e.err == nil {
		e.err = fmt.Errorf("trace file: closed")
	}
	return err
}

func statusName(c codes.Code) string {
	switch c {
	case codes.Ok:
		return "ok"
	case codes.Error:
		return "error"
	}
	return "unset"
}
