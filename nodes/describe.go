package nodes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// What `seam types` prints of the node types (moved here from cmd/seam, which only wires it).

// TypeDoc is a type as `seam types --json` prints it.
type TypeDoc struct {
	Name   string          `json:"name"`
	Doc    string          `json:"doc"`
	Config json.RawMessage `json:"config"`
	Output json.RawMessage `json:"output"`
}

// DocOf is t's TypeDoc.
func DocOf(t Type) TypeDoc {
	d := TypeDoc{Name: t.Name(), Doc: t.Doc(), Config: t.ConfigSchema(), Output: t.OutputSchema()}
	if d.Output == nil {
		d.Output = json.RawMessage("null")
	}
	return d
}

// List writes the types of reg, one a line with its doc, for `seam types`.
func List(w io.Writer, reg *Registry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, name := range reg.Names() {
		t, _ := reg.Lookup(name)
		fmt.Fprintf(tw, "%s\t%s\n", name, t.Doc())
	}
	return tw.Flush()
}

// Describe writes what `seam types TYPE` shows of t: its configuration's and its output's
// top-level members.
func Describe(w io.Writer, t Type) error {
	cfg, err := summarizeSchema(t.ConfigSchema())
	if err != nil {
		return fmt.Errorf("%s config schema: %w", t.Name(), err)
	}
	fmt.Fprintf(w, "%s: %s\n\nConfiguration (with):\n", t.Name(), t.Doc())
	if err := writeSchemaProperties(w, cfg); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nOutput:")
	if t.OutputSchema() == nil {
		_, err := fmt.Fprintln(w, "  the standard output contract, nothing more")
		return err
	}
	out, err := summarizeSchema(t.OutputSchema())
	if err != nil {
		return fmt.Errorf("%s output schema: %w", t.Name(), err)
	}
	if out.description != "" {
		fmt.Fprintf(w, "  %s\n", out.description)
	}
	if len(out.properties) == 0 {
		_, err := fmt.Fprintf(w, "  required: %s\n", strings.Join(out.required, ", "))
		return err
	}
	return writeSchemaProperties(w, out)
}

func writeSchemaProperties(w io.Writer, s schemaSummary) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, p := range s.properties {
		req := "optional"
		if slices.Contains(s.required, p.name) {
			req = "required"
		}
		desc := p.Description
		if p.Default != nil {
			desc += " Default: " + string(p.Default) + "."
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", p.name, p.typeName(), req, desc)
	}
	return tw.Flush()
}

// schemaSummary is what `seam types` shows of a schema: its top level.
type schemaSummary struct {
	description string
	required    []string
	properties  []schemaProperty // in the schema's order, which is the order they are documented in
}

type schemaProperty struct {
	name        string
	Description string            `json:"description"`
	Type        json.RawMessage   `json:"type"` // a name or a list of names
	Enum        []json.RawMessage `json:"enum"`
	Const       json.RawMessage   `json:"const"`
	Default     json.RawMessage   `json:"default"`
}

// typeName renders what a property accepts: "string", "array|string", "json|wrap|text".
func (p schemaProperty) typeName() string {
	switch {
	case p.Const != nil:
		return string(p.Const)
	case p.Enum != nil:
		vals := make([]string, len(p.Enum))
		for i, v := range p.Enum {
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v) // not a string: show it as JSON
			}
			vals[i] = s
		}
		return strings.Join(vals, "|")
	case p.Type == nil:
		return "any"
	}
	var types []string
	if json.Unmarshal(p.Type, &types) != nil {
		var one string
		_ = json.Unmarshal(p.Type, &one)
		types = []string{one}
	}
	return strings.Join(types, "|")
}

func summarizeSchema(schema []byte) (schemaSummary, error) {
	var doc struct {
		Description string          `json:"description"`
		Required    []string        `json:"required"`
		Properties  json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &doc); err != nil {
		return schemaSummary{}, err
	}
	s := schemaSummary{description: doc.Description, required: doc.Required}
	if doc.Properties == nil {
		return s, nil
	}
	// Decoded token by token: a map would lose the order.
	dec := json.NewDecoder(bytes.NewReader(doc.Properties))
	if _, err := dec.Token(); err != nil {
		return s, err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return s, err
		}
		p := schemaProperty{name: fmt.Sprint(key)}
		if err := dec.Decode(&p); err != nil {
			return s, fmt.Errorf("property %s: %w", p.name, err)
		}
		s.properties = append(s.properties, p)
	}
	return s, nil
}
