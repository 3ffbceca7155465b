package lint

// Guards narrow (issue 42 §4). A node runs only when its `when` is true, so its edges need
// hold only for the producer values that make it true: before they are proved, each
// producer's schema is narrowed by what the when guarantees, as a type checker narrows after
// `if x != nil`. The narrowed schema is the producer's `allOf` the guard's constraint, and
// the subset checker does the rest. The forms understood are those below; anything else
// narrows nothing, which is sound (the producer's schema is never made narrower than the
// values that make the when true).

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"

	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
)

// narrowing is what a condition guarantees when it evaluates to the truth asked for: per
// root (rootKey), a schema that root's value (a node's output, the params) then satisfies.
// A root it says nothing of is not in it.
type narrowing map[string]any

// rootKey names the value a reference reads from: a node's output, or the params.
func rootKey(r dag.Ref) string {
	if r.Root == "nodes" {
		return "nodes\x00" + r.Node
	}
	return r.Root
}

// whenNarrowing is what node n's when guarantees to the rest of the node.
func (l *linter) whenNarrowing(n *dag.Node) narrowing {
	if n.When == nil {
		return nil
	}
	root := l.parseExpr(n.When.Src)
	if root == nil {
		return nil
	}
	return narrow(root, true)
}

// narrow is what e guarantees when it evaluates to truth:
//
//	has(x.y)                   x requires y
//	x != null, x == v          x is not null, is v (a literal)
//	x > k, k <= x, …           bounds (k a number literal)
//	size(x) > k, …             minItems, minLength and minProperties (or the maxima)
//	x in [v, w]                enum
//	x (a boolean)              const true
//	!, &&, ||                  negation, allOf, anyOf (|| of two roots: nothing)
//
// A comparison that evaluates also guarantees that its path resolved: every member on it is
// present. Anything else guarantees nothing.
func narrow(e ast.Expr, truth bool) narrowing {
	if r, ok := chainRef(e); ok {
		return leaf(r, map[string]any{"const": truth})
	}
	switch e.Kind() {
	case ast.SelectKind:
		s := e.AsSelect()
		if r, ok := chainRef(s.Operand()); ok && s.IsTestOnly() && truth {
			return leaf(r, map[string]any{"required": []any{s.FieldName()}})
		}
	case ast.CallKind:
		c := e.AsCall()
		args := c.Args()
		switch fn := c.FunctionName(); fn {
		case "!_":
			if len(args) == 1 {
				return narrow(args[0], !truth)
			}
		case "_&&_", "_||_":
			if len(args) != 2 {
				return nil
			}
			a, b := narrow(args[0], truth), narrow(args[1], truth)
			if (fn == "_&&_") == truth {
				return both(a, b)
			}
			return either(a, b)
		case "_==_", "_!=_":
			if len(args) != 2 {
				return nil
			}
			eq := (fn == "_==_") == truth
			for i := range args {
				r, ok := chainRef(args[i])
				v, lit := literal(args[1-i])
				if !ok || !lit {
					continue
				}
				switch {
				case eq:
					return leaf(r, map[string]any{"const": v})
				case v == nil:
					// The types but null, rather than a not, which the subset checker
					// meets with a type list more precisely.
					return leaf(r, map[string]any{"type": []any{"boolean", "number", "string", "array", "object"}})
				}
				return leaf(r, map[string]any{"not": map[string]any{"const": v}})
			}
		case "_<_", "_<=_", "_>_", "_>=_":
			if len(args) == 2 {
				return bound(fn, args[0], args[1], truth)
			}
		case "@in":
			if len(args) == 2 && truth && args[1].Kind() == ast.ListKind {
				r, ok := chainRef(args[0])
				var vs []any
				for _, x := range args[1].AsList().Elements() {
					v, lit := literal(x)
					if !lit {
						return nil
					}
					vs = append(vs, v)
				}
				if ok {
					return leaf(r, map[string]any{"enum": vs})
				}
			}
		}
	}
	return nil
}

// mirrored is the operator that reads a op b as b op' a; negated, the one that is true when
// a op b is false (for numbers, which JSON's all are: no NaN).
var (
	mirrored = map[string]string{"_<_": "_>_", "_<=_": "_>=_", "_>_": "_<_", "_>=_": "_<=_"}
	negated  = map[string]string{"_<_": "_>=_", "_<=_": "_>_", "_>_": "_<=_", "_>=_": "_<_"}
)

