package lint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// lintBenchDAG generates a DAG of n nodes in layers of 10, as a realistic pipeline: every
// node declares an output contract (an id, a bounded score, tags, a nested object with an
// enum); from the second layer on, each node reads two or three nodes of the layer before
// through an input mapping checked by its contract.input, every fifth one takes its default
// input instead (upstream outputs keyed by id), and every seventh passes a reference in its
// with. It returns the YAML and the number of edges.
func lintBenchDAG(n int) (string, int) {
	var b strings.Builder
	b.WriteString("version: 1\nname: bench\nnodes:\n")
	edges := 0
	id := func(i int) string { return fmt.Sprintf("n%05d", i) }
	for i := range n {
		fmt.Fprintf(&b, "  %s:\n    type: echo\n", id(i))
		var ups []int
		if i >= 10 {
			layer := i/10*10 - 10
			ups = []int{layer + i%10, layer + (i+3)%10}
			if i%3 == 0 {
				ups = append(ups, layer+(i+6)%10)
			}
		}
		edges += len(ups)
		switch {
		case len(ups) > 0 && i%5 == 0:
			fmt.Fprintf(&b, "    needs: [%s, %s]\n", id(ups[0]), id(ups[1]))
		case len(ups) > 0:
			b.WriteString("    input:\n")
			fmt.Fprintf(&b, "      id: \"${{ nodes.%s.output.data.id }}\"\n", id(ups[0]))
			fmt.Fprintf(&b, "      score: \"${{ nodes.%s.output.data.score }}\"\n", id(ups[1]))
			if len(ups) > 2 {
				fmt.Fprintf(&b, "      source: \"${{ nodes.%s.output.data.meta.source }}\"\n", id(ups[2]))
			}
			fmt.Fprintf(&b, "      tags: \"${{ nodes.%s.output.data.tags }}\"\n", id(ups[0]))
		}
		if len(ups) > 0 && i%7 == 0 {
			fmt.Fprintf(&b, "    with: {text: \"${{ nodes.%s.output.data.id }}\", count: \"${{ nodes.%s.output.data.score }}\"}\n", id(ups[0]), id(ups[1]))
		}
		b.WriteString(`    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [id, score, tags, meta]
            properties:
              id: {type: string, minLength: 1}
              score: {type: integer, minimum: 0, maximum: 100}
              tags: {type: array, items: {type: string, maxLength: 200}, maxItems: 10}
              meta:
                type: object
                required: [source]
                properties:
                  source: {enum: [crm, web, mail]}
                  at: {type: string, format: date-time}
`)
		switch {
		case len(ups) > 0 && i%5 == 0:
			fmt.Fprintf(&b, `      input:
        type: object
        required: [%s]
        properties:
          %s: {type: object, required: [data], properties: {data: {type: object, required: [id]}}}
`, id(ups[0]), id(ups[0]))
		case len(ups) > 0:
			b.WriteString(`      input:
        type: object
        required: [id, score, tags]
        properties:
          id: {type: string}
          score: {type: number, minimum: 0, maximum: 100}
          source: {type: string}
          tags: {type: array, items: {type: string, maxLength: 1000}}
`)
		}
	}
	return b.String(), edges
}

// TestLintBenchDAG checks that the generated DAG loads and lints clean, so the benchmark
// measures the full, compatible path.
func TestLintBenchDAG(t *testing.T) {
	src, _ := lintBenchDAG(100)
	d, ds := loadTest(t, src)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	if fs := Lint(context.Background(), d, Options{}); len(fs) != 0 {
		t.Errorf("findings: %v", fs)
	}
}

// BenchmarkLint lints generated DAGs of 100, 1,000 and 5,000 nodes; BenchmarkLintLoad loads
// the same files, the baseline the lint is compared with. Reproduce with
//
//	go test -run '^$' -bench 'Lint' -benchtime 10x -count 5 -cpu 1 ./dag/
func BenchmarkLint(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		src, edges := lintBenchDAG(n)
		d, ds := loadTest(&testing.T{}, src)
		if ds != nil {
			b.Fatalf("load: %v", ds)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if fs := Lint(context.Background(), d, Options{}); len(fs) != 0 {
					b.Fatalf("findings: %v", fs[0])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(edges), "ns/edge")
			b.ReportMetric(float64(edges), "edges")
		})
	}
}

func BenchmarkLintLoad(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		src, _ := lintBenchDAG(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := dag.LoadBytes(context.Background(), "bench.yaml", []byte(src), dag.LoadOptions{Types: nodestest.LoadTypes()}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
