package dag

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

// Scope is what references may name while a run evaluates a template or an expression.
// It is read by one goroutine at a time (the engine's scheduler).
type Scope struct {
	Params  map[string]any
	Outputs map[string]any // node id → its validated output (decoded JSON)
	Run     RunInfo
	// Env holds the values of the variables the DAG declares under env (LookupEnv): what
	// env.NAME reads. Every value is a secret.
	Env map[string]string
	// Item and Index are set inside a foreach iteration.
	Item    any
	Index   int
	HasItem bool
	// Lang is the language of Eval's own errors (a reference out of range, a value that is not
	// JSON): the run's, as engine.RunOptions.Lang. "" is English.
	Lang i18n.Lang
	// Status says how node id ended, once it has: what nodes.<id>.status reads. A node
	// read so is a dependency, so it has ended whenever the reference is evaluated; false
	// (or a nil Status) makes the reference fail, as an output that is not there does.
	Status func(id string) (NodeStatus, bool)
	// Trigger is what trigger.* reads in a trigger's params and key: scheduled_time (an
	// RFC 3339 string) for a schedule, body for a webhook.
	Trigger map[string]any
}

// RunInfo is what `run` names in expressions.
type RunInfo struct {
	ID   string
	Name string
}

// Ref is one thing an expression names: params.x, nodes.a.output.y, nodes.a.status, env.X,
// item, index or run.
type Ref struct {
	// Root is "params", "nodes" (an output), "status" (nodes.<id>.status: how a node ended,
	// which is none of its output's data), "env", "item", "index", "run" or "trigger" (in a
	// trigger's params and key).
	Root string
	Node string   // the node id when Root is "nodes" or "status"
	Path []string // for nodes: the path after .output; for params and env: the path after them
	Pos  Pos      // where the reference starts
}

// Template is a configuration or input value whose strings may hold ${{ }} references.
// A subtree without references is kept as one literal value.
type Template struct {
	lit   any      // the value when the template holds no reference
	expr  *Expr    // a string that is exactly one reference
	parts []Part   // a string mixing text and references
	keys  []string // an object holding references: keys in file order …
	vals  []*Template
	elems []*Template // … or an array holding references
	kind  TemplateKind
}

// TemplateKind says what a template is: a literal value, exactly one expression, a string
// interpolating expressions, or an object or array holding expressions.
type TemplateKind uint8

// Template kinds.
const (
	TemplateLiteral TemplateKind = iota
	TemplateExpr
	TemplateInterp
	TemplateObject
	TemplateArray
)

// Part is a piece of an interpolated string: text, or an expression when Expr is set.
type Part struct {
	Text string
	Expr *Expr
}

// LiteralTemplate returns a template that evaluates to v.
func LiteralTemplate(v any) *Template { return &Template{lit: v} }

// ExprTemplate returns a template that is exactly the expression e: it takes e's value with
// its type.
func ExprTemplate(e *Expr) *Template { return &Template{kind: TemplateExpr, expr: e} }

// DefaultInput is the template of the input n receives when it declares no `input`: its
// dependencies' outputs keyed by id.
func (n *Node) DefaultInput() *Template {
	t := &Template{kind: TemplateObject}
	for _, id := range n.Deps {
		r := Ref{Root: "nodes", Node: id, Pos: n.Pos}
		e := &Expr{Src: "nodes." + id + ".output", Pos: n.Pos, path: &path{root: "nodes", node: id}, refs: []Ref{r}}
		t.keys = append(t.keys, id)
		t.vals = append(t.vals, &Template{kind: TemplateExpr, expr: e})
	}
	if len(t.keys) == 0 {
		return LiteralTemplate(map[string]any{})
	}
	return t
}

// Literal returns the template's value when it holds no reference.
func (t *Template) Literal() (any, bool) {
	if t.kind != TemplateLiteral {
		return nil, false
	}
	return t.lit, true
}

