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

// The shared definitions the cases' contracts refer to.
const fileRefCommon = `{"$defs": {
  "item": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}, "note": {"type": "string"}}},
  "count": {"type": "integer", "minimum": 0},
  "list": {"type": "array", "items": {"$ref": "#/$defs/item"}}
}}`

// A contract split across files is proved through its $refs: the producer's output contract
// and the consumer's input contract (in a file or inline in the DAG file), on both sides, the
// reference's path walked through them.
func TestLintFileRefs(t *testing.T) {
	const producer = `version: 1
name: t
nodes:
  p:
    type: const
    with: {value: {status: pass, summary: s, data: {items: [], count: 1, one: {id: x}}}}
    contract:
      output: schemas/out.json
  c:
    type: echo
`
	const out = `{"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "required": ["items", "count", "one"], "additionalProperties": false,
  "properties": {"items": {"$ref": "common.json#/$defs/list"}, "count": {"$ref": "common.json#/$defs/count"}, "one": {"$ref": "common.json#/$defs/item"}}}}}`
	tests := []struct {
		name     string
		consumer string
		in       string // schemas/in.json, when the consumer names it
		want     []string
	}{
		{name: "list into a list of the shared item", consumer: `
    input: {items: "${{ nodes.p.output.data.items }}"}
    contract: {input: schemas/in.json}
`, in: `{"type": "object", "required": ["items"], "properties": {"items": {"$ref": "common.json#/$defs/list"}}}`},
		{name: "list into a list of integers", consumer: `
    input: {items: "${{ nodes.p.output.data.items }}"}
    contract:
      input: {type: object, properties: {items: {type: array, items: {type: integer}}}}
`, want: []string{"12:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce an object for 'items[0]', a type c does not accept."}},
		{name: "a member through the shared file", consumer: `
    input: {id: "${{ nodes.p.output.data.one.id }}", n: "${{ nodes.p.output.data.count }}"}
    contract:
      input: {type: object, required: [id, n], properties: {id: {type: string}, n: {type: integer, minimum: 0}}}
`},
		{name: "a bound the shared file does not keep", consumer: `
    input: {n: "${{ nodes.p.output.data.count }}"}
    contract:
      input: {type: object, properties: {n: {type: integer, minimum: 1}}}
`, want: []string{"12:5 error SEAM-E303 edge p → c: INCOMPATIBLE — p may produce 0 for 'n', which c's constraints reject."}},
		{name: "an optional member of the shared item", consumer: `
    input: {note: "${{ nodes.p.output.data.one.note }}"}
    contract:
      input: {type: object}
`, want: []string{"12:24 error SEAM-E311 c reads nodes.p.output.data.one.note, but p may deliver an output without it; the run fails then"}},
		{name: "an undeclared member of the shared item", consumer: `
    input: {n: "${{ nodes.p.output.data.one.nope }}"}
    contract:
      input: {type: object}
`, want: []string{"12:21 warning SEAM-W301 nodes.p.output.data.one.nope: p's output contract does not declare data.one.nope (it allows other fields, so it may be there); did you mean nodes.p.output.data.one.note?"}},
		{name: "inline consumer contract refers to the shared file", consumer: `
    input: "${{ nodes.p.output.data.one }}"
    contract:
      input: {$ref: "schemas/common.json#/$defs/item"}
`},
		{name: "inline consumer contract refuses the shared item", consumer: `
    input: {id: "${{ nodes.p.output.data.count }}"}
    contract:
      input: {$ref: "schemas/common.json#/$defs/item"}
`, want: []string{"12:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a number for 'id', a type c does not accept."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"schemas/common.json": fileRefCommon, "schemas/out.json": out}
			if tt.in != "" {
				files["schemas/in.json"] = tt.in
			}
			for name, body := range files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			d, err := dag.LoadBytes(context.Background(), filepath.Join(dir, "t.yaml"), []byte(producer+tt.consumer), dag.LoadOptions{Types: nodestest.LoadTypes()})
			if err != nil {
				t.Fatal(err)
			}
			got, fs := edgeFindings(d)
			for _, f := range fs {
				if f.HasWitness && f.Code != CodeAbsent && len(d.ByID["c"].InputContract.Validate(f.Witness, "en")) == 0 {
					t.Errorf("witness %s passes c's contract", f.WitnessJSON())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
