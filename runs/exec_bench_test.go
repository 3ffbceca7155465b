package runs

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
)

// BenchmarkExecChain runs a chain of 100 exec nodes of `true` in the engine, with the store off
// and on (SQLite), and the same 100 processes started one after another with bare os/exec: what
// the engine and the store add between one process's exit and the next one's start, without
// seam's process start-up (scripts/bench-exec.sh measures the whole command). Every iteration
// runs the three in a rotating order and the metrics are medians of the per-iteration ratios:
// off/bare and on/bare. Run with:
//
//	go test ./runs -run '^$' -bench BenchmarkExecChain -benchtime 9x
func BenchmarkExecChain(b *testing.B) {
	const n = 100
	var src strings.Builder
	fmt.Fprintf(&src, "version: 1\nname: chain\nnodes:\n")
	for i := range n {
		fmt.Fprintf(&src, "  n%d:\n    type: exec\n    with: {command: [/bin/true], output: text}\n", i)
		if i > 0 {
			fmt.Fprintf(&src, "    needs: [n%d]\n", i-1)
		}
	}
	ctx := context.Background()
	d, err := dag.LoadBytes(ctx, "bench.yaml", []byte(src.String()), dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		b.Fatal(err)
	}
	s, _ := openTemp(b)
	seam := func(store bool) time.Duration {
		opts := engine.RunOptions{}
		if store {
			opts.Recorder = NewRecorder(s, d, RecorderOptions{})
		}
		start := time.Now()
		res, err := engine.Run(ctx, d, opts)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != dag.RunSuccess {
			b.Fatalf("run %s", res.Status)
		}
		return time.Since(start)
	}
	bare := func() time.Duration {
		start := time.Now()
		for range n {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	var tb, toff, ton []time.Duration
	var roff, ron []float64
	i := 0
	for b.Loop() {
		var t [3]time.Duration
		for k := range 3 {
			switch (i + k) % 3 {
			case 0:
				t[0] = bare()
			case 1:
				t[1] = seam(false)
			case 2:
				t[2] = seam(true)
			}
		}
		i++
		tb, toff, ton = append(tb, t[0]), append(toff, t[1]), append(ton, t[2])
		roff, ron = append(roff, float64(t[1])/float64(t[0])), append(ron, float64(t[2])/float64(t[0]))
	}
	b.ReportMetric(float64(median(tb).Microseconds())/n, "bare-µs/node")
	b.ReportMetric(float64(median(toff).Microseconds())/n, "off-µs/node")
	b.ReportMetric(float64(median(ton).Microseconds())/n, "on-µs/node")
	b.ReportMetric(median(roff), "off/bare")
	b.ReportMetric(median(ron), "on/bare")
}

// median returns the middle value of vs (the mean of the two middle ones for an even count).
func median[T time.Duration | float64](vs []T) T {
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkRunFixedCost is what the store costs a `seam run` of one node besides the node:
// opening the store (schema version), checking it (Check), creating the run, committing the
// attempt, finishing the run and closing, in a store already holding 0 or 10,000 runs of 3
// nodes. Run with:
//
//	go test ./runs -run '^$' -bench BenchmarkRunFixedCost -benchtime 50x
func BenchmarkRunFixedCost(b *testing.B) {
	ctx := context.Background()
	d, err := dag.LoadBytes(ctx, "bench.yaml", []byte(genDAG("chain", 1, "const")), dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		b.Fatal(err)
	}
	for _, runs := range []int{0, 10_000} {
		b.Run(fmt.Sprintf("runs=%d", runs), func(b *testing.B) {
			s, path := openTemp(b)
			fillRuns(b, s, runs)
			// 3 attempts per run, each with an output of its own (about 200 bytes).
			if _, err := s.db.ExecContext(ctx, `INSERT INTO outputs (hash, size, data)
				SELECT printf('%064d', rowid), 200, zeroblob(200) FROM runs;
				INSERT INTO attempts (run_id, seq, node, attempt, type, status, final, output_hash, started, ended)
				SELECT id, n, 'n' || n, 1, 'const', 'passed', 1, printf('%064d', rowid), started, ended
				FROM runs, (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3)`); err != nil {
				b.Fatal(err)
			}
			s.Close()
			cpu0 := cpuTime()
			for b.Loop() {
				s, err := Open(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Check(ctx); err != nil {
					b.Fatal(err)
				}
				res, err := engine.Run(ctx, d, engine.RunOptions{Recorder: NewRecorder(s, d, RecorderOptions{})})
				if err != nil || res.Status != dag.RunSuccess {
					b.Fatal(err, res.Status)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/run")
		})
	}
}
