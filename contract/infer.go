package contract

import (
	"encoding/json"
	"errors"
	"math/big"
	"slices"
)

// Infer drafts a JSON Schema from example values (decoded JSON, numbers as json.Number): the
// structure they share, never their content. A member is required when every object at its
// place has it; the types seen at a place are unified (integer when every number there is
// integral, number otherwise; null beside another type makes a type list); an array's items
// are inferred from the elements of all its samples. No enum, const, pattern, length or
// bound is drawn from the values: one sample's wording says nothing about the next run's.
func Infer(samples []any) (map[string]any, error) {
	if len(samples) == 0 {
		return nil, errors.New("infer: no samples")
	}
	s := infer(samples, 0)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	return s, nil
}

// maxInferDepth bounds nesting; deeper values are described as anything.
const maxInferDepth = 64

func infer(vals []any, depth int) map[string]any {
	out := map[string]any{}
	if len(vals) == 0 || depth > maxInferDepth {
		return out
	}
	var objs, arrs []any
	seen := map[string]bool{}
	integral := true
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			seen["null"] = true
		case bool:
			seen["boolean"] = true
		case string:
			seen["string"] = true
		case json.Number:
			seen["number"] = true
			if r, ok := new(big.Rat).SetString(x.String()); !ok || !r.IsInt() {
				integral = false
			}
		case map[string]any:
			seen["object"] = true
			objs = append(objs, x)
		case []any:
			seen["array"] = true
			arrs = append(arrs, x)
		}
	}
	var types []string
	for _, t := range []string{"object", "array", "string", "number", "boolean", "null"} {
		if !seen[t] {
			continue
		}
		if t == "number" && integral {
			t = "integer"
		}
		types = append(types, t)
	}
	if len(types) == 1 {
		out["type"] = types[0]
	} else {
		list := make([]any, len(types))
		for i, t := range types {
			list[i] = t
		}
		out["type"] = list
	}
	if len(objs) > 0 {
		counts := map[string]int{}
		byKey := map[string][]any{}
		for _, o := range objs {
			for k, v := range o.(map[string]any) {
				counts[k]++
				byKey[k] = append(byKey[k], v)
			}
		}
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		props := map[string]any{}
		var req []any
		for _, k := range keys {
			props[k] = infer(byKey[k], depth+1)
			if counts[k] == len(objs) {
				req = append(req, k)
			}
		}
		if len(props) > 0 {
			out["properties"] = props
		}
		if len(req) > 0 {
			out["required"] = req
		}
	}
	if len(arrs) > 0 {
		var elems []any
		for _, a := range arrs {
			elems = append(elems, a.([]any)...)
		}
		if len(elems) > 0 {
			out["items"] = infer(elems, depth+1)
		}
	}
	return out
}
