package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// benchTriggers writes 100 DAG files of 10 triggers each under dir, the mix of
// schedule.BenchmarkPlan1000 (half crons in zones with daylight saving time, half intervals
// of 1 to 60 s), each running one const node, and loads them.
func benchTriggers(b *testing.B, dir string) []*dag.DAG {
	b.Helper()
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"}
	var ds []*dag.DAG
	for f := range 100 {
		var src strings.Builder
		fmt.Fprintf(&src, "version: 1\nname: bench%03d\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: ok}}\ntriggers:\n", f)
		for k := range 10 {
			i := f*10 + k
			if i%2 == 0 {
				fmt.Fprintf(&src, "  t%d:\n    every: %ds\n", k, 1+i%60)
			} else {
				fmt.Fprintf(&src, "  t%d:\n    cron: \"%d * * * *\"\n    timezone: %s\n", k, i%60, zones[i%len(zones)])
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("bench%03d.yaml", f))
		if err := os.WriteFile(path, []byte(src.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		d, err := dag.Load(b.Context(), path, dag.LoadOptions{Types: nodes.Builtin()})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, d)
	}
	return ds
}

func benchScheduler(b *testing.B, ds []*dag.DAG, clock Clock) (*Scheduler, runs.Store) {
	b.Helper()
	st, err := runs.Open(b.Context(), filepath.Join(b.TempDir(), "seam.db"))
	if err != nil {
		b.Fatal(err)
	}
	svc := New(Options{Store: st, Lang: "en", Logger: slog.New(slog.DiscardHandler)})
	b.Cleanup(func() { svc.Close(); st.Close() })
	sc, err := NewScheduler(svc, "bench", clock, func(context.Context) ([]*dag.DAG, error) { return ds, nil })
	if err != nil {
		b.Fatal(err)
	}
	return sc, st
}

// BenchmarkSchedulerTick1000 is one scheduler tick of 1,000 triggers across 100 DAG files
// (loaded once: a tick's loading of the files is not counted) on a real SQLite store, the
// clock a second on from the last tick: the store's cost (each trigger's state and last
// decisions, whether its runs still go, a row per decision) beside BenchmarkPlan1000's
// planning. "start" starts each due time's run (about 40 a tick) and waits for it;
// "paused" records each due time missed, with no run.
func BenchmarkSchedulerTick1000(b *testing.B) {
	for _, name := range []string{"start", "paused"} {
		b.Run(name, func(b *testing.B) {
			ds := benchTriggers(b, b.TempDir())
			clock := &testClock{t: time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)} // Berlin's fall-back night
			sc, st := benchScheduler(b, ds, clock)
			ctx := b.Context()
			if _, _, err := sc.Tick(ctx); err != nil { // every trigger seen from now
				b.Fatal(err)
			}
			if name == "paused" {
				for _, d := range ds {
					for _, tr := range d.Triggers {
						if err := st.(runs.Fires).SetPaused(ctx, runs.TriggerState{DAG: d.Name, Trigger: tr.ID, Paused: true, Note: "bench", PausedBy: "bench", PausedAt: clock.Now()}); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			decisions := 0
			b.ReportAllocs()
			for b.Loop() {
				clock.set(clock.Now().Add(time.Second))
				_, made, err := sc.Tick(ctx)
				if err != nil {
					b.Fatal(err)
				}
				for _, m := range made {
					if m.Run != nil {
						m.Run.Wait()
					}
				}
				decisions += len(made)
			}
			b.ReportMetric(float64(decisions)/float64(b.N), "decisions/tick")
		})
	}
}

// lateFor is how long BenchmarkSchedulerLateness1000 runs the scheduler.
const lateFor = 30 * time.Second

// BenchmarkSchedulerLateness1000 runs the scheduler on the wall clock for lateFor with the
// 1,000 triggers of BenchmarkSchedulerTick1000 (about 40 runs a second), as seam serve runs
// it (a tick a second), and counts the decisions made more than 1 s after their time
// (late>1s; a tick a second makes up to 1 s by itself), with the worst (max_late_ms) and
// the 99th percentile (p99_late_ms). A measurement, not a test: run it with -benchtime=1x
// (docs/performance.md).
func BenchmarkSchedulerLateness1000(b *testing.B) {
	for b.Loop() {
		ds := benchTriggers(b, b.TempDir())
		sc, st := benchScheduler(b, ds, nil)
		ctx, cancel := context.WithTimeout(b.Context(), lateFor)
		sc.Run(ctx, time.Second, func(err error) { b.Error(err) })
		cancel()
		var late []time.Duration
		for _, d := range ds {
			for _, tr := range d.Triggers {
				fs, err := st.(runs.Fires).ListFires(b.Context(), d.Name, tr.ID, 1000)
				if err != nil {
					b.Fatal(err)
				}
				for _, f := range fs {
					late = append(late, f.At.Sub(f.Scheduled))
				}
			}
		}
		slices.Sort(late)
		over := 0
		for _, l := range late {
			if l > time.Second {
				over++
			}
		}
		if len(late) == 0 {
			b.Fatal("no decisions")
		}
		b.ReportMetric(float64(len(late)), "decisions")
		b.ReportMetric(float64(over), "late>1s")
		b.ReportMetric(float64(late[len(late)*99/100].Milliseconds()), "p99_late_ms")
		b.ReportMetric(float64(late[len(late)-1].Milliseconds()), "max_late_ms")
	}
}
