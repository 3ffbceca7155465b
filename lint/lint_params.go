package lint

import (
	"strings"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// paramFinding words an incompatible edge from params, when the run's params are known, as
// what it is: a value given (or left out) that the consumer does not accept, rather than a
// params schema to narrow. ok is false when the failing part of t is not exactly one
// reference to a param; then the edge is worded as any other.
func (l *linter) paramFinding(n *dag.Node, t *dag.Template, b *contract.Schema, p place, ptr string, witness any) (msg, hint string, ok bool) {
	lang := l.text.lang
	validate := b.ValidateInput
	if p.isWith {
		validate = b.Validate
	}
	vs := validate(witness, lang)
	if len(vs) == 0 {
		return "", "", false // the witness was verified: cannot happen, but never invent a reason
	}
	// The violation under the checker's path, else the first: its pointer is the most exact.
	why := vs[0]
	for _, v := range vs {
		if ptr == "" || v.Pointer == ptr || strings.HasPrefix(v.Pointer, ptr+"/") {
			why = v
			break
		}
	}
	name, v, given, ok := l.paramAt(t, why.Pointer)
	if !ok {
		return "", "", false
	}
	msg, hint = l.text.param(name, clipJSON(v), given, l.text.consumer(n, p), why.Message)
	return msg, hint, true
}

// paramAt finds the param whose value makes the part of t at ptr: its name (a dotted path),
// its value and whether the params hold it. ok is false when that part is not a plain
// reference into params.
func (l *linter) paramAt(t *dag.Template, ptr string) (name string, v any, given, ok bool) {
	toks := contract.PointerTokens(ptr)
	i := 0
	for ; i < len(toks) && t.Kind() != dag.TemplateExpr; i++ {
		if t = t.Child(toks[i]); t == nil {
			return "", nil, false, false
		}
	}
	r, ok := plainRef(t)
	if !ok || r.Root != "params" {
		return "", nil, false, false
	}
	path := r.Path
	if len(path) == 0 {
		// ${{ params }} as a whole: the param is the member the failing part lies in.
		if i >= len(toks) {
			return "", nil, false, false
		}
		path = toks[i : i+1]
	}
	v, given = contract.Lookup(map[string]any(l.params), path)
	return strings.Join(path, "."), v, given, true
}

// consumer names what receives a param's value: "the sub-DAG score", "score's
// contract.input" or "score's configuration (…)".
func (t lintText) consumer(n *dag.Node, p place) string {
	if _, sub := n.Type.(dag.RunsDAGFile); sub && !p.isWith {
		return i18n.Sprintf(t.lang, "the sub-DAG %s", n.ID)
	}
	return t.contract(p)
}

// param: the value v of param name (or its absence) is rejected by what consumes it, for
// the reason a contract violation gives.
func (t lintText) param(name, v string, given bool, consumer, reason string) (msg, hint string) {
	if !given {
		return i18n.Sprintf(t.lang, "param %s is not given: %s needs it (%s)", name, i18n.Inline(t.lang, consumer), reason),
			i18n.Sprintf(t.lang, "pass %s, or give it a default in the params schema.", name)
	}
	return i18n.Sprintf(t.lang, "param %s=%s: %s does not accept it (%s)", name, v, i18n.Inline(t.lang, consumer), reason),
		i18n.Sprintf(t.lang, "pass a value of %s that %s accepts.", name, i18n.InlineStart(t.lang, consumer))
}
