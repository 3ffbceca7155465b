package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// BenchmarkServeRunPage: the server's time for the page of a finished run of 100 and 1,000
// nodes side by side (graph, node table, timeline), and the page's size; and the timeline
// section alone, which a live page fetches again.
func BenchmarkServeRunPage(b *testing.B) {
	for _, n := range []int{100, 1000} {
		dir := b.TempDir()
		p := wideDAG(b, dir, n)
		ctx := context.Background()
		st, err := runs.Open(ctx, filepath.Join(b.TempDir(), "seam.db"))
		if err != nil {
			b.Fatal(err)
		}
		svc := service.New(service.Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		d, err := dag.Load(ctx, p, dag.LoadOptions{Types: nodes.Builtin()})
		if err != nil {
			b.Fatal(err)
		}
		run, err := svc.Start(ctx, d, service.Request{})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := run.Wait(); err != nil || res.Status != dag.RunSuccess {
			b.Fatalf("run: %v %v", res, err)
		}
		srv, err := New(Options{Service: svc, Root: dir, Types: builtinTypes, Lang: "en"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			size := 0
			for b.Loop() {
				size = len(get(b, srv, "/runs/"+run.ID))
			}
			b.ReportMetric(float64(size), "bytes/page")
		})
		// What a live page fetches again, at most once a second, while its run runs.
		b.Run(fmt.Sprintf("timeline/nodes=%d", n), func(b *testing.B) {
			size := 0
			for b.Loop() {
				size = len(get(b, srv, "/runs/"+run.ID+"/timeline"))
			}
			b.ReportMetric(float64(size), "bytes/page")
		})
		svc.Close()
		st.Close()
	}
}
