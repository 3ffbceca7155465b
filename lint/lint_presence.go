package lint

// Reads of members a producer may leave out (SEAM-E311). A plain path such as
// ${{ nodes.a.output.data.x }} is resolved at run time by walking the value: when x is not
// there (not required, declared by one anyOf branch only, past an array's minItems, under a
// null), the reference cannot be resolved and the run fails. Such a read is an error unless a
// has() (or size()) guard on the same path makes it safe: in the same expression
// (`has(p) ? p : d`, `has(p) && p > 1`) or in the node's `when`, which the run evaluates
// before anything else of the node.

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/schemas"
)

// guards are what a condition guarantees where a read is evaluated, by path key (pathKey).
type guards struct {
	has     map[string]bool // the path is present (has(p) is true)
	nonNull map[string]bool // the value at the path is not null (p != null is true)
	size    map[string]int  // the list at the path has at least this many items
}

// union is g with f's facts added; g is not modified.
func (g guards) union(f guards) guards {
	if len(f.has)+len(f.nonNull)+len(f.size) == 0 {
		return g
	}
	out := guards{has: mapsUnion(g.has, f.has), nonNull: mapsUnion(g.nonNull, f.nonNull), size: map[string]int{}}
	for _, m := range []map[string]int{g.size, f.size} {
		for k, v := range m {
			out.size[k] = max(out.size[k], v)
		}
	}
	return out
}

func mapsUnion(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// notNull reports whether g guarantees the value at segs is not null: p != null, or a
// member of it present (has(p.k): p is an object), or its size taken.
func (g guards) notNull(segs []string) bool {
	k := pathKey(segs)
	if _, ok := g.size[k]; ok || g.nonNull[k] {
		return true
	}
	for h := range g.has {
		if strings.HasPrefix(h, k+"\x00") {
			return true
		}
	}
	return false
}

// need is what reading a path demands of the value once the guards around the read hold.
type need struct {
	// guarded[i] is set when path segment i is known to be there: has() of the path to it,
	// or, for an index, a size() of its list that reaches it.
	guarded []bool
}

// need is what reading segs (a reference's, whose path starts at segment off) demands under g.
func (g guards) need(segs []string, off int) need {
	n := need{guarded: make([]bool, len(segs)-off)}
	for i := range n.guarded {
		end := off + i + 1
		if idx, ok := indexSeg(segs[end-1]); ok {
			n.guarded[i] = g.size[pathKey(segs[:end-1])] > idx
		} else {
			n.guarded[i] = g.has[pathKey(segs[:end])]
		}
	}
	return n
}

// all reports whether every segment is guarded and nothing more is demanded.
func (n need) all() bool { return !slices.Contains(n.guarded, false) }

func (n need) key() string { return fmt.Sprint(n.guarded) }

// pathKey identifies a path written as its segments: root, then (for nodes) the id and
// "output", then the members and indexes.
func pathKey(segs []string) string { return strings.Join(segs, "\x00") }

// refSegs are the segments of a reference, as pathKey takes them.
func refSegs(r dag.Ref) []string {
	segs := []string{r.Root}
	if r.Root == "nodes" {
		segs = append(segs, r.Node, "output")
	}
	return append(segs, r.Path...)
}

// indexSeg reads a path segment as an array index, as dag.Ref writes them.
func indexSeg(s string) (int, bool) {
	i, err := strconv.Atoi(s)
	return i, err == nil && i >= 0 && s == strconv.Itoa(i)
}

// read is one reference in an expression, with what the conditions around it guarantee.
type read struct {
	segs []string
	// walk: the reference is has()'s operand, which must be there; whatever it is, has()
	// of a member of it is false when it is not an object (a run finds has(null.k) false).
	walk bool
	g    guards
}

// parseExpr parses a CEL expression's source; nil when it does not parse (the loader
// reported it then).
func (l *linter) parseExpr(src string) ast.Expr {
	if a := l.parseAST(src); a != nil {
		return a.Expr()
	}
	return nil
}

// parseAST is parseExpr's tree with its source positions.
func (l *linter) parseAST(src string) *ast.AST {
	if l.celEnv == nil {
		env, err := cel.NewEnv()
		if err != nil {
			return nil
		}
		l.celEnv = env
	}
	parsed, iss := l.celEnv.Parse(src)
	if iss != nil && iss.Err() != nil {
		return nil
	}
	return parsed.NativeRep()
}

// reads lists the references of e with the guards that hold where each is evaluated, base
// being what holds around the whole expression (the node's when). They come in the order of
// e.Refs().
func (l *linter) reads(e *dag.Expr, base guards) []read {
	if e.IsPath() {
		return []read{{segs: refSegs(e.Refs()[0]), g: base}}
	}
	root := l.parseExpr(e.Src)
	if root == nil {
		var out []read
		for _, r := range e.Refs() {
			out = append(out, read{segs: refSegs(r), g: base})
		}
		return out
	}
	var out []read
	visitReads(root, base, &out)
	return out
}

// visitReads walks a CEL expression as dag's collectRefs does, passing each operand of a
// conditional, && or || the facts its siblings guarantee: CEL evaluates only the branch a
// condition picks, and && (||) is false (true) when either side is, whatever error the other
// gives.
func visitReads(e ast.Expr, g guards, out *[]read) {
	if segs, ok := chainSegs(e); ok {
		*out = append(*out, read{segs: segs, g: g})
		return
	}
	switch e.Kind() {
	case ast.SelectKind:
		s := e.AsSelect()
		if segs, ok := chainSegs(s.Operand()); ok && s.IsTestOnly() {
			*out = append(*out, read{segs: segs, walk: true, g: g})
			return
		}
		visitReads(s.Operand(), g, out)
	case ast.CallKind:
		c := e.AsCall()
		args := c.Args()
		switch fn := c.FunctionName(); {
		case fn == "_?_:_" && len(args) == 3:
			visitReads(args[0], g, out)
			visitReads(args[1], g.union(facts(args[0], true)), out)
			visitReads(args[2], g.union(facts(args[0], false)), out)
			return
		case fn == "_&&_" || fn == "_||_":
			truth := fn == "_&&_"
			for i, a := range args {
				ag := g
				for j, b := range args {
					if j != i {
						ag = ag.union(facts(b, truth))
					}
				}
				visitReads(a, ag, out)
			}
			return
		}
		if c.IsMemberFunction() {
			visitReads(c.Target(), g, out)
		}
		for _, a := range args {
			visitReads(a, g, out)
		}
	case ast.ListKind:
		for _, x := range e.AsList().Elements() {
			visitReads(x, g, out)
		}
	case ast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			me := entry.AsMapEntry()
			visitReads(me.Key(), g, out)
			visitReads(me.Value(), g, out)
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			visitReads(f.AsStructField().Value(), g, out)
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		for _, x := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
			visitReads(x, g, out)
		}
	}
}

