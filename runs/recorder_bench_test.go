package runs

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
)

// BenchmarkStore runs the same DAGs with the run store off and on, on each backend, to
// measure what recording costs a run: const nodes (the engine's own cost is all there is to
// compare with) in the engine benchmark's three shapes, and nodes that take 10 ms. Each
// iteration runs the DAG once each way, alternating which goes first, so that load on the
// machine hits both alike; it reports off-ns/node, on-ns/node, ratio (on ÷ off, totals) and
// cpu-ratio (the same for the process's CPU time).
// The PostgreSQL cases need $SEAM_TEST_POSTGRES (scripts/pg-server.sh). Run with:
//
//	go test ./runs -run '^$' -bench BenchmarkStore -benchtime 3x -count 5
func BenchmarkStore(b *testing.B) {
	cases := []struct {
		name string
		src  string
	}{
		{"const/chain/1000", genDAG("chain", 1000, "const")},
		{"const/wide/1000", genDAG("wide", 1000, "const")},
		{"const/layered/1000", genDAG("layered", 1000, "const")},
		{"const/chain/10000", genDAG("chain", 10000, "const")},
		{"const/wide/10000", genDAG("wide", 10000, "const")},
		{"const/layered/10000", genDAG("layered", 10000, "const")},
		{"sleep10ms/chain/50", genDAG("chain", 50, "sleep")},
		{"sleep10ms/wide/400", genDAG("wide", 400, "sleep")},
	}
	types := nodes.Builtin()
	types.Add(sleepType{d: 10 * time.Millisecond})
	for _, be := range backends() {
		for _, c := range cases {
			benchStore(b, be, c.name, c.src, types)
		}
	}
}

func benchStore(b *testing.B, be backend, name, src string, types *nodes.Registry) {
	d, err := dag.LoadBytes(context.Background(), "bench.yaml", []byte(src), dag.LoadOptions{Types: types})
	if err != nil {
		b.Fatal(err)
	}
	b.Run(be.name+"/"+name, func(b *testing.B) {
		s, _ := be.open(b)
		var offCPU, onCPU time.Duration
		run := func(store bool) time.Duration {
			cpu0 := cpuTime()
			defer func() {
				if store {
					onCPU += cpuTime() - cpu0
				} else {
					offCPU += cpuTime() - cpu0
				}
			}()
			opts := engine.RunOptions{}
			if store {
				opts.Recorder = NewRecorder(s, d, RecorderOptions{})
			}
			start := time.Now()
			res, err := engine.Run(context.Background(), d, opts)
			if err != nil {
				b.Fatal(err)
			}
			if res.Status != dag.RunSuccess {
				b.Fatalf("run %s", res.Status)
			}
			return time.Since(start)
		}
		var off, on time.Duration
		i := 0
		for b.Loop() {
			if i%2 == 0 {
				off += run(false)
				on += run(true)
			} else {
				on += run(true)
				off += run(false)
			}
			i++
		}
		per := float64(b.N * len(d.Nodes))
		b.ReportMetric(float64(off.Nanoseconds())/per, "off-ns/node")
		b.ReportMetric(float64(on.Nanoseconds())/per, "on-ns/node")
		b.ReportMetric(float64(on)/float64(off), "ratio")
		// CPU time (user + system, the whole process) is what load on the machine distorts
		// least; a run that mostly sleeps uses too little of it for this to mean much.
		b.ReportMetric(float64(onCPU)/float64(offCPU), "cpu-ratio")
	})
}

// sleepType is a node type that takes d and emits a passing output, for nodes that do work.
type sleepType struct{ d time.Duration }

