package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// benchServer is a web view over a store holding n runs of which every tenth failed at a
// node (the runs page then reads those runs' attempts to name it).
func benchServer(b *testing.B, n int) *Server {
	b.Helper()
	ctx := context.Background()
	st, err := runs.Open(ctx, filepath.Join(b.TempDir(), "seam.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	t0 := time.Now().Add(-time.Duration(n) * time.Second)
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Second)
		id := engine.NewRunID(at)
		if err := st.CreateRun(ctx, runs.Run{ID: id, DAG: fmt.Sprintf("dag%d", i%7), Status: dag.RunRunning, Started: at}); err != nil {
			b.Fatal(err)
		}
		status := dag.RunSuccess
		if i%10 == 0 {
			status = dag.RunFailed
			a := runs.Attempt{RunID: id, Node: "n", Item: -1, Type: "const", Attempt: 1, Status: dag.NodeFailed, Final: true, Started: at, Ended: at}
			a.Output = []byte(`{"status":"fail"}`)
			if err := st.RecordAttempts(ctx, []runs.Attempt{a}); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.FinishRunWith(ctx, id, runs.Finish{Status: status, Ended: at.Add(time.Second)}); err != nil {
			b.Fatal(err)
		}
	}
	svc := service.New(service.Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	b.Cleanup(svc.Close)
	srv, err := New(Options{Service: svc, Root: b.TempDir(), Types: builtinTypes, Lang: "en"})
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

func get(b *testing.B, h http.Handler, path string) string {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	if w.Code != http.StatusOK {
		b.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
	}
	return w.Body.String()
}

// BenchmarkServeRunsPage: the server's time for a page of the runs list (50 rows, five of
// them failed), first and deep (by cursor), in stores of 100 and 10,000 runs side by side.
func BenchmarkServeRunsPage(b *testing.B) {
	for _, n := range []int{100, 10000} {
		srv := benchServer(b, n)
		first := get(b, srv, "/runs")
		i := strings.Index(first, `href="/runs?cursor=`)
		if i < 0 {
			b.Fatal("no next page")
		}
		next := first[i+len(`href="`):]
		next = strings.ReplaceAll(next[:strings.Index(next, `"`)], "&amp;", "&")
		b.Run(fmt.Sprintf("runs=%d/first", n), func(b *testing.B) {
			for b.Loop() {
				get(b, srv, "/runs")
			}
		})
		b.Run(fmt.Sprintf("runs=%d/second", n), func(b *testing.B) {
			for b.Loop() {
				get(b, srv, next)
			}
		})
		b.Run(fmt.Sprintf("runs=%d/filtered", n), func(b *testing.B) {
			for b.Loop() {
				get(b, srv, "/runs?dag=dag3&status=failed")
			}
		})
	}
}

// wideDAG writes a DAG of n const nodes in layers of 10, each reading two nodes of the layer
// before, with an input contract: n nodes, about 2n edges, all linted.
func wideDAG(b *testing.B, dir string, n int) string {
	var sb strings.Builder
	sb.WriteString("version: 1\nname: wide\nnodes:\n")
	for i := range n {
		fmt.Fprintf(&sb, "  n%d:\n    type: const\n    with: {value: {status: pass, summary: x, data: {v: 1}}}\n", i)
		sb.WriteString("    contract:\n      output: {type: object, required: [data], properties: {data: {type: object, required: [v], properties: {v: {type: integer}}}}}\n")
		if i >= 10 {
			fmt.Fprintf(&sb, "      input: {type: object, required: [a, b], properties: {a: {type: integer}, b: {type: integer}}}\n")
			fmt.Fprintf(&sb, "    input: {a: \"${{ nodes.n%d.output.data.v }}\", b: \"${{ nodes.n%d.output.data.v }}\"}\n", i-10, (i/10-1)*10+(i+1)%10)
		}
	}
	p := filepath.Join(dir, "wide.yaml")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkServeLayout: laying out (and drawing) a DAG of 50 and 500 nodes side by side:
// layout alone, and the whole DAG page (load, lint, layout, render).
func BenchmarkServeLayout(b *testing.B) {
	for _, n := range []int{50, 500} {
		dir := b.TempDir()
		p := wideDAG(b, dir, n)
		d, err := dag.Load(context.Background(), p, dag.LoadOptions{Types: nodes.Builtin()})
		if err != nil {
			b.Fatal(err)
		}
		fs := lint.Lint(context.Background(), d, lint.Options{})
		b.Run(fmt.Sprintf("nodes=%d/layout", n), func(b *testing.B) {
			for b.Loop() {
				layout(d, verdicts(d, fs), nil, nil)
			}
		})
		svc := service.New(service.Options{})
		srv, err := New(Options{Service: svc, Root: dir, Types: builtinTypes, Lang: "en"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nodes=%d/dagpage", n), func(b *testing.B) {
			for b.Loop() {
				get(b, srv, "/dags/wide.yaml")
			}
		})
		svc.Close()
	}
}

// BenchmarkServeSSE: k clients (1 and 50, side by side) follow one live run of 20 nodes
// (a short sleep, then a chain) by SSE until it ends. Reported: the time from the run's end
// to the last client's end event, and the events each client got.
func BenchmarkServeSSE(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	sb.WriteString("version: 1\nname: live\nnodes:\n  s:\n    type: exec\n    with: {command: [sleep, \"0.3\"], output: text}\n")
	prev := "s"
	for i := range 19 {
		fmt.Fprintf(&sb, "  c%d:\n    type: exec\n    needs: [%s]\n    with: {command: [sleep, \"0.02\"], output: text}\n", i, prev)
		prev = fmt.Sprintf("c%d", i)
	}
	p := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	st, err := runs.Open(context.Background(), filepath.Join(b.TempDir(), "seam.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc := service.New(service.Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer svc.Close()
	srv, err := New(Options{Service: svc, Root: dir, Types: builtinTypes, Lang: "en"})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	d, err := dag.Load(context.Background(), p, dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []int{1, 50} {
		b.Run(fmt.Sprintf("clients=%d", k), func(b *testing.B) {
			var lag time.Duration
			events := 0
			for b.Loop() {
				run, err := svc.Start(context.Background(), d, service.Request{NoLint: true})
				if err != nil {
					b.Fatal(err)
				}
				<-run.Recorded()
				var wg sync.WaitGroup
				var mu sync.Mutex
				var last time.Time
				for range k {
					wg.Go(func() {
						resp, err := http.Get(hs.URL + "/runs/" + run.ID + "/events")
						if err != nil {
							b.Error(err)
							return
						}
						defer resp.Body.Close()
						sc := bufio.NewScanner(resp.Body)
						n := 0
						for sc.Scan() {
							if strings.HasPrefix(sc.Text(), "data: {\"status") {
								n++
							}
							if sc.Text() == "event: end" {
								break
							}
						}
						mu.Lock()
						events += n
						last = time.Now()
						mu.Unlock()
					})
				}
				run.Wait()
				ended := time.Now()
				wg.Wait()
				lag += last.Sub(ended)
			}
			b.ReportMetric(float64(lag.Milliseconds())/float64(b.N), "ms-end-to-last-client")
			b.ReportMetric(float64(events)/float64(b.N*k), "events/client")
		})
	}
}
