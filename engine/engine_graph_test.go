package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
)

// graphOf builds the graph of a DAG whose nodes are given as "id:dep,dep".
func graphOf(t *testing.T, specs ...string) (graph, error) {
	t.Helper()
	d := &dag.DAG{Name: "g"}
	for _, s := range specs {
		id, deps, _ := strings.Cut(s, ":")
		n := &dag.Node{ID: id}
		if deps != "" {
			n.Deps = strings.Split(deps, ",")
		}
		d.Nodes = append(d.Nodes, n)
	}
	return newGraph(d)
}

// TestGraphIndex checks each node's dependencies and dependents, and what waits.
func TestGraphIndex(t *testing.T) {
	g, err := graphOf(t, "a:", "b:a", "c:a,b", "d:")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		node             int32
		deps, dependents []int32
		free             bool
	}{
		{0, nil, []int32{1, 2}, true},
		{1, []int32{0}, []int32{2}, false},
		{2, []int32{0, 1}, nil, false},
		{3, nil, nil, true},
	}
	for _, tt := range tests {
		if got := g.depsOf(tt.node); !slices.Equal(got, tt.deps) {
			t.Errorf("depsOf(%d) = %v, want %v", tt.node, got, tt.deps)
		}
		if got := g.dependentsOf(tt.node); !slices.Equal(got, tt.dependents) {
			t.Errorf("dependentsOf(%d) = %v, want %v", tt.node, got, tt.dependents)
		}
		if got := g.free(tt.node); got != tt.free {
			t.Errorf("free(%d) = %v, want %v", tt.node, got, tt.free)
		}
	}
}

func TestGraphUnknownDependency(t *testing.T) {
	_, err := graphOf(t, "a:", "b:zz")
	if err == nil || !strings.Contains(err.Error(), "node b depends on unknown node zz") {
		t.Fatalf("err = %v, want it to name b and zz", err)
	}
}

// TestGraphSettle checks what settling a node makes of its dependents: ready once they wait
// for nothing, skipped ones cascading to their own dependents, nothing when the run stopped.
func TestGraphSettle(t *testing.T) {
	tests := []struct {
		name    string
		settle  []int32 // settled in this order
		stopped bool
		skip    []int32 // nodes skip settles without running
		ready   []int32
		skipped []int32 // as skip was asked for them
	}{
		{name: "one of two dependencies", settle: []int32{0}, ready: []int32{1}},
		{name: "both dependencies", settle: []int32{0, 1}, ready: []int32{1, 2}},
		{name: "stopped", settle: []int32{0}, stopped: true},
		{name: "skip cascades", settle: []int32{0}, skip: []int32{1}, ready: []int32{2}, skipped: []int32{1}},
		{name: "skips cascade down a chain", settle: []int32{0}, skip: []int32{1, 2}, skipped: []int32{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// a ← b ← c, and a ← c.
			g, err := graphOf(t, "a:", "b:a", "c:a,b")
			if err != nil {
				t.Fatal(err)
			}
			var skipped []int32
			skip := func(j int32) bool {
				if !slices.Contains(tt.skip, j) {
					return false
				}
				skipped = append(skipped, j)
				return true
			}
			for _, i := range tt.settle {
				g.settle(i, tt.stopped, skip)
			}
			if !slices.Equal(g.ready, tt.ready) {
				t.Errorf("ready %v, want %v", g.ready, tt.ready)
			}
			if !slices.Equal(skipped, tt.skipped) {
				t.Errorf("skipped %v, want %v", skipped, tt.skipped)
			}
		})
	}
}

// TestGraphRestored checks that nodes settled in a checkpoint free their dependents without
// queuing them: the hosted loop decides which of them are ready.
func TestGraphRestored(t *testing.T) {
	g, err := graphOf(t, "a:", "b:a", "c:a,b")
	if err != nil {
		t.Fatal(err)
	}
	g.restored(0)
	if !g.free(1) || g.free(2) || len(g.ready) > 0 {
		t.Fatalf("after a restored: free(b) %v, free(c) %v, ready %v; want true, false, []", g.free(1), g.free(2), g.ready)
	}
}
