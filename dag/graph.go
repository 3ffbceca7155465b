package dag

import (
	"github.com/seam-dag/seam/internal/i18n"

	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dominikbraun/graph"
)

// order sets d.Order, or reports each dependency cycle at the node that closes it.
//
// The order comes from Kahn's algorithm with the ready nodes taken in file order, in
// O((V+E) log V): the graph library's StableTopologicalSort rescans every vertex per step,
// which is quadratic and too slow for the 100k-node DAGs the engine is measured with. The
// library is used where it is not on the hot path: finding the cycles once the sort failed.
func (l *loader) order(d *DAG) {
	order, rest := topoOrder(d.Nodes, d.ByID)
	if len(rest) == 0 {
		d.Order = order
		return
	}
	cycles, err := findCycles(d.Nodes, rest)
	if err != nil {
		l.fatal = fmt.Errorf("load %s: find cycles: %w", l.file, err)
		return
	}
	srcs := make(map[*Node]*nodeSource, len(d.Nodes))
	for i, n := range d.Nodes {
		srcs[n] = l.srcs[i]
	}
	for _, c := range cycles {
		closer, last := c[0], c[len(c)-1]
		p := closer.Pos
		for _, x := range srcs[closer].deps {
			if x.id == last.ID {
				p = x.pos
				break
			}
		}
		ids := make([]string, len(c), len(c)+1)
		for i, n := range c {
			ids[i] = n.ID
		}
		ids = append(ids, closer.ID)
		hint := i18n.Sprintf(l.lang, "node %q depends on %q here; remove this reference or needs entry, or pass the value another way", closer.ID, last.ID)
		if len(c) == 1 {
			hint = i18n.Sprintf(l.lang, "a node cannot use its own output: remove this reference to %q", closer.ID)
		}
		l.add(p, CodeCycle, hint, i18n.Sprintf(l.lang, "dependency cycle: %s", strings.Join(ids, " → ")))
	}
}

// topoOrder returns the nodes producers first, taking among the ready nodes the first in file
// order, so a file already in dependency order keeps its order. rest holds the nodes that
// could not be ordered: those on a cycle or downstream of one.
func topoOrder(ns []*Node, byID map[string]*Node) (order, rest []*Node) {
	index := make(map[*Node]int, len(ns))
	for i, n := range ns {
		index[n] = i
	}
	// Consumers of each node, in one backing array (compressed sparse rows).
	start := make([]int, len(ns)+1)
	indeg := make([]int, len(ns))
	for i, n := range ns {
		for _, id := range n.Deps {
			if p, ok := byID[id]; ok {
				start[index[p]+1]++
				indeg[i]++
			}
		}
	}
	for i := range ns {
		start[i+1] += start[i]
	}
	consumers := make([]int, start[len(ns)])
	fill := slices.Clone(start[:len(ns)])
	for i, n := range ns {
		for _, id := range n.Deps {
			if p, ok := byID[id]; ok {
				j := index[p]
				consumers[fill[j]] = i
				fill[j]++
			}
		}
	}
	ready := &intHeap{}
	for i := range ns {
		if indeg[i] == 0 {
			ready.a = append(ready.a, i)
		}
	}
	heap.Init(ready)
	order = make([]*Node, 0, len(ns))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		order = append(order, ns[i])
		for _, c := range consumers[start[i]:start[i+1]] {
			if indeg[c]--; indeg[c] == 0 {
				heap.Push(ready, c)
			}
		}
	}
	for i, n := range ns {
		if indeg[i] > 0 {
			rest = append(rest, n)
		}
	}
	return order, rest
}

// intHeap is a min-heap of file indexes.
type intHeap struct{ a []int }

func (h *intHeap) Len() int           { return len(h.a) }
func (h *intHeap) Less(i, j int) bool { return h.a[i] < h.a[j] }
func (h *intHeap) Swap(i, j int)      { h.a[i], h.a[j] = h.a[j], h.a[i] }
func (h *intHeap) Push(x any)         { h.a = append(h.a, x.(int)) }
func (h *intHeap) Pop() any {
	x := h.a[len(h.a)-1]
	h.a = h.a[:len(h.a)-1]
	return x
}

