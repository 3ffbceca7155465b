package serve

import (
	"cmp"
	"encoding/json"
	"math/big"
	"net/url"
	"slices"
	"strconv"

	"github.com/seam-dag/seam/contract"
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
	Step                    string // a number input's step: the schema's multipleOf, else 1 or any
	HasDefault              bool
}

// Kinds of input a field is: the schema's type, or "json" for anything else.
const (
	kindString  = "string"
	kindInteger = "integer"
	kindNumber  = "number"
	kindBoolean = "boolean"
	kindJSON    = "json"
)

// fields lists the params d's params schema declares, the required ones first, each part in
// name order.
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
		if f.Type == kindInteger || f.Type == kindNumber {
			f.Min, f.Max, f.Step = numberText(p["minimum"]), numberText(p["maximum"]), numberText(p["multipleOf"])
			if f.Step == "" && f.Type == kindInteger {
				f.Step = "1"
			} else if f.Step == "" {
				f.Step = "any"
			}
		}
		if def, ok := p["default"]; ok {
			f.Value, f.HasDefault = formValue(def), true
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b field) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// numberText is a schema keyword's number as an input's attribute says it, exactly as the
// schema wrote it (a schema's numbers are json.Number), or "" when v is not a number.
func numberText(v any) string {
	switch n := v.(type) {
	case json.Number:
		return n.String()
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return ""
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
// out (the schema's default or required applies), the others are read as their type says,
// numbers exactly as typed (json.Number, as the CLI's -p reads them: an integer past 2^53
// stays itself). A browser sends nothing for an unchecked box, so an unchecked boolean is
// false only where the form showed a state to uncheck: a param with a default (unchecking a
// default of true says false) or a required one; otherwise it is left out, as an empty text
// input is, and the DAG sees it absent.
func formParams(fs []field, form url.Values, l i18n.Lang) (map[string]any, []string) {
	params := map[string]any{}
	var errs []string
	for _, f := range fs {
		v := form.Get("p." + f.Name)
		if f.Type == kindBoolean {
			if on := checked(v); on || f.Required || f.HasDefault {
				params[f.Name] = on
			}
			continue
		}
		if v == "" {
			continue
		}
		switch f.Type {
		case kindString:
			params[f.Name] = v
		case kindInteger:
			n, ok := exactNumber(v)
			if !ok || !integral(n) {
				errs = append(errs, i18n.Sprintf(l, "%s: %q is not an integer", f.Name, v))
				continue
			}
			params[f.Name] = n
		case kindNumber:
			n, ok := exactNumber(v)
			if !ok {
				errs = append(errs, i18n.Sprintf(l, "%s: %q is not a number", f.Name, v))
				continue
			}
			params[f.Name] = n
		default:
			x, err := contract.ParseJSON([]byte(v))
			if err != nil {
				errs = append(errs, i18n.Sprintf(l, "%s: not JSON: %v", f.Name, err))
				continue
			}
			params[f.Name] = x
		}
	}
	return params, errs
}

// checked reports whether a checkbox's value says it was checked ("on" from a browser).
func checked(v string) bool { return v == "on" || v == "true" }

// exactNumber reads v as one JSON number, kept as the text it is (within the limits every
// number seam reads has: contract.CheckNumber).
func exactNumber(v string) (json.Number, bool) {
	x, err := contract.ParseJSON([]byte(v))
	n, ok := x.(json.Number)
	return n, err == nil && ok
}

// integral reports whether n is an integer (3, 3.0, 3e2: JSON Schema's integer is a value).
func integral(n json.Number) bool {
	r, ok := new(big.Rat).SetString(n.String())
	return ok && r.IsInt()
}
