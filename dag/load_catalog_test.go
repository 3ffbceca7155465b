package dag

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// TestLoadCatalog: `catalog:` names folders of vendored schemas (relative to the DAG file), so
// that a contract referring to one by absolute URL loads offline; its errors.
func TestLoadCatalog(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"vendor/schemastore/ruff.json": `{"$id": "https://json.schemastore.org/ruff.json", "type": "object", "required": ["line-length"]}`,
		"vendor/ids/user.json":         `{"id": "https://example.com/user", "type": "object", "required": ["login"]}`,
		"in.json":                      `{"properties": {"ruff": {"$ref": "https://json.schemastore.org/ruff.json"}, "user": {"$ref": "https://example.com/user"}}}`,
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	node := "nodes:\n  a:\n    type: const\n    with: {value: 1}\n    contract: {input: in.json}\n"
	catalog := "catalog:\n  - dir: vendor/schemastore\n    prefix: https://json.schemastore.org/\n  - dir: vendor/ids\n"
	tests := []struct {
		name, src string
		lang      i18n.Lang
		err       string
	}{
		{"catalog", catalog + node, i18n.English, ""},
		{"no catalog", node, i18n.English, "remote $ref refused: https://json.schemastore.org/ruff.json"},
		{"not a list", "catalog: vendor\n" + node, i18n.English, "3:10 SEAM-E113 catalog must be a list, not a string"},
		{"no dir", "catalog:\n  - prefix: https://json.schemastore.org/\n" + node, i18n.English, "4:5 SEAM-E113 a catalog entry needs dir"},
		{"bad prefix", "catalog:\n  - {dir: vendor, prefix: json.schemastore.org}\n" + node, i18n.English,
			`4:3 SEAM-E113 catalog: schema catalog ` + filepath.Join(dir, "vendor") + `: prefix "json.schemastore.org" is not an http(s) URL ending in /`},
		{"bad prefix ja", "catalog:\n  - {dir: vendor, prefix: json.schemastore.org}\n" + node, i18n.Japanese,
			`4:3 SEAM-E113 catalog（スキーマカタログ）: スキーマカタログ ` + filepath.Join(dir, "vendor") + `: prefix "json.schemastore.org" は / で終わる http(s) の URL ではありません`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := LoadBytes(context.Background(), filepath.Join(dir, "t.yaml"), []byte("version: 1\nname: t\n"+tt.src),
				LoadOptions{Types: nodestest.LoadTypes(), Lang: tt.lang})
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				for _, in := range []struct {
					v     string
					valid bool
				}{{`{"ruff": {"line-length": 88}, "user": {"login": "x"}}`, true}, {`{"ruff": {}}`, false}, {`{"user": {}}`, false}} {
					v, _ := contract.ParseJSON([]byte(in.v))
					if vs := d.ByID["a"].InputContract.Validate(v, "en"); (len(vs) == 0) != in.valid {
						t.Errorf("%s: %v, want valid=%v", in.v, vs, in.valid)
					}
				}
				return
			}
			var ds Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("err = %v, want diagnostics", err)
			}
			var got []string
			for _, dg := range ds {
				got = append(got, brief(dg))
			}
			if !strings.Contains(strings.Join(got, "\n"), tt.err) {
				t.Errorf("diagnostics:\n%s\nwant %q", strings.Join(got, "\n"), tt.err)
			}
		})
	}
}
