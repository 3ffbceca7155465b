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
