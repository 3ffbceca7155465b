package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
)

// loopItem is what `item` is in the node being linted: an element of its foreach list.
type loopItem struct {
	schema    any // every element satisfies it
	producers []string
	inexact   bool // the schema is wider than the elements really are
	why       why
	// undeclared: the list's reference names a path its producer forbids (SEAM-E305 says
	// so), and nothing can be said of its elements.
	undeclared bool
}

// foreach checks node n's foreach list (l.consumer must be n) and returns what `item` is
// in n: nil when n has no foreach.
func (l *linter) foreach(n *dag.Node) (*loopItem, []Finding) {
	if n.Foreach == nil {
		return nil, nil
	}
	s := l.synth(n.Foreach)
	it := &loopItem{producers: s.producers, inexact: s.inexact, why: s.why, undeclared: s.undeclared}
	if s.undeclared {
		it.schema = true
		return it, nil
	}
	var exact bool
	it.schema, exact = elementOf(s.schema, 0)
	if !exact && !it.inexact {
		it.inexact, it.why = true, why{code: whyElements}
	}
	var out []Finding
	if n.Foreach.Kind() == dag.TemplateExpr {
		// A list written out in the file is one; a reference may not be.
		out = l.foreachList(n, n.Foreach.Expr(), s)
	}
	return it, out
}

// foreachList checks that the value of e, node n's foreach reference synthesised as s, is a
// list: an error when it never is, a warning when it may be absent or something else.
func (l *linter) foreachList(n *dag.Node, e *dag.Expr, s shape) []Finding {
	notCompiled := func(err error) []Finding {
		return []Finding{{Pos: e.Pos, Severity: SeverityWarning, Code: CodeUnknown, Producers: s.producers,
			Consumer: n.ID, Message: l.text.edgeUnknown(l.foreachEdge(n, s), l.text.notCompiled(err)), subject: "foreach"}}
	}
	if l.lists == nil {
		var err error
		if l.lists, err = l.comp.Inline("a list", map[string]any{"type": "array"}); err == nil {
			l.notLists, err = l.comp.Inline("not a list", map[string]any{"not": map[string]any{"type": "array"}})
		}
		if err != nil {
			l.lists = nil
			return notCompiled(err)
		}
	}
	src, err := contract.Normalize(s.schema)
	if err != nil {
		return notCompiled(err)
	}
	compile := func() (*contract.Schema, error) { return l.comp.Inline("foreach of "+n.ID, src) }
	who := l.text.who(s.producers)
	f := Finding{Pos: e.Pos, Producers: s.producers, Consumer: n.ID, subject: "foreach"}
	// Whatever keywords a partly known value lost, it is narrower than s: if s is never a
	// list, neither is it.
	if subset.CheckSource(src, l.notLists, compile).Verdict == subset.Compatible {
		res := subset.CheckSource(src, l.lists, compile)
		if res.Verdict != subset.Incompatible {
			return nil // nothing at all arrives (a false schema)
		}
		f.Severity, f.Code, f.Witness, f.HasWitness = SeverityError, CodeNotList, res.Witness, true
		msg, hint := l.text.notList(n.ID, e.Src, who, res.Witness)
		f.Message, f.Hint = l.text.edgeIncompatible(l.foreachEdge(n, s), msg), hint
		return []Finding{f}
	}
	if s.inexact || l.loose(e) {
		// What may arrive is not known well enough to blame the producer; an undeclared
		// member is SEAM-W301 or SEAM-W302 already.
		return nil
	}
	var msg string
	switch res := subset.CheckSource(src, l.lists, compile); {
	case res.Verdict == subset.Incompatible:
		msg, f.Hint = l.text.mayNotList(n.ID, e.Src, who, res.Witness)
	case res.Verdict == subset.Unknown:
		msg = l.text.cannotProveList(e.Src, s.producers, res)
	case !s.present:
		msg, f.Hint = l.text.mayBeAbsent(n.ID, e.Src, who)
	default:
		return nil
	}
	f.Severity, f.Code = SeverityWarning, CodeUnknown
	f.Message = l.text.edgeUnknown(l.foreachEdge(n, s), msg)
	return []Finding{f}
}

