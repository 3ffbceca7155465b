package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
)

// BenchmarkEngine measures the engine's own cost per node: const nodes whose every output is
// validated against the standard contract, in three shapes. Only Run is timed; loading is
// not. Run with:
//
//	go test ./dag -run '^$' -bench BenchmarkEngine -benchtime 3x
func BenchmarkEngine(b *testing.B) {
	shapes := []struct {
		name string
		gen  func(n int) string
	}{
		{"chain", chainDAG},
		{"wide", wideDAG},
		{"layered", layeredDAG},
	}
	for _, shape := range shapes {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/%d", shape.name, n), func(b *testing.B) {
				d := load(b, newRecorder(), shape.gen(n))
				for b.Loop() {
					res, err := Run(context.Background(), d, RunOptions{RunID: "bench"})
					if err != nil {
						b.Fatal(err)
					}
					if res.Status != dag.RunSuccess {
						b.Fatalf("run %s", res.Status)
					}
				}
				perNode := float64(b.Elapsed().Nanoseconds()) / float64(b.N*n)
				b.ReportMetric(perNode, "ns/node")
				b.ReportMetric(1e9/perNode, "nodes/s")
			})
		}
	}
}

// benchNode writes one const node with its needs.
func benchNode(b *strings.Builder, i int, needs []int) {
	fmt.Fprintf(b, "  n%d:\n    type: const\n    with: {value: {status: pass, summary: node %d}}\n", i, i)
	if len(needs) > 0 {
		b.WriteString("    needs: [")
		for k, j := range needs {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "n%d", j)
		}
		b.WriteString("]\n")
	}
}

func benchHeader(name string) *strings.Builder {
	var b strings.Builder
	fmt.Fprintf(&b, "version: 1\nname: %s\nconcurrency: 8\nnodes:\n", name)
	return &b
}

// chainDAG is n nodes each depending on the one before: no parallelism at all.
func chainDAG(n int) string {
	b := benchHeader("chain")
	for i := range n {
		var needs []int
		if i > 0 {
			needs = []int{i - 1}
		}
		benchNode(b, i, needs)
	}
	return b.String()
}

// wideDAG is n independent nodes, all ready at once.
func wideDAG(n int) string {
	b := benchHeader("wide")
	for i := range n {
		benchNode(b, i, nil)
	}
	return b.String()
}

// layeredDAG is layers of 100 nodes, each node depending on 3 random nodes of the layer
// before (fixed seed).
func layeredDAG(n int) string {
	const width, fanIn = 100, 3
	rng := rand.New(rand.NewPCG(1, 2))
	b := benchHeader("layered")
	for i := range n {
		layer := i / width
		var needs []int
		if layer > 0 {
			prev := (layer - 1) * width
			for _, k := range rng.Perm(width)[:fanIn] {
				needs = append(needs, prev+k)
			}
		}
		benchNode(b, i, needs)
	}
	return b.String()
}
