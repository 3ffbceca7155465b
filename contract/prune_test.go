package contract

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// bigSchema is a bundle past pruneAbove: the given definitions, 400 fillers, and a root that
// names every definition (as GitHub's webhook schema does).
func bigSchema(t *testing.T, defs map[string]any) string {
	t.Helper()
	all := maps.Clone(defs)
	var anyOf []any
	for i := range 400 {
		all[fmt.Sprintf("filler%03d", i)] = map[string]any{"type": "object", "description": strings.Repeat("x", 200),
			"properties": map[string]any{"n": map[string]any{"type": "integer"}}}
	}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		anyOf = append(anyOf, map[string]any{"$ref": "#/definitions/" + name})
	}
	b, err := json.Marshal(map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": all, "anyOf": anyOf,
		"properties": map[string]any{"p": map[string]any{"type": "string"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) <= pruneAbove {
		t.Fatalf("%d bytes: not past %d", len(b), pruneAbove)
	}
	return string(b)
}

// TestCompileReached: a $ref into a large file's definitions compiles only the definitions
// it reaches (directly and through each other): the file's root and other definitions are
// neither compiled nor checked. A $ref to the whole file, its root, a place outside its
// definitions, or a definition that holds a nested $id loads it whole; and a later schema
// of the same Compiler that needs more of a file than was loaded gets it whole.
func TestCompileReached(t *testing.T) {
	obj := func(prop, typ string) map[string]any {
		return map[string]any{"type": "object", "required": []any{prop}, "properties": map[string]any{prop: map[string]any{"type": typ}}}
	}
	dir := writeFiles(t, map[string]string{
		"big.json": bigSchema(t, map[string]any{
			"a":    map[string]any{"type": "object", "properties": map[string]any{"b": map[string]any{"$ref": "#/definitions/b"}}},
			"b":    obj("login", "string"),
			"c":    map[string]any{"items": map[string]any{"$ref": "#/definitions/d"}},
			"d":    obj("id", "integer"),
			"root": map[string]any{"properties": map[string]any{"r": map[string]any{"$ref": "#"}}},
			"x":    map[string]any{"$id": "https://example.com/x", "type": "string"},
		}),
		// A definition its metaschema refuses: only a schema that reaches it sees it.
		"broken.json": bigSchema(t, map[string]any{"ok": obj("id", "integer"), "bad": map[string]any{"type": 5}}),
	})
	big, broken := filepath.Join(dir, "big.json"), filepath.Join(dir, "broken.json")
	const fillers = 400
	tests := []struct {
		name    string
		refs    []string // compiled in order, in one Compiler; the last is checked
		file    string   // the large file whose loaded definitions are counted
		kept    []string // the definitions loaded; nil: all (the whole file)
		valid   string
		invalid string
		err     string
	}{
		{name: "a definition and the one it refers to", refs: []string{"big.json#/definitions/a"}, file: big,
			kept: []string{"a", "b"}, valid: `{"b": {"login": "x"}}`, invalid: `{"b": {"login": 1}}`},
		{name: "a definition beside a broken one", refs: []string{"broken.json#/definitions/ok"}, file: broken,
			kept: []string{"ok"}, valid: `{"id": 1}`, invalid: `{"id": "1"}`},
		{name: "the whole file", refs: []string{"big.json"}, file: big, valid: `{"p": "s", "n": 1}`, invalid: `{"p": 1, "n": 1}`},
		{name: "its root, from a definition", refs: []string{"big.json#/definitions/root"}, file: big, valid: `{"n": 1}`, invalid: `{"r": {"p": 1}}`},
		{name: "outside its definitions", refs: []string{"big.json#/properties/p"}, file: big, valid: `"s"`, invalid: `1`},
		{name: "a nested $id", refs: []string{"big.json#/definitions/x"}, file: big, valid: `"s"`, invalid: `1`},
		{name: "more of a file, later", refs: []string{"big.json#/definitions/a", "big.json#/definitions/c"}, file: big,
			valid: `[{"id": 1}]`, invalid: `[{"id": "1"}]`},
		{name: "a definition the file lacks", refs: []string{"big.json#/definitions/a", "big.json#/definitions/missing"},
			err: "definitions/missing"},
		{name: "the broken definition", refs: []string{"broken.json#/definitions/bad"}, err: "/definitions/bad/type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCompiler(Options{})
			if err != nil {
				t.Fatal(err)
			}
			var s *Schema
			for _, ref := range tt.refs {
				s, err = c.InlineAt(dir, ref, map[string]any{"$ref": ref})
				if err != nil {
					break
				}
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if vs := s.Validate(parse(t, tt.valid), i18n.English); len(vs) > 0 {
				t.Errorf("%s refused: %v", tt.valid, vs)
			}
			if vs := s.Validate(parse(t, tt.invalid), i18n.English); len(vs) == 0 {
				t.Errorf("%s accepted", tt.invalid)
			}
			var kept []string
			for _, d := range s.Reached() {
				if d.URL == fileURL(tt.file) {
					defs, _ := d.Value.(map[string]any)["definitions"].(map[string]any)
					kept = slices.Sorted(maps.Keys(defs))
				}
			}
			switch {
			case tt.kept == nil && len(kept) < fillers:
				t.Errorf("%d definitions loaded, want the whole file", len(kept))
			case tt.kept != nil && !slices.Equal(kept, tt.kept):
				t.Errorf("definitions loaded %v, want %v", kept, tt.kept)
			}
		})
	}
}

// TestCompileReachedByID: a large file with a root $id, loaded pruned and then whole, is
// whole under its id too, where the checker finds it by URL (Doc.Resolve).
func TestCompileReachedByID(t *testing.T) {
	big := bigSchema(t, map[string]any{
		"a": map[string]any{"type": "string"},
		"c": map[string]any{"$ref": "#/definitions/d"},
		"d": map[string]any{"type": "integer"},
	})
	big = `{"$id": "https://example.com/big.json", ` + big[1:]
	dir := writeFiles(t, map[string]string{"big.json": big})
	c, err := NewCompiler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var s *Schema
	for _, ref := range []string{"big.json#/definitions/a", "big.json#/definitions/c"} {
		if s, err = c.InlineAt(dir, ref, map[string]any{"$ref": ref}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range []string{"https://example.com/big.json#/definitions/d", "https://example.com/big.json#/definitions/filler000"} {
		if _, _, ok := s.Docs()[0].Resolve(ref); !ok {
			t.Errorf("%s not found", ref)
		}
	}
}
