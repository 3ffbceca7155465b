package catalog

import (
	"fmt"
	"regexp"
	"strings"
)

// Scope is where a property's displayOptions are read: the node's version, its parameters
// (root), and the object holding the property with its sibling properties' definitions.
type Scope struct {
	Version  float64
	Root     map[string]any
	RootDefs *PropSet
	Here     map[string]any
	HereDefs *PropSet
}

// Shown tells whether n8n shows (and so uses) a property with show and hide conditions in
// scope. sure is false when an expression decides it: n8n then shows the property, and a
// caller should not report what depends on it.
func Shown(show, hide Cond, s Scope) (shown, sure bool) {
	sure = true
	for k, want := range show {
		vals, ok, expr := s.values(k)
		if expr {
			return true, false
		}
		if !ok || !anyMatch(want, vals) {
			return false, true
		}
	}
	for k, want := range hide {
		vals, ok, expr := s.values(k)
		if expr {
			return true, false
		}
		if ok && anyMatch(want, vals) {
			return false, true
		}
	}
	return true, sure
}

// values returns the value(s) of the parameter k names (with its default when absent): a
// list for a multi-valued one. expr reports an expression.
func (s Scope) values(k string) (vals []any, ok, expr bool) {
	var v any
	switch {
	case k == "@version":
		return []any{s.Version}, true, false
	case strings.HasPrefix(k, "/"):
		v, ok = lookup(s.Root, s.RootDefs, k[1:])
	default:
		v, ok = lookup(s.Here, s.HereDefs, k)
	}
	if !ok {
		return nil, false, false
	}
	if str, isStr := v.(string); isStr && strings.HasPrefix(str, "=") {
		return nil, true, true
	}
	if list, isList := v.([]any); isList {
		return list, true, false
	}
	return []any{v}, true, false
}

func lookup(params map[string]any, defs *PropSet, name string) (any, bool) {
	// A nested name such as "options.mode" is not used by displayOptions keys of the
	// catalogued versions beyond one level, but dotted paths are followed when present.
	if v, ok := params[name]; ok {
		return v, true
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		if sub, ok := params[name[:i]].(map[string]any); ok {
			if v, ok := sub[name[i+1:]]; ok {
				return v, true
			}
		}
	}
	// The default of the definition n8n would show; the first one is good enough for the
	// scalar defaults displayOptions compare against.
	if defs == nil {
		return nil, false
	}
	for _, d := range defs.Variants(name) {
		if !d.BigDefault {
			return d.Default, d.Default != nil
		}
	}
	return nil, false
}

func anyMatch(want, vals []any) bool {
	for _, w := range want {
		for _, v := range vals {
			if match(w, v) {
				return true
			}
		}
	}
	return false
}

// match compares one displayOptions entry with a value: a literal, or {_cnd: {op: arg}}.
func match(want, v any) bool {
	if m, ok := want.(map[string]any); ok {
		if c, ok := m["_cnd"].(map[string]any); ok {
			for op, arg := range c {
				if !cnd(op, arg, v) {
					return false
				}
			}
			return true
		}
	}
	return Equal(want, v)
}

func cnd(op string, arg, v any) bool {
	f, fok := num(v)
	a, aok := num(arg)
	switch op {
	case "eq":
		return Equal(arg, v)
	case "not":
		return !Equal(arg, v)
	case "gte":
		return fok && aok && f >= a
	case "lte":
		return fok && aok && f <= a
	case "gt":
		return fok && aok && f > a
	case "lt":
		return fok && aok && f < a
	case "between":
		m, _ := arg.(map[string]any)
		from, ok1 := num(m["from"])
		to, ok2 := num(m["to"])
		return fok && ok1 && ok2 && f >= from && f <= to
	case "startsWith":
		s, _ := v.(string)
		p, _ := arg.(string)
		return strings.HasPrefix(s, p)
	case "endsWith":
		s, _ := v.(string)
		p, _ := arg.(string)
		return strings.HasSuffix(s, p)
	case "includes":
		s, _ := v.(string)
		p, _ := arg.(string)
		return strings.Contains(s, p)
	case "regex":
		s, _ := v.(string)
		p, _ := arg.(string)
		re, err := regexp.Compile(p)
		return err == nil && re.MatchString(s)
	case "exists":
		return v != nil && v != ""
	}
	return false
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// Equal compares JSON values, numbers by value whatever their Go type.
func Equal(a, b any) bool {
	if fa, ok := num(a); ok {
		fb, ok := num(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case string, bool, nil:
		return a == b
	default:
		return fmt.Sprint(x) == fmt.Sprint(b)
	}
}
