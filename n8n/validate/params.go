package validate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n/catalog"
)

// parameters checks a node's parameters against its description: required parameters that
// are shown (displayOptions, at the node's version) and empty, and option values that are
// not among a property's options. What an expression decides is not reported.
func (c *checker) parameters(n *node) {
	c.props(n, n.params, n.def.PropSet(), "", true)
}

func (c *checker) props(n *node, here map[string]any, defs *catalog.PropSet, path string, checkRequired bool) {
	s := c.scope(n, here, defs)
	var shown []*catalog.Prop
	for _, name := range defs.Names {
		val, present := here[name]
		// Only what is set, or required, needs looking at.
		if !present && !(checkRequired && anyRequired(defs.Variants(name))) {
			continue
		}
		// A name can have several definitions, each shown under other conditions.
		shown = shown[:0]
		sure := true
		for _, v := range defs.Variants(name) {
			ok, certain := catalog.Shown(v.Show, v.Hide, s)
			if ok {
				shown = append(shown, v)
			}
			sure = sure && certain
		}
		if len(shown) == 0 {
			continue
		}
		if checkRequired && sure && (!present || empty(val)) {
			if p := requiredEmpty(shown, present); p != nil {
				c.required(n, path+name, p)
			}
		}
		if !present || isExprValue(val) {
			continue
		}
		c.options(n, path+name, shown, val)
		if shown[0].Type == "filter" {
			c.filter(n, path+name, val)
		}
		c.nested(n, path+name, append([]*catalog.Prop(nil), shown...), val)
	}
}

func anyRequired(ps []*catalog.Prop) bool {
	for _, p := range ps {
		if p.Required {
			return true
		}
	}
	return false
}

// requiredEmpty returns the definition that makes an absent or empty value an error: every
// shown definition is required, and the value n8n would use (the default when absent) is
// empty.
func requiredEmpty(shown []*catalog.Prop, present bool) *catalog.Prop {
	for _, p := range shown {
		if !p.Required || skipRequired(p.Type) {
			return nil
		}
		if !present && (p.BigDefault || !empty(p.Default)) {
			return nil
		}
	}
	return shown[0]
}

func skipRequired(t string) bool {
	switch t {
	case "hidden", "resourceMapper", "assignmentCollection", "filter", "boolean", "collection", "fixedCollection", "credentials", "icon":
		return true
	}
	return false
}

// empty reports a value n8n treats as not filled in.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == "" || x == "="
	case []any:
		return len(x) == 0
	case map[string]any:
		// A resource locator (or workflow selector): {__rl, mode, value}.
		if rv, ok := x["value"]; ok {
			return empty(rv)
		}
		return false
	}
	return false
}

func isExprValue(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, "=")
}

func (c *checker) required(n *node, path string, p *catalog.Prop) {
	if path == "text" && isPromptNode(n) {
		c.add(issue{code: "AI_PROMPT_MISSING", node: n, args: []any{c.kind(n)}})
		return
	}
	c.add(issue{code: "REQUIRED_PARAMETER_MISSING", node: n, args: []any{path, p.Type}, fixArgs: []any{path}})
}

// options checks an options or multiOptions value against the shown definitions; any shown
// definition that is not a fixed list (loaded from a service, or another type) accepts it.
func (c *checker) options(n *node, path string, shown []*catalog.Prop, val any) {
	var allowed []any
	for _, p := range shown {
		if p.Type != "options" && p.Type != "multiOptions" || p.Dynamic || len(p.Options) == 0 {
			return
		}
		allowed = append(allowed, p.Options...)
	}
	vals := []any{val}
	if shown[0].Type == "multiOptions" {
		list, ok := val.([]any)
		if !ok {
			return
		}
		vals = list
	}
	for _, v := range vals {
		if isExprValue(v) || oneOf(v, allowed) {
			continue
		}
		list := optionList(allowed)
		code := "INVALID_OPTION_VALUE"
		if path == "resource" || path == "operation" {
			// Nodes route on these and fail on a value they do not know; other options are
			// read by the node's code, which often tolerates them (method "get" works).
			code = "INVALID_OPERATION"
		}
		c.add(issue{code: code, node: n, args: []any{path, jsonText(v), list}, fixArgs: []any{path, list},
			details: map[string]any{"parameter": path, "value": v, "allowed": allowed}})
		return
	}
}

func oneOf(v any, allowed []any) bool {
	for _, a := range allowed {
		if catalog.Equal(a, v) {
			return true
		}
	}
	return false
}

func optionList(vs []any) string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vs {
		s := jsonText(v)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) > 12 {
		out = append(out[:12], "…")
	}
	return strings.Join(out, ", ")
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return describe(v)
	}
	return string(b)
}

// nested checks inside collections (option values only: their entries are optional) and
// fixedCollections (each entry's required values too, since an entry added must be whole).
func (c *checker) nested(n *node, path string, shown []*catalog.Prop, val any) {
	p := shown[0]
	obj, ok := val.(map[string]any)
	if !ok {
		return
	}
	switch p.Type {
	case "collection":
		if len(shown) > 1 {
			// Several shown definitions: use the union of their properties.
			var sub []*catalog.Prop
			for _, s := range shown {
				sub = append(sub, s.Sub...)
			}
			set := catalog.NewPropSet(sub)
			c.props(n, obj, &set, path+".", false)
			return
		}
		c.props(n, obj, p.SubSet(), path+".", false)
	case "fixedCollection":
		if len(shown) > 1 {
			return
		}
		for i := range p.Groups {
			g := &p.Groups[i]
			gv, ok := obj[g.Name]
			if !ok {
				continue
			}
			switch x := gv.(type) {
			case map[string]any:
				c.props(n, x, g.Set(), path+"."+g.Name+".", true)
			case []any:
				for _, e := range x {
					if em, ok := e.(map[string]any); ok {
						c.props(n, em, g.Set(), path+"."+g.Name+"[].", true)
					}
				}
			}
		}
	}
}

// filterTypes are the operator types of n8n's filter parameter (IF, Filter, Switch rules).
func filterType(t string) bool {
	switch t {
	case "string", "number", "dateTime", "boolean", "array", "object", "any":
		return true
	}
	return false
}

// filter checks the conditions of a filter parameter: each has an operator object with a
// known type and an operation, which n8n's filter reads without guarding.
func (c *checker) filter(n *node, path string, val any) {
	f, ok := val.(map[string]any)
	if !ok {
		return
	}
	conds, ok := f["conditions"].([]any)
	if !ok {
		return
	}
	for i, cv := range conds {
		cond, ok := cv.(map[string]any)
		if !ok {
			continue
		}
		where := fmt.Sprintf("%s.conditions[%d].operator", path, i)
		op, isObj := cond["operator"].(map[string]any)
		if !isObj {
			c.add(issue{code: "FILTER_OPERATOR_INVALID", node: n, args: []any{where, i18n.Sprintf(c.opts.Lang, "is %s, not an object", describe(cond["operator"]))}})
			continue
		}
		t, _ := op["type"].(string)
		o, _ := op["operation"].(string)
		switch {
		case !filterType(t):
			c.add(issue{code: "FILTER_OPERATOR_INVALID", node: n, args: []any{where, i18n.Sprintf(c.opts.Lang, "has type %s", describe(op["type"]))}})
		case o == "":
			c.add(issue{code: "FILTER_OPERATOR_INVALID", node: n, args: []any{where, i18n.Sprintf(c.opts.Lang, "has no operation")}})
		}
	}
}
