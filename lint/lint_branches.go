package lint

// Branches (issue 40). A when guarantees something of the values it reads when it is true,
// and something else when it is false (lint_guard.go's narrowing, asked for either truth).
// Those guarantees are necessary conditions: when the contract of a value read and the
// condition's constraint on it cannot meet, that outcome never happens, and the node is
// always skipped, or never is (SEAM-W312). seam run --simulate reads the same constraints to
// generate outputs that make each outcome happen.

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// Constraint is what one outcome of a node's when (or foreach) requires of one value it
// reads: a schema that the whole value satisfies whenever the outcome happens. It is a
// necessary condition, not a sufficient one: a value that satisfies it may still give the
// other outcome, and a run says which.
type Constraint struct {
	Node   string // the node whose output it constrains; "" for the run's params
	Schema any
	// Members are the places of the value the condition reads, each with what the
	// constraint needs there: a value of the contract that misses the constraint can be
	// mended by replacing those members alone instead of being searched for anew. Derived
	// from Schema and the contracts, it is no part of the constraint's JSON.
	Members []Member `json:"-"`
}

// Member is one place a constraint is about: the path a reference reads in its root's
// value, what the root's contract allows there (lint's projection along the path, which
// may be wider than the truth: what is built from it is validated whole) and what the
// constraint needs there.
type Member struct {
	Path     []string
	Contract any
	Want     any
}

// Branches are the constraints of a node's outcomes.
type Branches struct {
	WhenTrue, WhenFalse []Constraint
	// ForeachEmpty and ForeachItems, when the node's foreach is a plain reference, are what
	// the list being empty or not requires.
	ForeachEmpty, ForeachItems []Constraint
}

// NodeBranches are the constraints of the outcomes of d's nodes that have a when or a
// foreach, by node id. A when of a form lint_guard.go does not read constrains nothing.
func NodeBranches(d *dag.DAG) map[string]Branches {
	l := &linter{d: d, projections: map[string]cachedProjection{}}
	out := map[string]Branches{}
	for _, n := range d.Nodes {
		var b Branches
		l.consumer = n
		if n.When != nil {
			if root := l.parseExpr(n.When.Src); root != nil {
				refs := n.When.Refs()
				b.WhenTrue, b.WhenFalse = l.members(constraints(narrow(root, true)), refs), l.members(constraints(narrow(root, false)), refs)
			}
		}
		if n.Foreach != nil {
			if r, ok := plainRef(n.Foreach); ok && (r.Root == "nodes" && len(r.Path) > 0 || r.Root == "params") {
				refs := []dag.Ref{r}
				b.ForeachEmpty = l.members(constraints(leaf(r, map[string]any{"type": "array", "maxItems": 0})), refs)
				b.ForeachItems = l.members(constraints(leaf(r, map[string]any{"type": "array", "minItems": 1})), refs)
			}
		}
		if n.When != nil || n.Foreach != nil {
			out[n.ID] = b
		}
	}
	return out
}

// constraints lists a narrowing by root, in a stable order.
func constraints(nw narrowing) []Constraint {
	var out []Constraint
	for k, s := range nw {
		node, isNode := strings.CutPrefix(k, "nodes\x00")
		if !isNode {
			node = ""
		}
		out = append(out, Constraint{Node: node, Schema: s})
	}
	slices.SortFunc(out, func(a, b Constraint) int { return strings.Compare(a.Node, b.Node) })
	return out
}

// members fills in each constraint's Members: the places refs read in its root's value
// that the constraint says something of. l.consumer is the node whose when or foreach
// they are.
func (l *linter) members(cs []Constraint, refs []dag.Ref) []Constraint {
	for i, c := range cs {
		root := "params"
		if c.Node != "" {
			root = "nodes\x00" + c.Node
		}
		seen := map[string]bool{}
		for _, r := range refs {
			key := strings.Join(r.Path, "\x00")
			if rootKey(r) != root || len(r.Path) == 0 || seen[key] {
				continue
			}
			seen[key] = true
			want := narrowAlong(c.Schema, r.Path)
			if want == true {
				continue
			}
			p, ok := l.projectRef(r, true)
			if !ok || p.undeclared >= 0 {
				continue
			}
			src, err := contract.Normalize(p.schema)
			if err != nil {
				continue
			}
			cs[i].Members = append(cs[i].Members, Member{Path: r.Path, Contract: src, Want: want})
		}
	}
	return cs
}

// Never is the proof that one outcome of a node's when never happens.
type Never struct {
	Node  string  `json:"node"`
	Pos   dag.Pos `json:"pos"`   // the when's
	Truth bool    `json:"truth"` // the outcome that never happens
	// Ref is the reference whose value cannot meet the condition ("nodes.a.output.kind"),
	// and Producer the node it reads (or "params").
	Ref      string `json:"ref"`
	Producer string `json:"producer"`
	// Enum, when the value read is one of finitely many, are those values, none of which
	// meets the condition (the proof by exhaustion); nil when the subset checker proved the
	// value's schema and the condition's constraint disjoint.
	Enum []any `json:"enum,omitempty"`
}

// NeverOutcomes proves, for each node of d with a when, the outcomes its contracts exclude,
// in file order. ctx ends the search early.
func NeverOutcomes(ctx context.Context, d *dag.DAG) []Never {
	l, err := newLinter(d, Options{})
	if err != nil {
		return nil
	}
	var out []Never
	for _, n := range d.Nodes {
		if ctx.Err() != nil {
			break
		}
		l.consumer = n
		out = append(out, l.never(n)...)
	}
	return out
}

