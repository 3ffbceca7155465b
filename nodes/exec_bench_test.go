package nodes

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// BenchmarkExec200 measures what the exec type adds to starting a process: 200 runs of
// `true` through execType.Run against 200 bare os/exec runs, both from 8 goroutines. The
// "interleaved" sub-benchmark runs both in every iteration, alternating which goes first, and
// reports their ratio, which load on the machine disturbs far less than the times.
//
//	go test -run '^$' -bench Exec200 -benchmem -count 10 ./nodes/
func BenchmarkExec200(b *testing.B) {
	const runs, workers = 200, 8
	fanOut := func(b *testing.B, run func() error) {
		jobs := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, runs)
		for range workers {
			wg.Go(func() {
				for range jobs {
					if err := run(); err != nil {
						errs <- err
					}
				}
			})
		}
		for range runs {
			jobs <- struct{}{}
		}
		close(jobs)
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}

	// Both run in a directory of their own, as the engine runs exec nodes in the DAG's.
	dir := b.TempDir()
	bare := func() error {
		cmd := exec.Command("true")
		cmd.Dir = dir
		return cmd.Run()
	}
	call := &Call{With: map[string]any{"command": []any{"true"}}, Input: map[string]any{}, Dir: dir}
	// The registry's exec, with its watchdog, as seam runs it.
	typ, _ := Builtin().Lookup("exec")
	node := func() error {
		_, err := typ.Run(context.Background(), call)
		return err
	}

	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			fanOut(b, bare)
		}
	})
	b.Run("node", func(b *testing.B) {
		for b.Loop() {
			fanOut(b, node)
		}
	})
	b.Run("interleaved", func(b *testing.B) {
		var bareTime, nodeTime time.Duration
		timed := func(run func() error) time.Duration {
			start := time.Now()
			fanOut(b, run)
			return time.Since(start)
		}
		for i := 0; b.Loop(); i++ {
			if i%2 == 0 {
				bareTime += timed(bare)
				nodeTime += timed(node)
			} else {
				nodeTime += timed(node)
				bareTime += timed(bare)
			}
		}
		b.ReportMetric(float64(bareTime.Nanoseconds())/float64(b.N), "bare-ns/op")
		b.ReportMetric(float64(nodeTime.Nanoseconds())/float64(b.N), "node-ns/op")
		b.ReportMetric(float64(nodeTime)/float64(bareTime), "ratio")
	})
}
