package dag

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dag/seam/contract"
)

// Lint finding codes. They are stable: tools and docs refer to them.
const (
	CodeLintRequired   = "SEAM-E301" // the consumer requires a field the producer does not produce
	CodeLintType       = "SEAM-E302" // types disagree
	CodeLintConstraint = "SEAM-E303" // the producer's constraints do not fit within the consumer's
	CodeLintOptional   = "SEAM-E304" // a field the producer only may emit is required
	CodeLintUndeclared = "SEAM-E305" // a reference to a path the producer's contract forbids
	CodeLintUnknown    = "SEAM-W301" // compatibility could not be proved either way
)

// Severities of a Finding.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Finding is one problem Lint found on an edge.
type Finding struct {
	Pos      Pos
	Severity string // SeverityError or SeverityWarning
	Code     string
	// Producers are the nodes (or "params") whose output the finding is about; Consumer is
	// the node whose contract.input is checked.
	Producers []string
	Consumer  string
	Message   string
	// Witness, when HasWitness, is a value the producers may deliver and the consumer rejects.
	Witness    any
	HasWitness bool
	Hint       string
}

func (f Finding) String() string {
	var b strings.Builder
	if f.Pos.File != "" {
		fmt.Fprintf(&b, "%s:%d:%d: ", f.Pos.File, f.Pos.Line, f.Pos.Col)
	}
	fmt.Fprintf(&b, "%s %s %s", f.Severity, f.Code, f.Message)
	if f.HasWitness {
		w, err := json.Marshal(f.Witness)
		if err != nil {
			w = []byte(fmt.Sprintf("%v", f.Witness))
		}
		fmt.Fprintf(&b, "\n  witness: %s", w)
	}
	if f.Hint != "" {
		fmt.Fprintf(&b, "\n  fix: %s", f.Hint)
	}
	return b.String()
}

// Lint checks statically, for every node that declares contract.input and has an input
// template, that the value arriving there fits the contract: it synthesises the schema of
// that value from the producers' effective output schemas and checks it with
// contract.Subset. Findings come in node order.
func Lint(ctx context.Context, d *DAG) []Finding {
	var out []Finding
	comp, err := contract.NewCompiler(contract.Options{})
	if err != nil {
		return nil
	}
	for _, n := range d.Nodes {
		if ctx.Err() != nil {
			break
		}
		if n.InputContract == nil || n.Input == nil {
			continue
		}
		l := &linter{d: d}
		s := l.synth(n.Input)
		for i := range l.findings {
			l.findings[i].Consumer = n.ID
		}
		out = append(out, l.findings...)
		out = append(out, l.check(comp, n, s)...)
	}
	return out
}

// shape is the synthesised schema of a value that arrives, or of part of it.
type shape struct {
	schema  any
	present bool // certainly present (not "may be absent")
	// producers are the roots whose values make up this part: node ids, or "params".
	producers []string
	// inexact is set when the schema is wider than what may really arrive (keywords dropped
	// or unknown parts), so an Incompatible answer cannot be trusted.
	inexact bool
	why     string // when inexact: what made it so
	// inexactKeys, for an input mapping, are its keys whose values are inexact.
	inexactKeys []string
}

type linter struct {
	d        *DAG
	findings []Finding
}

func (l *linter) synth(t *Template) shape {
	switch t.kind {
	case tmplLiteral:
		return shape{schema: map[string]any{"const": t.lit}, present: true}
	case tmplInterp:
		var prods []string
		for _, r := range t.Refs() {
			prods = addProducer(prods, r)
		}
		// Wider than what arrives (the text around the references is dropped): a string
		// proves compatible with a string, but a consumer's pattern may not be decided.
		return shape{schema: map[string]any{"type": "string"}, present: true, producers: prods,
			inexact: true, why: "an interpolated string is only known to be a string"}
	case tmplExpr:
		return l.expr(t.expr)
	case tmplObject:
		props := map[string]any{}
		req := []any{}
		s := shape{present: true}
		for i, k := range t.keys {
			c := l.synth(t.vals[i])
			props[k] = c.schema
			if c.present {
				req = append(req, k)
			}
			if c.inexact {
				s.inexactKeys = append(s.inexactKeys, k)
			}
			s.merge(c)
		}
		s.schema = map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
		return s
	case tmplArray:
		// Kept simple: one items schema when every element has the same, else only the
		// length is known.
		s := shape{present: true}
		var items any
		same := true
		for i, e := range t.elems {
			c := l.synth(e)
			if i == 0 {
				items = c.schema
			} else if !reflect.DeepEqual(items, c.schema) {
				same = false
			}
			s.merge(c)
		}
		sch := map[string]any{"type": "array", "minItems": len(t.elems), "maxItems": len(t.elems)}
		if same && items != nil {
			sch["items"] = items
		} else {
			s.inexact, s.why = true, "the list mixes elements of different shapes"
		}
		s.schema = sch
		return s
	}
	return shape{schema: true, present: true, inexact: true, why: "an unknown template"}
}