// facts are what e guarantees when it evaluates to truth: has(p), p != null and
// size(p) > k (>=, and the mirrored forms), through &&, || and !; and that the paths a
// comparison or a has() reads resolved, since one that does not fails the run.
func facts(e ast.Expr, truth bool) guards {
	var g guards
	switch e.Kind() {
	case ast.SelectKind:
		s := e.AsSelect()
		if segs, ok := chainSegs(s.Operand()); ok && s.IsTestOnly() {
			g = resolved(segs)
			if truth {
				g.has[pathKey(append(slices.Clip(segs), s.FieldName()))] = true
			}
		}
	case ast.CallKind:
		c := e.AsCall()
		args := c.Args()
		switch c.FunctionName() {
		case "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "@in", "size":
			for _, a := range append(slices.Clip(args), c.Target()) {
				if a == nil {
					continue
				}
				if segs, ok := chainSegs(a); ok {
					g = g.union(resolved(segs))
				} else if segs, ok := sizeOf(a); ok {
					g = g.union(resolved(segs))
				}
			}
		}
		switch c.FunctionName() {
		case "_&&_", "_||_":
			if (c.FunctionName() == "_&&_") == truth {
				for _, a := range args {
					g = g.union(facts(a, truth))
				}
			}
		case "!_":
			if len(args) == 1 {
				g = facts(args[0], !truth)
			}
		case "_!=_", "_==_":
			if len(args) == 2 && (c.FunctionName() == "_!=_") == truth {
				for i, a := range args {
					if segs, ok := chainSegs(a); ok && isNull(args[1-i]) {
						g.nonNull = map[string]bool{pathKey(segs): true}
					}
				}
			}
		case "_>_", "_>=_", "_<_", "_<=_":
			if len(args) == 2 && truth {
				g.size = sizeFact(c.FunctionName(), args[0], args[1])
			}
		}
	}
	return g
}

