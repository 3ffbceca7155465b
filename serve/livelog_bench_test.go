package serve

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// BenchmarkServeEventStream: the run page's event stream, opened for the panel of a node
// that prints 10,000 lines (stderr, and stdout: output: text) over about 2 s, read from the
// run's start to its end: the bytes sent and the events, the allocations of the whole (the
// run's included), and the heap in use at the end of each stream.
func BenchmarkServeEventStream(b *testing.B) {
	dir := b.TempDir()
	src := `version: 1
name: chatty
nodes:
  talk:
    type: exec
    with:
      command: 'i=0; while [ $i -lt 10000 ]; do echo "line $i of what the node says" >&2; echo "out $i"; i=$((i+1)); [ $((i % 2500)) -eq 0 ] && sleep 0.5; done; true'
      shell: true
      output: text
`
	p := filepath.Join(dir, "chatty.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, err := runs.Open(ctx, filepath.Join(b.TempDir(), "seam.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc := service.New(service.Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer svc.Close()
	d, err := dag.Load(ctx, p, dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Service: svc, Root: dir, Types: builtinTypes, Lang: "en"})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	b.ReportAllocs()
	var sent, events, heap float64
	for b.Loop() {
		run, err := svc.Start(ctx, d, service.Request{})
		if err != nil {
			b.Fatal(err)
		}
		<-run.Recorded()
		resp, err := hs.Client().Get(hs.URL + "/runs/" + run.ID + "/events?node=talk")
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			sent += float64(len(sc.Bytes()) + 1)
			if strings.HasPrefix(sc.Text(), "data: ") {
				events++
			}
		}
		resp.Body.Close()
		if res, err := run.Wait(); err != nil || res.Status != dag.RunSuccess {
			b.Fatalf("run: %v %v", res, err)
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		heap = max(heap, float64(m.HeapInuse))
	}
	n := float64(b.N)
	b.ReportMetric(sent/n, "bytes/stream")
	b.ReportMetric(events/n, "events/stream")
	b.ReportMetric(heap, "max-heap-inuse-bytes")
}