// merge adds c's producers and inexactness to s.
func (s *shape) merge(c shape) {
	for _, p := range c.producers {
		if !slices.Contains(s.producers, p) {
			s.producers = append(s.producers, p)
		}
	}
	if c.inexact && !s.inexact {
		s.inexact, s.why = true, c.why
	}
}

// addProducer adds what r reads from — a node id, or "params" — unless prods has it.
// References to item, index and run name no producer.
func addProducer(prods []string, r Ref) []string {
	var p string
	switch r.Root {
	case "nodes":
		p = r.Node
	case "params":
		p = "params"
	default:
		return prods
	}
	if !slices.Contains(prods, p) {
		prods = append(prods, p)
	}
	return prods
}

// expr synthesises a value that is exactly one expression.
func (l *linter) expr(e *Expr) shape {
	var prods []string
	for _, r := range e.refs {
		prods = addProducer(prods, r)
	}
	if e.path == nil || len(e.refs) != 1 {
		return shape{schema: true, present: true, producers: prods, inexact: true,
			why: fmt.Sprintf("the expression %q is not a plain path", e.Src)}
	}
	r := e.refs[0]
	var root any = true
	var docs []any // set when root is an effective schema: its parts, each its own document
	var what, label string
	switch r.Root {
	case "nodes":
		n, ok := l.d.ByID[r.Node]
		if !ok || n.Effective == nil {
			return shape{schema: true, present: true, producers: prods, inexact: true,
				why: fmt.Sprintf("%s has no known output schema", r.Node)}
		}
		root = n.Effective.Source()
		if n.Effective.IsEffective() {
			docs, _ = root.(map[string]any)["allOf"].([]any)
		}
		what = "nodes." + r.Node + ".output"
		label = r.Node + "'s output contract"
	case "params":
		if l.d.Params != nil {
			root = l.d.Params.Source()
		}
		what = "params"
		label = "the params schema"
	default:
		return shape{schema: true, present: true, producers: prods, inexact: true,
			why: fmt.Sprintf("%s is not known statically", r.Root)}
	}
	var p projection
	if docs != nil {
		parts := make([]projection, len(docs))
		for i, doc := range docs {
			parts[i] = project(doc, doc, r.Path, 0)
		}
		p = combine(parts, len(r.Path))
	} else {
		p = project(root, root, r.Path, 0)
	}
	s := shape{schema: p.schema, present: p.present(), producers: prods, inexact: p.inexact, why: p.why}
	if p.undeclared >= 0 {
		full := what + "." + strings.Join(r.Path[:p.undeclared+1], ".")
		l.findings = append(l.findings, Finding{
			Pos: r.Pos, Severity: SeverityError, Code: CodeLintUndeclared, Producers: prods,
			Message: fmt.Sprintf("%s: %s does not declare %s", full, label, strings.Join(r.Path[:p.undeclared+1], ".")),
			Hint:    fmt.Sprintf("declare it in %s, or reference a field it declares.", label),
		})
		s.schema, s.present, s.inexact, s.why = true, false, true, "the path is undeclared"
	}
	return s
}

// projection is a schema walked along a path.
type projection struct {
	schema any
	// presence says, per path segment, whether it is certainly present when the segments
	// before it are.
	presence   []bool
	inexact    bool
	why        string
	undeclared int // index of the path segment the schema forbids, or -1
}

// Keywords a crossed schema may have without its projection losing anything.
var projectKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$defs": true, "definitions": true,
	"title": true, "description": true, "default": true, "examples": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "type": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "prefixItems": true, "allOf": true,
}

// maxRefHops bounds the $refs project follows along one path.
const maxRefHops = 32

