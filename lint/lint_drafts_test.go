package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// TestSchemaPositions: a keyword's place is found by its pointer in a JSON file and inside
// an inline YAML schema, through escaped names and array items.
func TestSchemaPositions(t *testing.T) {
	const js = "{\n  \"a/b\": {\"items\": [\n    {}, {\"const\": 1}]},\n  \"x\": 1\n}\n"
	const yml = "nodes:\n  n:\n    contract:\n      input:\n        allOf:\n          - {}\n          - properties: {\"é\": {const: 1}}\n"
	cases := []struct {
		name, ptr, want string
		yaml            bool
	}{
		{"escaped name", "/a~1b", "2:3", false},
		{"array item", "/a~1b/items/1", "3:9", false},
		{"keyword in an item", "/a~1b/items/1/const", "3:10", false},
		{"last member", "/x", "4:3", false},
		{"missing", "/y", "none", false},
		{"yaml keyword", "/allOf/1/properties/é/const", "7:32", true},
		{"yaml missing", "/allOf/2", "none", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var line, col int
			var ok bool
			if tc.yaml {
				line, col, ok = yamlPos([]byte(yml), 5, 9, contract.PointerTokens(tc.ptr))
			} else {
				line, col, ok = jsonPos([]byte(js), contract.PointerTokens(tc.ptr))
			}
			got := "none"
			if ok {
				got = fmt.Sprintf("%d:%d", line, col)
			}
			if got != tc.want {
				t.Errorf("%s: %s, want %s", tc.ptr, got, tc.want)
			}
		})
	}
}

// TestDraftsReachedFiles: what a draft ignores is reported in every file a contract's $refs
// reach, at its place there, but never in a vendored file (under a catalog folder, or under a
// folder named vendor), which nobody edits: neither when a $ref reaches it nor when a
// contract names it.
func TestDraftsReachedFiles(t *testing.T) {
	files := map[string]string{
		// A project file: draft-04 has no const.
		"schemas/common.json": `{"$schema": "http://json-schema.org/draft-04/schema#",
  "definitions": {"n": {"type": "integer", "const": 1}}}`,
		// A vendored copy of a published bundle: each definition declares its $schema.
		"vendor/pub.json": `{"$schema": "http://json-schema.org/draft-07/schema#",
  "definitions": {"x": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}}}`,
		// A catalog folder's file, known by its $id.
		"published/cat.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/cat.json",
  "definitions": {"y": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}}}`,
		"schemas/to-common.json":  `{"type": "object", "properties": {"data": {"properties": {"n": {"$ref": "common.json#/definitions/n"}}}}}`,
		"schemas/to-vendor.json":  `{"type": "object", "properties": {"data": {"properties": {"x": {"$ref": "../vendor/pub.json#/definitions/x"}}}}}`,
		"schemas/to-catalog.json": `{"type": "object", "properties": {"data": {"properties": {"y": {"$ref": "https://example.com/cat.json#/definitions/y"}}}}}`,
	}
	cases := []struct {
		name, contract string
		want           []string
	}{
		{"a project file a $ref reaches", "schemas/to-common.json",
			[]string{"schemas/common.json:2:44 SEAM-W309 node a's contract.output uses const at /definitions/n/const, which draft-04 does not define: validation ignores it."}},
		{"a vendored file a $ref reaches", "schemas/to-vendor.json", nil},
		{"a vendored file as the contract", "vendor/pub.json", nil},
		{"a catalog file a $ref reaches", "schemas/to-catalog.json", nil},
		{"a catalog file as the contract", "published/cat.json", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			src := "version: 1\nname: t\ncatalog:\n  - dir: published\nnodes:\n  a:\n    type: const\n" +
				"    with: {value: {status: pass, summary: s}}\n    contract: {output: " + tc.contract + "}\n"
			d, err := dag.LoadBytes(context.Background(), filepath.Join(dir, "t.yaml"), []byte(src), dag.LoadOptions{Types: nodestest.LoadTypes()})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Code == CodeUndefinedKeyword || f.Code == CodeBesideRef || f.Code == CodeSchemaNotAtRoot {
					file, err := filepath.Rel(dir, f.Pos.File)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, fmt.Sprintf("%s:%d:%d %s %s", filepath.ToSlash(file), f.Pos.Line, f.Pos.Col, f.Code, f.Message))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
