package lint

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/cel-go/common/types"

	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// typing is lint's CEL type checker, made on first use: most DAGs hold no expression beyond
// plain paths and no `when`.
type typing struct {
	tc  *dag.TypeChecker
	err error
}

func (l *linter) typeChecker() (*dag.TypeChecker, error) {
	if l.typing.tc == nil && l.typing.err == nil {
		l.typing.tc, l.typing.err = dag.NewTypeChecker()
	}
	return l.typing.tc, l.typing.err
}

// exprTypes type-checks the CEL expressions among es with each reference typed by its
// producer's contract, and `when` (which is among es when not nil) for a boolean result:
// an operator or function that cannot take the types its references have (a string
// compared with an integer, which never equals it) is SEAM-E313; a `when` whose result is
// never a boolean is SEAM-E312, since the run fails it whatever the values. A plain path
// has no operator: only a `when` is checked when it is one.
func (l *linter) exprTypes(consumer string, es []*dag.Expr, when *dag.Expr) []Finding {
	var out []Finding
	for _, e := range es {
		if e.IsPath() && e != when {
			continue
		}
		var prods []string
		for _, r := range e.Refs() {
			prods = l.addProducer(prods, r)
		}
		// The when is evaluated before the node's guards hold; the rest under them.
		base := l.guards
		if e == when {
			base = guards{}
		}
		c, err := l.checkAlternatives(e, base, e == when)
		if err != nil {
			// The load compiled the same expression in the same environment: not expected.
			return append(out, Finding{Pos: e.Pos, Severity: SeverityWarning, Code: CodeUnknown, Producers: prods,
				Consumer: consumer, subject: "expr " + e.Src,
				Message: i18n.Sprintf(l.text.lang, "${{ %s }} could not be type-checked: %v", e.Src, err)})
		}
		for _, is := range c.issues {
			f := Finding{Pos: is.Pos, Severity: SeverityError, Code: CodeExprType, Producers: prods,
				Consumer: consumer, subject: "expr " + e.Src,
				Message: i18n.Sprintf(l.text.lang, "${{ %s }} cannot work with the types its producers' contracts give its references: %s", e.Src, is.Message),
				Hint:    i18n.Format(l.text.lang, "compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract")}
			if c.null != nil {
				l.nullFinding(&f, e, *c.null, is.Message)
			}
			out = append(out, f)
		}
		t := c.t
		if e == when && t != nil && !maybeBool(t) && c.several {
			out = append(out, Finding{Pos: e.Pos, Severity: SeverityError, Code: CodeWhenType, Producers: prods,
				Consumer: consumer, subject: "when",
				Message: i18n.Sprintf(l.text.lang, "when ${{ %s }} may give %s, which is not a boolean: a run whose producer delivers one fails deciding whether %s runs", e.Src, l.celKind(t), consumer),
				Hint:    i18n.Format(l.text.lang, "write a condition: compare the value (== 'pass', > 0), test an array's size (size(…) > 0) or a member's presence (has(…))")})
		} else if e == when && t != nil && !maybeBool(t) {
			out = append(out, Finding{Pos: e.Pos, Severity: SeverityError, Code: CodeWhenType, Producers: prods,
				Consumer: consumer, subject: "when",
				Message: i18n.Sprintf(l.text.lang, "when ${{ %s }} gives %s, never a boolean: every run fails deciding whether %s runs", e.Src, l.celKind(t), consumer),
				Hint:    i18n.Format(l.text.lang, "write a condition: compare the value (== 'pass', > 0), test an array's size (size(…) > 0) or a member's presence (has(…))")})
		}
	}
	return out
}