// resolved is what reading the path segs guarantees once the read succeeded: each member on
// it present, each index within its list.
func resolved(segs []string) guards {
	g := guards{has: map[string]bool{}, size: map[string]int{}}
	off := 1
	if len(segs) > 0 && segs[0] == "nodes" {
		off = 3
	}
	for end := off + 1; end <= len(segs); end++ {
		if idx, ok := indexSeg(segs[end-1]); ok {
			g.size[pathKey(segs[:end-1])] = idx + 1
			continue
		}
		g.has[pathKey(segs[:end])] = true
	}
	return g
}

// sizeFact is what `a op b` says of a list's size, when one side is size(p) and the other an
// integer literal.
func sizeFact(op string, a, b ast.Expr) map[string]int {
	if _, ok := sizeOf(a); !ok {
		// Mirror k < size(p) into size(p) > k.
		a, b = b, a
		op = map[string]string{"_>_": "_<_", "_>=_": "_<=_", "_<_": "_>_", "_<=_": "_>=_"}[op]
	}
	segs, ok := sizeOf(a)
	if !ok || b.Kind() != ast.LiteralKind {
		return nil
	}
	k, ok := b.AsLiteral().(types.Int)
	if !ok {
		return nil
	}
	switch op {
	case "_>_":
		return map[string]int{pathKey(segs): int(k) + 1}
	case "_>=_":
		return map[string]int{pathKey(segs): int(k)}
	}
	return nil
}

// sizeOf reads e as size(p) or p.size().
func sizeOf(e ast.Expr) ([]string, bool) {
	if e.Kind() != ast.CallKind || e.AsCall().FunctionName() != "size" {
		return nil, false
	}
	c := e.AsCall()
	switch {
	case c.IsMemberFunction() && len(c.Args()) == 0:
		return chainSegs(c.Target())
	case !c.IsMemberFunction() && len(c.Args()) == 1:
		return chainSegs(c.Args()[0])
	}
	return nil, false
}

func isNull(e ast.Expr) bool {
	return e.Kind() == ast.LiteralKind && e.AsLiteral() == types.NullValue
}

// chainSegs reads e as a reference root.a.b[0]… (dag.ChainRef) into the segments pathKey
// takes; ok is false for anything else (a has() test, a computed index, a comprehension's
// variable, nodes not followed by .<id>.output).
func chainSegs(e ast.Expr) ([]string, bool) {
	r, _, ok := dag.ChainRef(e)
	if !ok || r.Root == "nodes" && r.Path == nil {
		return nil, false
	}
	return refSegs(r), true
}

// whenGuards are what node n's `when` guarantees to the rest of the node.
func (l *linter) whenGuards(n *dag.Node) guards {
	if n.When == nil || n.When.IsPath() {
		return guards{}
	}
	root := l.parseExpr(n.When.Src)
	if root == nil {
		return guards{}
	}
	return facts(root, true)
}

// nodeAbsent reports node n's reads of paths their producers may leave out: its when on its
// own, the rest under what the when guarantees (l.guards, which must be n's).
func (l *linter) nodeAbsent(n *dag.Node) []Finding {
	var es []*dag.Expr
	for _, t := range []*dag.Template{n.Input, n.With, n.Foreach} {
		if t != nil {
			t.WalkExprs(func(e *dag.Expr) { es = append(es, e) })
		}
	}
	fs := l.absentRefs(n, "", es, l.guards, l.narrowing)
	if n.When != nil {
		fs = append(fs, l.absentRefs(n, "", []*dag.Expr{n.When}, guards{}, nil)...)
	}
	return fs
}

