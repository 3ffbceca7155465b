package serve

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// A field is one param of a DAG's run form, from its params schema: the browser checks what
// the input allows (required, number, choice); the server checks again, with the schema.
type field struct {
	Name, Type, Description string
	Required                bool
	Enum                    []string
	Value                   string // what the form shows: the last value sent, else the default
	Min, Max                string // numeric bounds, when the schema has them
}

// Kinds of input a field is: the schema's type, or "json" for anything else.
const (
	kindString  = "string"
	kindInteger = "integer"
	kindNumber  = "number"
	kindBoolean = "boolean"
	kindJSON    = "json"
)

// fields lists the params d's params schema declares, in name order.
func fields(d *dag.DAG) []field {
	if d.Params == nil {
		return nil
	}
	root, _ := d.Params.Source().(map[string]any)
	props, _ := root["properties"].(map[string]any)
	req := map[string]bool{}
	if rs, ok := root["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				req[s] = true
			}
		}
	}
	var out []field
	for name, v := range props {
		p, _ := v.(map[string]any)
		f := field{Name: name, Type: kindJSON, Required: req[name]}
		if t, ok := p["type"].(string); ok && slices.Contains([]string{kindString, kindInteger, kindNumber, kindBoolean}, t) {
			f.Type = t
		}
		f.Description, _ = p["description"].(string)
		if es, ok := p["enum"].([]any); ok && f.Type == kindString {
			for _, e := range es {
				if s, ok := e.(string); ok {
					f.Enum = append(f.Enum, s)
				}
			}
		}
		if n, ok := p["minimum"].(float64); ok {
			f.Min = strconv.FormatFloat(n, 'f', -1, 64)
		}
		if n, ok := p["maximum"].(float64); ok {
			f.Max = strconv.FormatFloat(n, 'f', -1, 64)
		}
		if def, ok := p["default"]; ok {
			f.Value = formValue(def)
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b field) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}

// formValue is how a value shows in a form's input.
func formValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v) // a value decoded from YAML or JSON
	return string(b)
}

// formParams reads the params from a run form ("p.NAME" fields): an empty field is left
// out (the schema's default or required applies), the others are read as their type says.
func formParams(fs []field, form url.Values, l i18n.Lang) (map[string]any, []string) {
	params := map[string]any{}
	var errs []string
	for _, f := range fs {
		v := form.Get("p." + f.Name)
		if f.Type == kindBoolean {
			params[f.Name] = v == "on" || v == "true"
			continue
		}
		if v == "" {
			continue
		}
		switch f.Type {
		case kindString:
			params[f.Name] = v
		case kindInteger:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				errs = append(errs, i18n.Sprintf(l, "%s: %q is not an integer", f.Name, v))
				continue
			}
			params[f.Name] = n
		case kindNumber:
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				errs = append(errs, i18n.Sprintf(l, "%s: %q is not a number", f.Name, v))
				continue
			}
			params[f.Name] = n
		default:
			var x any
			if err := json.Unmarshal([]byte(v), &x); err != nil {
				errs = append(errs, i18n.Sprintf(l, "%s: not JSON: %v", f.Name, err))
				continue
			}
			params[f.Name] = x
		}
	}
	return params, errs
}
