package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/telemetry/otlptest"
)

// discardExporter is the no-op exporter: the SDK records and batches every span, then
// drops it, counting it.
type discardExporter struct{ spans atomic.Int64 }

func (e *discardExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.spans.Add(int64(len(spans)))
	return nil
}
func (*discardExporter) Shutdown(context.Context) error { return nil }

// traceMode is one way of running the benchmark's DAG.
type traceMode struct {
	name string
	opts RunOptions
}

// traceModes builds the modes side by side: off (twice, to show the noise floor), on with
// the no-op exporter, on with the batch OTLP/HTTP exporter to a receiver on loopback, and
// the same with metrics exported to it too. Providers live for the whole benchmark, as in
// a process; they are shut down when it ends.
func traceModes(b *testing.B) ([]traceMode, *otlptest.Receiver, *discardExporter, func() error) {
	ctx := context.Background()
	recv := otlptest.StartCounting(b)
	discard := &discardExporter{}
	noop := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard))
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(recv.URL+"/v1/traces"))
	if err != nil {
		b.Fatal(err)
	}
	otlp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	mexp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(recv.URL+"/v1/metrics"))
	if err != nil {
		b.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)))
	m, err := NewMetrics(mp.Meter("seam"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = noop.Shutdown(ctx)
		_ = otlp.Shutdown(ctx)
		_ = mp.Shutdown(ctx)
	})
	return []traceMode{
			{"off", RunOptions{}},
			{"off2", RunOptions{}},
			{"noop", RunOptions{Tracer: noop.Tracer("seam")}},
			{"otlp", RunOptions{Tracer: otlp.Tracer("seam")}},
			{"otlp+metrics", RunOptions{Tracer: otlp.Tracer("seam"), Metrics: m}},
		}, recv, discard, func() error {
			return errors.Join(noop.ForceFlush(ctx), otlp.ForceFlush(ctx), mp.ForceFlush(ctx))
		}
}

// BenchmarkEngineTrace measures what tracing costs a run: every iteration runs the same DAG
// once in each mode, in a shuffled order, each run after a GC and after the previous run's
// spans were sent, so that load on the machine hits all modes alike
// and reports each mode's median ns/node, the median of its per-iteration ratios to off
// (mode/off) and its ratio of CPU time to off's (mode/off-cpu). Shapes: BenchmarkEngine's const
// shapes at 1k nodes, and 10 ms nodes (probe with sleep) as a chain and wide. Run with:
//
//	go test ./engine -run '^$' -bench BenchmarkEngineTrace -benchtime 20x -count 5
func BenchmarkEngineTrace(b *testing.B) {
	cases := []struct {
		name  string
		src   string
		nodes int
	}{
		{"const/chain/1000", chainDAG(1000), 1000},
		{"const/wide/1000", wideDAG(1000), 1000},
		{"const/layered/1000", layeredDAG(1000), 1000},
		{"10ms/chain/10", sleepDAG(10, true), 10},
		{"10ms/wide/32", sleepDAG(32, false), 32},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			modes, recv, discard, flush := traceModes(b)
			d := load(b, newRecorder(), c.src)
			wall := make([][]time.Duration, len(modes)) // per mode, per iteration
			cpu := make([]time.Duration, len(modes))
			rng := rand.New(rand.NewPCG(3, 4))
			order := make([]int, len(modes))
			for k := range order {
				order[k] = k
			}
			i := 0
			for b.Loop() {
				// A fresh order each iteration: a run must not always pay for the garbage or
				// the pending exports of the same predecessor.
				rng.Shuffle(len(order), func(x, y int) { order[x], order[y] = order[y], order[x] })
				for _, m := range order {
					b.StopTimer()
					runtime.GC()
					b.StartTimer()
					c0 := cpuTime()
					start := time.Now()
					res, err := Run(context.Background(), d, modes[m].opts)
					wall[m] = append(wall[m], time.Since(start))
					// The CPU time includes sending the run's spans (and the receiver
					// decoding them, in this process): an upper bound.
					if err := flush(); err != nil {
						b.Fatal(err)
					}
					cpu[m] += cpuTime() - c0
					if err != nil {
						b.Fatal(err)
					}
					if res.Status != dag.RunSuccess {
						b.Fatalf("%s: run %s", modes[m].name, res.Status)
					}
				}
				i++
			}
			perNode := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(c.nodes) }
			for k, m := range modes {
				b.ReportMetric(perNode(median(wall[k])), m.name+"-ns/node")
				if k == 0 {
					continue
				}
				// The median of the iterations' ratios: each compares runs made moments apart.
				ratios := make([]float64, i)
				for j := range i {
					ratios[j] = float64(wall[k][j]) / float64(wall[0][j])
				}
				slices.Sort(ratios)
				b.ReportMetric(ratios[i/2], m.name+"/off")
				b.ReportMetric(float64(cpu[k])/float64(cpu[0]), m.name+"/off-cpu")
			}
			b.ReportMetric(perNode(cpu[2]-cpu[0])/float64(i), "noop-extra-cpu-ns/node")
			b.ReportMetric(0, "ns/op") // the sum of all modes means nothing
			// Spans the batch processor dropped (its queue is full when a run ends more spans
			// than it holds faster than they are sent) make "on" look cheaper: say how many.
			// Each of the two otlp modes ran the DAG as often as noop, whose exporter counts
			// what it got (its queue never fills: it drops spans as fast as they come).
			sent := 2 * discard.spans.Load()
			b.ReportMetric(float64(recv.SpanCount())/float64(sent), "otlp-delivered")
			b.ReportMetric(float64(discard.spans.Load())/float64(i), "spans/run")
		})
	}
}

// median of ds (sorted in place).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// cpuTime is the CPU time the process has used, user and system: the work of every
// goroutine, the batch processor's and the receiver's included.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sleepDAG is n probe nodes of 10 ms each, a chain or all independent (concurrency 8).
func sleepDAG(n int, chain bool) string {
	var b strings.Builder
	b.WriteString("version: 1\nname: sleep\nconcurrency: 8\nnodes:\n")
	for i := range n {
		fmt.Fprintf(&b, "  n%d:\n    type: probe\n    with: {sleep: 10ms}\n", i)
		if chain && i > 0 {
			fmt.Fprintf(&b, "    needs: [n%d]\n", i-1)
		}
	}
	return b.String()
}