// Unresolved is the template's value with each reference written back as ${{ src }}: `with`
// as a nodes.Checker sees it, for what reads a loaded node's configuration before the run
// (the files a run on Temporal takes along). Literal parts are shared: do not modify it.
func (t *Template) Unresolved() any {
	switch t.kind {
	case TemplateExpr:
		return "${{ " + t.expr.Src + " }}"
	case TemplateInterp:
		var b strings.Builder
		for _, p := range t.parts {
			if p.Expr != nil {
				b.WriteString("${{ " + p.Expr.Src + " }}")
			} else {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	case TemplateObject:
		m := make(map[string]any, len(t.keys))
		for i, k := range t.keys {
			m[k] = t.vals[i].Unresolved()
		}
		return m
	case TemplateArray:
		a := make([]any, len(t.elems))
		for i, e := range t.elems {
			a[i] = e.Unresolved()
		}
		return a
	}
	return t.lit
}

// Kind says what the template is; its accessors below read the parts of each kind.
func (t *Template) Kind() TemplateKind { return t.kind }

// Expr is the expression of a TemplateExpr template; nil for the other kinds.
func (t *Template) Expr() *Expr { return t.expr }

// Parts are the pieces of a TemplateInterp template, in order; nil for the other kinds.
func (t *Template) Parts() []Part { return slices.Clone(t.parts) }

// Keys are the keys of a TemplateObject template, in file order; Values holds their values.
func (t *Template) Keys() []string { return slices.Clone(t.keys) }

// Values are the values of a TemplateObject template, in the order of Keys.
func (t *Template) Values() []*Template { return slices.Clone(t.vals) }

// Elems are the elements of a TemplateArray template.
func (t *Template) Elems() []*Template { return slices.Clone(t.elems) }

// Child is the part of an object or array template that a JSON Pointer token names; nil when
// there is none (or t is a scalar or an expression).
func (t *Template) Child(tok string) *Template {
	switch t.kind {
	case TemplateObject:
		if i := slices.Index(t.keys, tok); i >= 0 {
			return t.vals[i]
		}
	case TemplateArray:
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(t.elems) {
			return t.elems[i]
		}
	}
	return nil
}

// Refs lists every reference the template holds, in file order.
func (t *Template) Refs() []Ref {
	var refs []Ref
	t.WalkExprs(func(e *Expr) { refs = append(refs, e.refs...) })
	return refs
}

// WalkExprs calls f with every expression the template holds, in file order.
func (t *Template) WalkExprs(f func(*Expr)) {
	switch t.kind {
	case TemplateExpr:
		f(t.expr)
	case TemplateInterp:
		for _, p := range t.parts {
			if p.Expr != nil {
				f(p.Expr)
			}
		}
	case TemplateObject:
		for _, v := range t.vals {
			v.WalkExprs(f)
		}
	case TemplateArray:
		for _, v := range t.elems {
			v.WalkExprs(f)
		}
	}
}

// Eval resolves the template into a JSON value: map[string]any, []any, string, bool, nil or
// json.Number. A string that is exactly one reference takes the referenced value with its
// type; a string mixing text and references is interpolation: a string, in which an object
// or an array reads as compact JSON (interpText).
// Literal parts are shared between evaluations: callers must not modify the result.
func (t *Template) Eval(s *Scope) (any, error) {
	switch t.kind {
	case TemplateLiteral:
		return t.lit, nil
	case TemplateExpr:
		return t.expr.Eval(s)
	case TemplateInterp:
		var b strings.Builder
		for _, p := range t.parts {
			if p.Expr == nil {
				b.WriteString(p.Text)
				continue
			}
			v, err := p.Expr.Eval(s)
			if err != nil {
				return nil, err
			}
			text, err := interpText(v, s.Lang)
			if err != nil {
				return nil, fmt.Errorf("${{ %s }}: %w", p.Expr.Src, err)
			}
			b.WriteString(text)
		}
		return b.String(), nil
	case TemplateObject:
		m := make(map[string]any, len(t.keys))
		for i, k := range t.keys {
			v, err := t.vals[i].Eval(s)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	default:
		a := make([]any, len(t.elems))
		for i, e := range t.elems {
			v, err := e.Eval(s)
			if err != nil {
				return nil, err
			}
			a[i] = v
		}
		return a, nil
	}
}

// interpText is how a value reads inside an interpolated string: a string as it is, another
// scalar as JSON writes it, an object or an array as compact JSON (keys sorted, numbers as
// they were written, no HTML escapes), as Argo and GitHub Actions' toJSON render them. The
// consumer receives a string either way, which is what lint models. A secret inside is
// masked wherever the node shows it, as in any text: masking knows JSON's escapes. The
// error is said in lang.
func interpText(v any, lang i18n.Lang) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case bool:
		return strconv.FormatBool(v), nil
	case nil:
		return "null", nil
	case map[string]any, []any:
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return "", i18n.Errorf(lang, "cannot be written as JSON: %w", err)
		}
		return strings.TrimSuffix(b.String(), "\n"), nil
	default:
		return "", i18n.Errorf(lang, "is a %T, not a JSON value", v)
	}
}

// Expr is one compiled ${{ }} expression.
type Expr struct {
	Src  string // the expression text between ${{ and }}, trimmed
	Pos  Pos
	path *path // set when Src is a plain path, evaluated without CEL
	prg  cel.Program
	refs []Ref
	typ  *types.Type // CEL's type of the result as checked; nil for a plain path
}