// withoutLoose drops from fs the SEAM-W301 findings that a reference may name a member its
// producer does not declare, where absent (SEAM-E311) says more of the same reference: the
// member is declared, by one anyOf branch say.
func withoutLoose(fs, absent []Finding) []Finding {
	return slices.DeleteFunc(fs, func(f Finding) bool {
		return f.Code == CodeUnknown && slices.ContainsFunc(absent, func(a Finding) bool {
			return a.Pos == f.Pos && a.subject == f.subject
		})
	})
}

// absence is what is known of a reference's presence in what its producer delivers.
type absence struct {
	present bool // proved: every value the producer's contract accepts holds the path
	absent  bool // a value the producer's contract accepts lacks the path: witness
	witness any
	at      int  // the index of the path segment that cannot be read in the witness
	parent  any  // the witness's value the segment at is read from
	index   bool // the segment is an array index
	minimum int  // for an index: the items the list needs
}

type absenceKey struct{ path, need string }

// absentRefs reports the references among es (those of node n, or of the DAG's output named
// out when n is nil) that read a path their producer may leave out, unless a guard in the
// same expression or base (the node's when) covers them.
//
// A witness is shown that the node's when (its narrowing nw) lets through, when lint finds
// one: a run with it reaches the read.
func (l *linter) absentRefs(n *dag.Node, out string, es []*dag.Expr, base guards, nw narrowing) []Finding {
	consumer, reader := "", i18n.Sprintf(l.text.lang, "the DAG's output %s", out)
	if n != nil {
		consumer, reader = n.ID, n.ID
	}
	return l.absentReads(consumer, reader, es, base, nw)
}

// absentReads is absentRefs for the reads of any consumer: a node's, a DAG output's, or a
// webhook trigger's of its body (l.trigger), which reader names in messages.
func (l *linter) absentReads(consumer, reader string, es []*dag.Expr, base guards, nw narrowing) []Finding {
	var fs []Finding
	for _, e := range es {
		rs := l.reads(e, base)
		for _, r := range e.Refs() {
			src, ok := l.sourceOf(r)
			if !ok {
				continue
			}
			key := pathKey(refSegs(r))
			i := slices.IndexFunc(rs, func(x read) bool { return pathKey(x.segs) == key })
			var rd read
			if i >= 0 {
				rd = rs[i]
				rs = slices.Delete(rs, i, i+1)
			} else {
				rd = read{segs: refSegs(r), g: base}
			}
			nd := rd.g.need(rd.segs, src.off)
			if nd.all() {
				continue
			}
			a := l.absent(r, nd)
			if !a.absent {
				continue
			}
			if g, ok := nw[rootKey(r)]; ok && r.Root == "nodes" {
				a = l.throughGuard(r, nd, a, g)
			}
			msg, hint := l.text.absent(reader, src, a)
			fs = append(fs, Finding{Pos: r.Pos, Severity: SeverityError, Code: CodeAbsent, Producers: src.producers,
				Consumer: consumer, Message: msg, Hint: hint, Witness: a.witness, HasWitness: true, subject: refSubject(r)})
		}
	}
	return fs
}

// source is what delivers the value a reference reads, as SEAM-E311 judges it: a node's
// output, or a webhook trigger's request body.
type source struct {
	schema    *contract.Schema
	path      []string // the reference's path inside schema's values
	off       int      // the reference's segments (refSegs) before path
	prefix    string   // how the value itself is written: nodes.a.output, trigger.body
	node      string   // the node that delivers it; "" for a trigger's body
	trigger   string   // the trigger whose body it is
	producers []string // for the finding
	skip      any      // a part of schema whose members do not count as declared
}

// sourceOf is the source r reads a member of; ok is false for a reference SEAM-E311 does not
// judge (params, an item, a foreach node's outputs, a body without a contract, a whole value).
func (l *linter) sourceOf(r dag.Ref) (source, bool) {
	switch r.Root {
	case "nodes":
		n, ok := l.d.ByID[r.Node]
		if !ok || n.Effective == nil || n.Foreach != nil || len(r.Path) == 0 {
			return source{}, false
		}
		if l.standard == nil {
			// Parsed as the loader parses it, so that the effective schema's first part equals it.
			l.standard, _ = contract.ParseJSON(schemas.NodeOutput)
		}
		return source{schema: n.Effective, path: r.Path, off: 3, prefix: "nodes." + r.Node + ".output",
			node: r.Node, producers: []string{r.Node}, skip: l.standard}, true
	case "trigger":
		tr := l.trigger
		if tr == nil || tr.Webhook == nil || tr.Webhook.Body == nil || len(r.Path) < 2 || r.Path[0] != triggerBody {
			return source{}, false
		}
		// The body's contract is the author's: every member it names is declared.
		return source{schema: tr.Webhook.Body, path: r.Path[1:], off: 2, prefix: "trigger." + triggerBody, trigger: tr.ID}, true
	}
	return source{}, false
}

