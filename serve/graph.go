package serve

import (
	"fmt"
	"slices"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/lint"
)

// A graph is a DAG laid out for an SVG: layers left to right (a node one column right of
// its furthest dependency), each column ordered by the mean row of the nodes feeding it. It
// is a small layered layout of seam's own, linear in nodes and edges: go-graphviz (Graphviz
// in WebAssembly) took 143 ms for 500 nodes against a few here (docs/performance.md).
type graph struct {
	W, H  int
	Nodes []gnode
	Edges []gedge
}

type gnode struct {
	ID, Type   string
	X, Y, W, H int
	Status     string // a node status, or "" on a DAG page
	Href       string
	Note       string // e.g. "3 items"
	Selected   bool
}

type gedge struct {
	From, To string
	Path     string // the SVG path
	Verdict  string // proven, unknown, incompatible or order (needs only)
}

// Geometry of the layout, in SVG units.
const (
	nodeW, nodeH = 170, 44
	gapX, gapY   = 70, 18
	margin       = 16
)

// Edge verdicts.
const (
	proven       = "proven"
	unknown      = "unknown"
	incompatible = "incompatible"
	orderOnly    = "order"
)

// verdicts says, for each edge producer → consumer of d, what lint proved of it from its
// findings fs: incompatible (an error names both), unknown (a W301 does, or no contract
// checks the data crossing it), proven, or order when the edge carries no data (needs).
func verdicts(d *dag.DAG, fs []lint.Finding) map[[2]string]string {
	v := map[[2]string]string{}
	for _, n := range d.Nodes {
		checked := map[string]bool{} // producers whose data a contract checks at n
		data := map[string]bool{}
		addRefs := func(t *dag.Template, check bool) {
			if t == nil {
				return
			}
			for _, r := range t.Refs() {
				if r.Root == "nodes" {
					data[r.Node] = true
					checked[r.Node] = checked[r.Node] || check
				}
			}
		}
		addRefs(n.With, true) // `with` is checked against the type's config schema
		addRefs(n.Input, n.InputContract != nil)
		// lint proves a foreach reference is a list (SEAM-E306 when never, SEAM-W301 when it
		// cannot tell), and checks each item where it is used, naming the list's producers.
		addRefs(n.Foreach, true)
		if n.When != nil {
			for _, r := range n.When.Refs() {
				if r.Root == "nodes" {
					data[r.Node] = true
				}
			}
		}
		for _, p := range n.Deps {
			switch {
			case !data[p]:
				v[[2]string{p, n.ID}] = orderOnly
			case checked[p] || (n.Input == nil && n.InputContract != nil):
				v[[2]string{p, n.ID}] = proven
			default:
				v[[2]string{p, n.ID}] = unknown
			}
		}
	}
	for _, f := range fs {
		for _, p := range f.Producers {
			k := [2]string{p, f.Consumer}
			if _, ok := v[k]; !ok {
				continue // params, or not an edge
			}
			switch {
			case f.Severity == lint.SeverityError:
				v[k] = incompatible
			case f.Code == lint.CodeUnknown && v[k] != incompatible:
				v[k] = unknown
			}
		}
	}
	return v
}

// layout lays d out; status, when not nil, colours the nodes, and href links each.
func layout(d *dag.DAG, verdict map[[2]string]string, status func(id string) (string, string), href func(id string) string) *graph {
	layer := map[string]int{}
	for _, n := range d.Order {
		l := 0
		for _, p := range n.Deps {
			l = max(l, layer[p]+1)
		}
		layer[n.ID] = l
	}
	var cols [][]*dag.Node
	for _, n := range d.Nodes { // file order first
		l := layer[n.ID]
		for len(cols) <= l {
			cols = append(cols, nil)
		}
		cols[l] = append(cols[l], n)
	}
	row := map[string]float64{}
	if len(cols) > 0 {
		for j, n := range cols[0] {
			row[n.ID] = float64(j)
		}
	}
	for c := 1; c < len(cols); c++ {
		key := map[string]float64{}
		for j, n := range cols[c] {
			sum, k := 0.0, 0
			for _, p := range n.Deps {
				if r, ok := row[p]; ok {
					sum += r
					k++
				}
			}
			key[n.ID] = float64(j)
			if k > 0 {
				key[n.ID] = sum / float64(k)
			}
		}
		slices.SortStableFunc(cols[c], func(a, b *dag.Node) int {
			switch {
			case key[a.ID] < key[b.ID]:
				return -1
			case key[a.ID] > key[b.ID]:
				return 1
			}
			return 0
		})
		for j, n := range cols[c] {
			row[n.ID] = float64(j)
		}
	}
	tallest := 0
	for _, c := range cols {
		tallest = max(tallest, len(c))
	}
	g := &graph{W: 2*margin + len(cols)*nodeW + max(0, len(cols)-1)*gapX, H: 2*margin + tallest*nodeH + max(0, tallest-1)*gapY}
	at := map[string]*gnode{}
	for c, col := range cols {
		off := (tallest - len(col)) * (nodeH + gapY) / 2
		for j, n := range col {
			gn := gnode{ID: n.ID, Type: typeName(n), X: margin + c*(nodeW+gapX), Y: margin + off + j*(nodeH+gapY), W: nodeW, H: nodeH}
			if status != nil {
				gn.Status, gn.Note = status(n.ID)
			}
			if href != nil {
				gn.Href = href(n.ID)
			}
			g.Nodes = append(g.Nodes, gn)
		}
	}
	for i := range g.Nodes {
		at[g.Nodes[i].ID] = &g.Nodes[i]
	}
	for _, n := range d.Nodes {
		for _, p := range n.Deps {
			a, b := at[p], at[n.ID]
			if a == nil || b == nil {
				continue
			}
			x1, y1 := a.X+a.W, a.Y+a.H/2
			x2, y2 := b.X, b.Y+b.H/2
			mid := (x1 + x2) / 2
			g.Edges = append(g.Edges, gedge{From: p, To: n.ID, Verdict: verdict[[2]string{p, n.ID}],
				Path: fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, mid, y1, mid, y2, x2-2, y2)})
		}
	}
	return g
}

// typeName is n's type's name, or "?" when unknown.
func typeName(n *dag.Node) string {
	if n.Type == nil {
		return "?"
	}
	return n.Type.Name()
}