func (sleepType) Name() string         { return "sleep" }
func (sleepType) Doc() string          { return "sleeps, then passes" }
func (sleepType) ConfigSchema() []byte { return []byte(`{"type":"object"}`) }
func (sleepType) OutputSchema() []byte { return nil }
func (t sleepType) Run(ctx context.Context, c *nodes.Call) (*nodes.Result, error) {
	select {
	case <-time.After(t.d):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &nodes.Result{Output: fmt.Appendf(nil, `{"status":"pass","summary":"%s slept"}`, c.Node)}, nil
}

// genDAG writes a DAG of n nodes of type typ: a chain (each needs the one before), wide (all
// independent) or layered (layers of 100, each node needing 3 random nodes of the layer
// before, fixed seed), as in the engine benchmark.
func genDAG(shape string, n int, typ string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "version: 1\nname: %s\nconcurrency: 8\nnodes:\n", shape)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		if typ == "const" {
			fmt.Fprintf(&b, "  n%d:\n    type: const\n    with: {value: {status: pass, summary: node %d}}\n", i, i)
		} else {
			fmt.Fprintf(&b, "  n%d:\n    type: %s\n", i, typ)
		}
		var needs []int
		switch {
		case shape == "chain" && i > 0:
			needs = []int{i - 1}
		case shape == "layered" && i >= 100:
			prev := (i/100 - 1) * 100
			for _, k := range rng.Perm(100)[:3] {
				needs = append(needs, prev+k)
			}
		}
		if len(needs) > 0 {
			b.WriteString("    needs: [")
			for k, j := range needs {
				if k > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "n%d", j)
			}
			b.WriteString("]\n")
		}
	}
	return b.String()
}

// BenchmarkRecordAttempts measures one committed batch of attempts, each with a new 200-byte
// output, by batch size: the store's cost per attempt as the engine pays it.
func BenchmarkRecordAttempts(b *testing.B) {
	for _, be := range backends() {
		benchRecordAttempts(b, be)
	}
}

func benchRecordAttempts(b *testing.B, be backend) {
	for _, size := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("%s/batch%d", be.name, size), func(b *testing.B) {
			ctx := context.Background()
			s, _ := be.open(b)
			if err := s.CreateRun(ctx, Run{ID: "bench", DAG: "d", Status: "running", Started: time.Now()}); err != nil {
				b.Fatal(err)
			}
			batch := make([]Attempt, size)
			i := 0
			cpu0 := cpuTime()
			for b.Loop() {
				for k := range batch {
					i++
					out := bytes.Repeat([]byte("x"), 200)
					copy(out, fmt.Sprintf(`{"data":"%012d`, i))
					copy(out[len(out)-2:], `"}`)
					batch[k] = Attempt{RunID: "bench", Node: "n", Item: -1, Attempt: i, Status: "passed",
						Final: true, Key: "k", Output: out, Started: t0, Ended: t0}
				}
				if err := s.RecordAttempts(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/attempt")
			// CPU time (user + system) is what load on a shared machine distorts least.
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N*size), "cpu-ns/attempt")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkListRuns100k reads the first page of `seam runs list` (20 runs, sub-runs left
// out) from a store of 100,000 runs, on each backend, and then the first page of one DAG's
// runs. Filling the store takes a few seconds; run with:
//
//	go test ./runs -run '^$' -bench BenchmarkListRuns100k -benchtime 200x
func BenchmarkListRuns100k(b *testing.B) {
	const n = 100_000
	for _, be := range backends() {
		b.Run(be.name, func(b *testing.B) {
			ctx := context.Background()
			s, _ := be.open(b)
			fillRuns(b, s, n)
			for _, f := range []struct {
				name string
				f    Filter
			}{
				{"first-page", Filter{TopLevel: true, Limit: 20}},
				{"dag-first-page", Filter{DAG: "dag-7", TopLevel: true, Limit: 20}},
			} {
				b.Run(f.name, func(b *testing.B) {
					for b.Loop() {
						list, _, err := s.ListRuns(ctx, f.f)
						if err != nil || len(list) != 20 {
							b.Fatalf("%d runs, %v", len(list), err)
						}
					}
				})
			}
		})
	}
}

// fillRuns inserts n finished runs of 10 DAGs, one a second, in one statement.
func fillRuns(b *testing.B, s Store, n int) {
	ctx := context.Background()
	var err error
	switch s := s.(type) {
	case *sqliteStore:
		_, err = s.db.ExecContext(ctx, `WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < ?)
			INSERT INTO runs (id, dag, status, started, ended)
			SELECT printf('%012d-run', k), 'dag-' || (k % 10), 'success', k * 1000000000, k * 1000000000 + 5 FROM i`, n)
	case *pgStore:
		_, err = s.pool.Exec(ctx, `INSERT INTO runs (id, dag, status, started, ended)
			SELECT lpad(k::text, 12, '0') || '-run', 'dag-' || (k % 10), 'success', k * 1000000000::bigint, k * 1000000000::bigint + 5
			FROM generate_series(1, $1) AS k`, n)
		if err == nil {
			_, err = s.pool.Exec(ctx, `ANALYZE runs`)
		}
	}
	if err != nil {
		b.Fatal(err)
	}
}
