package temporal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/temporaltest"
	"github.com/seam-dag/seam/runs"
)

// The benchmarks below run the same DAG of exec nodes on the embedded engine and on Temporal
// (an in-process worker polling the dev server that scripts/temporal-server.sh starts, with
// Engine as the client), both recording into a SQLite store, as `seam run` and `seam worker`
// do. Sub-benchmarks: engine=embedded and engine=temporal run one engine (ms/node, and this
// process's CPU per node: the worker's and the client's work, the nodes' processes but not the
// server's); interleaved runs the two one after the other in every iteration, alternating
// which goes first, so that load on the shared machine hits both alike, and reports medians
// over the iterations:
//
//	embedded-ms, temporal-ms  wall time of one run, start to result
//	overhead-ms/node          (temporal − embedded) ÷ nodes, per iteration
//	ratio                     temporal ÷ embedded, per iteration
//	events/node               the run workflow's history events ÷ nodes (exact)
//
// Run with (docs/performance.md, "Temporal engine"):
//
//	SEAM_TEST_TEMPORAL=host:port go test ./temporal -run '^$' -bench . -benchtime 3x

// BenchmarkChain runs a chain of 50 exec nodes: every node waits for the one before, so each
// pays the whole round trip from its scheduling to its result being handed on.
func BenchmarkChain(b *testing.B) {
	benchEngines(b, execDAG("chain", 50, 8))
}

// BenchmarkWide runs 200 independent exec nodes, 32 at a time on both engines.
func BenchmarkWide(b *testing.B) {
	benchEngines(b, execDAG("wide", 200, 32))
}

// execDAG is a DAG of n exec nodes running printf, as a chain or all independent.
func execDAG(shape string, n, concurrency int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "version: 1\nname: %s%d\nconcurrency: %d\nnodes:\n", shape, n, concurrency)
	for i := range n {
		fmt.Fprintf(&s, "  n%d:\n    type: exec\n    with: {command: [printf, n%d], output: text}\n", i, i)
		if shape == "chain" && i > 0 {
			fmt.Fprintf(&s, "    needs: [n%d]\n", i-1)
		}
	}
	return s.String()
}

// benchEngines runs the DAG src on each engine and on both interleaved.
func benchEngines(b *testing.B, src string) {
	temporaltest.Server(b) // skips before anything is set up without a server
	ctx := context.Background()
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	reg := types()
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: reg})
	if err != nil {
		b.Fatal(err)
	}
	n := len(d.Nodes)
	open := func(name string) runs.Store {
		s, err := runs.Open(ctx, filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	embeddedStore, workerStore := open("embedded.db"), open("worker.db")

	c := temporaltest.Client(b, client.Options{})
	queue := temporaltest.Worker(b, c, SDKWorkerOptions(max(d.Concurrency, 16)), func(w worker.Worker) {
		NewWorker(WorkerOptions{Client: c, Store: workerStore, Types: reg, Dir: filepath.Join(dir, "bundles")}).Register(w)
	})
	eng := &Engine{Client: c, TaskQueue: queue}

	count := 0
	runID := func() string { return fmt.Sprintf("%s-%d", queue, count) }
	run := func(b *testing.B, temporal bool) time.Duration {
		count++
		opts := engine.RunOptions{RunID: runID()}
		start := time.Now()
		var res *dag.RunResult
		if temporal {
			res, err = eng.Run(ctx, d, opts)
		} else {
			opts.Recorder = runs.NewRecorder(embeddedStore, d, runs.RecorderOptions{})
			res, err = engine.Run(ctx, d, opts)
		}
		elapsed := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != dag.RunSuccess {
			b.Fatalf("run %s: %s", opts.RunID, res.Status)
		}
		return elapsed
	}
	_ = run(b, true) // the first run on Temporal creates the task queue and fills caches

	for _, name := range []string{"embedded", "temporal"} {
		b.Run("engine="+name, func(b *testing.B) {
			var ts []time.Duration
			cpu := cpuTime()
			for b.Loop() {
				ts = append(ts, run(b, name == "temporal"))
			}
			b.ReportMetric(float64(median(ts).Microseconds())/1000/float64(n), "ms/node")
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N*n), "cpu-ms/node")
			if name == "temporal" {
				b.ReportMetric(float64(countEvents(b, c, WorkflowID(runID())))/float64(n), "events/node")
			}
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		var te, tt []time.Duration
		var over, ratio []float64
		i := 0
		for b.Loop() {
			var e, t time.Duration
			if i%2 == 0 {
				e, t = run(b, false), run(b, true)
			} else {
				t, e = run(b, true), run(b, false)
			}
			i++
			te, tt = append(te, e), append(tt, t)
			over = append(over, float64(t-e)/float64(time.Millisecond)/float64(n))
			ratio = append(ratio, float64(t)/float64(e))
		}
		b.ReportMetric(float64(median(te).Microseconds())/1000, "embedded-ms")
		b.ReportMetric(float64(median(tt).Microseconds())/1000, "temporal-ms")
		b.ReportMetric(median(over), "overhead-ms/node")
		b.ReportMetric(median(ratio), "ratio")
	})
}

// cpuTime is the CPU time this process and its waited-for children have used.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}

// countEvents counts the history events of the workflow id's last run.
func countEvents(b testing.TB, c client.Client, id string) int {
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	n := 0
	for it.HasNext() {
		if _, err := it.Next(); err != nil {
			b.Fatalf("history of %s: %v", id, err)
		}
		n++
	}
	return n
}

// median is the middle value of vs (the mean of the two middle ones for an even count).
func median[T time.Duration | float64](vs []T) T {
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
