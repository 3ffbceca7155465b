package lint

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// jqProducers are nodes p (line 4: data closed, with n, s, opt and r), loose (line 22: data
// declares label but allows more) and open (line 32: no contract of its own).
const jqProducers = lintProducer + `  loose:
    type: const
    with: {value: {status: pass, summary: s, data: {label: bug}}}
    contract:
      output:
        type: object
        properties:
          data:
            type: object
            properties: {label: {type: string}}
  open:
    type: const
    with: {value: {status: pass, summary: s, data: {x: 1}}}
`

// TestTransformReads: lint checks the paths a transform node's jq program reads against what
// it knows of the node's input, in English and Japanese, and stays silent where the schema
// is open or the path is inside what it does not model.
func TestTransformReads(t *testing.T) {
	tests := []struct {
		name     string
		consumer string // node c (line 35), a transform, from its input on
		lang     i18n.Lang
		want     []string // "line:col severity code message | fix"
	}{
		{name: "a field the closed object forbids", consumer: `
    input: "${{ nodes.p.output }}"
    with:
      program: '{status: "pass", summary: .data.opd}'
`, want: []string{"39:16 error SEAM-E305 the program reads .data.opd, which its input never holds: p's output contract does not declare data.opd | did you mean opt? Correct the program, or declare the field in p's output contract."}},
		{name: "in Japanese", lang: "ja", consumer: `
    input: "${{ nodes.p.output }}"
    with:
      program: '{status: "pass", summary: .data.opd}'
`, want: []string{"39:16 error SEAM-E305 プログラムは .data.opd を読みますが、入力にそれが含まれることはありません：p の出力契約 は data.opd を宣言していません | opt のことですか？プログラムを直すか、p の出力契約 にそのフィールドを宣言してください。"}},
		{name: "below a reference's path, in a block scalar", consumer: `
    input: "${{ nodes.p.output.data }}"
    with:
      program: |
        {status: "pass", summary: .s, data: {n: .n, x: .zz}}
`, want: []string{"39:16 error SEAM-E305 the program reads .zz, which its input never holds: p's output contract does not declare data.zz | correct the program, or declare the field in p's output contract."}},
		{name: "the default input, by node id", consumer: `
    needs: [p]
    with:
      program: '{status: "pass", summary: .p.data.s, data: {k: .q.data}}'
`, want: []string{"39:16 error SEAM-E305 the program reads .q.data, which its input never holds: c's input (its upstream outputs by node id) does not declare q | did you mean p? Correct the program, or declare the field in c's input (its upstream outputs by node id)."}},
		{name: "contract.input", consumer: `
    input: {a: 1}
    contract:
      input: {type: object, additionalProperties: false, properties: {a: {type: integer}}}
    with:
      program: '{status: "pass", summary: "\(.a) \(.b)"}'
`, want: []string{"41:16 error SEAM-E305 the program reads .b, which its input never holds: c's contract.input does not declare b | did you mean a? Correct the program, or declare the field in c's contract.input."}},
		{name: "declared but open: a warning", consumer: `
    input: "${{ nodes.loose.output }}"
    with:
      program: '.data.label as $l | {status: "pass", summary: .data.lable}'
`, want: []string{"39:16 warning SEAM-W301 the program reads .data.lable, which loose's output contract does not declare (it allows other fields, so it may be there) | did you mean label? Correct the program, or declare the field in loose's output contract."}},
		{name: "an open schema", consumer: `
    input: "${{ nodes.open.output }}"
    with:
      program: '{status: "pass", summary: .data.anything.at.all}'
`},
		{name: "what lint does not model", consumer: `
    input: "${{ nodes.p.output }}"
    with:
      program: '{status: "pass", summary: ([.data[] | .nope] | map(.zz) | length | tostring)} | .extra = .nope2 | reduce .x[] as $i (.; .y)'
`},
		{name: "paths that are there", consumer: `
    input: "${{ nodes.p.output }}"
    with:
      program: 'if .data.opt then {status: .status, summary: .data.s} else {status, summary: (.data.r.k // "none")} end'
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := dag.LoadBytes(context.Background(), "t.yaml", []byte(head+jqProducers+"  c:\n    type: transform"+tt.consumer), dag.LoadOptions{Types: nodes.Builtin()})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{Lang: tt.lang}) {
				if f.Consumer == "c" && (f.Code == CodeUndeclared || f.Code == CodeUnknown) {
					got = append(got, fmt.Sprintf("%d:%d %s %s %s | %s", f.Pos.Line, f.Pos.Col, f.Severity, f.Code, f.Message, f.Hint))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestTransformProgramParse: a program that does not parse stops the DAG's loading, so lint
// never sees it, at the file:line:col of the token in the YAML.
func TestTransformProgramParse(t *testing.T) {
	src := head + "  c:\n    type: transform\n    with:\n      program: |\n        {status: \"pass\",\n         summary .x}\n"
	_, err := dag.LoadBytes(context.Background(), "t.yaml", []byte(src), dag.LoadOptions{Types: nodes.Builtin()})
	var ds dag.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 1 {
		t.Fatalf("load: %v", err)
	}
	if d := ds[0]; d.Pos.Line != 9 || d.Pos.Col != 19 || d.Code != dag.CodeConfig || !strings.Contains(d.Message, `with/program: unexpected token ".x"`) {
		t.Errorf("%d:%d %s %s", d.Pos.Line, d.Pos.Col, d.Code, d.Message)
	}
}