// never proves which outcomes of n's when never happen: for each reference the condition
// constrains, the schema of what the producer may deliver there (projected along the
// reference, which is wider than the truth if anything, so that its emptiness is sound) is
// met with the condition's constraint at that place; when nothing fits both, the outcome
// cannot happen.
func (l *linter) never(n *dag.Node) []Never {
	if n.When == nil {
		return nil
	}
	root := l.parseExpr(n.When.Src)
	if root == nil {
		return nil
	}
	var out []Never
	for _, truth := range []bool{true, false} {
		nw := narrow(root, truth)
		for _, r := range n.When.Refs() {
			if r.Root != "nodes" && r.Root != "params" || r.Root == "nodes" && len(r.Path) == 0 {
				continue
			}
			c, ok := nw[rootKey(r)]
			if !ok {
				continue
			}
			if pf := l.disjoint(r, narrowAlong(c, r.Path)); pf != nil {
				pf.Node, pf.Pos, pf.Truth = n.ID, n.When.Pos, truth
				out = append(out, *pf)
				break // one proof says it
			}
		}
	}
	return out
}

// disjoint proves that no value r may read satisfies c: a Never with the reference said, or
// nil when that is not proved.
func (l *linter) disjoint(r dag.Ref, c any) *Never {
	if c == true {
		return nil
	}
	p, ok := l.projectRef(r, true)
	if !ok || p.undeclared >= 0 {
		return nil // an undeclared path is SEAM-E30x already
	}
	producer := "params"
	if r.Root == "nodes" {
		producer = r.Node
		if n := l.d.ByID[r.Node]; n == nil || n.Foreach != nil {
			return nil // a foreach node's output is the list of its items', projected apart
		}
	}
	src, err := contract.Normalize(p.schema)
	if err != nil {
		return nil
	}
	at := strings.Join(append([]string{r.Root}, refPath(r)...), ".")
	s, err := l.comp.Inline("what "+at+" may be", src)
	if err != nil {
		return nil
	}
	cs, err := l.comp.Inline("the condition on "+at, c)
	if err != nil {
		return nil
	}
	if g := subset.Generate(0, s, cs); !g.Empty {
		return nil
	}
	pf := &Never{Ref: at, Producer: producer}
	if m, ok := src.(map[string]any); ok {
		if e, ok := m["enum"].([]any); ok {
			pf.Enum = e
		} else if v, ok := m["const"]; ok {
			pf.Enum = []any{v}
		}
	}
	// Exhaustion is said only when it is seen: no value of the enum meets the condition.
	for _, v := range pf.Enum {
		if len(cs.Validate(v, l.text.lang)) == 0 {
			pf.Enum = nil
			break
		}
	}
	return pf
}

// refPath is r's path as written after its root: output.a.b for a node, a.b for params.
func refPath(r dag.Ref) []string {
	if r.Root == "nodes" {
		return append([]string{r.Node, "output"}, r.Path...)
	}
	return r.Path
}

// neverFindings says each outcome of n's when its contracts exclude, as SEAM-W312.
func (l *linter) neverFindings(n *dag.Node) []Finding {
	var out []Finding
	for _, pf := range l.never(n) {
		msg, hint := l.text.neverOutcome(pf)
		out = append(out, Finding{Pos: pf.Pos, Severity: SeverityWarning, Code: CodeNeverOutcome,
			Producers: []string{pf.Producer}, Consumer: n.ID, Message: msg, Hint: hint, subject: "when"})
	}
	return out
}

// enumWords is an enum's values as JSON, for a message.
func enumWords(vs []any) string {
	ws := make([]string, len(vs))
	for i, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		ws[i] = string(b)
	}
	return strings.Join(ws, ", ")
}

// neverOutcome says a proof that an outcome of a when never happens, with its fix.
func (t lintText) neverOutcome(pf Never) (msg, hint string) {
	l := t.lang
	var why string
	if pf.Enum != nil {
		why = i18n.Sprintf(l, "%s is one of %s, and none of them meets the condition", pf.Ref, enumWords(pf.Enum))
	} else {
		why = i18n.Sprintf(l, "what %s's contract allows at %s and what the condition needs there cannot meet (proved by the subset checker)", pf.Producer, pf.Ref)
	}
	if pf.Truth {
		return i18n.Sprintf(l, "node %s's when is never true, so the node is always skipped: %s.", pf.Node, why),
			i18n.Sprintf(l, "compare %s with a value %s's contract allows, or widen that contract if the value can occur.", pf.Ref, pf.Producer)
	}
	return i18n.Sprintf(l, "node %s's when is never false, so it decides nothing: %s.", pf.Node, why),
		i18n.Sprintf(l, "remove the when, or compare %s with what tells the cases apart.", pf.Ref)
}

// Reads are what the DAG's plain references to node outputs (in inputs, withs, foreaches
// and outputs, not whens, where a reference may test a member's absence) require of those
// outputs: each path read is there. A simulation generates outputs that hold them where the
// contracts allow, as real producers' outputs do, so that its plainest path is the one a
// working run takes.
func Reads(d *dag.DAG) []Constraint {
	var nw narrowing
	add := func(e *dag.Expr) {
		if !e.IsPath() {
			return
		}
		for _, r := range e.Refs() {
			if r.Root == "nodes" && len(r.Path) > 0 {
				nw = both(nw, leaf(r, true))
			}
		}
	}
	for _, n := range d.Nodes {
		for _, t := range []*dag.Template{n.Input, n.With, n.Foreach} {
			if t != nil {
				t.WalkExprs(add)
			}
		}
	}
	for _, o := range d.Outputs {
		o.Value.WalkExprs(add)
	}
	return constraints(nw)
}
