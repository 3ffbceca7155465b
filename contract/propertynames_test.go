package contract

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestPropertyNamesPointer: a property name that breaks propertyNames is reported at the
// object that holds it, whatever order the validator visits its siblings in (jsonschema v6
// shares their location slice; see nameOwner).
func TestPropertyNamesPointer(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Inline("names", parse(t, `{"properties": {
		"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"},
		"vars": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}},
		"deep": {"type": "object", "properties": {"x": {"type": "object"},
			"m": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := parse(t, `{"a": "1", "b": "2", "c": "3", "vars": {"1x": 1, "ok": 2},
		"deep": {"x": {"k": 1}, "m": {"2y": 1}}}`)
	// Map order is random: enough tries make the wrong order come up.
	for range 64 {
		got := map[string]string{}
		for _, vi := range s.Validate(v, "en") {
			got[vi.Pointer] = vi.Message
		}
		if got["/vars"] != "field 'vars' has an invalid property name '1x'" ||
			got["/deep/m"] != "field 'deep.m' has an invalid property name '2y'" || len(got) != 2 {
			t.Fatalf("violations %v", got)
		}
	}
}

// TestMetaschemaPropertyNamesPointer: a schema whose property name breaks its metaschema's
// propertyNames (a patternProperties key that is not a regular expression) is reported at
// that name, whatever order the metaschema visits the name's siblings in.
func TestMetaschemaPropertyNamesPointer(t *testing.T) {
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	schema := parse(t, `{"properties": {
		"a": {"properties": {"x": {"properties": {"y": {"type": "string"}}}}},
		"b": {"properties": {"x": {"properties": {"y": {"type": "string"}}}}},
		"deep": {"properties": {"x": {"type": "object"},
			"m": {"patternProperties": {"^ok$": {}, "(": {}}}}},
		"c": {"properties": {"x": {"properties": {"y": {"type": "string"}}}}},
		"d": {"items": {"properties": {"x": {"type": "string"}}}}}}`)
	const want = "/properties/deep/properties/m/patternProperties/("
	// Map order is random: enough tries make the wrong order come up.
	for i := range 64 {
		_, err := c.Inline(fmt.Sprintf("names %d", i), schema)
		var se *SchemaError
		if !errors.As(err, &se) || se.Pointer != want || !strings.Contains(se.Error(), "not valid regex") {
			t.Fatalf("try %d: err = %v, want a SchemaError at %s saying the regex is not valid", i, err, want)
		}
	}
}

// TestMetaschemaProblemDeterministic: when a schema breaks its metaschema at several places
// of the same depth (SchemaStore's utcm-monitor.json: description: null in two properties of
// one definition), the refusal names the first of them in pointer order on every compile,
// whether the metaschema check is the document's or that of a subschema a $ref reaches.
func TestMetaschemaProblemDeterministic(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"the document", `{"properties": {
			"b": {"description": null}, "a": {"description": null}, "c": {"description": null}}}`,
			"/properties/a/description"},
		{"a subschema a $ref reaches", `{"$schema": "http://json-schema.org/draft-07/schema#",
			"$ref": "#/$defs/p",
			"$defs": {"p": {"properties": {
				"DmarcRejectAction": {"description": null},
				"DmarcQuarantineAction": {"description": null}}}}}`,
			"/$defs/p/properties/DmarcQuarantineAction/description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := parse(t, tt.schema)
			// Map order is random: enough tries make another order come up.
			for i := range 64 {
				c, err := NewCompiler(Options{})
				if err != nil {
					t.Fatal(err)
				}
				_, err = c.Inline("nulls", schema)
				var se *SchemaError
				if !errors.As(err, &se) || se.Pointer != tt.want || !strings.Contains(se.Error(), "got null, want string") {
					t.Fatalf("try %d: err = %v, want a SchemaError at %s: got null, want string", i, err, tt.want)
				}
			}
		})
	}
}