// nullFinding rewrites f, an issue the checker found where reference r is null, as what it
// is: the producer may deliver null there and the expression does not expect it. The
// witness is such an output of r's producer, when lint finds one its contract accepts.
func (l *linter) nullFinding(f *Finding, e *dag.Expr, r dag.Ref, issue string) {
	who, at := r.Root, r.Root
	if len(r.Path) > 0 {
		at += "." + pathText(r.Path)
	}
	if r.Root == "nodes" {
		who, at = r.Node, refText(r.Node, r.Path)
	}
	f.Message = i18n.Sprintf(l.text.lang, "${{ %s }} fails when %s delivers null for %s, which its contract allows: %s", e.Src, who, at, issue)
	f.Hint = i18n.Sprintf(l.text.lang, "guard the read: `%s != null ? … : <default>` (or test it in the node's when), or declare %s never null in %s's output contract", at, at, who)
	if r.Root != "nodes" {
		return
	}
	n := l.d.ByID[r.Node]
	if n == nil || n.Effective == nil || n.Foreach != nil {
		return
	}
	notNull := atPath(r.Path, map[string]any{"not": map[string]any{"type": "null"}})
	s, err := l.comp.Inline("the path "+strings.Join(r.Path, ".")+" not null", notNull)
	if err != nil {
		return
	}
	res := subset.Check(n.Effective, s)
	if res.Verdict != subset.Incompatible || len(n.Effective.Validate(res.Witness, i18n.English)) > 0 {
		return
	}
	f.Witness, f.HasWitness = res.Witness, true
}

// maybeBool reports whether a value of CEL type t may be a boolean.
func maybeBool(t *types.Type) bool {
	switch t.Kind() {
	case types.BoolKind, types.DynKind, types.AnyKind, types.TypeParamKind, types.ErrorKind:
		return true
	}
	return false
}

// celKind names the JSON values of CEL type t as a phrase inside a sentence.
func (l *linter) celKind(t *types.Type) string {
	var kind string
	switch t.Kind() {
	case types.IntKind, types.UintKind, types.DoubleKind:
		kind = i18n.Key("a number")
	case types.StringKind:
		kind = i18n.Key("a string")
	case types.ListKind:
		kind = i18n.Key("an array")
	case types.MapKind:
		kind = i18n.Key("an object")
	case types.NullTypeKind:
		return i18n.Inline(l.text.lang, "null")
	default:
		return i18n.Inline(l.text.lang, t.String())
	}
	return i18n.Inline(l.text.lang, i18n.Format(l.text.lang, kind))
}

// maxAlternatives bounds the combinations of its references' types an expression is checked
// with; past it, each reference whose schema gives no one type is dyn.
const maxAlternatives = 16

// typed is what checkAlternatives found: the type of the expression's result, the issues
// of the first combination that fails, whether there were several combinations, and null:
// the reference that combination types null, when it does.
type typed struct {
	t       *types.Type
	issues  []dag.TypeIssue
	several bool
	null    *dag.Ref
}

