package contract

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestVendor copies a catalog schema and what its $refs reach, at any depth and by URL or
// relative path, byte for byte; the copy, named as a catalog with the same prefix, validates
// as the source does. A URL the catalog does not hold, at the start or behind a $ref, is
// refused, naming where.
func TestVendor(t *testing.T) {
	const prefix = "https://json.schemastore.org/"
	files := map[string]string{
		"pyproject.json":     `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://json.schemastore.org/pyproject.json", "properties": {"tool": {"properties": {"ruff": {"$ref": "https://json.schemastore.org/ruff.json"}, "poe": {"$ref": "partial-poe.json"}}}}}`,
		"ruff.json":          `{"$id": "https://json.schemastore.org/ruff.json", "type": "object", "properties": {"line-length": {"$ref": "common/int.json"}}}`,
		"common/int.json":    `{"type": "integer"}`,
		"partial-poe.json":   `{"type": "object"}`,
		"unrelated.json":     `{"type": "string"}`,
		"broken.json":        `{"properties": {"x": {"$ref": "https://example.com/elsewhere.json"}}}`,
		"refers-file.json":   `{"$ref": "file:///etc/passwd"}`,
		"refers-text.json":   `{"$ref": "text.json"}`,
		"text.json":          `not json`,
		"refers-broken.json": `{"$ref": "broken.json"}`,
	}
	tests := []struct {
		name    string
		url     string
		want    []string
		wantErr string
	}{
		{name: "a schema and what it reaches", url: prefix + "pyproject.json",
			want: []string{"common/int.json", "partial-poe.json", "pyproject.json", "ruff.json"}},
		{name: "one file", url: prefix + "common/int.json", want: []string{"common/int.json"}},
		{name: "not in the catalog", url: "https://example.com/x.json",
			wantErr: "remote $ref refused: https://example.com/x.json (not in the schema catalog)"},
		{name: "a $ref out of the catalog", url: prefix + "refers-broken.json",
			wantErr: "/properties/x/$ref: remote $ref refused: https://example.com/elsewhere.json"},
		{name: "a file: URL out of the catalog", url: prefix + "refers-file.json",
			wantErr: "/etc/passwd lies outside every catalog folder"},
		{name: "a file that is not JSON", url: prefix + "refers-text.json",
			wantErr: "text.json: not JSON: "},
	}
	src := t.TempDir()
	for name, body := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			into := t.TempDir()
			got, err := Vendor([]CatalogEntry{{Dir: src, Prefix: prefix}}, tt.url, into)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(tt.wantErr, "remote") != errors.Is(err, ErrRemoteRef) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("vendored %v, want %v", got, tt.want)
			}
			for _, name := range got {
				b, err := os.ReadFile(filepath.Join(into, filepath.FromSlash(name)))
				if err != nil || string(b) != files[name] {
					t.Errorf("%s: %q, %v; want the source byte for byte", name, b, err)
				}
			}
			// The copy is a catalog of its own.
			c, err := NewCompiler(Options{Catalog: []CatalogEntry{{Dir: into, Prefix: prefix}}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.Inline("t", map[string]any{"$ref": tt.url})
			if err != nil {
				t.Fatalf("compile through the copy: %v", err)
			}
			if tt.url == prefix+"pyproject.json" {
				bad := map[string]any{"tool": map[string]any{"ruff": map[string]any{"line-length": "88"}}}
				if vs := s.Validate(bad, i18n.English); len(vs) != 1 {
					t.Errorf("through the copy: %+v, want line-length's type", vs)
				}
			}
		})
	}
}