// bound is what `a op b` being truth guarantees, when one side is a reference (or its
// size) and the other a number literal.
func bound(op string, a, b ast.Expr, truth bool) narrowing {
	if _, lit := number(a); lit {
		a, b, op = b, a, mirrored[op]
	}
	k, lit := number(b)
	if !lit {
		return nil
	}
	if !truth {
		op = negated[op]
	}
	if segs, ok := sizeOf(a); ok {
		r, ok := chainRef(a.AsCall().Target())
		if !a.AsCall().IsMemberFunction() {
			r, ok = chainRef(a.AsCall().Args()[0])
		}
		if !ok || len(segs) == 0 {
			return nil
		}
		// A size is an integer: size > 1.5 is size ≥ 2.
		f, _ := k.Float64()
		n := int64(f)
		var kw []string
		switch op {
		case "_>_", "_>=_":
			kw = []string{"minItems", "minLength", "minProperties"}
			if op == "_>_" || float64(n) != f {
				n = int64(f) + 1
				if f < 0 && float64(int64(f)) != f {
					n = int64(f)
				}
			}
			n = max(n, 0)
		default:
			kw = []string{"maxItems", "maxLength", "maxProperties"}
			if op == "_<_" && float64(n) == f {
				n--
			}
			if n < 0 {
				return leaf(r, false)
			}
		}
		s := map[string]any{}
		for _, w := range kw {
			s[w] = n
		}
		return leaf(r, s)
	}
	r, ok := chainRef(a)
	if !ok {
		return nil
	}
	kw := map[string]string{"_>_": "exclusiveMinimum", "_>=_": "minimum", "_<_": "exclusiveMaximum", "_<=_": "maximum"}[op]
	return leaf(r, map[string]any{kw: k})
}

// number reads e as a number literal.
func number(e ast.Expr) (json.Number, bool) {
	if v, ok := literal(e); ok {
		n, ok := v.(json.Number)
		return n, ok
	}
	return "", false
}

// literal reads e as a literal scalar, as JSON decodes it (numbers as json.Number).
func literal(e ast.Expr) (any, bool) {
	if e.Kind() != ast.LiteralKind {
		return nil, false
	}
	switch v := e.AsLiteral().(type) {
	case types.String:
		return string(v), true
	case types.Bool:
		return bool(v), true
	case types.Int:
		return json.Number(strconv.FormatInt(int64(v), 10)), true
	case types.Uint:
		return json.Number(strconv.FormatUint(uint64(v), 10)), true
	case types.Double:
		return json.Number(strconv.FormatFloat(float64(v), 'g', -1, 64)), true
	case types.Null:
		return nil, true
	}
	return nil, false
}

// chainRef reads e as a reference to a node's output or the params (root.a.b[0]…).
func chainRef(e ast.Expr) (dag.Ref, bool) {
	r, _, ok := dag.ChainRef(e)
	if !ok || r.Root == "nodes" && r.Path == nil || r.Root != "nodes" && r.Root != "params" {
		return dag.Ref{}, false
	}
	return r, true
}

// leaf is the narrowing that the value at r's path satisfies s (true: that it is there): the
// members on the way required, the indexes within their lists, and each value on the way
// an object or a list, since CEL selecting a member of anything else is an error, not an
// outcome (so that two outcomes that read one path exclude each other on their own).
func leaf(r dag.Ref, s any) narrowing {
	for i := len(r.Path) - 1; i >= 0; i-- {
		seg := r.Path[i]
		if idx, ok := indexSeg(seg); ok {
			m := map[string]any{"type": "array", "minItems": idx + 1}
			if s != true {
				prefix := make([]any, idx+1)
				for j := range prefix {
					prefix[j] = true
				}
				prefix[idx] = s
				m["prefixItems"] = prefix
			}
			s = m
			continue
		}
		m := map[string]any{"type": "object", "required": []any{seg}}
		if s != true {
			m["properties"] = map[string]any{seg: s}
		}
		s = m
	}
	return narrowing{rootKey(r): s}
}

// both is what a and b guarantee together.
func both(a, b narrowing) narrowing {
	if len(a) == 0 {
		return b
	}
	out := narrowing{}
	for k, s := range a {
		out[k] = s
	}
	for k, s := range b {
		if t, ok := out[k]; ok {
			out[k] = map[string]any{"allOf": []any{t, s}}
		} else {
			out[k] = s
		}
	}
	return out
}

