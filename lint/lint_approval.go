package lint

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// approval checks an approval node before any run: who may answer (SEAM-E320), that it is
// not inside a foreach (SEAM-E321), that the web view can render its form (SEAM-E322), that
// its on_timeout and defaults fit the form (SEAM-E323), that its rewind names a node upstream
// of it (SEAM-E325), and its prefill against the form, as an input edge is proved.
func (l *linter) approval(n *dag.Node) []Finding {
	cfg, ok := n.ApprovalConfig()
	if !ok {
		return nil
	}
	at := func(key string) dag.Pos {
		if p, ok := n.WithPos[key]; ok {
			return p
		}
		return n.Pos
	}
	finding := func(code, key, msg, hint string) Finding {
		return Finding{Pos: at(key), Severity: SeverityError, Code: code, Consumer: n.ID, Message: msg, Hint: hint, subject: "approval " + key}
	}
	lang := l.text.lang
	var out []Finding
	if !cfg.Approvers.Set {
		out = append(out, finding(CodeNoApprovers, "approvers",
			i18n.Sprintf(lang, "approval %s names no approvers, so no one could answer it", n.ID),
			i18n.Sprintf(lang, "name who may answer (approvers: {principals: [alice], groups: [leads]}), or write approvers: anyone")))
	}
	if n.Foreach != nil {
		f := finding(CodeApprovalForeach, "", i18n.Sprintf(lang, "approval %s runs inside a foreach, which this version of seam cannot wait on", n.ID),
			i18n.Sprintf(lang, "ask once for the whole list: give the approval the list as evidence (show) and move the foreach after it"))
		f.Pos = n.Pos
		out = append(out, f)
	}
	if cfg.OnReject.Mode == nodes.OnRejectRewind && !slices.Contains(l.d.Upstream(n.ID), cfg.OnReject.Rewind) {
		out = append(out, finding(CodeRewindNotUpstream, "on_reject",
			i18n.Sprintf(lang, "approval %s rewinds to %q, which is not a node it depends on", n.ID, cfg.OnReject.Rewind),
			i18n.Sprintf(lang, "name a node upstream of the approval (one whose output its evidence reads)")))
	}
	if n.Form == nil {
		return out
	}
	form, ok := n.Form.Source().(map[string]any)
	if !ok {
		return out
	}
	if ptr, kw, ok := unrenderable(form, ""); !ok {
		out = append(out, finding(CodeFormNotRenderable, "form",
			i18n.Sprintf(lang, "approval %s's form uses %s at %s, which the web view cannot render as a field", n.ID, kw, pointerOrRoot(ptr)),
			i18n.Sprintf(lang, "write the form with scalars (string, integer, number, boolean), enums, arrays of scalars and nested objects")))
		return out // the checks below would judge a form no one can fill in
	}
	out = append(out, l.formDefaults(n, form, "", finding)...)
	if cfg.OnTimeout != nil {
		out = append(out, l.onTimeout(n, cfg, form, finding)...)
	}
	if prefill := n.With.Child("prefill"); prefill != nil {
		out = append(out, l.prefill(n, prefill, form)...)
	}
	return out
}

// renderable are the keywords a form may use: what the web view turns into fields, and
// what annotates or constrains them without changing their shape.
var renderable = []string{"$schema", "$id", "title", "description", "type", "properties", "required",
	"additionalProperties", "default", "examples", "enum", "const", "items", "minItems", "maxItems",
	"uniqueItems", "minLength", "maxLength", "pattern", "format", "minimum", "maximum",
	"exclusiveMinimum", "exclusiveMaximum", "multipleOf"}

// unrenderable finds the first part of schema s (at ptr) the web view cannot render: a
// keyword outside renderable, a type that is not one name, or an array of other than
// scalars. ok is true when there is none.
func unrenderable(s map[string]any, ptr string) (at, keyword string, ok bool) {
	for _, k := range slices.Sorted(maps.Keys(s)) {
		if !slices.Contains(renderable, k) {
			return ptr, k, false
		}
	}
	if t, has := s["type"]; has {
		if _, one := t.(string); !one {
			return ptr, "type: [...]", false
		}
	}
	if ap, has := s["additionalProperties"]; has {
		if _, isBool := ap.(bool); !isBool {
			return ptr, "additionalProperties: {...}", false
		}
	}
	props, _ := s["properties"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		sub, isMap := props[k].(map[string]any)
		if !isMap {
			return ptr + "/properties/" + k, "true/false", false
		}
		if at, kw, ok := unrenderable(sub, ptr+"/properties/"+k); !ok {
			return at, kw, false
		}
	}
	if items, has := s["items"]; has {
		sub, isMap := items.(map[string]any)
		if !isMap {
			return ptr, "items: " + fmt.Sprint(items), false
		}
		if sub["type"] == "object" || sub["type"] == "array" || sub["properties"] != nil || sub["items"] != nil {
			return ptr + "/items", "items of type " + fmt.Sprint(sub["type"]), false
		}
		if at, kw, ok := unrenderable(sub, ptr+"/items"); !ok {
			return at, kw, false
		}
	}
	return "", "", true
}

func pointerOrRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

// formDefaults reports SEAM-E323 for each default the form gives a field that its own
// schema rejects: the web view fills it in, so the answer would fail where no one wrote it.
func (l *linter) formDefaults(n *dag.Node, s map[string]any, ptr string, finding func(code, key, msg, hint string) Finding) []Finding {
	var out []Finding
	if d, has := s["default"]; has && ptr != "" {
		// Checked as the field of an object, so that the message names the field.
		name := ptr[strings.LastIndex(ptr, "/")+1:]
		sub := maps.Clone(s)
		delete(sub, "default")
		wrap := map[string]any{"type": "object", "properties": map[string]any{name: sub}}
		if c, err := l.comp.Inline("form default", wrap); err == nil {
			for _, v := range c.Validate(map[string]any{name: d}, l.text.lang) {
				out = append(out, finding(CodeAnswerInvalid, "form",
					i18n.Sprintf(l.text.lang, "approval %s's form gives %s the default %s, which its schema rejects: %s", n.ID, pointerOrRoot(ptr), clipJSON(d), v.Message),
					i18n.Sprintf(l.text.lang, "give a default the field accepts, or leave the default out")))
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if sub, ok := props[k].(map[string]any); ok {
			out = append(out, l.formDefaults(n, sub, ptr+"/properties/"+k, finding)...)
		}
	}
	return out
}

// onTimeout reports SEAM-E323 when the answer on_timeout records is one no person could
// give: a decision outside decisions, or fields the form rejects once the prefill fills
// those it leaves out. Without this check it breaks only when the deadline passes.
func (l *linter) onTimeout(n *dag.Node, cfg *nodes.ApprovalConfig, form map[string]any, finding func(code, key, msg, hint string) Finding) []Finding {
	lang := l.text.lang
	var out []Finding
	hint := i18n.Sprintf(lang, "give on_timeout an answer a person could give: one of the decisions and fields the form accepts")
	if d, _ := cfg.OnTimeout["decision"].(string); !slices.Contains(cfg.Decisions, d) {
		out = append(out, finding(CodeAnswerInvalid, "on_timeout",
			i18n.Sprintf(lang, "approval %s's on_timeout decides %q, which is not one of its decisions (%s)", n.ID, d, strings.Join(cfg.Decisions, ", ")), hint))
	}
	answer := maps.Clone(cfg.OnTimeout)
	delete(answer, "decision")
	if _, declared := propsOf(form)["comment"]; !declared {
		delete(answer, "comment")
	}
	// The prefill fills what the answer leaves out, at run time as for a person.
	check := n.Form
	if prefill := n.With.Child("prefill"); prefill != nil {
		if s, err := l.comp.Inline(n.ID+" form", withoutRequired(form, templateKeys(prefill))); err == nil {
			check = s
		}
	}
	for _, v := range check.Validate(answer, lang) {
		out = append(out, finding(CodeAnswerInvalid, "on_timeout",
			i18n.Sprintf(lang, "approval %s's on_timeout answer does not fit its form: %s", n.ID, v.Message), hint))
	}
	return out
}

func propsOf(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

// prefill proves the prefill against the form as an input edge is proved (with a witness):
// every value it may take must fit the field it fills. The form's required fields are the
// person's to fill, so a prefill may leave them out.
func (l *linter) prefill(n *dag.Node, prefill *dag.Template, form map[string]any) []Finding {
	partial := maps.Clone(form)
	delete(partial, "required")
	s, err := l.comp.Inline(n.ID+" form", partial)
	if err != nil {
		return nil
	}
	return l.target(n, prefill, s, place{node: n.ID, form: true}, dag.Pos{})
}

// decisionCompares reports SEAM-E324: an expression that compares an approval's decision (or
// another field of its form that has an enum) with a string outside that set, which is never
// equal, so the condition is a constant the author did not mean.
func (l *linter) decisionCompares(consumer string, es []*dag.Expr) []Finding {
	var out []Finding
	for _, e := range es {
		enums := map[string]map[string][]string{} // node → field → allowed values
		for _, r := range e.Refs() {
			if r.Root == "nodes" && enums[r.Node] == nil {
				if p := l.d.ByID[r.Node]; p != nil {
					if fs := approvalEnums(p); fs != nil {
						enums[r.Node] = fs
					}
				}
			}
		}
		if len(enums) == 0 {
			continue
		}
		parsed := l.parseAST(e.Src)
		if parsed == nil {
			continue // the loader reported it
		}
		info := parsed.SourceInfo()
		visitEnumCompares(parsed.Expr(), func(r dag.Ref, lit ast.Expr) {
			if len(r.Path) != 2 || r.Path[0] != "data" || enums[r.Node] == nil {
				return
			}
			allowed, ok := enums[r.Node][r.Path[1]]
			word := string(lit.AsLiteral().(types.String))
			if !ok || slices.Contains(allowed, word) {
				return
			}
			loc := info.GetStartLocation(lit.ID())
			pos := e.Pos
			pos.Line += loc.Line() - 1
			pos.Col += loc.Column()
			out = append(out, Finding{Pos: pos, Severity: SeverityError, Code: CodeNeverTrue,
				Producers: []string{r.Node}, Consumer: consumer, subject: "enum " + e.Src,
				Message: i18n.Sprintf(l.text.lang, "${{ %s }} compares nodes.%s.output.data.%s with %q, which it never is (%s): the comparison never holds", e.Src, r.Node, r.Path[1], word, strings.Join(allowed, ", ")),
				Hint:    i18n.Sprintf(l.text.lang, "compare with one of %s", strings.Join(allowed, ", "))})
		})
	}
	return out
}

// approvalEnums are the fields of an approval's answer that take one of a set of strings:
// decision, and each of the form's top-level fields with an enum of strings.
func approvalEnums(n *dag.Node) map[string][]string {
	cfg, ok := n.ApprovalConfig()
	if !ok {
		return nil
	}
	out := map[string][]string{"decision": cfg.Decisions}
	if n.Form == nil {
		return out
	}
	form, _ := n.Form.Source().(map[string]any)
	for k, v := range propsOf(form) {
		sub, _ := v.(map[string]any)
		enum, _ := sub["enum"].([]any)
		var words []string
		for _, x := range enum {
			s, isString := x.(string)
			if !isString {
				words = nil
				break
			}
			words = append(words, s)
		}
		if len(words) > 0 {
			sort.Strings(words)
			out[k] = words
		}
	}
	return out
}

// visitEnumCompares calls f with each string literal that e compares a reference with:
// ref == 'x' (either way round, or !=) and ref in ['x', …].
func visitEnumCompares(e ast.Expr, f func(r dag.Ref, lit ast.Expr)) {
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		if x.Kind() != ast.CallKind {
			return
		}
		c := x.AsCall()
		args := c.Args()
		if len(args) != 2 {
			return
		}
		switch c.FunctionName() {
		case "_==_", "_!=_":
			for k := range 2 {
				if r, _, ok := dag.ChainRef(args[k]); ok && r.Root == "nodes" && isString(args[1-k]) {
					f(r, args[1-k])
				}
			}
		case "@in":
			if r, _, ok := dag.ChainRef(args[0]); ok && r.Root == "nodes" && args[1].Kind() == ast.ListKind {
				for _, el := range args[1].AsList().Elements() {
					if isString(el) {
						f(r, el)
					}
				}
			}
		}
	}))
}

// templateKeys are the keys of an object template, literal or holding references.
func templateKeys(t *dag.Template) []string {
	if lit, ok := t.Literal(); ok {
		m, _ := lit.(map[string]any)
		return slices.Collect(maps.Keys(m))
	}
	return t.Keys()
}

// withoutRequired is schema s with keys left out of its required.
func withoutRequired(s map[string]any, keys []string) map[string]any {
	out := maps.Clone(s)
	req, _ := s["required"].([]any)
	out["required"] = slices.DeleteFunc(slices.Clone(req), func(k any) bool {
		name, _ := k.(string)
		return slices.Contains(keys, name)
	})
	return out
}