// foreachEdge names the edge a foreach list crosses: "p → c", or "foreach → c" when no
// producer's output is in it.
func (l *linter) foreachEdge(n *dag.Node, s shape) string {
	if len(s.producers) == 0 {
		return "foreach → " + n.ID
	}
	return strings.Join(s.producers, ", ") + " → " + n.ID
}

// loose reports whether e is a plain path through a member its producer's schema does not
// declare, although it allows it.
func (l *linter) loose(e *dag.Expr) bool {
	if !e.IsPath() || len(e.Refs()) != 1 {
		return false
	}
	p, ok := l.projectRef(e.Refs()[0], true)
	return ok && p.loose >= 0
}

// loopRef is the shape of a plain reference to item (along its path) or index in the
// consumer, a foreach node.
func (l *linter) loopRef(r dag.Ref) shape {
	it := l.item
	if it == nil {
		// The loader allows item and index only under foreach.
		return shape{schema: true, present: true, inexact: true, why: why{code: whyNotStatic, arg: r.Root}}
	}
	if r.Root == "index" {
		// The run refuses a list longer than max_items.
		return shape{schema: map[string]any{"type": "integer", "minimum": 0, "maximum": l.consumer.MaxItems - 1}, present: true}
	}
	p := project(it.schema, contract.Doc{Value: it.schema}, r.Path, 0)
	s := shape{schema: p.schema, present: p.present(), producers: it.producers, inexact: it.inexact || p.inexact, why: it.why}
	if !it.inexact {
		s.why = p.why
	}
	if it.undeclared || p.undeclared >= 0 {
		s.schema, s.present, s.inexact, s.why, s.undeclared = true, false, true, why{code: whyUndeclared}, true
	}
	return s
}

// undeclaredItem reports a reference to a path of `item` that the list's elements forbid
// (nil when r is not one).
func (l *linter) undeclaredItem(consumer string, r dag.Ref) []Finding {
	if l.item == nil || l.item.undeclared || len(r.Path) == 0 {
		return nil
	}
	doc := contract.Doc{Value: l.item.schema}
	p := project(l.item.schema, doc, r.Path, 0)
	near := func(i int) string { return nearPath(project(l.item.schema, doc, r.Path[:i], 0).schema, r.Path, i) }
	switch {
	case p.undeclared >= 0:
		seg := strings.Join(r.Path[:p.undeclared+1], ".")
		msg, hint := l.text.near(near(p.undeclared), "item")(l.text.undeclaredItem(consumer, seg))
		return []Finding{{Pos: r.Pos, Severity: SeverityError, Code: CodeUndeclared,
			Producers: l.item.producers, Consumer: consumer, Message: msg, Hint: hint, subject: refSubject(r)}}
	case p.loose >= 0 && p.loose < len(r.Path):
		// Open elements may hold the member; a name close to a declared one is likely a typo.
		if n := near(p.loose); n != "" {
			seg := strings.Join(r.Path[:p.loose+1], ".")
			msg, hint := l.text.near(n, "item")(l.text.looseItem(consumer, seg))
			return []Finding{{Pos: r.Pos, Severity: SeverityWarning, Code: CodeUnknown,
				Producers: l.item.producers, Consumer: consumer, Message: msg, Hint: hint, subject: refSubject(r)}}
		}
	}
	return nil
}

// failedItem is what the engine puts in data.items for an item that failed.
func failedItem() map[string]any {
	return map[string]any{"type": "object", "required": []any{"status", "summary"}, "additionalProperties": false,
		"properties": map[string]any{"status": map[string]any{"const": "fail"}, "summary": map[string]any{"type": "string", "minLength": 1}}}
}