// settled reports whether a plain reference's possible absence needs no more thought at an
// edge: it is proved present (under the node's when), or SEAM-E311 reports it. A plain path either
// resolves or fails the run, so what arrives through it is then present.
func (l *linter) settled(r dag.Ref) bool {
	src, ok := l.sourceOf(r)
	if !ok {
		return false
	}
	nd := l.guards.need(refSegs(r), src.off)
	if nd.all() {
		return true
	}
	a := l.absent(r, nd)
	return a.present || a.absent
}

// absent decides whether some value r's producer may deliver lacks r's path. Only members the producer's
// contract declares somewhere are judged: a member of an open object it says nothing of is
// SEAM-W301's (a reference that may be a typo) or SEAM-W302's (no contract), as before:
// every segment of the path must be declared, by the type's output schema or the node's
// contract.output (the standard contract declares data for every node, so alone it does not
// count).
func (l *linter) absent(r dag.Ref, nd need) absence {
	k := absenceKey{pathKey(refSegs(r)), nd.key()}
	if a, ok := l.absences[k]; ok {
		return a
	}
	a := l.absentUncached(r, nd)
	l.absences[k] = a
	return a
}

func (l *linter) absentUncached(r dag.Ref, nd need) absence {
	src, ok := l.sourceOf(r)
	if !ok {
		return absence{}
	}
	if p, ok := l.projectRef(r, false); !ok || p.undeclared >= 0 {
		return absence{} // SEAM-E305 says the path is not there at all
	}
	exists, err := l.comp.Inline("the path "+strings.Join(src.path, "."), existsSchema(src.path, nd))
	if err != nil {
		return absence{}
	}
	res := subset.Check(src.schema, exists)
	switch res.Verdict {
	case subset.Compatible:
		return absence{present: true}
	case subset.Unknown:
		return absence{}
	}
	// The witness is what the finding shows: it must be a value the producer may deliver,
	// and one the reference cannot be resolved in.
	if vs := src.schema.Validate(res.Witness, i18n.English); len(vs) > 0 {
		return absence{}
	}
	a := locate(src.path, res.Witness)
	if a.at < 0 {
		return absence{} // the witness holds the path: not what was asked
	}
	if !declaredAt(src.schema, src.path, src.skip) {
		return absence{}
	}
	return a
}

// throughGuard is a's witness replaced, where it does not satisfy g (what the node's when
// guarantees of r's producer), by one that does and still lacks r's path, when the subset
// checker finds one; else a as it is.
func (l *linter) throughGuard(r dag.Ref, nd need, a absence, g any) absence {
	n := l.d.ByID[r.Node]
	gs, err := l.comp.Inline("the when of a reader of "+r.Node, g)
	if err != nil || len(gs.Validate(a.witness, i18n.English)) == 0 {
		return a
	}
	alt, err := l.comp.Inline("the path "+strings.Join(r.Path, ".")+" or the when false",
		map[string]any{"anyOf": []any{existsSchema(r.Path, nd), map[string]any{"not": g}}})
	if err != nil {
		return a
	}
	res := subset.Check(n.Effective, alt)
	w := res.Witness
	if res.Verdict != subset.Incompatible || len(gs.Validate(w, i18n.English)) > 0 {
		// The producer may fit the two branches only together: build a value of the
		// producer, the when and the path's absence at once instead.
		lacks, err := l.comp.Inline("the when of a reader of "+r.Node+" without the path "+strings.Join(r.Path, "."),
			map[string]any{"allOf": []any{g, map[string]any{"not": existsSchema(r.Path, nd)}}})
		if err != nil {
			return a
		}
		gen := subset.Generate(0, n.Effective, lacks)
		if !gen.Found {
			return a
		}
		w = gen.Value
	}
	if b := locate(r.Path, w); b.at >= 0 {
		return b
	}
	return a
}