// project walks schema s, whose local $refs resolve in root, along path. Crossing a property
// that is not required, or an array index, makes the value "may be absent". Keywords of a
// crossed schema that it does not follow make the projection inexact (wider than the truth).
func project(s, root any, path []string, hops int) projection {
	p := projection{schema: s, undeclared: -1}
	if len(path) == 0 {
		budget := maxLeafNodes
		leaf, exact := cleanLeaf(s, root, 0, &budget)
		p.schema = leaf
		if !exact {
			p.inexact, p.why = true, "it uses a $ref seam cannot follow"
		}
		return p
	}
	m, ok := s.(map[string]any)
	if !ok {
		// true (or false): anything may be there, or not.
		return projection{schema: true, presence: make([]bool, len(path)), undeclared: -1}
	}
	if ref, ok := m["$ref"]; ok {
		r, _ := ref.(string)
		t, ok := resolveLocal(root, r)
		if !ok || hops >= maxRefHops {
			return projection{schema: true, presence: make([]bool, len(path)), inexact: true,
				why: "it uses a $ref seam cannot follow", undeclared: -1}
		}
		// $ref applies beside its siblings: both at once.
		rest := make(map[string]any, len(m))
		for k, v := range m {
			if k != "$ref" {
				rest[k] = v
			}
		}
		return project(map[string]any{"allOf": []any{t, rest}}, root, path, hops+1)
	}
	var parts []projection
	if all, ok := m["allOf"].([]any); ok {
		for _, a := range all {
			parts = append(parts, project(a, root, path, hops))
		}
	}
	seg, rest := path[0], path[1:]
	var own projection
	if i, err := strconv.Atoi(seg); err == nil && i >= 0 && isArrayish(m) {
		var sub any = true
		if pi, ok := m["prefixItems"].([]any); ok && i < len(pi) {
			sub = pi[i]
		} else if it, ok := m["items"]; ok {
			sub = it
		}
		own = shift(project(sub, root, rest, hops))
		own.presence = prepend(false, own.presence, len(path))
	} else {
		props, _ := m["properties"].(map[string]any)
		req, _ := m["required"].([]any)
		required := slices.Contains(req, any(seg))
		ap, hasAP := m["additionalProperties"]
		_, hasPP := m["patternProperties"]
		switch sub, declared := props[seg]; {
		case declared:
			own = shift(project(sub, root, rest, hops))
		case hasPP:
			own = projection{schema: true, inexact: true, why: "patternProperties are not followed", undeclared: -1}
		case hasAP && ap == false:
			own = projection{schema: true, undeclared: 0}
		case hasAP:
			own = shift(project(ap, root, rest, hops))
		default:
			own = shift(project(true, root, rest, hops))
		}
		own.presence = prepend(required, own.presence, len(path))
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !projectKeywords[k] && !own.inexact {
			own.inexact, own.why = true, "keyword "+k+" is not followed"
		}
	}
	if len(parts) == 0 {
		return own
	}
	parts = append(parts, own)
	return combine(parts, len(path))
}

// combine is the projection of an allOf whose parts projected to parts, along n segments.
func combine(parts []projection, n int) projection {
	out := projection{presence: make([]bool, n), undeclared: -1}
	var schemas []any
	for _, q := range parts {
		if q.undeclared >= 0 && (out.undeclared < 0 || q.undeclared < out.undeclared) {
			out.undeclared = q.undeclared
		}
		for i, ok := range q.presence {
			out.presence[i] = out.presence[i] || ok
		}
		if q.inexact && !out.inexact {
			out.inexact, out.why = true, q.why
		}
		if q.schema != true {
			schemas = append(schemas, q.schema)
		}
	}
	switch len(schemas) {
	case 0:
		out.schema = true
	case 1:
		out.schema = schemas[0]
	default:
		out.schema = map[string]any{"allOf": schemas}
	}
	return out
}

// present reports whether the whole path is certainly present.
func (p projection) present() bool {
	return !slices.Contains(p.presence, false)
}

// prepend is [first] + rest, padded with false to n segments.
func prepend(first bool, rest []bool, n int) []bool {
	out := append([]bool{first}, rest...)
	for len(out) < n {
		out = append(out, false)
	}
	return out
}

// shift makes the undeclared index of a projection along path[1:] one along path.
func shift(p projection) projection {
	if p.undeclared >= 0 {
		p.undeclared++
	}
	return p
}

func isArrayish(m map[string]any) bool {
	if _, ok := m["items"]; ok {
		return true
	}
	if _, ok := m["prefixItems"]; ok {
		return true
	}
	return m["type"] == "array"
}