// checkAlternatives type-checks e once for each combination of the types its references may
// have (refTypes: an anyOf of a string and an object is either), since a producer may deliver
// any of them: the first combination that the checker refuses, or whose result is not a
// boolean (for a when, isWhen), is what e gives; several says there was more than one combination. A reference
// read where a guard (in e, or base: the node's when) excludes null is not null there, so
// that combination types it dyn at that read: `o != null ? size(o) : 0` is sound.
func (l *linter) checkAlternatives(e *dag.Expr, base guards, isWhen bool) (typed, error) {
	tc, err := l.typeChecker()
	if err != nil {
		return typed{}, err
	}
	alts := map[string][]*types.Type{}
	var keys []string
	combos := 1
	for _, r := range e.Refs() {
		k := refKey(r)
		if _, ok := alts[k]; ok {
			continue
		}
		alts[k] = l.refTypes(r, !isWhen) // what the node's when guarantees holds past it
		keys = append(keys, k)
		combos *= len(alts[k])
	}
	if combos > maxAlternatives {
		for _, k := range keys {
			if len(alts[k]) > 1 {
				alts[k] = []*types.Type{nil}
			}
		}
		combos = 1
	}
	// The reads of each path, in the order the checker meets them.
	reads := map[string][]read{}
	for _, rd := range l.reads(e, base) {
		k := pathKey(rd.segs)
		reads[k] = append(reads[k], rd)
	}
	var first *types.Type
	// compared is the first combination whose only issues are comparisons of kinds that
	// differ: an error only when no combination compares kinds that may be equal (a value
	// that is a string or a boolean may equal 'a').
	var compared *typed
	for n := range combos {
		pick := map[string]*types.Type{}
		for _, k := range keys {
			pick[k] = alts[k][n%len(alts[k])]
			n /= len(alts[k])
		}
		var null *dag.Ref
		check := func(nulls bool) (*types.Type, []dag.TypeIssue, error) {
			seen := map[string]int{}
			return tc.Check(e, func(r dag.Ref) *types.Type {
				t := pick[refKey(r)]
				k := pathKey(refSegs(r))
				i := seen[k]
				seen[k]++
				if i < len(reads[k]) && reads[k][i].walk {
					// has()'s operand: a run finds has() of a member of a value that is not an
					// object false, whatever its type.
					return nil
				}
				if t == nil || t.Kind() != types.NullTypeKind {
					return t
				}
				if !nulls || i < len(reads[k]) && reads[k][i].g.notNull(reads[k][i].segs) {
					return nil // never read when null
				}
				if null == nil {
					null = &r
				}
				return t
			})
		}
		t, issues, err := check(true)
		if err == nil && len(issues) > 0 && allComparisons(issues) {
			if compared == nil {
				compared = &typed{issues: issues, several: combos > 1}
			}
			continue
		}
		if err != nil || len(issues) > 0 || isWhen && t != nil && !maybeBool(t) {
			if null != nil && len(issues) > 0 {
				// The null's fault only when the same types but for it pass.
				if _, again, err := check(false); err != nil || len(again) > 0 {
					null = nil
				}
			} else {
				null = nil
			}
			return typed{t: t, issues: issues, several: combos > 1, null: null}, err
		}
		if first == nil {
			first = t
		}
	}
	if first == nil && compared != nil {
		return *compared, nil
	}
	return typed{t: first, several: combos > 1}, nil
}

// allComparisons reports whether every issue is a comparison of kinds that differ.
func allComparisons(issues []dag.TypeIssue) bool {
	for _, is := range issues {
		if !is.Comparison() {
			return false
		}
	}
	return true
}

func refKey(r dag.Ref) string {
	return r.Root + "\x00" + r.Node + "\x00" + strings.Join(r.Path, "\x00")
}

// refTypes are the CEL types of what reference r may read, by its producer's contract (or
// the foreach list's elements for item): one, or one per branch of a schema whose branches
// differ (schemaTypes); nil stands for the checker's dyn, where the schema does not tell.
// env, run and index keep the types the load gives them. guarded: r is read past the node's
// when, so what the when guarantees (lint_guard.go's narrowing) holds.
func (l *linter) refTypes(r dag.Ref, guarded bool) []*types.Type {
	switch r.Root {
	case "nodes", "params":
		if p, ok := l.projectRef(r, true); ok && p.undeclared < 0 {
			if guarded {
				return schemaTypes(l.narrowed(r, p.schema))
			}
			return schemaTypes(p.schema)
		}
	case "item":
		if s := l.loopRef(r); !s.undeclared {
			return schemaTypes(s.schema)
		}
	case "status": // nodes.<id>.status
		return []*types.Type{types.StringType}
	}
	return []*types.Type{nil}
}

// schemaTypes are the CEL types of the values schema s accepts: schemaType's one type, or
// where the values do not share one, a type per alternative of a list of type names or of
// anyOf/oneOf branches (nil for a branch of no one type); [nil] when s tells none.
func schemaTypes(s any) []*types.Type {
	if t := schemaType(s, 0); t != nil {
		return []*types.Type{t}
	}
	m, _ := s.(map[string]any)
	var out []*types.Type
	add := func(t *types.Type) {
		for _, u := range out {
			if t == nil && u == nil || t != nil && u != nil && t.IsExactType(u) {
				return
			}
		}
		out = append(out, t)
	}
	if names, ok := m["type"].([]any); ok {
		for _, n := range names {
			if name, ok := n.(string); ok {
				add(namedType(name, m, 0))
			}
		}
	} else if _, named := m["type"]; !named {
		for _, k := range []string{"anyOf", "oneOf"} {
			bs, _ := m[k].([]any)
			for _, b := range bs {
				// A branch of several types (type: [object, "null"]) is one alternative each,
				// so that its null is typed as at the top.
				if bm, ok := b.(map[string]any); ok && schemaType(b, 1) == nil {
					if names, ok := bm["type"].([]any); ok {
						for _, n := range names {
							if name, ok := n.(string); ok {
								add(namedType(name, bm, 1))
							}
						}
						continue
					}
				}
				add(schemaType(b, 1))
			}
		}
	}
	if len(out) == 0 {
		return []*types.Type{nil}
	}
	return out
}

