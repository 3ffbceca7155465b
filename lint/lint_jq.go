package lint

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/suggest"
)

// transformReads checks the plain paths a transform node's jq program reads from its input
// (jqReads) against what lint knows of that input: its contract.input, or else the schema of
// what its `input` (one plain reference) or its default input brings. A path the schema
// forbids is an error (SEAM-E305); one that a schema its author wrote does not declare but
// allows, a warning (SEAM-W301). The loader reported a program that does not parse.
func (l *linter) transformReads(n *dag.Node) []Finding {
	if n.Type == nil || n.Type.Name() != "transform" {
		return nil
	}
	program, ok := withString(n.With, "program")
	if !ok {
		return nil
	}
	q, err := gojq.Parse(program)
	if err != nil {
		return nil
	}
	var out []Finding
	for _, path := range jqReads(q) {
		if f, ok := l.transformRead(n, path); ok {
			out = append(out, f)
		}
	}
	return out
}

// transformRead judges one path the program of n reads.
func (l *linter) transformRead(n *dag.Node, path []string) (Finding, bool) {
	var (
		p         projection
		parent    func(prefix []string) any // the schema at a prefix of path, for suggestions
		label     string                    // what declares the input
		declared  bool                      // an author wrote that schema
		producers []string
		// within turns the program's path into the path in label's schema.
		within = func(p []string) []string { return p }
	)
	switch {
	case n.InputContract != nil:
		doc := ownDoc(n.InputContract)
		p = project(doc.Value, doc, path, 0)
		parent = func(pre []string) any { return project(doc.Value, doc, pre, 0).schema }
		label, declared = i18n.InlineStart(l.text.lang, l.text.jqInputContract(n.ID)), true
	case n.Input == nil:
		// The default input: an object of the upstream outputs, keyed by id.
		if !slices.Contains(n.Deps, path[0]) {
			return l.jqFinding(n, path, path[:1], SeverityError, i18n.InlineStart(l.text.lang, l.text.jqDefaultInput(n.ID)), n.Deps, nil), true
		}
		r := dag.Ref{Root: "nodes", Node: path[0], Path: path[1:]}
		var ok bool
		if p, ok = l.projectRef(r, false); !ok {
			return Finding{}, false
		}
		p = shift(p, 1)
		within = func(p []string) []string { return p[1:] }
		parent = func(pre []string) any {
			q, _ := l.projectRef(dag.Ref{Root: "nodes", Node: path[0], Path: pre[1:]}, false)
			return q.schema
		}
		label, declared, producers = i18n.InlineStart(l.text.lang, l.text.outContract(path[0])), l.declares(r), []string{path[0]}
	default:
		base, ok := plainRef(n.Input)
		if !ok || (base.Root != "nodes" && base.Root != "params") {
			return Finding{}, false // a value lint does not follow into
		}
		r := base
		r.Path = append(slices.Clone(base.Path), path...)
		if p, ok = l.projectRef(r, false); !ok {
			return Finding{}, false
		}
		p = shift(p, -len(base.Path)) // the reference's own check judges those
		within = func(p []string) []string { return append(slices.Clone(base.Path), p...) }
		parent = func(pre []string) any {
			q := base
			q.Path = append(slices.Clone(base.Path), pre...)
			pr, _ := l.projectRef(q, false)
			return pr.schema
		}
		who := base.Node
		if base.Root == "params" {
			who = "params"
		}
		label, declared, producers = i18n.InlineStart(l.text.lang, l.text.outContract(who)), l.declares(base), l.addProducer(nil, base)
	}
	switch {
	case p.undeclared >= 0:
		return l.jqFinding(n, path, within(path[:p.undeclared+1]), SeverityError, label, declaredNames(parent(path[:p.undeclared])), producers), true
	case p.loose >= 0 && p.loose < len(path) && declared:
		// Only where the schema names some members: an open object says nothing of them.
		if names := declaredNames(parent(path[:p.loose])); len(names) > 0 {
			return l.jqFinding(n, path, within(path[:p.loose+1]), SeverityWarning, label, names, producers), true
		}
	}
	return Finding{}, false
}

