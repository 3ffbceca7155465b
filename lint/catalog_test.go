package lint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// TestLintCatalog: a DAG whose producer's contract refers to a vendored schema by absolute URL
// (the DAG file's catalog:) loads, and lint proves the edge through that $ref as through any
// other file.
func TestLintCatalog(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "vendor"), 0o755); err != nil {
		t.Fatal(err)
	}
	user := `{"$id": "https://example.com/user", "type": "object", "required": ["login"], "properties": {"login": {"type": "string"}}}`
	if err := os.WriteFile(filepath.Join(dir, "vendor", "user.json"), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `version: 1
name: t
catalog:
  - dir: vendor
nodes:
  p:
    type: const
    with: {value: {status: pass, summary: s, data: {login: x}}}
    contract:
      output: {type: object, required: [data], properties: {data: {$ref: "https://example.com/user"}}}
  c:
    type: const
    with: {value: {status: pass, summary: s}}
    input: "${{ nodes.p.output.data.login }}"
    contract:
      input: {type: integer}
`
	d, err := dag.LoadBytes(context.Background(), filepath.Join(dir, "t.yaml"), []byte(src), dag.LoadOptions{Types: nodestest.LoadTypes()})
	if err != nil {
		t.Fatal(err)
	}
	// The edge is proven through the vendored file: login is a string, c takes an integer.
	lines, _ := edgeFindings(d)
	want := "14:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a string for the value, a type c does not accept."
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(lines, "\n"), want)
	}
}

// TestLintCatalogLayouts: edges through vendored schema sets are proven. octokit's
// multi-file source layout (relative $ids, resolved against the catalog folder): a consumer
// that reads a milestone's closed_at as a string is an error with the witness null (open), and
// passes once it accepts null; its creator, a user, is a file away by a relative $ref. Files that refer to each other
// recursively by their $ids (the producer's contract is one of them, loaded by its path):
// decided, not unknown.
func TestLintCatalogLayouts(t *testing.T) {
	layout, err := filepath.Abs("../contract/testdata/octokit-webhooks/payload-schemas/api.github.com")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"vendor/list/a.json": `{"$id": "https://example.com/list/a.json", "allOf": [{"$ref": "b.json"}], "properties": {"x": {"type": "string"}}}`,
		"vendor/list/b.json": `{"$id": "https://example.com/list/b.json", "type": "object", "properties": {"next": {"$ref": "a.json"}}}`,
		"in/list.json":       `{"$id": "https://example.com/in/list.json", "type": "object", "properties": {"x": {"type": "%s"}, "next": {"$ref": "list.json"}}}`,
	}
	tests := []struct {
		name, catalog, output, read, input string
		want                               []string
	}{
		{name: "octokit layout, a milestone's closed_at read as a string", catalog: layout,
			output: `{$ref: "` + layout + `/common/milestone.schema.json"}`, read: "data.closed_at", input: "{type: string}",
			want: []string{"14:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce null for the value, a type c does not accept."}},
		{name: "octokit layout, closed_at may be null", catalog: layout,
			output: `{$ref: "` + layout + `/common/milestone.schema.json"}`, read: "data.closed_at", input: "{type: [string, \"null\"]}"},
		{name: "octokit layout, its creator's login, a file away", catalog: layout,
			output: `{$ref: "` + layout + `/common/milestone.schema.json"}`, read: "data.creator.login", input: "{type: integer}",
			want: []string{"14:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a string for the value, a type c does not accept."}},
		{name: "recursive files by $id", catalog: "vendor/list", output: "{$ref: vendor/list/a.json}", read: "data", input: "in/list-string.json"},
		{name: "recursive files by $id, a type apart", catalog: "vendor/list", output: "{$ref: vendor/list/a.json}", read: "data", input: "in/list-integer.json",
			want: []string{"14:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a string for 'next.next.x', a type c does not accept."}},
		{name: "recursive in the producer's own contract", catalog: "vendor/list", read: "data", input: "in/list-string.json",
			output: `{$ref: "#/$defs/l"}}, $defs: {l: {type: object, properties: {x: {type: string}, next: {$ref: "#/$defs/l"}}}`},
		{name: "recursive in the producer's own contract, a type apart", catalog: "vendor/list", read: "data", input: "in/list-integer.json",
			output: `{$ref: "#/$defs/l"}}, $defs: {l: {type: object, properties: {x: {type: string}, next: {$ref: "#/$defs/l"}}}`,
			want:   []string{"14:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a string for 'next.next.x', a type c does not accept."}},
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if name == "in/list.json" {
			for _, ty := range []string{"string", "integer"} {
				if err := os.WriteFile(filepath.Join(dir, "in", "list-"+ty+".json"), []byte(strings.Replace(strings.Replace(body, "%s", ty, 1), "list.json", "list-"+ty+".json", 2)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `version: 1
name: t
catalog:
  - dir: ` + tt.catalog + `
nodes:
  p:
    type: const
    with: {value: {status: pass, summary: s}}
    contract:
      output: {type: object, required: [data], properties: {data: ` + tt.output + `}}
  c:
    type: const
    with: {value: {status: pass, summary: s}}
    input: "${{ nodes.p.output.` + tt.read + ` }}"
    contract:
      input: ` + tt.input + `
`
			d, err := dag.LoadBytes(context.Background(), filepath.Join(dir, "t.yaml"), []byte(src), dag.LoadOptions{Types: nodestest.LoadTypes()})
			if err != nil {
				t.Fatal(err)
			}
			lines, _ := edgeFindings(d)
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
