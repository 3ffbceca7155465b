package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/telemetry/otlptest"
)

// TestMCPTraces: runs started through seam mcp are traced as seam run's are: the run span
// under the span the request's _meta.traceparent names, nodes under it, flushed when the
// server stops, and no secret of the DAG's env in any exported byte.
func TestMCPTraces(t *testing.T) {
	const (
		secret    = "mcp-t0ken-5ecret-value"
		callerTID = "4bf92f3577b34da6a3ce929d0e0e4736"
		callerSID = "00f067aa0ba902b7"
	)
	recv := otlptest.Start(t)
	root := t.TempDir()
	dagFile := `version: 1
name: traced
env: [SEAM_TEST_TOKEN]
nodes:
  a:
    type: const
    with: {value: {status: pass, summary: "token ${{ env.SEAM_TEST_TOKEN }}"}}
  b:
    type: const
    needs: [a]
    with: {value: {status: pass, summary: b}}
`
	if err := os.WriteFile(filepath.Join(root, "traced.yaml"), []byte(dagFile), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"SEAM_LANG":                   "en",
		"SEAM_TEST_TOKEN":             secret,
		"OTEL_TRACES_EXPORTER":        "otlp",
		"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL,
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mcp", "--root", root, "--store", filepath.Join(t.TempDir(), "runs.db")}, inR, outW, &stderr,
			func(k string) string { return vars[k] })
		outW.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{
		Meta:      sdk.Meta{"traceparent": "00-" + callerTID + "-" + callerSID + "-01"},
		Name:      "run_dag",
		Arguments: map[string]any{"path": "traced.yaml", "wait": true},
	})
	if err != nil || res.IsError {
		t.Fatalf("run_dag: %v %+v", err, res)
	}
	cs.Close()
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}

	var runSpan, pureParent string
	var pure []string
	for _, s := range recv.Spans() {
		if s.TraceID != callerTID {
			t.Errorf("%s is in trace %s, not the caller's", s.Name, s.TraceID)
		}
		switch s.Name {
		case "seam.run":
			runSpan = s.SpanID
			if s.ParentSpanID != callerSID || s.Attributes["seam.dag"] != "traced" {
				t.Errorf("run span: %+v", s)
			}
		case "seam.pure": // a and b are const nodes that passed: listed, without spans of their own
			pure, pureParent = append(pure, s.Attributes["seam.nodes"]), s.ParentSpanID
		}
	}
	if runSpan == "" || pureParent != runSpan || !slices.Equal(pure, []string{"[a,b]"}) {
		t.Errorf("run span %q, seam.pure spans %q under %q", runSpan, pure, pureParent)
	}
	for _, b := range recv.Bodies() {
		if bytes.Contains(b, []byte(secret)) {
			t.Error("an export request contains the DAG's env secret")
		}
	}
	if strings.Contains(stderr.String(), secret) {
		t.Errorf("stderr shows the secret: %s", stderr.String())
	}
}