// Refs lists what the expression names.
func (e *Expr) Refs() []Ref { return e.refs }

// IsPath reports whether the expression is a plain path (nodes.a.output.x, params.y[0] …),
// which a run resolves by walking the value, without CEL, keeping the value's JSON type.
func (e *Expr) IsPath() bool { return e.path != nil }

// ResultType is the type CEL's checker gave the expression's result; nil for a plain path.
func (e *Expr) ResultType() *types.Type { return e.typ }

// Bool evaluates the expression as a condition (`when`).
func (e *Expr) Bool(s *Scope) (bool, error) {
	v, err := e.Eval(s)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, i18n.Errorf(s.Lang, "${{ %s }} is %s, not a boolean", e.Src, describe(s.Lang, v))
	}
	return b, nil
}

// Eval evaluates the expression to a JSON value.
func (e *Expr) Eval(s *Scope) (any, error) {
	if e.path != nil {
		v, err := e.path.eval(s)
		if err != nil {
			return nil, fmt.Errorf("${{ %s }}: %w", e.Src, err)
		}
		return v, nil
	}
	out, _, err := e.prg.Eval(e.activation(s))
	if err != nil {
		return nil, fmt.Errorf("${{ %s }}: %w", e.Src, err)
	}
	v, err := celToJSON(out)
	if err != nil {
		return nil, fmt.Errorf("${{ %s }}: %w", e.Src, err)
	}
	return v, nil
}

// activation hands CEL only what the expression names, converted to CEL's number types.
func (e *Expr) activation(s *Scope) map[string]any {
	act := make(map[string]any, 4)
	var outputs map[string]any
	for _, r := range e.refs {
		switch r.Root {
		case "params":
			if _, done := act["params"]; !done {
				act["params"] = toCEL(map[string]any(s.Params))
			}
		case "nodes":
			if outputs == nil {
				outputs = make(map[string]any)
				act["nodes"] = outputs
			}
			if out, ok := s.Outputs[r.Node]; ok {
				node := nodeMembers(outputs, r.Node)
				if _, done := node["output"]; !done {
					node["output"] = toCEL(out)
				}
			}
		case "status":
			if outputs == nil {
				outputs = make(map[string]any)
				act["nodes"] = outputs
			}
			if s.Status != nil {
				if st, ok := s.Status(r.Node); ok {
					nodeMembers(outputs, r.Node)["status"] = string(st)
				}
			}
		case "item":
			act["item"] = toCEL(s.Item)
		case "index":
			act["index"] = int64(s.Index)
		case "run":
			act["run"] = map[string]any{"id": s.Run.ID, "name": s.Run.Name}
		case "trigger":
			act["trigger"] = toCEL(s.Trigger)
		case "env":
			// Only the variables named: the loader made sure each is declared.
			env, _ := act["env"].(map[string]string)
			if env == nil {
				env = make(map[string]string, 1)
				act["env"] = env
			}
			if len(r.Path) > 0 {
				if v, ok := s.Env[r.Path[0]]; ok {
					env[r.Path[0]] = v
				}
			}
		}
	}
	if _, ok := act["params"]; !ok {
		act["params"] = map[string]any{}
	}
	if _, ok := act["nodes"]; !ok {
		act["nodes"] = map[string]any{}
	}
	return act
}

// nodeMembers is what nodes.<id> holds in an activation (output, status), made on first use.
func nodeMembers(nodes map[string]any, id string) map[string]any {
	m, ok := nodes[id].(map[string]any)
	if !ok {
		m = make(map[string]any, 2)
		nodes[id] = m
	}
	return m
}

// toCEL converts a decoded JSON value for CEL: json.Number becomes int64 when integral and
// in range, uint64 past int64, else float64.
func toCEL(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(v.String(), 10, 64); err == nil {
			return u
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = toCEL(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = toCEL(x)
		}
		return a
	default:
		return v
	}
}