// Bounds of cleanLeaf: how deep it inlines $refs (recursive schemas stop there) and how many
// values it copies in all.
const (
	maxLeafRefs  = 8
	maxLeafNodes = 2000
)

// cleanLeaf copies a projected subschema for inlining in a document of its own: local $refs
// into root are inlined (a $ref beside other keywords becomes an allOf), identifiers and
// $defs dropped. exact is false when a $ref could not be inlined and was replaced by true.
func cleanLeaf(s, root any, depth int, budget *int) (out any, exact bool) {
	*budget--
	switch v := s.(type) {
	case map[string]any:
		exact = true
		m := make(map[string]any, len(v))
		var target any
		for k, x := range v {
			switch k {
			case "$ref":
				ref, _ := x.(string)
				t, ok := resolveLocal(root, ref)
				if !ok || depth >= maxLeafRefs || *budget <= 0 {
					target, exact = true, false
					continue
				}
				c, ok := cleanLeaf(t, root, depth+1, budget)
				target, exact = c, exact && ok
				continue
			case "$dynamicRef":
				target, exact = true, false
				continue
			case "$id", "$schema", "$anchor", "$dynamicAnchor", "$comment", "$defs", "definitions":
				continue
			case "const", "enum", "default", "examples":
				m[k] = x // values, not schemas
				continue
			}
			c, ok := cleanLeaf(x, root, depth, budget)
			exact = exact && ok
			m[k] = c
		}
		if target == nil {
			return m, exact
		}
		if len(m) == 0 {
			return target, exact
		}
		return map[string]any{"allOf": []any{target, m}}, exact
	case []any:
		exact = true
		a := make([]any, len(v))
		for i, x := range v {
			c, ok := cleanLeaf(x, root, depth, budget)
			exact = exact && ok
			a[i] = c
		}
		return a, exact
	}
	return s, true
}

