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