// maxTypeDepth bounds how deep schemaType looks into nested schemas.
const maxTypeDepth = 16

// schemaType is the CEL type of every value schema s accepts, as a run hands it to CEL
// (dag's toCEL), or nil when they do not share one. What a schema asserts at once (type,
// const, enum, allOf) must agree; anyOf and oneOf branches must all give the same type.
// A run hands an integral number to CEL as an int and another as a double, and CEL
// compares the two by value but has no arithmetic mixing them: `number` is a double, so that
// `x * 2` is reported (it fails for 2.5) and comparisons are not; `integer` is an int (1.0
// reaches CEL as a double, which compares alike).
func schemaType(s any, depth int) *types.Type {
	m, ok := s.(map[string]any)
	if !ok || depth > maxTypeDepth {
		return nil
	}
	var t *types.Type
	conflict := false
	meet := func(u *types.Type) {
		switch {
		case u == nil || conflict:
		case t == nil:
			t = u
		default:
			if t, ok = narrower(t, u); !ok {
				conflict = true // no value has both types: any type is right, none is useful
			}
		}
	}
	if name, ok := m["type"].(string); ok {
		meet(namedType(name, m, depth))
	}
	if c, ok := m["const"]; ok {
		meet(valueType(c))
	}
	if e, ok := m["enum"].([]any); ok {
		meet(commonType(e, valueType))
	}
	if all, ok := m["allOf"].([]any); ok {
		for _, a := range all {
			meet(schemaType(a, depth+1))
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if bs, ok := m[k].([]any); ok {
			meet(commonType(bs, func(b any) *types.Type { return schemaType(b, depth+1) }))
		}
	}
	if conflict {
		return nil
	}
	return t
}

// narrower is the more precise of two types of one kind (list(string) over list(dyn));
// ok is false when their kinds differ.
func narrower(t, u *types.Type) (*types.Type, bool) {
	if t.Kind() != u.Kind() {
		return nil, false
	}
	for _, p := range t.Parameters() {
		if p.Kind() == types.DynKind {
			return u, true
		}
	}
	return t, true
}

// commonType is the type every element of xs has by typeOf, or nil.
func commonType(xs []any, typeOf func(any) *types.Type) *types.Type {
	var t *types.Type
	for _, x := range xs {
		u := typeOf(x)
		if u == nil || t != nil && !t.IsExactType(u) {
			return nil
		}
		t = u
	}
	return t
}

// namedType is the CEL type of a JSON Schema type name, m being the schema that names it.
func namedType(name string, m map[string]any, depth int) *types.Type {
	switch name {
	case "string":
		return types.StringType
	case "integer":
		return types.IntType
	case "number":
		return types.DoubleType
	case "boolean":
		return types.BoolType
	case "null":
		return types.NullType
	case "object":
		return types.NewMapType(types.StringType, types.DynType)
	case "array":
		elem := types.DynType
		if _, tuple := m["prefixItems"]; !tuple {
			if it := schemaType(m["items"], depth+1); it != nil {
				elem = it
			}
		}
		return types.NewListType(elem)
	}
	return nil
}

// valueType is the CEL type of a JSON value as a run hands it to CEL.
func valueType(v any) *types.Type {
	switch v := v.(type) {
	case string:
		return types.StringType
	case bool:
		return types.BoolType
	case nil:
		return types.NullType
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return types.IntType
		}
		if _, err := strconv.ParseUint(v.String(), 10, 64); err == nil {
			return types.UintType
		}
		return types.DoubleType
	case map[string]any:
		return types.NewMapType(types.StringType, types.DynType)
	case []any:
		return types.NewListType(types.DynType)
	}
	return nil
}