// findCycles returns one cycle per strongly connected component of the unordered nodes
// (ignoring those merely downstream of a cycle). A cycle starts at its node first in file
// order and is the shortest way back to it, each step to the consumer first in file order;
// the edge back to the start is implied.
func findCycles(all, rest []*Node) ([][]*Node, error) {
	index := make(map[string]int, len(all))
	for i, n := range all {
		index[n.ID] = i
	}
	g := graph.New(func(n *Node) string { return n.ID }, graph.Directed())
	unordered := make(map[string]bool, len(rest))
	for _, n := range rest {
		unordered[n.ID] = true
		if err := g.AddVertex(n); err != nil {
			return nil, fmt.Errorf("add node %s: %w", n.ID, err)
		}
	}
	for _, n := range rest {
		for _, id := range n.Deps {
			if !unordered[id] {
				continue // ordered, so on no cycle
			}
			if err := g.AddEdge(id, n.ID); err != nil {
				return nil, fmt.Errorf("add edge %s → %s: %w", id, n.ID, err)
			}
		}
	}
	sccs, err := graph.StronglyConnectedComponents(g)
	if err != nil {
		return nil, fmt.Errorf("strongly connected components: %w", err)
	}
	adj, err := g.AdjacencyMap()
	if err != nil {
		return nil, fmt.Errorf("adjacency: %w", err)
	}
	byFile := func(a, b string) int { return cmp.Compare(index[a], index[b]) }
	var cycles [][]*Node
	for _, comp := range sccs {
		slices.SortFunc(comp, byFile)
		s := comp[0]
		if _, self := adj[s][s]; len(comp) == 1 && !self {
			continue
		}
		in := make(map[string]bool, len(comp))
		for _, id := range comp {
			in[id] = true
		}
		// Breadth-first from s to the first edge back into s.
		parent := map[string]string{s: ""}
		queue := []string{s}
		end := ""
		for len(queue) > 0 && end == "" {
			v := queue[0]
			queue = queue[1:]
			next := make([]string, 0, len(adj[v]))
			for w := range adj[v] {
				if in[w] {
					next = append(next, w)
				}
			}
			slices.SortFunc(next, byFile)
			for _, w := range next {
				if w == s {
					end = v
					break
				}
				if _, seen := parent[w]; !seen {
					parent[w] = v
					queue = append(queue, w)
				}
			}
		}
		var c []*Node
		for v := end; v != ""; v = parent[v] {
			c = append(c, all[index[v]])
		}
		slices.Reverse(c)
		cycles = append(cycles, c)
	}
	slices.SortFunc(cycles, func(a, b []*Node) int { return cmp.Compare(index[a[0].ID], index[b[0].ID]) })
	return cycles, nil
}

// dataDeps are the nodes n takes data from (references), as opposed to needs-only ordering.
func dataDeps(n *Node) map[string]bool {
	deps := make(map[string]bool)
	add := func(refs []Ref) {
		for _, r := range refs {
			if r.Root == "nodes" {
				deps[r.Node] = true
			}
		}
	}
	add(n.With.Refs())
	if n.Input != nil {
		add(n.Input.Refs())
	}
	if n.When != nil {
		add(n.When.Refs())
	}
	if n.Foreach != nil {
		add(n.Foreach.Refs())
	}
	return deps
}

// typeName is the name of n's type, or "?" for a node whose type is unknown.
func typeName(n *Node) string {
	if n.Type == nil {
		return "?"
	}
	return n.Type.Name()
}

// Mermaid renders the DAG as a Mermaid flowchart: solid arrows carry data (references),
// dotted ones only order (needs).
func (d *DAG) Mermaid() string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s\n---\nflowchart TD\n", strconv.Quote(d.Name))
	// Mermaid ids are positional: node ids such as "end" or "a-b" confuse its parser.
	mid := make(map[string]string, len(d.Nodes))
	for i, n := range d.Nodes {
		mid[n.ID] = "n" + strconv.Itoa(i)
		fmt.Fprintf(&b, "    %s[\"%s<br/><i>%s</i>\"]\n", mid[n.ID], mermaidText(n.ID), mermaidText(typeName(n)))
	}
	for _, n := range d.Nodes {
		data := dataDeps(n)
		for _, id := range n.Deps {
			arrow := "-->"
			if !data[id] {
				arrow = "-.->"
			}
			fmt.Fprintf(&b, "    %s %s %s\n", mid[id], arrow, mid[n.ID])
		}
	}
	return b.String()
}

// mermaidText escapes text for a quoted Mermaid label.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;").Replace(s)
}

// Dot renders the DAG in Graphviz DOT: solid edges carry data (references), dashed ones only
// order (needs).
func (d *DAG) Dot() string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n    node [shape=box, style=rounded];\n", dotQuote(d.Name))
	for _, n := range d.Nodes {
		fmt.Fprintf(&b, "    %s [label=%s];\n", dotQuote(n.ID), dotQuote(n.ID+"\n"+typeName(n)))
	}
	for _, n := range d.Nodes {
		data := dataDeps(n)
		for _, id := range n.Deps {
			style := ""
			if !data[id] {
				style = " [style=dashed]"
			}
			fmt.Fprintf(&b, "    %s -> %s%s;\n", dotQuote(id), dotQuote(n.ID), style)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// dotQuote quotes s as a DOT string; a newline becomes DOT's \n line break.
func dotQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