// resolveLocal finds the target of a local $ref ("#" or "#/json/pointer") in root.
func resolveLocal(root any, ref string) (any, bool) {
	if ref == "#" {
		return root, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	v := root
	for _, t := range contract.PointerTokens(ref[1:]) {
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[t]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// check runs Subset for node n's input and turns its verdict into findings.
func (l *linter) check(comp *contract.Compiler, n *Node, s shape) []Finding {
	pos := n.InputPos
	if pos.File == "" {
		pos = n.Pos
	}
	prods := s.producers
	edge := func(ps []string) string {
		if len(ps) == 0 {
			return "input → " + n.ID
		}
		return strings.Join(ps, ", ") + " → " + n.ID
	}
	a, err := comp.Inline("input of "+n.ID, s.schema)
	if err != nil {
		return []Finding{{Pos: pos, Severity: SeverityWarning, Code: CodeLintUnknown, Producers: prods, Consumer: n.ID,
			Message: fmt.Sprintf("edge %s: UNKNOWN — the arriving value's schema does not compile: %v", edge(prods), err)}}
	}
	res := contract.Subset(a, n.InputContract)
	switch res.Verdict {
	case contract.Compatible:
		return nil
	case contract.Incompatible:
		if s.inexact && !trustedDespite(n, s, res.Path) {
			return []Finding{{Pos: pos, Severity: SeverityWarning, Code: CodeLintUnknown, Producers: prods, Consumer: n.ID,
				Message: fmt.Sprintf("edge %s: UNKNOWN — %s may not fit %s's contract.input, but the arriving value is only partly known (%s).",
					edge(prods), fieldOrValue(fieldName(res.Path, "")), n.ID, s.why)}}
		}
	default:
		f := Finding{Pos: pos, Severity: SeverityWarning, Code: CodeLintUnknown, Producers: prods, Consumer: n.ID}
		f.Message = fmt.Sprintf("edge %s: UNKNOWN — cannot prove that %s fits %s's contract.input", edge(prods), fieldOrValue(fieldName(res.Path, "")), n.ID)
		if res.Reason != "" {
			f.Message += " (checker, a = what arrives, b = the contract: " + res.Reason + ")"
		}
		f.Message += "."
		return []Finding{f}
	}
	ps, missing := producersAt(n.Input, res.Path)
	if len(ps) == 0 && !missing {
		ps = prods
	}
	who := strings.Join(ps, " and ")
	if len(ps) == 0 {
		who = "the input mapping"
	}
	field := fieldName(res.Path, "")
	f := Finding{Pos: pos, Severity: SeverityError, Producers: ps, Consumer: n.ID, Witness: res.Witness, HasWitness: true}
	var why string
	switch res.Rule {
	case contract.RuleRequired:
		f.Code = CodeLintRequired
		if missing {
			// The input mapping itself lacks the field: no producer is to blame.
			f.Producers = prods
			why = fmt.Sprintf("%s requires %s but its input does not provide it.", n.ID, quoteField(field))
			f.Hint = fmt.Sprintf("add %s to %s's input.", quoteField(field), n.ID)
			ps = prods
			break
		}
		why = fmt.Sprintf("%s requires %s but %s does not produce it.", n.ID, quoteField(field), who)
		f.Hint = fmt.Sprintf("add %s to %s's output contract, or put a transform node between them.", quoteField(field), who)
	case contract.RuleOptional:
		f.Code = CodeLintOptional
		why = fmt.Sprintf("%s requires %s but %s only may produce it.", n.ID, quoteField(field), who)
		f.Hint = fmt.Sprintf("make %s required in %s's output contract, or put a transform node between them.", quoteField(field), who)
	case contract.RuleType:
		f.Code = CodeLintType
		why = fmt.Sprintf("%s may produce %s for %s, a type %s does not accept.", who, describe(contract.ValueAt(res.Witness, res.Path)), fieldOrValue(field), n.ID)
		f.Hint = fmt.Sprintf("make the types of %s agree in both contracts, or put a transform node between them.", fieldOrValue(field))
	default:
		f.Code = CodeLintConstraint
		w, _ := json.Marshal(contract.ValueAt(res.Witness, res.Path))
		why = fmt.Sprintf("%s may produce %s for %s, which %s's constraints reject.", who, w, fieldOrValue(field), n.ID)
		f.Hint = fmt.Sprintf("narrow %s in %s's output contract to fit %s's contract.input, or widen that contract.", fieldOrValue(field), who, n.ID)
	}
	f.Message = fmt.Sprintf("edge %s: INCOMPATIBLE — %s", edge(ps), why)
	return []Finding{f}
}

// Keywords of a consumer contract's root that relate one field to another.
var crossField = []string{"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef",
	"dependentSchemas", "dependentRequired", "dependencies", "unevaluatedProperties",
	"minProperties", "maxProperties", "propertyNames", "patternProperties", "additionalProperties"}

// trustedDespite reports whether an Incompatible answer holds although some fields of the
// arriving value are only partly known: it fails at a field of the input mapping that is
// exactly known, and the consumer's contract judges that field on its own, so whatever the
// other fields really hold, the witness's value of that field is still rejected.
func trustedDespite(n *Node, s shape, ptr string) bool {
	toks := contract.PointerTokens(ptr)
	if n.Input.kind != tmplObject || len(toks) == 0 || slices.Contains(s.inexactKeys, toks[0]) {
		return false
	}
	m, ok := n.InputContract.Source().(map[string]any)
	if !ok {
		return false
	}
	for _, k := range crossField {
		if _, ok := m[k]; ok {
			return false
		}
	}
	return true
}

// fieldName turns a JSON Pointer into a dotted field name; empty gives def.
func fieldName(ptr, def string) string {
	toks := contract.PointerTokens(ptr)
	if len(toks) == 0 {
		return def
	}
	return strings.Join(toks, ".")
}

func quoteField(f string) string {
	if f == "" {
		return "its input"
	}
	return "'" + f + "'"
}

func fieldOrValue(f string) string {
	if f == "" {
		return "the value"
	}
	return "'" + f + "'"
}

// producersAt names the producers of the part of the input template at ptr: the deepest
// template part the pointer reaches. missing is set when the pointer names a key or element
// that an input mapping or list does not have.
func producersAt(t *Template, ptr string) (ps []string, missing bool) {
	for _, tok := range contract.PointerTokens(ptr) {
		var next *Template
		switch t.kind {
		case tmplObject:
			if i := slices.Index(t.keys, tok); i >= 0 {
				next = t.vals[i]
			}
		case tmplArray:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(t.elems) {
				next = t.elems[i]
			}
		}
		if next == nil {
			missing = t.kind == tmplObject || t.kind == tmplArray
			break
		}
		t = next
	}
	if missing {
		return nil, true
	}
	for _, r := range t.Refs() {
		ps = addProducer(ps, r)
	}
	return ps, false
}
