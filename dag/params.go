package dag

import (
	"maps"
	"slices"
)

// maxDefaultDepth bounds how deep WithDefaults and requireDefaults follow nested
// `properties`; deeper objects of a params schema get no defaults.
const maxDefaultDepth = 16

// WithDefaults returns params with the JSON Schema `default` of every property of the DAG's
// params schema that params lacks, as Dagu, Argo and Prefect apply them: at the top level,
// and inside nested objects that are present (given, or defaulted themselves) and declare
// `properties`. Only plain `properties` are followed (not $ref, allOf and the like). params
// is not modified; nil params give an empty object. The result is what a run validates,
// records and reads.
func (d *DAG) WithDefaults(params map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	if d.Params == nil {
		return params
	}
	out, _ := withDefaults(d.Params.Source(), params, 0)
	return out
}

// FilledParamsSchema is the params schema's source as a run sees the params once it has
// filled in the defaults (WithDefaults): every property with a default is required. It is
// true, allowing anything, when the DAG declares no params.
func (d *DAG) FilledParamsSchema() any {
	if d.Params == nil {
		return true
	}
	s, _ := requireDefaults(d.Params.Source(), 0)
	return s
}

// withDefaults fills into v, an object, the defaults schema s declares for its members;
// changed says whether it did (then out is a copy, v is left alone).
func withDefaults(s any, v map[string]any, depth int) (out map[string]any, changed bool) {
	m, ok := s.(map[string]any)
	if !ok || depth >= maxDefaultDepth {
		return v, false
	}
	props, _ := m["properties"].(map[string]any)
	out = v
	for _, k := range sortedKeys(props) {
		sub, _ := props[k].(map[string]any)
		x, present := v[k]
		fill := false
		if !present {
			dv, has := sub["default"]
			if !has {
				continue
			}
			x, fill = deepCopy(dv), true
		}
		if obj, ok := x.(map[string]any); ok {
			if filled, ch := withDefaults(sub, obj, depth+1); ch {
				x, fill = filled, true
			}
		}
		if fill {
			if !changed {
				out, changed = maps.Clone(v), true
			}
			out[k] = x
		}
	}
	return out, changed
}

// requireDefaults returns params schema s with every property that declares a default
// added to its object's `required`, wherever WithDefaults fills it in: a run always has it,
// so lint must not call it optional. s is not modified.
func requireDefaults(s any, depth int) (out any, changed bool) {
	m, ok := s.(map[string]any)
	if !ok || depth >= maxDefaultDepth {
		return s, false
	}
	props, _ := m["properties"].(map[string]any)
	req, _ := m["required"].([]any)
	newProps := map[string]any{}
	for _, k := range sortedKeys(props) {
		sub := props[k]
		ns, ch := requireDefaults(sub, depth+1)
		newProps[k] = ns
		changed = changed || ch
		if sm, ok := sub.(map[string]any); ok {
			if _, has := sm["default"]; has && !slices.Contains(req, any(k)) {
				req = append(slices.Clip(req), k)
				changed = true
			}
		}
	}
	if !changed {
		return s, false
	}
	c := maps.Clone(m)
	c["properties"] = newProps
	c["required"] = req
	return c, true
}

// deepCopy copies a JSON value, so that a default handed to one run is not shared.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
