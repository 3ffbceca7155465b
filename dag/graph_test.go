package dag

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/seam-dag/seam/nodes/nodestest"
)

func TestOrder(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{{
		name: "file order already topological",
		src:  "  a: {type: echo}\n  b: {type: echo, needs: [a]}\n  c: {type: echo}\n  d: {type: echo, needs: [b, c]}\n",
		want: []string{"a", "b", "c", "d"},
	}, {
		name: "consumers first in the file",
		src:  "  d: {type: echo, needs: [b, c]}\n  b: {type: echo, needs: [a]}\n  c: {type: echo}\n  a: {type: echo}\n",
		want: []string{"c", "a", "b", "d"},
	}, {
		name: "a reference is an edge",
		src:  "  late: {type: echo, with: {text: \"${{ nodes.early.output.summary }}\"}}\n  early: {type: echo}\n",
		want: []string{"early", "late"},
	}, {
		name: "independent nodes keep file order",
		src:  "  z: {type: echo}\n  y: {type: echo}\n  x: {type: echo}\n",
		want: []string{"z", "y", "x"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ds := loadTest(t, head+tt.src)
			if ds != nil {
				t.Fatalf("diagnostics:\n%v", ds)
			}
			var got []string
			for _, n := range d.Order {
				got = append(got, n.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCycles(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{{
		name: "two cycles and a node downstream of one",
		src: "  a: {type: echo, needs: [b]}\n  b: {type: echo, needs: [a]}\n  c: {type: echo, needs: [a]}\n" +
			"  d: {type: echo, needs: [f]}\n  e: {type: echo, needs: [d]}\n  f: {type: echo, needs: [e]}\n",
		want: []string{
			`4:27 SEAM-E107 dependency cycle: a → b → a`,
			`7:27 SEAM-E107 dependency cycle: d → e → f → d`,
		},
	}, {
		name: "the shortest way back",
		src:  "  a: {type: echo, needs: [c, b]}\n  b: {type: echo, needs: [a]}\n  c: {type: echo, needs: [b]}\n",
		want: []string{`4:30 SEAM-E107 dependency cycle: a → b → a`},
	}, {
		name: "needs itself",
		src:  "  a: {type: echo}\n  b: {type: echo, needs: [a, b]}\n",
		want: []string{`5:30 SEAM-E107 dependency cycle: b → b`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := loadTest(t, head+tt.src)
			var got []string
			for _, d := range ds {
				got = append(got, brief(d))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

const graphSrc = `version: 1
name: "fan \"in\""
nodes:
  north: {type: const, with: {value: 1}}
  south: {type: const, with: {value: 2}}
  total:
    type: echo
    needs: [south, audit]
    input: ["${{ nodes.north.output }}", "${{ nodes.south.output }}"]
  audit: {type: echo}
`

func TestMermaid(t *testing.T) {
	d, ds := loadTest(t, graphSrc)
	if ds != nil {
		t.Fatalf("diagnostics:\n%v", ds)
	}
	want := `---
title: "fan \"in\""
---
flowchart TD
    n0["north<br/><i>const</i>"]
    n1["south<br/><i>const</i>"]
    n2["total<br/><i>echo</i>"]
    n3["audit<br/><i>echo</i>"]
    n1 --> n2
    n3 -.-> n2
    n0 --> n2
`
	if got := d.Mermaid(); got != want {
		t.Errorf("Mermaid:\n%s\nwant:\n%s", got, want)
	}
}

func TestDot(t *testing.T) {
	d, ds := loadTest(t, graphSrc)
	if ds != nil {
		t.Fatalf("diagnostics:\n%v", ds)
	}
	want := `digraph "fan \"in\"" {
    node [shape=box, style=rounded];
    "north" [label="north\nconst"];
    "south" [label="south\nconst"];
    "total" [label="total\necho"];
    "audit" [label="audit\necho"];
    "south" -> "total";
    "audit" -> "total" [style=dashed];
    "north" -> "total";
}
`
	if got := d.Dot(); got != want {
		t.Errorf("Dot:\n%s\nwant:\n%s", got, want)
	}
}

// DAG shapes for large loads.
const (
	chainRefs  = iota // each node references the previous one
	chainNeeds        // each node needs the previous one
	wide              // independent nodes, and one that needs them all
)

// bigDAG is a DAG file of n echo nodes of the given shape.
func bigDAG(n, shape int) []byte {
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		switch {
		case i == 0 || shape == wide:
			fmt.Fprintf(&b, "  n%d: {type: echo, with: {text: hi}}\n", i)
		case shape == chainRefs:
			fmt.Fprintf(&b, "  n%d: {type: echo, with: {text: \"${{ nodes.n%d.output.summary }}\"}}\n", i, i-1)
		default:
			fmt.Fprintf(&b, "  n%d: {type: echo, needs: [n%d], with: {text: hi}}\n", i, i-1)
		}
	}
	if shape == wide {
		b.WriteString("  sink:\n    type: echo\n    needs:\n")
		for i := range n {
			fmt.Fprintf(&b, "      - n%d\n", i)
		}
	}
	return []byte(b.String())
}

// TestLoadAllocsScale guards against anything quadratic in the loader by counting, not
// timing (shared machines make durations flake): eight times the nodes must take about eight
// times the allocations, far from the sixty-four times of a step that builds something per
// pair of nodes. BenchmarkLoad compares the times of 1k and 8k nodes.
func TestLoadAllocsScale(t *testing.T) {
	if testing.Short() {
		t.Skip("loads large DAGs")
	}
	allocs := func(src []byte) float64 {
		return testing.AllocsPerRun(1, func() {
			d, err := LoadBytes(context.Background(), "big.yaml", src, LoadOptions{Types: nodestest.LoadTypes()})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Order) != len(d.Nodes) {
				t.Fatalf("order has %d of %d nodes", len(d.Order), len(d.Nodes))
			}
		})
	}
	for _, shape := range []int{chainRefs, chainNeeds, wide} {
		small, large := allocs(bigDAG(1_000, shape)), allocs(bigDAG(8_000, shape))
		if ratio := large / small; ratio > 12 {
			t.Errorf("shape %d: 1k nodes load with %.0f allocations, 8k with %.0f: %.1f times as many", shape, small, large, ratio)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	for _, bc := range []struct {
		name  string
		n     int
		shape int
	}{
		{"refs-chain-1k", 1_000, chainRefs},
		{"needs-chain-1k", 1_000, chainNeeds},
		{"needs-chain-8k", 8_000, chainNeeds},
		{"wide-1k", 1_000, wide},
		{"wide-8k", 8_000, wide},
		{"refs-chain-100k", 100_000, chainRefs},
		{"needs-chain-100k", 100_000, chainNeeds},
		{"wide-100k", 100_000, wide},
	} {
		src := bigDAG(bc.n, bc.shape)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := LoadBytes(context.Background(), "big.yaml", src, LoadOptions{Types: nodestest.LoadTypes()}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTopoOrder(b *testing.B) {
	d, err := LoadBytes(context.Background(), "big.yaml", bigDAG(100_000, chainNeeds), LoadOptions{Types: nodestest.LoadTypes()})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if order, rest := topoOrder(d.Nodes, d.ByID); len(order) != len(d.Nodes) || rest != nil {
			b.Fatal("not ordered")
		}
	}
}
