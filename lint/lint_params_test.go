package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// A webhook's body as params, its contract a file that $refs a vendored schema (the worked
// example of dags/github-pull-request.yaml, in small): lint follows the params schema's $refs
// into the other file, reads a keyword of no draft (octokit's tsAdditionalProperties) as the
// annotation it is, and, with the params given, lets a consumer's when keep out a value it
// guards against.
func TestLintParamsThroughFiles(t *testing.T) {
	const vendored = `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {
  "pr": {"type": "object", "required": ["number", "pull_request"], "properties": {
    "number": {"type": "integer"},
    "pull_request": {"allOf": [{"$ref": "#/definitions/pull-request"}, {"type": "object", "tsAdditionalProperties": false}]}}},
  "pull-request": {"type": "object", "required": ["title", "merged_at"], "properties": {
    "title": {"type": "string"}, "merged_at": {"type": ["string", "null"], "format": "date-time"}}}}}`
	const body = `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "vendor/schema.json#/definitions/pr"}`
	// c reads number and merged_at; line 7 is its input (8 under a when).
	const dagFile = `version: 1
name: t
params: body.json
nodes:
  c:
    type: echo%s
    input: {n: "${{ params.number }}", at: "${{ params.pull_request.merged_at }}"}
    contract:
      input: {type: object, required: [n, at], properties: {n: {type: %s}, at: {type: string, format: date-time}}}
`
	const guard = "\n    when: \"${{ params.pull_request.merged_at != null }}\""
	unmerged := map[string]any{"number": 2, "pull_request": map[string]any{"title": "t", "merged_at": nil}}
	tests := []struct {
		name   string
		when   string
		n      string // the type c wants for number
		params map[string]any
		want   string
	}{
		{name: "guarded: compatible", when: guard, n: "integer"},
		{name: "a type through the vendored file", when: guard, n: "string",
			want: "8:5 error SEAM-E302 edge params → c: INCOMPATIBLE — params may produce a number for 'n', a type c does not accept."},
		{name: "null unguarded", n: "integer",
			want: "7:5 error SEAM-E302 edge params → c: INCOMPATIBLE — params may produce null for 'at', a type c does not accept."},
		{name: "given null, guarded", when: guard, n: "integer", params: unmerged},
		{name: "given null, unguarded", n: "integer", params: unmerged,
			want: "7:5 error SEAM-E302 param pull_request.merged_at=null: c's contract.input does not accept it (field 'at' must be a string, got null)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range map[string]string{"vendor/schema.json": vendored, "body.json": body} {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			src := fmt.Sprintf(dagFile, tt.when, tt.n)
			d, err := dag.LoadBytes(context.Background(), filepath.Join(dir, "t.yaml"), []byte(src), dag.LoadOptions{Types: nodestest.LoadTypes()})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{Params: tt.params}) {
				if f.Code != CodeNoContract && f.Code != CodeContent && f.Code != CodeAllReq {
					got = append(got, fmt.Sprintf("%d:%d %s %s %s", f.Pos.Line, f.Pos.Col, f.Severity, f.Code, f.Message))
				}
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}
