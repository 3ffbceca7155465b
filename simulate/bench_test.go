//go:build unix

package simulate

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dag/seam/lint"
)

// BenchmarkExamples simulates each example DAG beside seam lint's work on it, side by side
// (docs/performance.md compares them): "lint" and "simulate" load the file and analyse it, as
// the two commands do; "lint-only" and "simulate-only" take the loaded DAG. Beside the wall
// time each reports cpu-ns/op, the process's CPU time (user and system) per operation: on a
// machine shared with other builds the wall time moves by several times from one run to the
// next, the CPU time much less.
func BenchmarkExamples(b *testing.B) {
	files, err := filepath.Glob("../dags/*.yaml")
	if err != nil || len(files) == 0 {
		b.Fatalf("no examples: %v", err)
	}
	w := open(b)
	ctx := context.Background()
	for _, f := range files {
		name := filepath.Base(f)
		d, err := w.Load(ctx, f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("lint/"+name, func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				d, err := w.Load(ctx, f)
				if err != nil {
					b.Fatal(err)
				}
				lint.Lint(ctx, d, lint.Options{})
			}
		})
		b.Run("simulate/"+name, func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				d, err := w.Load(ctx, f)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Simulate(ctx, d, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("lint-only/"+name, func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				lint.Lint(ctx, d, lint.Options{})
			}
		})
		b.Run("simulate-only/"+name, func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				if _, err := Simulate(ctx, d, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cpuPerOp starts counting the process's CPU time; the function it returns reports it per
// operation of b as cpu-ns/op.
func cpuPerOp(b *testing.B) func() {
	start := cpuTime(b)
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