// locate walks witness w along path to the segment that cannot be read (at -1: none).
func locate(path []string, w any) absence {
	a := absence{absent: true, witness: w, at: -1}
	v := w
	for i, seg := range path {
		if idx, ok := indexSeg(seg); ok {
			if arr, isArr := v.([]any); isArr && idx < len(arr) {
				v = arr[idx]
				continue
			}
			a.at, a.parent, a.index, a.minimum = i, v, true, idx+1
			break
		}
		if m, isObj := v.(map[string]any); isObj {
			if x, ok := m[seg]; ok {
				v = x
				continue
			}
		}
		a.at, a.parent = i, v
		break
	}
	return a
}

// existsSchema accepts the values in which path can be read as nd demands: each member
// there, each index within its list, but for the segments guarded.
func existsSchema(path []string, nd need) any {
	var next any = true
	for i := len(path) - 1; i >= 0; i-- {
		seg, guarded := path[i], nd.guarded[i]
		if guarded && next == true {
			continue
		}
		if idx, ok := indexSeg(seg); ok {
			s := map[string]any{}
			if !guarded {
				s["type"], s["minItems"] = "array", idx+1
			}
			if next != true {
				prefix := make([]any, idx+1)
				for j := range prefix {
					prefix[j] = true
				}
				prefix[idx] = next
				s["prefixItems"] = prefix
			}
			next = s
			continue
		}
		s := map[string]any{}
		if !guarded {
			s["type"], s["required"] = "object", []any{seg}
		}
		if next != true {
			s["properties"] = map[string]any{seg: next}
		}
		next = s
	}
	return next
}

// declaredInBranch reports whether a reference to a node's output names a path its contract
// declares through an alternative the projection does not follow (an anyOf branch, a then):
// not a typo, so not SEAM-W301's; whether it is there is SEAM-E311's.
func (l *linter) declaredInBranch(r dag.Ref) bool {
	n, ok := l.d.ByID[r.Node]
	return r.Root == "nodes" && ok && n.Effective != nil && len(r.Path) > 0 && declaredAt(n.Effective, r.Path, nil)
}

// maxDeclaredWork bounds declaredAt's walk through applicators and $refs.
const maxDeclaredWork = 4096

// declaredAt reports whether a schema s leads to along path[:len(path)-1], through allOf,
// anyOf, oneOf, if/then/else, dependentSchemas and local $refs, declares path's last
// segment: names the member in properties (or a pattern of patternProperties matches it),
// or, for an index, describes an array. A part of an effective schema equal to skip does not
// count.
func declaredAt(s *contract.Schema, path []string, skip any) bool {
	budget := maxDeclaredWork
	for _, doc := range s.Docs() {
		if skip != nil && reflect.DeepEqual(doc.Value, skip) {
			continue
		}
		if declaredIn(doc.Value, doc, path, 0, &budget) {
			return true
		}
	}
	return false
}