// celToJSON converts a CEL result back to a JSON value.
func celToJSON(v ref.Val) (any, error) {
	switch v.Type() {
	case types.NullType:
		return nil, nil
	case types.BoolType:
		return v.Value().(bool), nil
	case types.StringType:
		return v.Value().(string), nil
	case types.IntType:
		return json.Number(strconv.FormatInt(v.Value().(int64), 10)), nil
	case types.UintType:
		return json.Number(strconv.FormatUint(v.Value().(uint64), 10)), nil
	case types.DoubleType:
		f := v.Value().(float64)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("result %v is not a JSON number", f)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case types.TimestampType:
		return v.Value().(time.Time).UTC().Format(time.RFC3339Nano), nil
	case types.DurationType:
		return v.Value().(time.Duration).String(), nil
	case types.ListType:
		l := v.(traits.Lister)
		n := int(l.Size().(types.Int))
		a := make([]any, n)
		for i := range n {
			x, err := celToJSON(l.Get(types.Int(i)))
			if err != nil {
				return nil, err
			}
			a[i] = x
		}
		return a, nil
	case types.MapType:
		m := v.(traits.Mapper)
		out := make(map[string]any)
		for it := m.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			ks, ok := k.Value().(string)
			if !ok {
				return nil, fmt.Errorf("map key %v is not a string", k.Value())
			}
			x, err := celToJSON(m.Get(k))
			if err != nil {
				return nil, err
			}
			out[ks] = x
		}
		return out, nil
	}
	if v.Type() == types.ErrType {
		return nil, fmt.Errorf("%v", v)
	}
	// A value CEL adapted from Go without converting (e.g. a []any inside a dyn) is already
	// JSON-shaped, apart from the numbers toCEL introduced.
	native := v.Value()
	if reflect.ValueOf(native).Kind() == reflect.Slice || reflect.ValueOf(native).Kind() == reflect.Map {
		return fromCEL(native), nil
	}
	return nil, fmt.Errorf("result of type %s is not a JSON value", v.Type().TypeName())
}

// fromCEL undoes toCEL on Go values CEL handed back unconverted.
func fromCEL(v any) any {
	switch v := v.(type) {
	case int64:
		return json.Number(strconv.FormatInt(v, 10))
	case uint64:
		return json.Number(strconv.FormatUint(v, 10))
	case float64:
		return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = fromCEL(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = fromCEL(x)
		}
		return a
	default:
		return v
	}
}

// describe names a value's JSON type for messages in lang, as a phrase inside a sentence.
func describe(lang i18n.Lang, v any) string {
	var kind string
	switch v.(type) {
	case nil:
		return i18n.Inline(lang, "null")
	case bool:
		kind = i18n.Key("a boolean")
	case string:
		kind = i18n.Key("a string")
	case json.Number, float64, int, int64:
		kind = i18n.Key("a number")
	case map[string]any:
		kind = i18n.Key("an object")
	case []any:
		kind = i18n.Key("an array")
	default:
		return i18n.Inline(lang, fmt.Sprintf("a %T", v))
	}
	return i18n.Inline(lang, i18n.Format(lang, kind))
}

// path is a plain reference such as nodes.a.output.data.items[0].name, resolved by walking
// the value: no CEL, and the exact JSON value with its type.
type path struct {
	root string
	node string
	segs []seg
}

// ref describes the path as a reference starting at pos.
func (p *path) ref(pos Pos) Ref {
	r := Ref{Root: p.root, Node: p.node, Pos: pos, Path: make([]string, len(p.segs))}
	for i, sg := range p.segs {
		r.Path[i] = sg.name
		if sg.isIndex {
			r.Path[i] = strconv.Itoa(sg.index)
		}
	}
	return r
}

// seg is one step: a field name, or an array index when isIndex is set.
type seg struct {
	name    string
	index   int
	isIndex bool
}

func (p *path) eval(s *Scope) (any, error) {
	var v any
	switch p.root {
	case "params":
		v = map[string]any(s.Params)
	case "nodes":
		out, ok := s.Outputs[p.node]
		if !ok {
			return nil, i18n.Errorf(s.Lang, "node %s has no output", p.node)
		}
		v = out
	case "item":
		v = s.Item
	case "index":
		v = json.Number(strconv.Itoa(s.Index))
	case "run":
		v = map[string]any{"id": s.Run.ID, "name": s.Run.Name}
	case "trigger":
		v = s.Trigger
	case "env":
		// The loader allows exactly one segment, a declared name.
		x, ok := s.Env[p.segs[0].name]
		if !ok {
			return nil, i18n.Errorf(s.Lang, "environment variable %s was not read for this run", p.segs[0].name)
		}
		return x, nil
	}
	for _, sg := range p.segs {
		if sg.isIndex {
			a, ok := v.([]any)
			if !ok {
				return nil, i18n.Errorf(s.Lang, "[%d]: %s is not an array", sg.index, describe(s.Lang, v))
			}
			if sg.index >= len(a) {
				return nil, i18n.Errorf(s.Lang, "[%d]: index out of range (length %d)", sg.index, len(a))
			}
			v = a[sg.index]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, i18n.Errorf(s.Lang, "%s: %s is not an object", sg.name, describe(s.Lang, v))
		}
		x, ok := m[sg.name]
		if !ok {
			return nil, i18n.Errorf(s.Lang, "no field %q", sg.name)
		}
		v = x
	}
	return v, nil
}

