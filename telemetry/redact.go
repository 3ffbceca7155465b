package telemetry

import (
	"context"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/seam-dag/seam/nodes"
)

// secretSet holds values that no exported span may contain. The engine keeps secrets out of
// what it records, but a span also carries text seam does not control (a process's stderr in
// an error): the exporters are the last place to catch one.
type secretSet struct {
	mu   sync.RWMutex
	vals []string
}

func (s *secretSet) add(vals ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vals {
		// Very short values would mask ordinary text and protect nothing.
		if len(v) >= nodes.MinSecret && !slices.Contains(s.vals, v) {
			s.vals = append(s.vals, v)
		}
	}
}

func (s *secretSet) get() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.vals
}

// Redact adds values (API keys, tokens, the values of a DAG's env variables) that must never
// appear in an exported span: any attribute, event or status holding one is exported with
// the value masked. Values shorter than nodes.MinSecret (4 bytes) are ignored.
func (t *Telemetry) Redact(values ...string) {
	if t == nil || t.secrets == nil {
		return
	}
	t.secrets.add(values...)
}

// redactingExporter masks secrets in spans on their way to next, and keeps next's errors
// for Shutdown to report.
type redactingExporter struct {
	next    sdktrace.SpanExporter
	secrets *secretSet
	errs    *exportErrors
}

func (e redactingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if secrets := e.secrets.get(); len(secrets) > 0 {
		out := make([]sdktrace.ReadOnlySpan, len(spans))
		for i, s := range spans {
			out[i] = maskSpan(s, secrets)
		}
		spans = out
	}
	e.errs.record(e.next.ExportSpans(ctx, spans), len(spans))
	return nil
}

func (e redactingExporter) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }

// maskedSpan is a span with its text masked.
type maskedSpan struct {
	sdktrace.ReadOnlySpan
	attrs  []attribute.KeyValue
	events []sdktrace.Event
	status sdktrace.Status
}

func (s maskedSpan) Attributes() []attribute.KeyValue { return s.attrs }
func (s maskedSpan) Events() []sdktrace.Event         { return s.events }
func (s maskedSpan) Status() sdktrace.Status          { return s.status }

// maskSpan returns s, or a copy with the secrets masked when it holds any.
func maskSpan(s sdktrace.ReadOnlySpan, secrets []string) sdktrace.ReadOnlySpan {
	attrs, changed := maskAttrs(s.Attributes(), secrets)
	events := s.Events()
	var evChanged bool
	for i, ev := range events {
		a, ch := maskAttrs(ev.Attributes, secrets)
		if !ch {
			continue
		}
		if !evChanged {
			events = slices.Clone(events)
			evChanged = true
		}
		events[i].Attributes = a
	}
	status := s.Status()
	if m := mask(status.Description, secrets); m != status.Description {
		status.Description = m
		changed = true
	}
	if !changed && !evChanged {
		return s
	}
	return maskedSpan{ReadOnlySpan: s, attrs: attrs, events: events, status: status}
}

func maskAttrs(kvs []attribute.KeyValue, secrets []string) ([]attribute.KeyValue, bool) {
	var out []attribute.KeyValue
	for i, kv := range kvs {
		if kv.Value.Type() != attribute.STRING {
			continue
		}
		v := kv.Value.AsString()
		m := mask(v, secrets)
		if m == v {
			continue
		}
		if out == nil {
			out = slices.Clone(kvs)
		}
		out[i] = attribute.String(string(kv.Key), m)
	}
	if out == nil {
		return kvs, false
	}
	return out, true
}

// mask masks the secrets in s, in every form nodes.MaskString knows (as is, and as URL
// encoders, JSON encoders and Go's quoting write it).
func mask(s string, secrets []string) string {
	if s == "" {
		return s
	}
	return nodes.MaskString(s, secrets)
}
