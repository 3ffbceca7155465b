package contract

import (
	"errors"
	"io/fs"
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

// TestCatalogRelativeIDs: octokit's source layout names its files by relative $ids
// ("push$event", "common/user.schema.json") and refers to them relative to those ids, as a
// registry keyed by id would; under a catalog folder those ids resolve against the folder (a
// prefix, when the entry has one), so the files load unchanged. Outside a catalog the same
// files resolve against their own path, as jsonschema does, and a $ref finds no file.
func TestCatalogRelativeIDs(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"layout/push/event.schema.json": `{"$schema": "http://json-schema.org/draft-07/schema", "$id": "push$event",
			"type": "object", "required": ["sender"], "properties": {"sender": {"$ref": "common/user.schema.json"}}}`,
		"layout/common/user.schema.json": `{"$schema": "http://json-schema.org/draft-07/schema", "$id": "common/user.schema.json",
			"type": "object", "required": ["login"], "properties": {"login": {"type": "string"}, "url": {"$ref": "link.schema.json"}}}`,
		"layout/common/link.schema.json": `{"$schema": "http://json-schema.org/draft-07/schema", "$id": "common/link.schema.json", "type": "string"}`,
		// Refers to an event by its id, which names no file: the catalog's index finds it.
		"layout/any.schema.json": `{"$schema": "http://json-schema.org/draft-07/schema", "$id": "any", "oneOf": [{"$ref": "push$event"}]}`,
		"d4/common/team.json": `{"$schema": "http://json-schema.org/draft-04/schema#", "id": "common/team.json",
			"type": "object", "properties": {"lead": {"$ref": "user.json"}}}`,
		"d4/common/user.json": `{"$schema": "http://json-schema.org/draft-04/schema#", "id": "common/user.json", "type": "object", "required": ["login"]}`,
		"prefixed/a/b.json":   `{"$id": "a/b.json", "$ref": "c.json"}`,
		"prefixed/a/c.json":   `{"$id": "https://example.com/x/a/c.json", "type": "integer"}`,
	})
	layout := []CatalogEntry{{Dir: filepath.Join(dir, "layout")}}
	tests := []struct {
		name, file string
		catalog    []CatalogEntry
		value      string
		valid      bool
		err        string
	}{
		{"event", "layout/push/event.schema.json", layout, `{"sender": {"login": "octocat", "url": "https://github.com/octocat"}}`, true, ""},
		{"event refuses", "layout/push/event.schema.json", layout, `{"sender": {"login": 1}}`, false, ""},
		{"two files away", "layout/push/event.schema.json", layout, `{"sender": {"login": "octocat", "url": 2}}`, false, ""},
		{"by an id that names no file", "layout/any.schema.json", layout, `{"sender": {"login": "octocat"}}`, true, ""},
		{"by an id that names no file refuses", "layout/any.schema.json", layout, `{"sender": {}}`, false, ""},
		{"draft-04 id", "d4/common/team.json", []CatalogEntry{{Dir: filepath.Join(dir, "d4")}}, `{"lead": {}}`, false, ""},
		{"under a prefix", "prefixed/a/b.json", []CatalogEntry{{Dir: filepath.Join(dir, "prefixed"), Prefix: "https://example.com/x/"}}, `"1"`, false, ""},
		{"no catalog", "layout/push/event.schema.json", nil, "", false, filepath.Join("push", "common", "user.schema.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCompiler(Options{Catalog: tt.catalog})
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.File(filepath.Join(dir, tt.file))
			if tt.err != "" {
				if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q not found", err, tt.err)
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