// parsePath recognises a plain path; ok is false for anything richer, which CEL handles.
func parsePath(src string) (*path, bool) {
	root, rest := scanIdent(src)
	p := &path{root: root}
	switch root {
	case "params", "item", "run", "trigger":
	case "env":
		// Exactly env.NAME (or env['NAME']); anything else goes to CEL and the loader's checks.
		if n, r := scanIdent(strings.TrimPrefix(rest, ".")); !strings.HasPrefix(rest, ".") || n == "" || r != "" {
			if name, r, ok := scanQuoted(rest); !ok || name == "" || r != "" {
				return nil, false
			}
		}
	case "index":
		if rest != "" {
			return nil, false
		}
	case "nodes":
		var id string
		switch {
		case strings.HasPrefix(rest, "."):
			id, rest = scanIdent(rest[1:])
		case strings.HasPrefix(rest, "["):
			var ok bool
			id, rest, ok = scanQuoted(rest)
			if !ok {
				return nil, false
			}
		}
		if id == "" || !strings.HasPrefix(rest, ".output") {
			return nil, false
		}
		p.node = id
		rest = strings.TrimPrefix(rest, ".output")
		if rest != "" && rest[0] != '.' && rest[0] != '[' {
			return nil, false
		}
	default:
		return nil, false
	}
	for rest != "" {
		switch rest[0] {
		case '.':
			name, r := scanIdent(rest[1:])
			if name == "" {
				return nil, false
			}
			p.segs, rest = append(p.segs, seg{name: name}), r
		case '[':
			if name, r, ok := scanQuoted(rest); ok {
				p.segs, rest = append(p.segs, seg{name: name}), r
				continue
			}
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, false
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || i < 0 || rest[1] == '+' {
				return nil, false
			}
			p.segs, rest = append(p.segs, seg{index: i, isIndex: true}), rest[end+1:]
		default:
			return nil, false
		}
	}
	return p, true
}

// scanIdent reads a CEL identifier at the start of s.
func scanIdent(s string) (ident, rest string) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	return s[:i], s[i:]
}

// scanQuoted reads ['name'] or ["name"] (no escapes) at the start of s.
func scanQuoted(s string) (name, rest string, ok bool) {
	if len(s) < 4 || s[0] != '[' || (s[1] != '\'' && s[1] != '"') {
		return "", "", false
	}
	q := s[1]
	end := strings.IndexByte(s[2:], q)
	if end < 0 || strings.ContainsRune(s[2:2+end], '\\') || len(s) < 2+end+2 || s[2+end+1] != ']' {
		return "", "", false
	}
	return s[2 : 2+end], s[2+end+2:], true
}

// refCompiler compiles the ${{ }} expressions of one DAG file.
type refCompiler struct {
	env   *cel.Env
	lines []string  // the file's lines, for positions inside block scalars
	lang  i18n.Lang // of the diagnostics' messages
}

// newRefCompiler returns a compiler whose CEL environment declares params, nodes, item,
// index, run, env and trigger.
func newRefCompiler() (*refCompiler, error) {
	env, err := cel.NewEnv(
		cel.Variable("params", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("nodes", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("item", cel.DynType),
		cel.Variable("index", cel.IntType),
		cel.Variable("run", cel.MapType(cel.StringType, cel.StringType)),
		cel.Variable("env", cel.MapType(cel.StringType, cel.StringType)),
		cel.Variable("trigger", cel.MapType(cel.StringType, cel.DynType)),
	)
	if err != nil {
		return nil, fmt.Errorf("expression environment: %w", err)
	}
	return &refCompiler{env: env}, nil
}

// withSource gives the compiler the file's text, so that positions inside block scalars
// (| and >) are exact. Without it they fall on the scalar's first content line.
func (rc *refCompiler) withSource(src []byte) {
	rc.lines = strings.Split(string(src), "\n")
}

// template compiles a YAML value (any kind) whose strings may hold ${{ }}.
func (rc *refCompiler) template(file string, n *yaml.Node) (*Template, Diagnostics) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return LiteralTemplate(nil), nil
		}
		return rc.template(file, n.Content[0])
	case yaml.AliasNode:
		return rc.template(file, n.Alias)
	case yaml.MappingNode:
		t := &Template{kind: TemplateObject}
		var diags Diagnostics
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, d := rc.template(file, n.Content[i+1])
			diags = append(diags, d...)
			t.keys = append(t.keys, n.Content[i].Value)
			t.vals = append(t.vals, v)
		}
		return t.fold(), diags
	case yaml.SequenceNode:
		t := &Template{kind: TemplateArray}
		var diags Diagnostics
		for _, c := range n.Content {
			v, d := rc.template(file, c)
			diags = append(diags, d...)
			t.elems = append(t.elems, v)
		}
		return t.fold(), diags
	}
	if n.Tag != "!!str" || !strings.Contains(n.Value, "${{") {
		v, err := scalarValue(n)
		if errors.Is(err, contract.ErrLimit) {
			return LiteralTemplate(nil), Diagnostics{{Pos: rc.posAt(file, n, -1), Code: CodeLimit, Message: say(rc.lang, err), Hint: limitHint(rc.lang, err)}}
		}
		if err != nil {
			return LiteralTemplate(nil), Diagnostics{{
				Pos: rc.posAt(file, n, -1), Code: CodeInvalid, Message: say(rc.lang, err),
				Hint: i18n.Format(rc.lang, "write JSON-compatible values: strings, numbers, booleans, null, lists and mappings"),
			}}
		}
		return LiteralTemplate(v), nil
	}
	return rc.stringTemplate(file, n)
}

