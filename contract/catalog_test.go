package contract

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestCatalog: vendored schemas that refer to each other by absolute URL load offline, through
// a URL prefix mapped to a folder or through their own $id/id; draft-04's id resolves like
// $id; a URL outside the catalog stays refused.
func TestCatalog(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		// SchemaStore's layout: files name each other by https://json.schemastore.org/….
		"vendor/schemastore/pyproject.json": `{"$schema": "http://json-schema.org/draft-07/schema#",
			"$id": "https://json.schemastore.org/pyproject.json",
			"properties": {"tool": {"properties": {"ruff": {"$ref": "https://json.schemastore.org/ruff.json"}}}}}`,
		"vendor/schemastore/ruff.json": `{"$schema": "http://json-schema.org/draft-07/schema#",
			"$id": "https://json.schemastore.org/ruff.json", "type": "object",
			"properties": {"line-length": {"type": "integer"}}}`,
		// Known by $id only: the file name says nothing.
		"vendor/other/anything.json":       `{"$id": "https://example.com/schemas/user", "type": "object", "required": ["login"]}`,
		"vendor/other/.hidden/shadow.json": `{"$id": "https://example.com/schemas/user", "type": "string"}`,
		"vendor/other/nested/draft4.json": `{"$schema": "http://json-schema.org/draft-04/schema#",
			"id": "https://example.com/schemas/d4", "type": "integer"}`,
		"uses-user.json":    `{"properties": {"u": {"$ref": "https://example.com/schemas/user"}, "n": {"$ref": "https://example.com/schemas/d4"}}}`,
		"uses-missing.json": `{"properties": {"m": {"$ref": "https://example.com/schemas/missing"}}}`,
		"uses-far.json":     `{"$ref": "https://json.schemastore.org/not-vendored.json"}`,
		// Draft-04 refers to itself by its id: no catalog needed.
		"self4.json": `{"$schema": "http://json-schema.org/draft-04/schema#", "id": "https://example.com/self4.json",
			"definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "https://example.com/self4.json#/definitions/s"}}}`,
	})
	catalog := []CatalogEntry{
		{Dir: filepath.Join(dir, "vendor/schemastore"), Prefix: "https://json.schemastore.org/"},
		{Dir: filepath.Join(dir, "vendor/other")},
	}
	tests := []struct {
		name, file string
		catalog    []CatalogEntry
		value      string
		valid      bool
		err        string
	}{
		{"prefix", "vendor/schemastore/pyproject.json", catalog, `{"tool": {"ruff": {"line-length": 88}}}`, true, ""},
		{"prefix refuses", "vendor/schemastore/pyproject.json", catalog, `{"tool": {"ruff": {"line-length": "88"}}}`, false, ""},
		{"by $id and id", "uses-user.json", catalog, `{"u": {"login": "octocat"}, "n": 3}`, true, ""},
		{"by $id refuses", "uses-user.json", catalog, `{"u": {}}`, false, ""},
		{"draft-04 id refuses", "uses-user.json", catalog, `{"u": {"login": "x"}, "n": "3"}`, false, ""},
		{"draft-04 self id", "self4.json", nil, `{"a": "x"}`, true, ""},
		{"draft-04 self id refuses", "self4.json", nil, `{"a": 1}`, false, ""},
		{"outside the catalog", "uses-missing.json", catalog, "", false, "remote $ref refused: https://example.com/schemas/missing"},
		{"under a prefix, not vendored", "uses-far.json", catalog, "", false, "remote $ref refused: https://json.schemastore.org/not-vendored.json"},
		{"no catalog", "vendor/schemastore/pyproject.json", nil, "", false, "remote $ref refused: https://json.schemastore.org/ruff.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCompiler(Options{Catalog: tt.catalog})
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.File(filepath.Join(dir, tt.file))
			if tt.err != "" {
				if !errors.Is(err, ErrRemoteRef) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			vs := s.Validate(parse(t, tt.value), i18n.English)
			if (len(vs) == 0) != tt.valid {
				t.Errorf("violations %v, want valid=%v", vs, tt.valid)
			}
		})
	}
}

// TestCatalogPrefix: a catalog prefix must be an http(s) URL ending in "/".
func TestCatalogPrefix(t *testing.T) {
	for _, p := range []string{"json.schemastore.org/", "https://json.schemastore.org", "ftp://x/"} {
		_, err := NewCompiler(Options{Catalog: []CatalogEntry{{Dir: t.TempDir(), Prefix: p}}})
		if err == nil || !strings.Contains(err.Error(), "is not an http(s) URL ending in /") {
			t.Errorf("prefix %q: %v", p, err)
		}
	}
}

// TestCatalogConfined: under Options.Root, a catalog folder outside the root is not read.
func TestCatalogConfined(t *testing.T) {
	out := writeFiles(t, map[string]string{"s.json": `{"$id": "https://example.com/s", "type": "string"}`})
	root := writeFiles(t, map[string]string{"a.json": `{"$ref": "https://example.com/s"}`})
	c, err := NewCompiler(Options{Root: root, Catalog: []CatalogEntry{{Dir: out}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.File(filepath.Join(root, "a.json")); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("err = %v, want outside the root", err)
	}
}