// either is what a or b guarantees: for a root both say something of, one of the two.
func either(a, b narrowing) narrowing {
	var out narrowing
	for k, s := range a {
		if t, ok := b[k]; ok {
			if out == nil {
				out = narrowing{}
			}
			out[k] = map[string]any{"anyOf": []any{s, t}}
		}
	}
	return out
}

// narrowAlong is what narrowing schema s says of the value at path: s projected along it
// through properties, prefixItems, allOf and anyOf; true when it says nothing.
func narrowAlong(s any, path []string) any {
	if len(path) == 0 {
		return s
	}
	m, ok := s.(map[string]any)
	if !ok {
		return s // false: nothing makes the when true
	}
	var parts []any
	add := func(x any) {
		if x != true {
			parts = append(parts, x)
		}
	}
	if all, ok := m["allOf"].([]any); ok {
		for _, a := range all {
			add(narrowAlong(a, path))
		}
	}
	if alts, ok := m["anyOf"].([]any); ok {
		var bs []any
		for _, a := range alts {
			x := narrowAlong(a, path)
			if x == true {
				bs = nil
				break
			}
			bs = append(bs, x)
		}
		if bs != nil {
			add(map[string]any{"anyOf": bs})
		}
	}
	seg, rest := path[0], path[1:]
	if idx, ok := indexSeg(seg); ok {
		if pi, ok := m["prefixItems"].([]any); ok && idx < len(pi) {
			add(narrowAlong(pi[idx], rest))
		}
	} else if props, ok := m["properties"].(map[string]any); ok {
		if sub, ok := props[seg]; ok {
			add(narrowAlong(sub, rest))
		}
	}
	switch len(parts) {
	case 0:
		return true
	case 1:
		return parts[0]
	}
	return map[string]any{"allOf": parts}
}

// narrowed is schema s, what reference r may read, narrowed by the consumer's when.
func (l *linter) narrowed(r dag.Ref, s any) any {
	n, ok := l.narrowing[rootKey(r)]
	if !ok {
		return s
	}
	c := narrowAlong(n, r.Path)
	switch {
	case c == true:
		return s
	case s == true:
		return c
	}
	return map[string]any{"allOf": []any{s, c}}
}

// atPath is the schema that applies s to the value at path, where there is one: a value
// without the path satisfies it.
func atPath(path []string, s any) any {
	for i := len(path) - 1; i >= 0; i-- {
		if idx, ok := indexSeg(path[i]); ok {
			prefix := make([]any, idx+1)
			for j := range prefix {
				prefix[j] = true
			}
			prefix[idx] = s
			s = map[string]any{"prefixItems": prefix}
			continue
		}
		s = map[string]any{"properties": map[string]any{path[i]: s}}
	}
	return s
}

// deliverable reports whether w, the value template t makes in a witness, is one its
// producers may deliver: for each plain reference to a node's output there, some
// output its contract accepts (with the files it refers to) holds v at the reference's path,
// as the subset checker shows by building one.
func (l *linter) deliverable(t *dag.Template, w any) bool {
	switch t.Kind() {
	case dag.TemplateObject:
		m, ok := w.(map[string]any)
		if !ok {
			return true
		}
		vals := t.Values()
		for i, k := range t.Keys() {
			if v, ok := m[k]; ok && !l.deliverable(vals[i], v) {
				return false
			}
		}
	case dag.TemplateArray:
		a, ok := w.([]any)
		if !ok {
			return true
		}
		for i, e := range t.Elems() {
			if i < len(a) && !l.deliverable(e, a[i]) {
				return false
			}
		}
	case dag.TemplateExpr:
		r, ok := plainRef(t)
		if !ok || r.Root != "nodes" {
			return true
		}
		n := l.d.ByID[r.Node]
		if n == nil || n.Effective == nil || n.Foreach != nil {
			return true
		}
		s, err := l.comp.Inline("not the witness at "+strings.Join(r.Path, "."), atPath(r.Path, map[string]any{"not": map[string]any{"const": w}}))
		if err != nil {
			return true
		}
		// The checker verifies the output it builds against the producer's contract, files
		// included: Incompatible is a deliverable output holding w; anything else is no proof.
		return subset.Check(n.Effective, s).Verdict == subset.Incompatible
	}
	return true
}
