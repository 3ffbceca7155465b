package telemetry

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// failingFile fails every write and close, as a full disk would.
type failingFile struct{ closed bool }

func (f *failingFile) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }
func (f *failingFile) Close() error              { f.closed = true; return nil }

// TestFileExporterErrors: a write error is reported (with the trace file named) by the
// export that hit it, by every later one and by Shutdown, which still closes the file.
func TestFileExporterErrors(t *testing.T) {
	f := &failingFile{}
	e := newFileExporter(f)
	spans := []sdktrace.ReadOnlySpan{tracetest.SpanStub{Name: "seam.run"}.Snapshot()}
	const want = "trace file: no space left on device"
	if err := e.ExportSpans(context.Background(), spans); err == nil || err.Error() != want {
		t.Fatalf("export: %v, want %q", err, want)
	}
	if err := e.ExportSpans(context.Background(), spans); err == nil || err.Error() != want {
		t.Fatalf("second export: %v", err)
	}
	if err := e.Shutdown(context.Background()); err == nil || !strings.HasPrefix(err.Error(), want) || !f.closed {
		t.Fatalf("shutdown: %v, closed %v", err, f.closed)
	}
	if err := e.ExportSpans(context.Background(), spans); err == nil {
		t.Fatal("export after shutdown succeeded")
	}
}