// fold turns an object or array without references into one literal.
func (t *Template) fold() *Template {
	children := t.vals
	if t.kind == TemplateArray {
		children = t.elems
	}
	for _, c := range children {
		if c.kind != TemplateLiteral {
			return t
		}
	}
	if t.kind == TemplateArray {
		a := make([]any, len(t.elems))
		for i, c := range t.elems {
			a[i] = c.lit
		}
		return LiteralTemplate(a)
	}
	m := make(map[string]any, len(t.keys))
	for i, k := range t.keys {
		m[k] = t.vals[i].lit
	}
	return LiteralTemplate(m)
}

// stringTemplate splits a string into text and ${{ }} expressions.
func (rc *refCompiler) stringTemplate(file string, n *yaml.Node) (*Template, Diagnostics) {
	s := n.Value
	var parts []Part
	var diags Diagnostics
	for off := 0; off < len(s); {
		start := strings.Index(s[off:], "${{")
		if start < 0 {
			parts = append(parts, Part{Text: s[off:]})
			break
		}
		start += off
		if start > off {
			parts = append(parts, Part{Text: s[off:start]})
		}
		end := strings.Index(s[start+3:], "}}")
		if end < 0 {
			diags = append(diags, Diagnostic{
				Pos: rc.posAt(file, n, start), Code: CodeExpr,
				Message: i18n.Format(rc.lang, "unterminated ${{: no closing }}"),
				Hint:    i18n.Format(rc.lang, "close the expression with }}"),
			})
			return LiteralTemplate(s), diags
		}
		end += start + 3
		inner := s[start+3 : end]
		lead := len(inner) - len(strings.TrimLeft(inner, " \t\n"))
		e, d := rc.compile(file, n, strings.TrimSpace(inner), start+3+lead)
		diags = append(diags, d...)
		parts = append(parts, Part{Expr: e})
		off = end + 2
	}
	if len(diags) > 0 {
		return LiteralTemplate(s), diags
	}
	if len(parts) == 1 && parts[0].Expr != nil {
		return &Template{kind: TemplateExpr, expr: parts[0].Expr}, nil
	}
	return &Template{kind: TemplateInterp, parts: parts}, nil
}

// expr compiles a scalar that must be exactly one ${{ }} (`when`).
func (rc *refCompiler) expr(file string, n *yaml.Node) (*Expr, Diagnostics) {
	if n.Kind != yaml.ScalarNode {
		return nil, Diagnostics{{Pos: rc.posAt(file, n, -1), Code: CodeInvalid,
			Message: i18n.Format(rc.lang, "want an expression string"), Hint: i18n.Format(rc.lang, `write "${{ <expression> }}"`)}}
	}
	t, diags := rc.template(file, n)
	if len(diags) > 0 {
		return nil, diags
	}
	if t.kind != TemplateExpr {
		return nil, Diagnostics{{Pos: rc.posAt(file, n, -1), Code: CodeInvalid,
			Message: i18n.Sprintf(rc.lang, "want exactly one ${{ }} expression, got %q", n.Value),
			Hint:    i18n.Sprintf(rc.lang, `write "${{ %s }}"`, strings.TrimSpace(n.Value))}}
	}
	return t.expr, nil
}