// jqFinding reports that n's program reads path, whose member at (its path in label's schema)
// what label names forbids (an error) or does not declare (a warning); names are the members
// it declares beside it.
func (l *linter) jqFinding(n *dag.Node, path, at []string, severity, label string, names, producers []string) Finding {
	pos, ok := n.WithPos["program"]
	if !ok {
		pos = n.Pos
	}
	msg, hint := l.text.jqRead(severity == SeverityError, jqPathText(path), label, strings.Join(at, "."), suggest.Closest(at[len(at)-1], names))
	code := CodeUndeclared
	if severity == SeverityWarning {
		code = CodeUnknown
	}
	return Finding{Pos: pos, Severity: severity, Code: code, Producers: producers, Consumer: n.ID, Message: msg, Hint: hint}
}

// declaredNames are the member names schema s declares (its properties and those of its
// allOf parts).
func declaredNames(s any) []string {
	m, ok := s.(map[string]any)
	if !ok {
		return nil
	}
	var names []string
	if props, ok := m["properties"].(map[string]any); ok {
		for k := range props {
			names = append(names, k)
		}
	}
	if all, ok := m["allOf"].([]any); ok {
		for _, a := range all {
			names = append(names, declaredNames(a)...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// withString is the literal string at key of with, when no reference computes it.
func withString(with *dag.Template, key string) (string, bool) {
	if v, ok := with.Literal(); ok {
		m, _ := v.(map[string]any)
		s, ok := m[key].(string)
		return s, ok
	}
	if c := with.Child(key); c != nil {
		v, _ := c.Literal()
		s, ok := v.(string)
		return s, ok
	}
	return "", false
}

// jqReads returns the plain paths (.a.b, .a[0], a member named alone in {a}) that program q
// reads from its input, once each, in order. It follows only what it models: the program's
// own input through operators, objects, arrays, strings, if, try and the right of a pipe
// whose left is a plain path; it does not look inside function calls, reduce, foreach,
// iterations (.[]) or assignments, where `.` is something else or a path is written.
func jqReads(q *gojq.Query) [][]string {
	var out [][]string
	seen := map[string]bool{}
	add := func(p []string) {
		if k := strings.Join(p, "\x00"); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	var query func(q *gojq.Query, at []string)
	var term func(t *gojq.Term, at []string)
	query = func(q *gojq.Query, at []string) {
		switch {
		case q == nil:
		case q.Term != nil:
			term(q.Term, at)
		case q.Op == gojq.OpPipe && len(q.Patterns) > 0:
			// E as $x | body: the body reads the same input.
			query(q.Left, at)
			query(q.Right, at)
		case q.Op == gojq.OpPipe:
			query(q.Left, at)
			if q.Left != nil && q.Left.Term != nil {
				if p, ok := jqPath(q.Left.Term); ok {
					query(q.Right, append(slices.Clone(at), p...))
				}
			}
		case q.Op >= gojq.OpAssign:
		default:
			query(q.Left, at)
			query(q.Right, at)
		}
	}
	str := func(s *gojq.String, at []string) {
		if s != nil {
			for _, sq := range s.Queries {
				query(sq, at)
			}
		}
	}
	term = func(t *gojq.Term, at []string) {
		if p, ok := jqPath(t); ok {
			if len(p) > 0 {
				add(append(slices.Clone(at), p...))
			}
			return
		}
		if len(t.SuffixList) > 0 {
			return // a suffix on something else: its own input is not the program's
		}
		switch t.Type {
		case gojq.TermTypeObject:
			for _, kv := range t.Object.KeyVals {
				query(kv.KeyQuery, at)
				str(kv.KeyString, at)
				switch {
				case kv.Val != nil:
					query(kv.Val, at)
				case kv.Key != "" && !strings.HasPrefix(kv.Key, "$"):
					add(append(slices.Clone(at), kv.Key)) // {label} is {label: .label}
				case kv.KeyString != nil && kv.KeyString.Queries == nil:
					add(append(slices.Clone(at), kv.KeyString.Str))
				}
			}
		case gojq.TermTypeArray:
			query(t.Array.Query, at)
		case gojq.TermTypeQuery:
			query(t.Query, at)
		case gojq.TermTypeString, gojq.TermTypeFormat:
			str(t.Str, at)
		case gojq.TermTypeUnary:
			term(t.Unary.Term, at)
		case gojq.TermTypeIf:
			query(t.If.Cond, at)
			query(t.If.Then, at)
			for _, e := range t.If.Elif {
				query(e.Cond, at)
				query(e.Then, at)
			}
			query(t.If.Else, at)
		case gojq.TermTypeTry:
			query(t.Try.Body, at)
		}
	}
	query(q, nil)
	return out
}

// jqPath is the path term t reads when it is a plain one (., .a, .a.b, .a[0], ."a b"); ok is
// false otherwise, and for a path that iterates or slices.
func jqPath(t *gojq.Term) ([]string, bool) {
	var p []string
	switch t.Type {
	case gojq.TermTypeIdentity:
	case gojq.TermTypeIndex:
		seg, ok := jqIndex(t.Index)
		if !ok {
			return nil, false
		}
		p = append(p, seg)
	default:
		return nil, false
	}
	for _, s := range t.SuffixList {
		if s.Iter || s.Index == nil {
			return nil, false
		}
		seg, ok := jqIndex(s.Index)
		if !ok {
			return nil, false
		}
		p = append(p, seg)
	}
	return p, true
}

// jqIndex is the member or array index ix names, when it is a constant.
func jqIndex(ix *gojq.Index) (string, bool) {
	switch {
	case ix.IsSlice:
		return "", false
	case ix.Name != "":
		return ix.Name, true
	case ix.Str != nil && ix.Str.Queries == nil:
		return ix.Str.Str, true
	case ix.Start != nil && ix.Start.Term != nil && ix.Start.Term.Type == gojq.TermTypeNumber:
		if i, err := strconv.Atoi(ix.Start.Term.Number); err == nil && i >= 0 {
			return strconv.Itoa(i), true
		}
	}
	return "", false
}

var jqIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// jqPathText writes path as jq does: .a.b[0]."a b".
func jqPathText(path []string) string {
	var b strings.Builder
	for _, seg := range path {
		switch {
		case jqIdent.MatchString(seg):
			b.WriteString("." + seg)
		case isIndex(seg):
			b.WriteString("[" + seg + "]")
		default:
			b.WriteString("." + strconv.Quote(seg))
		}
	}
	if b.Len() == 0 {
		return "."
	}
	return b.String()
}

func isIndex(seg string) bool {
	_, err := strconv.Atoi(seg)
	return err == nil
}

// Messages of transformReads.

// jqRead: the program reads path, whose member at is forbidden (an error) or undeclared.
func (t lintText) jqRead(forbidden bool, path, label, at, suggestion string) (msg, hint string) {
	if forbidden {
		msg = i18n.Sprintf(t.lang, "the program reads %s, which its input never holds: %s does not declare %s", path, label, at)
	} else {
		msg = i18n.Sprintf(t.lang, "the program reads %s, which %s does not declare (it allows other fields, so it may be there)", path, label)
	}
	if suggestion != "" {
		return msg, i18n.Sprintf(t.lang, "did you mean %s? Correct the program, or declare the field in %s.", suggestion, label)
	}
	return msg, i18n.Sprintf(t.lang, "correct the program, or declare the field in %s.", label)
}

func (t lintText) jqInputContract(node string) string {
	return i18n.Sprintf(t.lang, "%s's contract.input", node)
}

// jqDefaultInput names a node's default input, whose members are its upstream nodes' ids.
func (t lintText) jqDefaultInput(node string) string {
	return i18n.Sprintf(t.lang, "%s's input (its upstream outputs by node id)", node)
}
