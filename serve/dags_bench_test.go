package serve

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
	"github.com/seam-dag/seam/workspace"
)

// dagsRoot writes n DAG files of 20 const nodes each, in layers of 5 with input contracts,
// every node's output contract a shared schema file: the DAGs page loads and lints them all.
func dagsRoot(b *testing.B, n int) string {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schemas"), 0o755); err != nil {
		b.Fatal(err)
	}
	schema := `{"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "required": ["v"], "properties": {"v": {"type": "integer"}}}}}`
	if err := os.WriteFile(filepath.Join(dir, "schemas", "out.json"), []byte(schema), 0o644); err != nil {
		b.Fatal(err)
	}
	for f := range n {
		var sb strings.Builder
		fmt.Fprintf(&sb, "version: 1\nname: dag%d\nnodes:\n", f)
		for i := range 20 {
			fmt.Fprintf(&sb, "  n%d:\n    type: const\n    with: {value: {status: pass, summary: x, data: {v: 1}}}\n", i)
			sb.WriteString("    contract:\n      output: schemas/out.json\n")
			if i >= 5 {
				sb.WriteString("      input: {type: object, required: [a, b], properties: {a: {type: integer}, b: {type: integer}}}\n")
				fmt.Fprintf(&sb, "    input: {a: \"${{ nodes.n%d.output.data.v }}\", b: \"${{ nodes.n%d.output.data.v }}\"}\n", i-5, (i/5-1)*5+(i+1)%5)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("dag%03d.yaml", f)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkServeDAGsPage: the server's time for the DAGs page over 100 DAG files of 20
// nodes, asked again with nothing changed (what a user reloading it costs).
func BenchmarkServeDAGsPage(b *testing.B) {
	const n = 100
	root := dagsRoot(b, n)
	st, err := runs.Open(b.Context(), filepath.Join(b.TempDir(), "seam.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	svc := service.New(service.Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	b.Cleanup(svc.Close)
	srv, err := New(Options{Service: svc, Root: root, Types: builtinTypes, Lang: "en"})
	if err != nil {
		b.Fatal(err)
	}
	page := get(b, srv, "/dags")
	if got := strings.Count(page, `href="/dags/dag`); got != n {
		b.Fatalf("the page lists %d DAG files, want %d", got, n)
	}
	if strings.Contains(page, "does not load") {
		b.Fatal("a DAG file does not load")
	}
	b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
		for b.Loop() {
			get(b, srv, "/dags")
		}
	})
}

// BenchmarkServeWebhookLookup: what a webhook request costs to find its DAG and trigger
// among 100 DAG files of 20 nodes under the root: loading them all ("load", as before the
// cache), or reading and hashing them, each loaded once ("cached").
func BenchmarkServeWebhookLookup(b *testing.B) {
	root := dagsRoot(b, 100)
	hook := "version: 1\nname: hooked\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\ntriggers:\n  push:\n    webhook: {body: {type: object}}\n"
	if err := os.WriteFile(filepath.Join(root, "zz-hooked.yaml"), []byte(hook), 0o644); err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Service: service.New(service.Options{}), Root: root, Types: builtinTypes, Lang: "en"})
	if err != nil {
		b.Fatal(err)
	}
	for _, cached := range []bool{false, true} {
		b.Run(map[bool]string{false: "load", true: "cached"}[cached], func(b *testing.B) {
			for b.Loop() {
				if !cached {
					srv.kept = workspace.NewKept()
				}
				if _, _, err := srv.webhook(b.Context(), "hooked", "push", "en"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
