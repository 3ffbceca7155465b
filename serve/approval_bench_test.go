package serve

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// BenchmarkServeApprovalsPage: the server's time for "Waiting for you" over PageSize waiting
// runs (each read, and its DAG file loaded, at each request), and a waiting run's page with
// its approval's form.
func BenchmarkServeApprovalsPage(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "gate.yaml")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(gateDAG, "APPROVERS", "anyone")), 0o644); err != nil {
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
	var id string
	for range PageSize {
		run, err := svc.Start(ctx, d, service.Request{})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := run.Wait(); err != nil || res.Status != dag.RunWaiting {
			b.Fatalf("run: %v %v", res, err)
		}
		id = run.ID
	}
	srv, err := New(Options{Service: svc, Root: dir, Types: builtinTypes, Lang: "en"})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("approvals", func(b *testing.B) {
		for b.Loop() {
			if page := get(b, srv, "/approvals"); strings.Count(page, `data-node="review"`) != PageSize {
				b.Fatalf("the page lists %d approvals, want %d", strings.Count(page, `data-node="review"`), PageSize)
			}
		}
	})
	b.Run("run", func(b *testing.B) {
		for b.Loop() {
			get(b, srv, "/runs/"+id)
		}
	})
}