// projectForeach projects the output of foreach node n along path. The engine builds it (it
// is not validated as a whole): status, summary, and data.items holding each item's output
// in input order — an output valid under n's effective schema, or for an item that failed
// {status: fail, summary}. narrow: it passed or warned, so every item did.
func projectForeach(n *dag.Node, path []string, narrow bool) projection {
	if len(path) >= 3 && path[0] == "data" && path[1] == "items" && isIndexSeg(path[2]) {
		// Into one item: its own schema, which its $refs resolve in.
		rest := path[3:]
		ip := projectOutput(n, rest, narrow)
		if !narrow {
			ip = orFailed(ip, rest)
		}
		p := projection{schema: ip.schema, presence: append([]bool{true, true, false}, ip.presence...),
			inexact: ip.inexact, why: ip.why, undeclared: -1, loose: -1}
		if ip.undeclared >= 0 {
			p.undeclared = ip.undeclared + 3
		}
		if ip.loose >= 0 {
			p.loose = ip.loose + 3
		}
		return p
	}
	item := projectOutput(n, nil, narrow) // a leaf: its $refs inlined
	items := item.schema
	status := []any{"pass", "warn"}
	if !narrow {
		items = map[string]any{"anyOf": []any{items, failedItem()}}
		status = append(status, "fail")
	}
	out := map[string]any{"type": "object", "required": []any{"status", "summary", "data"}, "additionalProperties": false,
		"properties": map[string]any{
			"status":  map[string]any{"enum": status},
			"summary": map[string]any{"type": "string", "minLength": 1},
			"data": map[string]any{"type": "object", "required": []any{"items"}, "additionalProperties": false,
				"properties": map[string]any{"items": map[string]any{"type": "array", "maxItems": n.MaxItems, "items": items}}},
		}}
	p := project(out, contract.Doc{Value: out}, path, 0)
	if item.inexact && !p.inexact && (len(path) < 1 || path[0] == "data") && (len(path) < 2 || path[1] == "items") {
		p.inexact, p.why = true, item.why
	}
	return p
}

// orFailed widens ip, an item's output projected along rest, by what a failed item holds
// there: {status: fail, summary: why}, and nothing else.
func orFailed(ip projection, rest []string) projection {
	switch {
	case len(rest) == 0:
		ip.schema = map[string]any{"anyOf": []any{ip.schema, failedItem()}}
	case len(rest) == 1 && (rest[0] == "status" || rest[0] == "summary"):
		f := failedItem()["properties"].(map[string]any)[rest[0]]
		ip.schema = map[string]any{"anyOf": []any{ip.schema, f}}
	default:
		ip.presence[0] = false // a failed item does not have it
	}
	return ip
}

// isIndexSeg reports whether a path segment indexes a list.
func isIndexSeg(seg string) bool {
	i, err := strconv.Atoi(seg)
	return err == nil && i >= 0
}

// Keywords of a list's schema that say nothing about which values its elements may have
// beyond what elementOf takes from items and allOf. (prefixItems is not among them: the
// list's length may keep items from applying.)
var elementKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"type": true, "items": true, "allOf": true, "minItems": true, "uniqueItems": true,
	// Object and string keywords do not apply to a list.
	"properties": true, "required": true, "additionalProperties": true, "patternProperties": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true,
}

// elementOf is the schema every element of a list with schema s satisfies (s has no $refs:
// it is a projected leaf or a synthesised schema). exact is false when s constrains its
// elements in a way not followed, so that the result is wider than the truth.
func elementOf(s any, depth int) (any, bool) {
	m, ok := s.(map[string]any)
	if !ok {
		return s, true // true: any element; false: no list, so no element
	}
	if depth > maxLeafRefs {
		return true, false
	}
	exact := true
	var parts []any
	if c, ok := m["const"].([]any); ok {
		// A literal list (or one a schema fixes): its elements are its values.
		parts = append(parts, map[string]any{"enum": slices.Clip(c)})
	}
	it, hasItems := m["items"]
	if pi, ok := m["prefixItems"].([]any); ok {
		// The first elements satisfy their own schemas, not items: any of them.
		if !hasItems {
			it = true
		}
		parts = append(parts, map[string]any{"anyOf": append(slices.Clip(pi), it)})
	} else if hasItems {
		parts = append(parts, it)
	}
	if all, ok := m["allOf"].([]any); ok {
		for _, a := range all {
			e, ok := elementOf(a, depth+1)
			exact = exact && ok
			if e != true {
				parts = append(parts, e)
			}
		}
	}
	for k, v := range m {
		switch {
		case k == "const":
			_, isList := v.([]any)
			exact = exact && isList
		case k == "maxItems":
			// No element at all when it is 0: the items schema would be wider than nothing.
			exact = exact && fmt.Sprint(v) != "0"
		case !elementKeywords[k]:
			exact = false
		}
	}
	switch len(parts) {
	case 0:
		return true, exact
	case 1:
		return parts[0], exact
	}
	return map[string]any{"allOf": parts}, exact
}