// compile compiles one expression found at byte offset off of n's value.
func (rc *refCompiler) compile(file string, n *yaml.Node, src string, off int) (*Expr, Diagnostics) {
	e := &Expr{Src: src, Pos: rc.posAt(file, n, off)}
	if src == "" {
		return e, Diagnostics{{Pos: e.Pos, Code: CodeExpr, Message: i18n.Format(rc.lang, "empty expression ${{ }}"),
			Hint: i18n.Format(rc.lang, "reference something, e.g. ${{ params.name }} or ${{ nodes.a.output.summary }}")}}
	}
	if p, ok := parsePath(src); ok {
		// Plain paths, by far the commonest reference, need no CEL program.
		e.path = p
		e.refs = []Ref{p.ref(e.Pos)}
		return e, nil
	}
	checked, iss := rc.env.Compile(src)
	if iss != nil && iss.Err() != nil {
		var diags Diagnostics
		for _, ce := range iss.Errors() {
			at := off + offsetIn(src, ce.Location.Line(), ce.Location.Column())
			diags = append(diags, Diagnostic{
				Pos: rc.posAt(file, n, at), Code: CodeExpr,
				Message: i18n.Sprintf(rc.lang, "expression %q: %s", src, ce.Message),
				Hint:    exprHint(rc.lang, src, ce.Message),
			})
		}
		return e, diags
	}
	prg, err := rc.env.Program(checked)
	if err != nil {
		return e, Diagnostics{{Pos: e.Pos, Code: CodeExpr, Message: i18n.Sprintf(rc.lang, "expression %q: %v", src, err)}}
	}
	e.prg, e.typ = prg, checked.OutputType()
	native := checked.NativeRep()
	info := native.SourceInfo()
	var diags Diagnostics
	collectRefs(native.Expr(), func(r Ref, id int64, _ ast.Expr) {
		loc := info.GetStartLocation(id)
		r.Pos = rc.posAt(file, n, off+offsetIn(src, loc.Line(), loc.Column()))
		if r.Root == "nodes" && r.Path == nil {
			diags = append(diags, Diagnostic{Pos: r.Pos, Code: CodeExpr,
				Message: i18n.Sprintf(rc.lang, "expression %q: a node's output is named nodes.<id>.output, with a constant id", src),
				Hint:    i18n.Format(rc.lang, "write nodes.a.output.field, or nodes['my-node'].output.field for an id with '-'")})
			return
		}
		e.refs = append(e.refs, r)
	})
	return e, diags
}

// exprHint suggests a fix for common CEL compile errors.
func exprHint(lang i18n.Lang, src, msg string) string {
	if strings.Contains(msg, "undeclared reference") {
		if strings.Contains(src, "nodes.") && strings.Contains(src, "-") {
			return i18n.Format(lang, "a node id with '-' must be written nodes['my-node'].output")
		}
		return i18n.Format(lang, "expressions may name params, nodes.<id>.output, env.<NAME>, item, index and run")
	}
	return i18n.Format(lang, "expressions are CEL, e.g. ${{ nodes.a.output.status == 'pass' }}")
}

// offsetIn converts a CEL location (1-based line, 0-based column) in src to a byte offset.
func offsetIn(src string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	// CEL columns count code points.
	for i := range src[off:] {
		if col == 0 {
			return off + i
		}
		col--
	}
	return len(src)
}

// collectRefs reports every maximal chain of field selections and constant indexes rooted
// at a scope variable, with the id of the expression that starts it and the chain itself.
func collectRefs(e ast.Expr, report func(Ref, int64, ast.Expr)) {
	if r, root, ok := ChainRef(e); ok {
		report(r, root, e)
		return
	}
	switch e.Kind() {
	case ast.IdentKind:
		if e.AsIdent() == "nodes" { // reached only when not followed by .<id>.output
			report(Ref{Root: "nodes"}, e.ID(), e)
		}
	case ast.SelectKind:
		collectRefs(e.AsSelect().Operand(), report)
	case ast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() {
			collectRefs(c.Target(), report)
		}
		for _, a := range c.Args() {
			collectRefs(a, report)
		}
	case ast.ListKind:
		for _, x := range e.AsList().Elements() {
			collectRefs(x, report)
		}
	case ast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			me := entry.AsMapEntry()
			collectRefs(me.Key(), report)
			collectRefs(me.Value(), report)
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			collectRefs(f.AsStructField().Value(), report)
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		collectRefs(c.IterRange(), report)
		collectRefs(c.AccuInit(), report)
		collectRefs(c.LoopCondition(), report)
		collectRefs(c.LoopStep(), report)
		collectRefs(c.Result(), report)
	}
}

