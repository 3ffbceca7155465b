package engine

import (
	"fmt"

	"github.com/seam-dag/seam/dag"
)

// graph is a run's DAG in index form (positions in d.Nodes) and how far the run is through
// it: which nodes still wait for dependencies, which are ready. It belongs to the scheduler
// goroutine. It is flattened so that a run over a large DAG allocates a few slices rather
// than a few per node: the dependencies of node i are deps[depStart[i]:depStart[i+1]], its
// dependents dependents[dtStart[i]:dtStart[i+1]].
type graph struct {
	deps, depStart      []int32
	dependents, dtStart []int32
	waiting             []int32 // dependencies of each node not finished yet
	ready               []int32 // FIFO of nodes whose dependencies finished and that may run
	settled             []int32 // work list of nodes that just reached a final status
}

// newGraph indexes d's dependencies, every node waiting for all of its own.
func newGraph(d *dag.DAG) (graph, error) {
	n := len(d.Nodes)
	g := graph{
		depStart: make([]int32, n+1),
		dtStart:  make([]int32, n+2),
		waiting:  make([]int32, n),
	}
	index := make(map[string]int32, n)
	for i, node := range d.Nodes {
		index[node.ID] = int32(i)
	}
	total := 0
	for _, node := range d.Nodes {
		total += len(node.Deps)
	}
	g.deps = make([]int32, 0, total)
	// Count dependents first (shifted by one), then fill them in place.
	for i, node := range d.Nodes {
		for _, id := range node.Deps {
			j, ok := index[id]
			if !ok {
				return graph{}, fmt.Errorf("run %s: node %s depends on unknown node %s", d.Name, node.ID, id)
			}
			g.deps = append(g.deps, j)
			g.dtStart[j+2]++
		}
		g.depStart[i+1] = int32(len(g.deps))
		g.waiting[i] = int32(len(node.Deps))
	}
	for i := 2; i < len(g.dtStart); i++ {
		g.dtStart[i] += g.dtStart[i-1]
	}
	g.dependents = make([]int32, total)
	for i := range d.Nodes {
		for _, j := range g.deps[g.depStart[i]:g.depStart[i+1]] {
			g.dependents[g.dtStart[j+1]] = int32(i)
			g.dtStart[j+1]++
		}
	}
	g.dtStart = g.dtStart[:n+1]
	return g, nil
}

// depsOf is the dependencies of node i.
func (g *graph) depsOf(i int32) []int32 { return g.deps[g.depStart[i]:g.depStart[i+1]] }

// dependentsOf is the nodes that depend on node i.
func (g *graph) dependentsOf(i int32) []int32 { return g.dependents[g.dtStart[i]:g.dtStart[i+1]] }

// free reports whether node i waits for no dependency.
func (g *graph) free(i int32) bool { return g.waiting[i] == 0 }

// popReady takes the first node off the ready queue, which must not be empty.
func (g *graph) popReady() int32 {
	i := g.ready[0]
	g.ready = g.ready[1:]
	return i
}

// settle counts down the dependencies that node i's dependents wait for, now that i has
// settled. A dependent that waits for none any more is queued ready, unless the run is
// stopped (it is canceled at the end) or skip settles it without running: then its own
// dependents are counted down in turn. Skips cascade through a work list rather than
// recursion, so a long chain cannot exhaust the stack.
func (g *graph) settle(i int32, stopped bool, skip func(j int32) bool) {
	g.settled = append(g.settled[:0], i)
	for len(g.settled) > 0 {
		i := g.settled[len(g.settled)-1]
		g.settled = g.settled[:len(g.settled)-1]
		for _, j := range g.dependentsOf(i) {
			g.waiting[j]--
			if g.waiting[j] > 0 || stopped {
				continue
			}
			if skip(j) {
				g.settled = append(g.settled, j)
				continue
			}
			g.ready = append(g.ready, j)
		}
	}
}

// restored counts down the dependencies that node i's dependents wait for, i being settled
// in a checkpoint: nothing is decided for them yet.
func (g *graph) restored(i int32) {
	for _, j := range g.dependentsOf(i) {
		g.waiting[j]--
	}
}