func declaredIn(v any, doc contract.Doc, path []string, hops int, budget *int) bool {
	*budget--
	m, ok := v.(map[string]any)
	if !ok || *budget <= 0 {
		return false
	}
	if ref, ok := m["$ref"].(string); ok && hops < maxRefHops {
		if t, in, ok := doc.Resolve(ref); ok && declaredIn(t, in, path, hops+1, budget) {
			return true
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		subs, _ := m[k].([]any)
		for _, sub := range subs {
			if declaredIn(sub, doc, path, hops, budget) {
				return true
			}
		}
	}
	for _, k := range []string{"if", "then", "else"} {
		if sub, ok := m[k]; ok && declaredIn(sub, doc, path, hops, budget) {
			return true
		}
	}
	if ds, ok := m["dependentSchemas"].(map[string]any); ok {
		for _, sub := range ds {
			if declaredIn(sub, doc, path, hops, budget) {
				return true
			}
		}
	}
	seg := path[0]
	var subs []any
	if idx, ok := indexSeg(seg); ok && isArrayish(m) {
		if len(path) == 1 {
			return true
		}
		if pi, ok := m["prefixItems"].([]any); ok && idx < len(pi) {
			subs = append(subs, pi[idx])
		} else if it, ok := m["items"]; ok {
			subs = append(subs, it)
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if sub, ok := props[seg]; ok {
			if len(path) == 1 {
				return true
			}
			subs = append(subs, sub)
		}
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for pat, sub := range pp {
			if re, err := regexp.Compile(pat); err == nil && re.MatchString(seg) {
				if len(path) == 1 {
					return true
				}
				subs = append(subs, sub)
			}
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok && len(path) > 1 {
		subs = append(subs, ap)
	}
	for _, sub := range subs {
		if declaredIn(sub, doc, path[1:], hops, budget) {
			return true
		}
	}
	return false
}

// pathText writes path as run messages do: data.items[0].name.
func pathText(path []string) string {
	var b strings.Builder
	for _, seg := range path {
		if _, ok := indexSeg(seg); ok {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		b.WriteString(seg)
	}
	return b.String()
}

// refText writes a reference to node's output along path: nodes.a.output.data.items[0].
func refText(node string, path []string) string {
	return pathUnder("nodes."+node+".output", path)
}

// pathUnder is the path written under the value prefix writes.
func pathUnder(prefix string, path []string) string {
	s := prefix
	if t := pathText(path); t != "" {
		if !strings.HasPrefix(t, "[") {
			s += "."
		}
		s += t
	}
	return s
}

// absent says a SEAM-E311 finding: reader (a node, the DAG's output named so, a trigger)
// reads a path of src, which may leave it out as a shows.
func (t lintText) absent(reader string, src source, a absence) (msg, hint string) {
	l := t.lang
	full := pathUnder(src.prefix, src.path)
	if src.node == "" {
		// A webhook's body: the request that lacks the member is answered 422.
		return i18n.Sprintf(l, "trigger %s reads %s, but its body contract accepts a request body without it; the webhook answers such a request 422 and starts no run", src.trigger, full),
			i18n.Sprintf(l, "require it in the body contract of trigger %s, or guard the read: `has(%s) ? %s : <default>`", src.trigger, full, full)
	}
	node := src.node
	parent := pathUnder(src.prefix, src.path[:a.at])
	switch _, isList := a.parent.([]any); {
	case a.index && isList:
		return i18n.Sprintf(l, "%s reads %s, but %s may deliver %s with %d items, too few for [%d]; the run fails then", reader, full, node, parent, len(a.parent.([]any)), a.minimum-1),
			i18n.Sprintf(l, "require minItems: %d for %s in %s's output contract, or guard the read: `size(%s) > %d ? %s : <default>`",
				a.minimum, pathText(src.path[:a.at]), node, parent, a.minimum-1, full)
	case a.index:
		return i18n.Sprintf(l, "%s reads %s, but %s may deliver %s as %s, not a list; the run fails then", reader, full, node, parent, t.kindOf(a.parent)),
			i18n.Sprintf(l, "declare it a list of at least %d items in %s's output contract, or read it only when it is one", a.minimum, node)
	}
	if _, isObj := a.parent.(map[string]any); !isObj {
		return i18n.Sprintf(l, "%s reads %s, but %s may deliver %s as %s, without '%s'; the run fails then", reader, full, node, parent, t.kindOf(a.parent), src.path[a.at]),
			i18n.Sprintf(l, "declare it an object that requires '%s' in %s's output contract, or guard the read: `%s != null && has(%s) ? %s : <default>`",
				src.path[a.at], node, parent, full, full)
	}
	// Each member from the one missing to the end may be, one after the other.
	var members []string
	for j := a.at; j < len(src.path); j++ {
		if _, ok := indexSeg(src.path[j]); ok {
			break
		}
		members = append(members, "'"+pathText(src.path[:j+1])+"'")
	}
	return i18n.Sprintf(l, "%s reads %s, but %s may deliver an output without it; the run fails then", reader, full, node),
		i18n.Sprintf(l, "require %s in %s's output contract, or guard the read: `has(%s) ? %s : <default>`", t.and(members), node, full, full)
}
