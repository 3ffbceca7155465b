// Package lint checks a loaded DAG statically, without running it: it proves each edge
// against its consumer's contract and checks the hygiene of contracts that are read; Rules
// is the one table of the codes its findings carry.
package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/suggest"
)

// Finding is one problem Lint found on an edge, or in a contract.
type Finding struct {
	Pos      dag.Pos
	Severity string // SeverityError, SeverityWarning or (seam lint --against) SeverityInfo
	Code     string
	// Producers are the nodes (or "params") whose output the finding is about; Consumer is
	// the node whose contract.input or `with` is checked.
	Producers []string
	Consumer  string
	Message   string
	// Witness, when HasWitness, is a value the producers may deliver and the consumer rejects.
	Witness    any
	HasWitness bool
	Hint       string
	// Change and Fingerprint are set by Evolve (seam lint --against): how the finding came
	// about since the older revision, and a stable identity of it (see evolve.go).
	Change      string
	Fingerprint string

	// subject names what an edge finding judges, apart from positions: "input" or "with" (the
	// consumer's value), "foreach", "ref <expression>"; empty for hygiene. at is the JSON
	// Pointer in the arriving value where the consumer's demand fails. Evolve pairs findings
	// of two revisions by them.
	subject string
	at      string
}

func (f Finding) String() string {
	var b strings.Builder
	if f.Pos.File != "" {
		fmt.Fprintf(&b, "%s:%d:%d: ", f.Pos.File, f.Pos.Line, f.Pos.Col)
	}
	fmt.Fprintf(&b, "%s %s %s", f.Severity, f.Code, f.Message)
	if f.HasWitness {
		fmt.Fprintf(&b, "\n  witness: %s", f.WitnessJSON())
	}
	if f.Hint != "" {
		fmt.Fprintf(&b, "\n  fix: %s", f.Hint)
	}
	if f.Fingerprint != "" {
		fmt.Fprintf(&b, "\n  fingerprint: %s", f.Fingerprint)
	}
	return b.String()
}

// WitnessJSON is the witness as compact JSON.
func (f Finding) WitnessJSON() string {
	w, err := json.Marshal(f.Witness)
	if err != nil {
		return fmt.Sprintf("%v", f.Witness)
	}
	return string(w)
}

// Options configure Lint.
type Options struct {
	Lang i18n.Lang // message language: "en" (the default) or "ja"
	// Params, when not nil, are the run's parameters (valid under the params schema once its
	// defaults are filled in, as Lint does): a reference to them is then the value itself
	// rather than what the schema allows.
	Params map[string]any
}

