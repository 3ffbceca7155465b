package contract

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Doc.Resolve finds a $ref's target in its own document or in another one the compiler
// loaded, and nothing else; Reached lists every document a schema reaches, once.
func TestDocResolve(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"common.json": `{"$defs": {"item": {"type": "string"}, "back": {"$ref": "out.json#/$defs/own"}}}`,
		"out.json":    `{"$defs": {"own": {"type": "integer"}}, "properties": {"a": {"$ref": "common.json#/$defs/item"}, "b": {"$ref": "common.json#/$defs/back"}}}`,
		"idbase.json": `{"$id": "https://example.com/s/idbase.json", "$defs": {"x": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/x"}}}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := NewCompiler(Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.File(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	idbase, err := c.File(filepath.Join(dir, "idbase.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc := out.Docs()[0]
	cases := []struct {
		name   string
		in     Doc
		ref    string
		want   any
		inFile string // the document the target lies in ("" when not found)
	}{
		{"own pointer", doc, "#/$defs/own", map[string]any{"type": "integer"}, "out.json"},
		{"whole own document", doc, "#", doc.Value, "out.json"},
		{"another file's pointer", doc, "common.json#/$defs/item", map[string]any{"type": "string"}, "common.json"},
		{"another file, dot segments", doc, "./sub/../common.json#/$defs/item", map[string]any{"type": "string"}, "common.json"},
		{"a pointer that leads nowhere", doc, "common.json#/$defs/nope", nil, ""},
		{"an anchor", doc, "common.json#item", nil, ""},
		{"a file never loaded", doc, "other.json#/$defs/item", nil, ""},
		{"a file outside the root", doc, "../out.json", nil, ""},
		{"a value with no document", Doc{Value: doc.Value}, "common.json#/$defs/item", nil, ""},
		{"a root $id moves the base", idbase.Docs()[0], "common.json#/$defs/item", nil, ""},
		{"a root $id, own pointer", idbase.Docs()[0], "#/$defs/x", map[string]any{"type": "string"}, "idbase.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, in, ok := tc.in.Resolve(tc.ref)
			if ok != (tc.inFile != "") || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Resolve(%q) = %v, %v; want %v, %v", tc.ref, got, ok, tc.want, tc.inFile != "")
			}
			if ok && filepath.Base(in.URL) != tc.inFile {
				t.Errorf("target in %s, want %s", in.URL, tc.inFile)
			}
		})
	}
	var reached []string
	for _, d := range out.Reached() {
		reached = append(reached, filepath.Base(d.URL))
	}
	if !reflect.DeepEqual(reached, []string{"out.json", "common.json"}) {
		t.Errorf("Reached: %v, want out.json then common.json, once each", reached)
	}
}