// ChainRef reads e, a parsed CEL expression, as root.a.b[0]… and returns the reference it
// makes and the id of its root identifier, where the reference starts in the source. Lint
// reads the guards of an expression with it.
func ChainRef(e ast.Expr) (Ref, int64, bool) {
	var segs []string
	for {
		switch e.Kind() {
		case ast.SelectKind:
			s := e.AsSelect()
			if s.IsTestOnly() {
				return Ref{}, 0, false
			}
			segs = append(segs, s.FieldName())
			e = s.Operand()
			continue
		case ast.CallKind:
			c := e.AsCall()
			if c.FunctionName() != "_[_]" || len(c.Args()) != 2 || c.Args()[1].Kind() != ast.LiteralKind {
				return Ref{}, 0, false
			}
			switch k := c.Args()[1].AsLiteral().(type) {
			case types.String:
				segs = append(segs, string(k))
			case types.Int:
				segs = append(segs, strconv.FormatInt(int64(k), 10))
			default:
				return Ref{}, 0, false
			}
			e = c.Args()[0]
			continue
		case ast.IdentKind:
		default:
			return Ref{}, 0, false
		}
		break
	}
	for i, j := 0, len(segs)-1; i < j; i, j = i+1, j-1 {
		segs[i], segs[j] = segs[j], segs[i]
	}
	r := Ref{Root: e.AsIdent()}
	switch r.Root {
	case "nodes":
		// A node is named only as nodes.<id>.output or nodes.<id>.status: anything else
		// (nodes[expr], nodes.a.x) is reported with an empty Node or a nil Path by compile.
		if len(segs) == 0 {
			return r, e.ID(), true
		}
		r.Node, segs = segs[0], segs[1:]
		if len(segs) == 1 && segs[0] == "status" {
			return Ref{Root: "status", Node: r.Node}, e.ID(), true
		}
		if len(segs) == 0 || segs[0] != "output" {
			return r, e.ID(), true
		}
		r.Path = segs[1:]
	case "params":
		r.Path = segs
	case "item", "index", "run", "env", "trigger":
		r.Path = segs
	default:
		return Ref{}, 0, false // a comprehension variable
	}
	return r, e.ID(), true
}

// posAt returns the file position of byte offset off within scalar n's value; off < 0 means
// the scalar itself.
func (rc *refCompiler) posAt(file string, n *yaml.Node, off int) Pos {
	p := Pos{File: file, Line: n.Line, Col: n.Column}
	if off < 0 || n.Kind != yaml.ScalarNode {
		return p
	}
	switch n.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		// Content starts on the line after the indicator; lines keep their text.
		before := n.Value[:min(off, len(n.Value))]
		line := n.Line + 1 + strings.Count(before, "\n")
		col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:])
		indent := n.Column + 1
		if line-1 < len(rc.lines) {
			text := rc.lines[line-1]
			indent = len(text) - len(strings.TrimLeft(text, " ")) + 1
		}
		return Pos{File: file, Line: line, Col: indent + col}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		p.Col += 1 + utf8.RuneCountInString(n.Value[:min(off, len(n.Value))])
	default:
		p.Col += utf8.RuneCountInString(n.Value[:min(off, len(n.Value))])
	}
	return p
}

// scalarValue decodes a YAML scalar into a JSON value; numbers become json.Number so they
// stay exact.
func scalarValue(n *yaml.Node) (any, error) {
	switch n.Tag {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, err
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			var u uint64
			if err2 := n.Decode(&u); err2 != nil {
				return nil, fmt.Errorf("integer %s: %w", n.Value, err)
			}
			return json.Number(strconv.FormatUint(u, 10)), nil
		}
		return json.Number(strconv.FormatInt(i, 10)), nil
	case "!!float":
		if json.Valid([]byte(n.Value)) {
			// Kept exact (as a float64, 1e-10000000 would be 0), so it must be within the
			// limits validation compares.
			if err := contract.CheckNumber(json.Number(n.Value)); err != nil {
				return nil, err
			}
			return json.Number(n.Value), nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, i18n.M("%s is not a JSON number", n.Value)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "!!str", "":
		return n.Value, nil
	case "!!timestamp":
		return n.Value, nil
	default:
		return nil, fmt.Errorf("YAML value of tag %s is not JSON", n.Tag)
	}
}

// say is err's message in lang: seam's own sentence (an i18n.Message, contract's limits, a
// refused file: an error that says itself in a language) in lang, other errors (yaml.v3's)
// as they are.
func say(lang i18n.Lang, err error) string {
	if m, ok := err.(interface{ In(i18n.Lang) string }); ok {
		return m.In(lang)
	}
	return err.Error()
}