// Lint checks a loaded DAG statically, without running anything:
//
//   - for every node that declares contract.input, that the value arriving there fits it:
//     its `input`, or else the object of its upstream outputs keyed by id;
//   - for every node whose `with` holds references, that it fits its type's config schema
//     (a literal `with` was checked when the DAG loaded);
//   - that every reference names a path its producer's schema declares;
//   - the contract hygiene of nodes whose outputs are read.
//
// The arriving value's schema is synthesised from the producers' effective output schemas,
// projected along the references, and compared with subset.Check. Findings come in file
// order.
func Lint(ctx context.Context, d *dag.DAG, opts Options) []Finding {
	l, err := newLinter(d, opts)
	if err != nil {
		// Without a standard contract NewCompiler cannot fail; say so rather than lie.
		return []Finding{{Pos: dag.Pos{File: d.File}, Severity: SeverityError, Code: CodeUnknown,
			Message: fmt.Sprintf("lint could not start: %v", err)}}
	}
	var out, absent []Finding
	for _, n := range d.Nodes {
		if ctx.Err() != nil {
			return out
		}
		l.consumer, l.guards, l.narrowing = n, l.whenGuards(n), l.whenNarrowing(n)
		var fs []Finding
		l.item, fs = l.foreach(n)
		out = append(out, fs...)
		out = append(out, l.undeclaredRefs(n.ID, nodeExprs(n))...)
		absent = append(absent, l.nodeAbsent(n)...)
		typed := l.exprTypes(n.ID, nodeExprs(n), n.When)
		out = append(out, typed...)
		out = append(out, l.statusNames(n.ID, nodeExprs(n))...)
		out = append(out, l.decisionCompares(n.ID, nodeExprs(n))...)
		out = append(out, l.node(n)...)
		out = append(out, l.approval(n)...)
		out = append(out, l.transformReads(n)...)
		if !slices.ContainsFunc(typed, func(f Finding) bool { return f.Severity == SeverityError }) {
			// A when that cannot be evaluated fails every run already: what it would decide
			// is beside the point.
			out = append(out, l.neverFindings(n)...)
		}
	}
	l.consumer, l.item, l.guards, l.narrowing = nil, nil, guards{}, nil // outputs are read outside any node
	var outs []*dag.Expr
	for _, o := range d.Outputs {
		var es []*dag.Expr
		o.Value.WalkExprs(func(e *dag.Expr) { es = append(es, e) })
		outs = append(outs, es...)
		absent = append(absent, l.absentRefs(nil, o.Name, es, guards{}, nil)...)
	}
	out = append(out, l.undeclaredRefs("", outs)...)
	out = append(out, l.exprTypes("", outs, nil)...)
	out = append(out, l.statusNames("", outs)...)
	trig, trigAbsent := l.triggers()
	out, absent = append(out, trig...), append(absent, trigAbsent...)
	out = append(out, l.decisionCompares("", outs)...)
	out = append(out, l.hygiene()...)
	out = append(out, l.drafts()...)
	out = append(withoutLoose(out, absent), absent...)
	slices.SortStableFunc(out, func(a, b Finding) int {
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
	return out
}

// newLinter is a linter of d, with a compiler of its own.
func newLinter(d *dag.DAG, opts Options) (*linter, error) {
	comp, err := contract.NewCompiler(contract.Options{AnnotateFormat: d.Formats == dag.FormatsAnnotate, Catalog: d.Catalog})
	if err != nil {
		return nil, err
	}
	params := opts.Params
	if params != nil {
		params = d.WithDefaults(params)
	}
	return &linter{d: d, comp: comp, text: newLintText(opts.Lang), params: params,
		celTypes: map[*dag.Expr]celInfo{}, specialised: map[string]*contract.Schema{},
		projections: map[string]cachedProjection{}, absences: map[absenceKey]absence{}}, nil
}

// nodeExprs lists the expressions of a node: input, with, when and foreach.
func nodeExprs(n *dag.Node) []*dag.Expr {
	var es []*dag.Expr
	add := func(e *dag.Expr) { es = append(es, e) }
	for _, t := range []*dag.Template{n.Input, n.With, n.Foreach} {
		if t != nil {
			t.WalkExprs(add)
		}
	}
	if n.When != nil {
		es = append(es, n.When)
	}
	return es
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
	why     why // when inexact: what made it so
	// inexactKeys, for an input mapping, are its keys whose values are inexact.
	inexactKeys []string
	undeclared  bool // a reference in it names a path its producer forbids (reported apart)
}

type linter struct {
	d    *dag.DAG
	comp *contract.Compiler
	text lintText
	// consumer is the node whose input or with is being synthesised; item is what `item`
	// is there (nil without foreach).
	consumer *dag.Node
	item     *loopItem
	// lists and notLists are {type: array} and its negation, for foreach lists: made on
	// first use.
	lists, notLists *contract.Schema
	params          map[string]any // the run's parameters; nil when not known
	celTypes        map[*dag.Expr]celInfo
	// specialised caches config schemas with their if/then/else resolved.
	specialised map[string]*contract.Schema
	projections map[string]cachedProjection
	typing      typing // the CEL type checker (lint_cel.go)
	// absences caches what is known of references' presence (lint_presence.go); guards are
	// what the consumer's when guarantees; celEnv parses expressions to find guards in them;
	// standard is the standard output contract, whose declarations alone are not judged.
	absences map[absenceKey]absence
	guards   guards
	// narrowing is what the consumer's when guarantees of the values it reads (lint_guard.go).
	narrowing narrowing
	celEnv    *cel.Env
	standard  any
	// trigger is the trigger whose params are being proved: what trigger.* reads.
	trigger *dag.Trigger
}

// celInfo is what CEL's type checker knows of an expression's result.
type celInfo struct {
	schema any    // nil: nothing
	name   string // its JSON type, when schema is {"type": name}
}

// node checks node n's input and with. l.consumer and l.item must be n's.
func (l *linter) node(n *dag.Node) []Finding {
	var out []Finding
	if n.InputContract != nil {
		t, p := n.Input, place{node: n.ID}
		if t == nil {
			t, p.dflt = n.DefaultInput(), true
		}
		pos := n.InputPos
		if pos.File == "" {
			pos = n.Pos
		}
		out = append(out, l.target(n, t, n.InputContract, p, pos)...)
	}
	if _, literal := n.With.Literal(); !literal && n.Config != nil && n.Type != nil {
		cfg, err := l.specialise(n.Config, n.With)
		if err != nil {
			cfg = n.Config
		}
		out = append(out, l.target(n, n.With, cfg, place{node: n.ID, isWith: true, typ: n.Type.Name()}, dag.Pos{})...)
	}
	return out
}

// target checks the value template t makes against schema b.
func (l *linter) target(n *dag.Node, t *dag.Template, b *contract.Schema, p place, pos dag.Pos) []Finding {
	s := l.synth(t)
	if s.undeclared {
		return nil // SEAM-E305 says why; the edge cannot be judged on a path that is not there
	}
	if m, ok := s.schema.(map[string]any); ok && p.dflt {
		// run_if always/failure: an upstream that failed or did not run hands nothing on; nor
		// may one whose status the node's when reads, which it runs after however it ended.
		always := n.RunIf != dag.RunIfSuccess && n.RunIf != ""
		req, _ := m["required"].([]any)
		m["required"] = slices.DeleteFunc(slices.Clone(req), func(id any) bool {
			s, _ := id.(string)
			return always || n.WhenReadsStatus(s)
		})
	}
	return l.check(n, t, b, p, pos, s)
}

func (l *linter) synth(t *dag.Template) shape {
	switch t.Kind() {
	case dag.TemplateLiteral:
		lit, _ := t.Literal()
		return shape{schema: map[string]any{"const": lit}, present: true}
	case dag.TemplateInterp:
		var prods []string
		var text strings.Builder
		for _, pt := range t.Parts() {
			if pt.Expr == nil {
				text.WriteString(pt.Text)
				continue
			}
			for _, r := range pt.Expr.Refs() {
				prods = l.addProducer(prods, r)
			}
		}
		// Wider than what arrives (only the text around the references is known): a string
		// at least as long as that text.
		sch := map[string]any{"type": "string"}
		if n := len([]rune(text.String())); n > 0 {
			sch["minLength"] = n
		}
		return shape{schema: sch, present: true, producers: prods, inexact: true, why: why{code: whyInterp}}
	case dag.TemplateExpr:
		return l.expr(t.Expr())
	case dag.TemplateObject:
		props := map[string]any{}
		req := []any{}
		s := shape{present: true}
		vals := t.Values()
		for i, k := range t.Keys() {
			c := l.synth(vals[i])
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
	case dag.TemplateArray:
		// One items schema when every element has the same; else any of the elements' (the
		// order is lost, so the schema is wider than the truth).
		s := shape{present: true}
		var schemas []any
		same := true
		present := 0
		elems := t.Elems()
		for i, e := range elems {
			c := l.synth(e)
			if i > 0 && !reflect.DeepEqual(schemas[0], c.schema) {
				same = false
			}
			if c.present {
				present++
			}
			schemas = append(schemas, c.schema)
			s.merge(c)
		}
		// An element that may be absent (a path through an optional member or an index)
		// fails the run when it is: counted as a shorter list, so that a consumer relying
		// on the length is not proved right.
		sch := map[string]any{"type": "array", "minItems": present, "maxItems": len(elems)}
		switch {
		case len(schemas) == 0:
		case same:
			sch["items"] = schemas[0]
		default:
			sch["items"] = map[string]any{"anyOf": schemas}
			if !s.inexact {
				s.inexact, s.why = true, why{code: whyMixedList}
			}
		}
		s.schema = sch
		return s
	}
	return shape{schema: true, present: true, inexact: true, why: why{code: whyUnknownTemplate}}
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
	s.undeclared = s.undeclared || c.undeclared
}

// addProducer adds what r reads from — a node id, or "params" — unless prods has it.
// `item` reads from what the foreach list reads from; index, run and env name no producer.
func (l *linter) addProducer(prods []string, r dag.Ref) []string {
	switch r.Root {
	case "nodes":
		return addName(prods, r.Node)
	case "params":
		return addName(prods, "params")
	case "trigger":
		return addName(prods, "trigger")
	case "item":
		if l.item != nil {
			for _, p := range l.item.producers {
				prods = addName(prods, p)
			}
		}
	}
	return prods
}

// addName adds p to prods unless prods has it.
func addName(prods []string, p string) []string {
	if !slices.Contains(prods, p) {
		prods = append(prods, p)
	}
	return prods
}

// expr synthesises a value that is exactly one expression.
func (l *linter) expr(e *dag.Expr) shape {
	var prods []string
	for _, r := range e.Refs() {
		prods = l.addProducer(prods, r)
	}
	if !e.IsPath() || len(e.Refs()) != 1 {
		if ci := l.celType(e); ci.schema != nil {
			return shape{schema: ci.schema, present: true, producers: prods, inexact: true,
				why: why{code: whyCELType, arg: e.Src, arg2: ci.name}}
		}
		return shape{schema: true, present: true, producers: prods, inexact: true,
			why: why{code: whyNotPlain, arg: e.Src}}
	}
	r := e.Refs()[0]
	if r.Root == "env" {
		// The run refuses to start when a declared variable is unset or empty.
		return shape{schema: map[string]any{"type": "string", "minLength": 1}, present: true, producers: prods}
	}
	if r.Root == "item" || r.Root == "index" {
		return l.loopRef(r)
	}
	if r.Root == "params" && l.params != nil {
		v, ok := contract.Lookup(map[string]any(l.params), r.Path)
		if !ok {
			// The run will fail to resolve it: as "may be absent".
			return shape{schema: true, present: false, producers: prods}
		}
		// The consumer's when still applies: a value it lets through only (a null that a
		// `!= null` guard keeps out never reaches the consumer).
		return shape{schema: l.narrowed(r, map[string]any{"const": v}), present: true, producers: prods}
	}
	p, ok := l.projectRef(r, true)
	if !ok {
		w := why{code: whyNotStatic, arg: r.Root}
		if r.Root == "nodes" {
			w = why{code: whyNoSchema, arg: r.Node}
		}
		return shape{schema: true, present: true, producers: prods, inexact: true, why: w}
	}
	s := shape{schema: l.narrowed(r, p.schema), present: p.present() || l.settled(r), producers: prods, inexact: p.inexact, why: p.why}
	if p.undeclared >= 0 {
		s.schema, s.present, s.inexact, s.why, s.undeclared = true, false, true, why{code: whyUndeclared}, true
	}
	return s
}

// statusHanded is what the engine hands on from a node that passed or warned.
var statusHanded = map[string]any{"properties": map[string]any{"status": map[string]any{"enum": []any{"pass", "warn"}}}}

// projectRef projects the schema r's root names along r's path; ok is false when the root
// has no schema lint knows. forConsumer narrows a node's status to what a consumer that runs
// only after success (run_if: success) can receive.
func (l *linter) projectRef(r dag.Ref, forConsumer bool) (projection, bool) {
	// A consumer whose when reads the producer's status runs after it failed too.
	narrow := forConsumer && r.Root == "nodes" && l.consumer != nil && (l.consumer.RunIf == dag.RunIfSuccess || l.consumer.RunIf == "") &&
		!l.consumer.WhenReadsStatus(r.Node)
	// Many references read the same paths: project each once.
	key := fmt.Sprintf("%s\x00%s\x00%t\x00%s", r.Root, r.Node, narrow, strings.Join(r.Path, "\x00"))
	if c, ok := l.projections[key]; ok {
		return c.p, c.ok
	}
	p, ok := l.projectRefUncached(r, narrow)
	l.projections[key] = cachedProjection{p, ok}
	return p, ok
}

type cachedProjection struct {
	p  projection
	ok bool
}

func (l *linter) projectRefUncached(r dag.Ref, narrow bool) (projection, bool) {
	switch r.Root {
	case "nodes":
		n, ok := l.d.ByID[r.Node]
		if !ok || n.Effective == nil {
			return projection{}, false
		}
		if n.Foreach != nil {
			return projectForeach(n, r.Path, narrow), true
		}
		return projectOutput(n, r.Path, narrow), true
	case "params":
		// A property with a default is always there once the run fills it in.
		root := l.d.FilledParamsSchema()
		doc := contract.Doc{Value: root}
		if l.d.Params != nil {
			// The params schema's own document, so that its $refs into other files (a
			// vendored webhook schema) resolve as validation resolves them.
			doc = ownDoc(l.d.Params)
			doc.Value = root
		}
		return project(root, doc, r.Path, 0), true
	case "trigger":
		return l.projectTrigger(r)
	}
	return projection{}, false
}

// projectOutput projects an output node n validated against its effective schema along path;
// narrow: the output passed or warned.
func projectOutput(n *dag.Node, path []string, narrow bool) projection {
	docs := n.Effective.Docs() // an effective schema's parts, each its own document
	if narrow {
		docs = append(slices.Clip(docs), contract.Doc{Value: statusHanded})
	}
	if len(docs) == 1 {
		return project(docs[0].Value, docs[0], path, 0)
	}
	parts := make([]projection, len(docs))
	for i, doc := range docs {
		parts[i] = project(doc.Value, doc, path, 0)
	}
	return combine(parts, len(path))
}

// ownDoc is the document of s, a schema of one part, against which its $refs resolve; for
// an effective schema, its source alone, which resolves no $ref into another document.
func ownDoc(s *contract.Schema) contract.Doc {
	if docs := s.Docs(); len(docs) == 1 {
		return docs[0]
	}
	return contract.Doc{Value: s.Source()}
}

// undeclaredRefs reports the references among es to paths their producer's schema forbids.
func (l *linter) undeclaredRefs(consumer string, es []*dag.Expr) []Finding {
	var out []Finding
	for _, e := range es {
		for _, r := range e.Refs() {
			if r.Root == "item" {
				out = append(out, l.undeclaredItem(consumer, r)...)
				continue
			}
			body := r.Root == "trigger" && len(r.Path) > 1 && r.Path[0] == triggerBody
			if len(r.Path) == 0 || (r.Root != "nodes" && r.Root != "params" && !body) {
				continue
			}
			p, ok := l.projectRef(r, false)
			if !ok {
				continue
			}
			// path is r's path in what the producer delivers (off segments into r.Path), under
			// root in references; label names its schema.
			what, root, path, off, label := "params", "params", r.Path, 0, l.text.outContract("params")
			switch {
			case r.Root == "nodes":
				what, label = "nodes."+r.Node+".output", l.text.outContract(r.Node)
				root = what
			case body:
				what, root, path, off = "trigger."+triggerBody, "trigger", r.Path[1:], 1
				label = i18n.Sprintf(l.text.lang, "the body contract of trigger %s", l.trigger.ID)
			}
			switch {
			case p.undeclared >= 0:
				seg := strings.Join(path[:p.undeclared+1], ".")
				msg, hint := l.text.near(l.nearRef(r, off+p.undeclared), root)(l.text.undeclared(what+"."+seg, label, seg))
				out = append(out, Finding{Pos: r.Pos, Severity: SeverityError, Code: CodeUndeclared,
					Producers: l.addProducer(nil, r), Consumer: consumer, Message: msg, Hint: hint, subject: refSubject(r)})
			case p.loose >= 0 && p.loose < len(path) && l.declares(r) && !l.declaredInBranch(r):
				seg := strings.Join(path[:p.loose+1], ".")
				msg, hint := l.text.near(l.nearRef(r, off+p.loose), root)(l.text.loose(what+"."+seg, label, seg))
				out = append(out, Finding{Pos: r.Pos, Severity: SeverityWarning, Code: CodeUnknown,
					Producers: l.addProducer(nil, r), Consumer: consumer, Message: msg, Hint: hint, subject: refSubject(r)})
			}
		}
	}
	return out
}

// nearRef is the path r likely meant where its segment i is not declared: the path up to
// that segment with the declared name closest to it, or "" when none is close.
func (l *linter) nearRef(r dag.Ref, i int) string {
	parent := r
	parent.Path = r.Path[:i]
	p, ok := l.projectRef(parent, false)
	if !ok {
		return ""
	}
	return nearPath(p.schema, r.Path, i)
}

// nearPath is path with its segment i replaced by the name schema s declares closest to it,
// joined with dots, or "" when no declared name is close.
func nearPath(s any, path []string, i int) string {
	near := suggest.Closest(path[i], declaredNames(s))
	if near == "" {
		return ""
	}
	return strings.Join(append(slices.Clone(path[:i]), near), ".")
}

// declares reports whether r's root has a schema its author wrote (a declared output
// contract, an approval's form, a params schema): only then is a reference to a member it
// does not declare likely a mistake rather than a loose contract (types' own schemas leave
// data open).
func (l *linter) declares(r dag.Ref) bool {
	switch r.Root {
	case "params":
		return l.d.Params != nil
	case "trigger":
		return true // projected only through a body's contract, which its author wrote
	}
	n := l.d.ByID[r.Node]
	return n != nil && (n.OutputContract != nil || n.Form != nil)
}

// celType asks CEL's type checker for the type of e's result and turns it into a schema;
// schema is nil when CEL knows nothing useful (dyn).
func (l *linter) celType(e *dag.Expr) celInfo {
	if ci, ok := l.celTypes[e]; ok {
		return ci
	}
	var ci celInfo
	ci.schema = celSchema(e.ResultType(), 0)
	if m, ok := ci.schema.(map[string]any); ok {
		ci.name, _ = m["type"].(string)
	}
	l.celTypes[e] = ci
	return ci
}

// celSchema is the JSON Schema of the values of CEL type t once converted to JSON, or nil
// when any value (or none) may come of it. Bytes, types and the like do not convert: the
// expression fails at run time, so they give nil too.
func celSchema(t *types.Type, depth int) any {
	if t == nil || depth > 8 {
		return nil
	}
	switch t.Kind() {
	case types.BoolKind:
		return map[string]any{"type": "boolean"}
	case types.IntKind:
		return map[string]any{"type": "integer"}
	case types.UintKind:
		return map[string]any{"type": "integer", "minimum": 0}
	case types.DoubleKind:
		return map[string]any{"type": "number"}
	case types.StringKind, types.TimestampKind, types.DurationKind:
		return map[string]any{"type": "string"}
	case types.NullTypeKind:
		return map[string]any{"type": "null"}
	case types.ListKind:
		s := map[string]any{"type": "array"}
		if ps := t.Parameters(); len(ps) == 1 {
			if it := celSchema(ps[0], depth+1); it != nil {
				s["items"] = it
			}
		}
		return s
	case types.MapKind:
		s := map[string]any{"type": "object"}
		if ps := t.Parameters(); len(ps) == 2 {
			if v := celSchema(ps[1], depth+1); v != nil {
				s["additionalProperties"] = v
			}
		}
		return s
	}
	return nil
}

// specialise resolves the if/then/else at the root of a config schema when the `if` looks
// only at members that t, a mapping, holds as literals (or lacks): exec's `shell` decides
// what `command` must be, and the checker does not model if/then/else.
func (l *linter) specialise(s *contract.Schema, t *dag.Template) (*contract.Schema, error) {
	root, ok := s.Source().(map[string]any)
	if !ok || t.Kind() != dag.TemplateObject {
		return s, nil
	}
	cond, ok := root["if"].(map[string]any)
	if !ok {
		return s, nil
	}
	names := map[string]bool{}
	for k, v := range cond {
		switch k {
		case "required":
			list, _ := v.([]any)
			for _, x := range list {
				if name, ok := x.(string); ok {
					names[name] = true
				}
			}
		case "properties":
			m, _ := v.(map[string]any)
			for name, sub := range m {
				if hasRef(sub) {
					return s, nil
				}
				names[name] = true
			}
		case "description", "title", "$comment":
		default:
			return s, nil // a keyword that may look at other members
		}
	}
	inst := map[string]any{}
	for name := range names {
		if c := t.Child(name); c != nil {
			v, ok := c.Literal()
			if !ok {
				return s, nil
			}
			inst[name] = v
		}
	}
	instJSON, err := json.Marshal(inst)
	if err != nil {
		return nil, fmt.Errorf("specialise %s: %w", s.Location(), err)
	}
	key := s.Location() + "\x00" + string(instJSON)
	if sp, ok := l.specialised[key]; ok {
		return sp, nil // one compile per type and deciding values, not per node
	}
	cs, err := l.comp.Inline("if of "+s.Location(), cond)
	if err != nil {
		return nil, fmt.Errorf("specialise %s: %w", s.Location(), err)
	}
	branch := root["else"]
	if len(cs.Validate(inst, "en")) == 0 {
		branch = root["then"]
	}
	out := make(map[string]any, len(root))
	for k, v := range root {
		if k != "if" && k != "then" && k != "else" {
			out[k] = v
		}
	}
	if b, ok := branch.(map[string]any); ok {
		if bp, ok := b["properties"].(map[string]any); ok && len(b) == 1 {
			// Merged into the members, so the root keeps no allOf (which would make every
			// member's verdict depend on the others').
			props, _ := out["properties"].(map[string]any)
			merged := maps.Clone(props)
			if merged == nil {
				merged = map[string]any{}
			}
			for name, sub := range bp {
				if old, ok := merged[name]; ok {
					merged[name] = map[string]any{"allOf": []any{old, sub}}
				} else {
					merged[name] = sub
				}
			}
			out["properties"] = merged
		} else {
			all, _ := out["allOf"].([]any)
			out["allOf"] = append(slices.Clip(all), b)
		}
	} else if branch == false {
		out["not"] = true
	}
	sp, err := l.comp.Inline(s.Location(), out)
	if err != nil {
		return nil, fmt.Errorf("specialise %s: %w", s.Location(), err)
	}
	l.specialised[key] = sp
	return sp, nil
}

// hasRef reports whether a schema value holds a $ref or $dynamicRef anywhere.
func hasRef(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == "$ref" || k == "$dynamicRef" || hasRef(c) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if hasRef(c) {
				return true
			}
		}
	}
	return false
}

// projection is a schema walked along a path.
type projection struct {
	schema any
	// presence says, per path segment, whether it is certainly present when the segments
	// before it are.
	presence   []bool
	inexact    bool
	why        why
	undeclared int // index of the path segment the schema forbids, or -1
	// loose is the index of the first path segment no schema part declares although all
	// allow it (additional properties), or -1: a reference there may be a typo.
	loose int
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

// project walks schema s, whose $refs resolve in doc (and through it in the other local
// documents its compiler loaded), along path. Crossing a property
// that is not required, or an array index, makes the value "may be absent". Keywords of a
// crossed schema that it does not follow make the projection inexact (wider than the truth).
func project(s any, doc contract.Doc, path []string, hops int) projection {
	p := projection{schema: s, undeclared: -1, loose: -1}
	if len(path) == 0 {
		st := leafState{budget: maxLeafNodes}
		leaf, exact := cleanLeaf(s, doc, 0, &st)
		p.schema = st.withDefs(leaf)
		if !exact {
			p.inexact, p.why = true, why{code: whyRef}
		}
		return p
	}
	m, ok := s.(map[string]any)
	if !ok {
		// true (or false): anything may be there, or not.
		return projection{schema: true, presence: make([]bool, len(path)), undeclared: -1, loose: 0}
	}
	if ref, ok := m["$ref"]; ok {
		r, _ := ref.(string)
		t, in, ok := doc.Resolve(r)
		if !ok || hops >= maxRefHops {
			return projection{schema: true, presence: make([]bool, len(path)), inexact: true,
				why: why{code: whyRef}, undeclared: -1, loose: -1}
		}
		// $ref applies beside its siblings: both at once.
		rest := make(map[string]any, len(m))
		for k, v := range m {
			if k != "$ref" {
				rest[k] = v
			}
		}
		if len(rest) == 0 {
			return project(t, in, path, hops+1)
		}
		// The target's own $refs resolve in its document, its siblings' in this one.
		return combine([]projection{project(t, in, path, hops+1), project(rest, doc, path, hops+1)}, len(path))
	}
	var parts []projection
	if all, ok := m["allOf"].([]any); ok {
		for _, a := range all {
			parts = append(parts, project(a, doc, path, hops))
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
		own = shift(project(sub, doc, rest, hops), 1)
		own.presence = prepend(false, own.presence, len(path))
	} else {
		props, _ := m["properties"].(map[string]any)
		req, _ := m["required"].([]any)
		required := slices.Contains(req, any(seg))
		ap, hasAP := m["additionalProperties"]
		_, hasPP := m["patternProperties"]
		switch sub, declared := props[seg]; {
		case declared:
			own = shift(project(sub, doc, rest, hops), 1)
		case hasPP:
			own = projection{schema: true, inexact: true, why: why{code: whyPatternProps}, undeclared: -1, loose: -1}
		case hasAP && ap == false:
			own = projection{schema: true, undeclared: 0, loose: -1}
		case hasAP && ap != true:
			own = shift(project(ap, doc, rest, hops), 1)
		default:
			own = shift(project(true, doc, rest, hops), 1)
			own.loose = 0
		}
		own.presence = prepend(required, own.presence, len(path))
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		// A word of no draft (a vendor's annotation) constrains nothing.
		if !projectKeywords[k] && subset.Keyword(k) && !own.inexact {
			own.inexact, own.why = true, why{code: whyKeyword, arg: k}
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
	out := projection{presence: make([]bool, n), undeclared: -1, loose: -1}
	var schemas []any
	for i, q := range parts {
		switch {
		case i == 0 || out.loose >= 0 && q.loose > out.loose:
			out.loose = q.loose
		case q.loose < 0:
			out.loose = -1
		}
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

// shift moves the segment indexes of a projection by k: by 1 makes a projection along
// path[1:] one along path; by -k drops a path's first k segments (an index among them
// becomes -1, none).
func shift(p projection, k int) projection {
	if p.undeclared >= 0 {
		p.undeclared = max(p.undeclared+k, -1)
	}
	if p.loose >= 0 {
		p.loose = max(p.loose+k, -1)
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

// cleanLeaf copies a projected subschema for inlining in a document of its own: $refs into
// doc, or into another local document its compiler loaded, are inlined (a $ref beside other keywords becomes an allOf), identifiers and
// $defs dropped. A $ref met again inside its own target's copy (a recursive schema, in one
// file or across several) becomes a $ref to the copy, kept in st (see leafState). exact is
// false when a $ref could not be inlined and was replaced by true.
func cleanLeaf(s any, doc contract.Doc, depth int, st *leafState) (out any, exact bool) {
	st.budget--
	switch v := s.(type) {
	case map[string]any:
		exact = true
		m := make(map[string]any, len(v))
		var target any
		for k, x := range v {
			switch k {
			case "$ref":
				ref, _ := x.(string)
				t, in, ok := doc.Resolve(ref)
				if !ok || depth >= maxLeafRefs || st.budget <= 0 {
					target, exact = true, false
					continue
				}
				c, ok := st.inline(ref, t, in, func() (any, bool) { return cleanLeaf(t, in, depth+1, st) })
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
			c, ok := cleanLeaf(x, doc, depth, st)
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
			c, ok := cleanLeaf(x, doc, depth, st)
			exact = exact && ok
			a[i] = c
		}
		return a, exact
	}
	return s, true
}

// check runs Subset for the value template t makes (synthesised as s) against b, and turns
// its verdict into findings.
func (l *linter) check(n *dag.Node, t *dag.Template, b *contract.Schema, p place, pos dag.Pos, s shape) []Finding {
	prods := s.producers
	edge := func(ps []string) string {
		if len(ps) == 0 {
			if p.isWith {
				return "with → " + n.ID
			}
			return "input → " + n.ID
		}
		return strings.Join(ps, ", ") + " → " + n.ID
	}
	field := func(ptr string, witness any) string {
		f := fieldName(ptr, witness, "")
		if p.isWith {
			if f == "" {
				return "with"
			}
			if strings.HasPrefix(f, "[") {
				return "with" + f
			}
			return "with." + f
		}
		return f
	}
	at := func(ptr string) dag.Pos {
		if pos.File != "" {
			return pos
		}
		return templatePos(t, ptr, n.Pos)
	}
	subject := "input"
	if p.isWith {
		subject = "with"
	}
	src, err := contract.Normalize(s.schema)
	if err != nil {
		return []Finding{{Pos: at(""), Severity: SeverityWarning, Code: CodeUnknown, Producers: prods, Consumer: n.ID,
			Message: l.text.edgeUnknown(edge(prods), l.text.notCompiled(err)), subject: subject}}
	}
	src = hoistLeafDefs(src)
	// The synthesised schema is compiled only to verify a witness (compiling dominates).
	res := subset.CheckSource(src, b, func() (*contract.Schema, error) {
		return l.comp.Inline("input of "+n.ID, src)
	})
	switch res.Verdict {
	case subset.Compatible:
		return nil
	case subset.Incompatible:
		if s.inexact && !trustedDespite(t, b, s, res.Path) && !l.trustedType(t, b, res.Path) {
			return []Finding{{Pos: at(res.Path), Severity: SeverityWarning, Code: CodeUnknown, Producers: prods, Consumer: n.ID,
				Message: l.text.edgeUnknown(edge(prods), l.text.partlyKnown(field(res.Path, nil), p, s.why)), subject: subject, at: res.Path}}
		}
	default:
		return []Finding{{Pos: at(res.Path), Severity: SeverityWarning, Code: CodeUnknown, Producers: prods, Consumer: n.ID,
			Message: l.text.edgeUnknown(edge(prods), l.text.cannotProve(field(res.Path, nil), p, prods, res)), subject: subject, at: res.Path}}
	}
	ps, missing := l.producersAt(t, res.Path)
	if len(ps) == 0 && !missing {
		ps = prods
	}
	who := l.text.and(ps)
	if len(ps) == 0 {
		who = l.text.its(p)
	}
	f := Finding{Pos: at(res.Path), Severity: SeverityError, Producers: ps, Consumer: n.ID, Witness: res.Witness, HasWitness: true,
		subject: subject, at: res.Path}
	var msg string
	switch res.Rule {
	case subset.RuleRequired:
		f.Code = CodeRequired
		if missing {
			// The mapping itself lacks the field: no producer is to blame.
			f.Producers, ps = prods, prods
			msg, f.Hint = l.text.missing(field(res.Path, res.Witness), p)
			break
		}
		msg, f.Hint = l.text.required(field(res.Path, res.Witness), who, p)
	case subset.RuleOptional:
		f.Code = CodeOptional
		msg, f.Hint = l.text.optional(field(res.Path, res.Witness), who, p)
	case subset.RuleType:
		f.Code = CodeType
		msg, f.Hint = l.text.typeMismatch(field(res.Path, res.Witness), who, contract.ValueAt(res.Witness, res.Path), p)
	default:
		f.Code = CodeConstraint
		msg, f.Hint = l.text.constraint(field(res.Path, res.Witness), who, contract.ValueAt(res.Witness, res.Path), p)
	}
	if !l.deliverable(t, res.Witness) {
		// The value built is one the producers' own contracts (with the files they refer to)
		// refuse: not a witness to print.
		f.Witness, f.HasWitness = nil, false
		msg += " " + i18n.Sprintf(l.text.lang, "(no witness: the value lint built is one %s cannot deliver)", l.text.and(ps))
	}
	f.Message = l.text.edgeIncompatible(edge(ps), msg)
	if l.params != nil && len(ps) == 1 && ps[0] == "params" {
		// The params are given: the value is to blame, not the params schema.
		if m, h, ok := l.paramFinding(n, t, b, p, res.Path, res.Witness); ok {
			f.Message, f.Hint = m, h
		}
	}
	return []Finding{f}
}

// templatePos is where the part of t at ptr is written: its first reference, or else the
// first reference of the nearest enclosing part; def when t has none.
func templatePos(t *dag.Template, ptr string, def dag.Pos) dag.Pos {
	best := def
	for _, tok := range append([]string{""}, contract.PointerTokens(ptr)...) {
		if tok != "" {
			next := t.Child(tok)
			if next == nil {
				break
			}
			t = next
		}
		if rs := t.Refs(); len(rs) > 0 {
			best = rs[0].Pos
		}
	}
	return best
}

// plainRef is the one reference t is, when t is a plain path expression (${{ nodes.a.output.x }}).
func plainRef(t *dag.Template) (dag.Ref, bool) {
	if t.Kind() != dag.TemplateExpr {
		return dag.Ref{}, false
	}
	e := t.Expr()
	if !e.IsPath() || len(e.Refs()) != 1 {
		return dag.Ref{}, false
	}
	return e.Refs()[0], true
}

// Keywords of a consumer contract's root that relate one field to another (additional and
// pattern properties and property names judge a member by its name and value alone, and a
// mapping's names are known exactly).
var crossField = []string{"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef",
	"dependentSchemas", "dependentRequired", "dependencies", "unevaluatedProperties",
	"minProperties", "maxProperties"}

// trustedDespite reports whether an Incompatible answer holds although some fields of the
// arriving value are only partly known: it fails at a field of the input mapping that is
// exactly known, and the consumer's contract judges that field on its own, so whatever the
// other fields really hold, the witness's value of that field is still rejected.
func trustedDespite(t *dag.Template, b *contract.Schema, s shape, ptr string) bool {
	toks := contract.PointerTokens(ptr)
	if t.Kind() != dag.TemplateObject || len(toks) == 0 || slices.Contains(s.inexactKeys, toks[0]) {
		return false
	}
	doc := ownDoc(b)
	v := doc.Value
	for hops := 0; ; hops++ {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, k := range crossField {
			if _, ok := m[k]; ok {
				return false
			}
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return true
		}
		// The root's $ref target judges the whole value too (a shared file's definition).
		if v, doc, ok = doc.Resolve(ref); !ok || hops >= maxRefHops {
			return false
		}
	}
}

// trustedType reports whether the part of t at ptr is an expression that CEL types as T and
// the consumer's schema there, reached through the properties of mappings, rejects every
// value of type T: then every value that may arrive is rejected, whatever else it holds.
func (l *linter) trustedType(t *dag.Template, b *contract.Schema, ptr string) bool {
	sch := b.Source()
	for _, tok := range contract.PointerTokens(ptr) {
		if t.Kind() != dag.TemplateObject {
			return false
		}
		child := t.Child(tok)
		m, ok := sch.(map[string]any)
		if child == nil || !ok {
			return false
		}
		props, _ := m["properties"].(map[string]any)
		sub, ok := props[tok]
		if !ok {
			return false
		}
		t, sch = child, sub
	}
	if t.Kind() != dag.TemplateExpr || t.Expr().IsPath() {
		return false
	}
	ci := l.celType(t.Expr())
	if ci.name == "" {
		return false
	}
	if sch == false {
		return true
	}
	m, ok := sch.(map[string]any)
	return ok && excludesType(m["type"], ci.name)
}

// excludesType reports whether a type keyword rejects every JSON value of type name. An
// integral double reads as an integer, so number and integer stand or fall together.
func excludesType(kw any, name string) bool {
	var allowed []string
	switch x := kw.(type) {
	case string:
		allowed = []string{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return false
			}
			allowed = append(allowed, s)
		}
	default:
		return false
	}
	if name == "integer" || name == "number" {
		return !slices.Contains(allowed, "integer") && !slices.Contains(allowed, "number")
	}
	return !slices.Contains(allowed, name)
}

// fieldName turns a JSON Pointer into a field name as run messages write it,
// data.ranked[0].priority; empty gives def. An index is told from a member by v, the value
// ptr points into (a witness), as far as it reaches; past it, a token of digits is an index.
func fieldName(ptr string, v any, def string) string {
	toks := contract.PointerTokens(ptr)
	if len(toks) == 0 {
		return def
	}
	var b strings.Builder
	for _, tok := range toks {
		var index bool
		switch x := v.(type) {
		case []any:
			index = true
			i, err := strconv.Atoi(tok)
			v = nil
			if err == nil && i >= 0 && i < len(x) {
				v = x[i]
			}
		case map[string]any:
			v = x[tok]
		default:
			_, err := strconv.ParseUint(tok, 10, 0)
			index = err == nil
		}
		switch {
		case index:
			b.WriteString("[" + tok + "]")
		case b.Len() > 0:
			b.WriteString("." + tok)
		default:
			b.WriteString(tok)
		}
	}
	return b.String()
}

// producersAt names the producers of the part of the input template at ptr: the deepest
// template part the pointer reaches. missing is set when the pointer names a key or element
// that an input mapping or list does not have.
func (l *linter) producersAt(t *dag.Template, ptr string) (ps []string, missing bool) {
	for _, tok := range contract.PointerTokens(ptr) {
		next := t.Child(tok)
		if next == nil {
			missing = t.Kind() == dag.TemplateObject || t.Kind() == dag.TemplateArray
			break
		}
		t = next
	}
	if missing {
		return nil, true
	}
	for _, r := range t.Refs() {
		ps = l.addProducer(ps, r)
	}
	return ps, false
}
