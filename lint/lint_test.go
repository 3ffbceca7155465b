package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// lintProducer is node p (line 4): a const node whose output contract promises data.n (an
// integer 0..10) and data.s, and may emit data.opt and data.r (through a $ref); data declares
// nothing else.
const lintProducer = `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {n: 1, s: x}}}
    contract:
      output:
        $defs: {r: {type: object, required: [k], properties: {k: {type: string}}}}
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [n, s]
            additionalProperties: false
            properties:
              n: {type: integer, minimum: 0, maximum: 10}
              s: {type: string}
              opt: {type: string}
              r: {$ref: "#/$defs/r"}
`

func TestLint(t *testing.T) {
	tests := []struct {
		name     string
		consumer string // node c: input and contract.input
		code     string // "" for no finding
		severity string
		message  string // substring
		witness  bool
	}{
		{name: "compatible", consumer: `
    input: {n: "${{ nodes.p.output.data.n }}", s: "${{ nodes.p.output.data.s }}", k: 3}
    contract:
      input: {type: object, required: [n, s, k], properties: {n: {type: number, maximum: 10}, s: {type: string}, k: {const: 3}}}
`},
		{name: "whole output compatible", consumer: `
    input: "${{ nodes.p.output }}"
    contract:
      input: {type: object, required: [status, data], properties: {status: {enum: [pass, warn, fail]}, data: {type: object, required: [n], properties: {r: {type: object, required: [k]}}}}}
`},
		{name: "required", consumer: `
    input: "${{ nodes.p.output }}"
    contract:
      input: {type: object, required: [status, priority]}
`, code: CodeRequired, severity: SeverityError, witness: true,
			message: "edge p → c: INCOMPATIBLE — c requires 'priority' but p does not produce it."},
		{name: "required mapping key", consumer: `
    input: {n: "${{ nodes.p.output.data.n }}"}
    contract:
      input: {type: object, required: [n, m]}
`, code: CodeRequired, severity: SeverityError, witness: true,
			message: "edge p → c: INCOMPATIBLE — c requires 'm' but its input does not provide it."},
		{name: "type", consumer: `
    input: {n: "${{ nodes.p.output.data.n }}"}
    contract:
      input: {type: object, properties: {n: {type: string}}}
`, code: CodeType, severity: SeverityError, witness: true,
			message: "edge p → c: INCOMPATIBLE — p may produce a number for 'n', a type c does not accept."},
		{name: "constraint", consumer: `
    input: {n: "${{ nodes.p.output.data.n }}"}
    contract:
      input: {type: object, properties: {n: {type: integer, maximum: 5}}}
`, code: CodeConstraint, severity: SeverityError, witness: true,
			message: "which c's constraints reject."},
		{name: "unknown field at fault", consumer: `
    input: {o: "${{ nodes.p.output.data.s }}", x: "${{ has(nodes.p.output.data.n) ? nodes.p.output.data.n : 0 }}"}
    contract:
      input: {type: object, properties: {x: {type: string}}}
`, code: CodeUnknown, severity: SeverityWarning,
			message: "'x' may not fit c's contract.input, but the arriving value is only partly known (the expression \"has(nodes.p.output.data.n) ? nodes.p.output.data.n : 0\" is not a plain path)."},
		{name: "undeclared", consumer: `
    input: {x: "${{ nodes.p.output.data.nope }}"}
    contract:
      input: {type: object}
`, code: CodeUndeclared, severity: SeverityError,
			message: "nodes.p.output.data.nope: p's output contract does not declare data.nope"},
		{name: "unknown", consumer: `
    input: {n: "${{ has(nodes.p.output.data.n) ? nodes.p.output.data.n : 0 }}"}
    contract:
      input: {type: object, properties: {n: {type: string}}}
`, code: CodeUnknown, severity: SeverityWarning,
			message: "edge p → c: UNKNOWN — 'n' may not fit c's contract.input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + lintProducer + "  c:\n    type: echo" + tt.consumer
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			fs := Lint(context.Background(), d, Options{})
			if tt.code == "" {
				if len(fs) != 0 {
					t.Fatalf("findings %v, want none", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("findings %v, want one %s", fs, tt.code)
			}
			f := fs[0]
			if f.Code != tt.code || f.Severity != tt.severity || !strings.Contains(f.Message, tt.message) {
				t.Errorf("got %s %s %q, want %s %s containing %q", f.Severity, f.Code, f.Message, tt.severity, tt.code, tt.message)
			}
			if f.Consumer != "c" {
				t.Errorf("consumer %q, want c", f.Consumer)
			}
			if f.HasWitness != tt.witness {
				t.Errorf("has witness %v, want %v", f.HasWitness, tt.witness)
			}
			if f.HasWitness {
				// The witness must break the consumer's contract.
				if vs := d.ByID["c"].InputContract.Validate(f.Witness, "en"); len(vs) == 0 {
					t.Errorf("witness %v passes c's contract.input", f.Witness)
				}
			}
			if tt.code != CodeUndeclared && f.Pos.Line != 24 {
				t.Errorf("position %+v, want the input key on line 24", f.Pos)
			}
		})
	}
}

func TestLintStringOutput(t *testing.T) {
	f := Finding{Pos: dag.Pos{File: "f.yaml", Line: 3, Col: 5}, Severity: SeverityError, Code: CodeRequired,
		Message: "edge a → b: INCOMPATIBLE — b requires 'x' but a does not produce it.",
		Witness: map[string]any{"y": "z"}, HasWitness: true, Hint: "add it."}
	want := "f.yaml:3:5: error SEAM-E301 edge a → b: INCOMPATIBLE — b requires 'x' but a does not produce it.\n" +
		"  witness: {\"y\":\"z\"}\n  fix: add it."
	if got := f.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestLintProjection(t *testing.T) {
	src := map[string]any{"allOf": []any{
		map[string]any{"type": "object", "required": []any{"a"}, "properties": map[string]any{"a": map[string]any{"type": "object"}}},
		map[string]any{"properties": map[string]any{"a": map[string]any{"properties": map[string]any{"b": map[string]any{"type": "string"}}, "required": []any{"b"}}}},
		map[string]any{"properties": map[string]any{"l": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}}},
		map[string]any{"properties": map[string]any{"r": map[string]any{"$ref": "#/$defs/x"}}},
		map[string]any{"properties": map[string]any{"q": map[string]any{"$ref": "#/$defs/y"}}},
	}, "$defs": map[string]any{"y": map[string]any{"type": "object", "required": []any{"z"},
		"properties": map[string]any{"z": map[string]any{"type": "string"}}}}}
	tests := []struct {
		path             []string
		present, inexact bool
	}{
		{[]string{"a", "b"}, true, false},
		{[]string{"a"}, true, false},
		{[]string{"l", "0"}, false, false},
		{[]string{"zz"}, false, false},
		{[]string{"r"}, false, true},
		{[]string{"q", "z"}, false, false},
		{[]string{"q"}, false, false},
	}
	for _, tt := range tests {
		p := project(src, contract.Doc{Value: src}, tt.path, 0)
		if p.present() != tt.present || p.inexact != tt.inexact || p.undeclared != -1 {
			t.Errorf("%v: present %v inexact %v undeclared %d, want %v %v -1", tt.path, p.present(), p.inexact, p.undeclared, tt.present, tt.inexact)
		}
	}
}

// TestLintMore covers CEL-typed expressions, the default input, `with` against the type's
// config schema, and undeclared references outside input: each case is the consumer node c
// after lintProducer, and its findings (every one, "line:col severity code message").
func TestLintMore(t *testing.T) {
	tests := []struct {
		name     string
		consumer string
		want     []string
		witness  bool
	}{
		{name: "cel int into string", consumer: `
    input: {n: "${{ nodes.p.output.data.n + 1 }}"}
    contract:
      input: {type: object, properties: {n: {type: string}}}
`, witness: true, want: []string{"24:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a number for 'n', a type c does not accept."}},
		{name: "cel int into integer", consumer: `
    input: {n: "${{ nodes.p.output.data.n + 1 }}", b: "${{ nodes.p.output.data.n > 1 }}", s: "${{ 'x' + nodes.p.output.data.s }}", l: "${{ [1, 2] }}"}
    contract:
      input: {type: object, properties: {n: {type: integer}, b: {type: boolean}, s: {type: string}, l: {type: array, items: {type: integer}}}}
`},
		{name: "cel int against a bound", consumer: `
    input: {n: "${{ nodes.p.output.data.n + 1 }}"}
    contract:
      input: {type: object, properties: {n: {type: integer, maximum: 5}}}
`, want: []string{`24:5 warning SEAM-W301 edge p → c: UNKNOWN — 'n' may not fit c's contract.input, but the arriving value is only partly known (CEL knows only that "nodes.p.output.data.n + 1" gives an integer).`}},
		{name: "cel whole input", consumer: `
    input: "${{ size(nodes.p.output.data.s) }}"
    contract:
      input: {type: [string, object]}
`, witness: true, want: []string{"24:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a number for the value, a type c does not accept."}},
		{name: "default input compatible", consumer: `
    needs: [p]
    contract:
      input: {type: object, required: [p], properties: {p: {type: object, required: [status, data], properties: {status: {enum: [pass, warn]}, data: {required: [n]}}}}}
`},
		{name: "default input missing key", consumer: `
    needs: [p]
    contract:
      input: {type: object, required: [q]}
`, witness: true, want: []string{"22:3 error SEAM-E301 edge p → c: INCOMPATIBLE — c requires 'q' but its input (its upstream outputs keyed by id) does not provide it."}},
		{name: "default input type", consumer: `
    needs: [p]
    contract:
      input: {type: object, properties: {p: {type: string}}}
`, witness: true, want: []string{"22:3 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce an object for 'p', a type c does not accept."}},
		{name: "default input constraint", consumer: `
    needs: [p]
    contract:
      input: {type: object, properties: {p: {properties: {status: {const: pass}}}}}
`, witness: true, want: []string{`22:3 error SEAM-E303 edge p → c: INCOMPATIBLE — p may produce "warn" for 'p.status', which c's constraints reject.`}},
		{name: "default input run_if always", consumer: `
    needs: [p]
    run_if: always
    contract:
      input: {type: object, required: [p]}
`, witness: true, want: []string{"22:3 error SEAM-E304 edge p → c: INCOMPATIBLE — c requires 'p' but p only may produce it."}},
		{name: "with type", consumer: `
    with: {count: "${{ nodes.p.output.data.s }}", text: "n is ${{ nodes.p.output.data.n }}"}
`, witness: true, want: []string{"24:24 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a string for 'with.count', a type c does not accept."}},
		{name: "with compatible", consumer: `
    with: {count: "${{ nodes.p.output.data.n }}", text: "${{ nodes.p.output.data.s }}"}
`},
		{name: "with whole object", consumer: `
    with: {text: "${{ nodes.p.output.data }}"}
`, witness: true, want: []string{"24:23 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce an object for 'with.text', a type c does not accept."}},
		{name: "list element may be absent", consumer: `
    input: ["${{ nodes.p.output.data.opt }}"]
    contract:
      input: {type: array, minItems: 1}
`, witness: true, want: []string{"24:18 error SEAM-E311 c reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then"}},
		{name: "undeclared in when", consumer: `
    when: "${{ nodes.p.output.data.nope == 1 }}"
`, want: []string{"24:16 error SEAM-E305 nodes.p.output.data.nope: p's output contract does not declare data.nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ds := loadTest(t, head+lintProducer+"  c:\n    type: echo"+tt.consumer)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			got, fs := edgeFindings(d)
			for _, f := range fs {
				if f.HasWitness != tt.witness {
					t.Errorf("has witness %v, want %v", f.HasWitness, tt.witness)
				}
				if f.HasWitness {
					var vs []contract.Violation
					if strings.HasPrefix(tt.name, "with") {
						vs = d.ByID["c"].Config.Validate(f.Witness, "en")
					} else {
						vs = d.ByID["c"].InputContract.Validate(f.Witness, "en")
					}
					if len(vs) == 0 {
						t.Errorf("witness %s passes c's contract", f.WitnessJSON())
					}
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// edgeFindings lints d and returns its findings but the hygiene ones (they have their own
// test), and each as the tests compare them: "line:col severity code message".
func edgeFindings(d *dag.DAG) ([]string, []Finding) {
	var lines []string
	var fs []Finding
	for _, f := range Lint(context.Background(), d, Options{}) {
		if f.Code == CodeNoContract || f.Code == CodeContent || f.Code == CodeAllReq {
			continue
		}
		lines = append(lines, fmt.Sprintf("%d:%d %s %s %s", f.Pos.Line, f.Pos.Col, f.Severity, f.Code, f.Message))
		fs = append(fs, f)
	}
	return lines, fs
}

// TestLintHygiene checks the contract hygiene warnings, each with its message.
func TestLintHygiene(t *testing.T) {
	tests := []struct {
		name string
		src  string // nodes
		want []string
	}{
		{name: "no contract, data read", src: `  p: {type: const, with: {value: {status: pass, summary: s, data: {a: 1}}}}
  c: {type: echo, input: "${{ nodes.p.output.data.a }}"}
`, want: []string{"4:3 SEAM-W302 node p has no output contract beyond the standard one, but c read its output."}},
		{name: "no contract, summary only", src: `  p: {type: const, with: {value: {status: pass, summary: s}}}
  c: {type: echo, with: {text: "${{ nodes.p.output.summary }}"}}
`},
		{name: "no contract, nobody reads", src: `  p: {type: const, with: {value: {status: pass, summary: s}}}
`},
		{name: "type promises its output", src: `  p: {type: echo}
  c: {type: echo, input: "${{ nodes.p.output.data.text }}"}
`},
		{name: "content", src: `  p:
    type: const
    with: {value: {status: pass, summary: s}}
    contract:
      output:
        properties:
          status: {const: pass}
          summary: {type: string, pattern: "^Done"}
          data: {properties: {note: {minLength: 5, maxLength: 5}, code: {minLength: 2, maxLength: 2}, kind: {const: fixed}}}
outputs:
  s: "${{ nodes.p.output.summary }}"
`, want: []string{
			`4:3 SEAM-W303 node p's contract.output constrains content, not structure: 'data.kind' has const "fixed".`,
			`4:3 SEAM-W303 node p's contract.output constrains content, not structure: 'data.note' has minLength == maxLength == 5.`,
			`4:3 SEAM-W303 node p's contract.output constrains content, not structure: 'summary' has pattern "^Done".`,
		}},
		{name: "all required, few read", src: `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {a: 1, b: 2, c: 3}}}
    contract:
      output:
        required: [data]
        properties:
          data: {required: [a, b, c], properties: {a: {}, b: {}, c: {}}}
  c: {type: echo, input: "${{ nodes.p.output.data.a }}"}
`, want: []string{"4:3 SEAM-W304 node p's contract.output requires all 3 fields of 'data', but no consumer reads b, c."}},
		{name: "all required, half read", src: `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {a: 1, b: 2, c: 3}}}
    contract:
      output:
        required: [data]
        properties:
          data: {required: [a, b, c], properties: {a: {}, b: {}, c: {}}}
  c: {type: echo, input: ["${{ nodes.p.output.data.a }}", "${{ nodes.p.output.data.b }}"]}
`},
		{name: "all required, read whole", src: `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {a: 1, b: 2, c: 3}}}
    contract:
      output:
        required: [data]
        properties:
          data: {required: [a, b, c], properties: {a: {}, b: {}, c: {}}}
  c: {type: echo, input: {x: "${{ nodes.p.output.data.a }}", all: "${{ nodes.p.output.data }}"}}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ds := loadTest(t, head+tt.src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Severity != SeverityWarning {
					t.Errorf("%s is a %s, want a warning", f.Code, f.Severity)
				}
				got = append(got, fmt.Sprintf("%d:%d %s %s", f.Pos.Line, f.Pos.Col, f.Code, f.Message))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLintParams checks that known params are their values, and that references to params
// use the params schema otherwise.
func TestLintParams(t *testing.T) {
	src := `version: 1
name: t
params: {type: object, required: [n], properties: {n: {type: integer}}}
nodes:
  c:
    type: echo
    input: {n: "${{ params.n }}"}
    contract:
      input: {type: object, required: [n], properties: {n: {type: integer, maximum: 5}}}
`
	d, ds := loadTest(t, src)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	tests := []struct {
		params map[string]any
		want   string
	}{
		{nil, "edge params → c: INCOMPATIBLE — params may produce 6 for 'n', which c's constraints reject."},
		{map[string]any{"n": json.Number("3")}, ""},
		// Given params are to blame for what the consumer rejects, not the params schema.
		{map[string]any{"n": json.Number("9")}, "param n=9: c's contract.input does not accept it (field 'n' must be ≤ 5)" +
			" / pass a value of n that c's contract.input accepts."},
		{map[string]any{}, "param n is not given: c's contract.input needs it (missing required field: n)" +
			" / pass n, or give it a default in the params schema."},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range Lint(context.Background(), d, Options{Params: tt.params}) {
			if strings.HasPrefix(f.Message, "param ") {
				f.Message += " / " + f.Hint
			}
			got = append(got, f.Message)
		}
		if strings.Join(got, "\n") != tt.want {
			t.Errorf("params %v: findings %q, want %q", tt.params, got, tt.want)
		}
	}
}

// TestLintJapanese checks that messages and fixes come in Japanese.
func TestLintJapanese(t *testing.T) {
	d, ds := loadTest(t, head+lintProducer+`  c:
    type: echo
    needs: [p]
    run_if: always
    contract:
      input: {type: object, required: [p]}
`)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	fs := Lint(context.Background(), d, Options{Lang: "ja"})
	if len(fs) != 1 {
		t.Fatalf("findings %v, want one", fs)
	}
	want := "エッジ p → c: 非互換 — c は 'p' を必要としますが、p はそれを出力する場合があるだけです。"
	wantFix := "p の出力契約で 'p' を必須にするか、間に transform ノードを置いてください。"
	if fs[0].Message != want || fs[0].Hint != wantFix {
		t.Errorf("got %q / %q, want %q / %q", fs[0].Message, fs[0].Hint, want, wantFix)
	}
}

// TestLintJapaneseReason checks that an edge lint cannot prove says the checker's reason in
// the findings' language too.
func TestLintJapaneseReason(t *testing.T) {
	d, ds := loadTest(t, head+lintProducer+`  c:
    type: echo
    input: {o: "${{ nodes.p.output.data.s }}"}
    contract:
      input: {type: object, required: [o], properties: {o: {contentMediaType: application/json}}}
`)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	for _, tt := range []struct {
		lang i18n.Lang
		want string
	}{
		{i18n.English, "cannot prove that 'o' fits c's contract.input: c's contract.input uses contentMediaType, which seam does not compare yet."},
		{i18n.Japanese, "'o' が c の contract.input に適合することを証明できません：c の contract.input は seam がまだ比較できない contentMediaType を使っています。"},
	} {
		fs := Lint(context.Background(), d, Options{Lang: tt.lang})
		if len(fs) != 1 || fs[0].Code != CodeUnknown || !strings.Contains(fs[0].Message, tt.want) {
			t.Errorf("%s: findings %v, want one %s saying %q", tt.lang, fs, CodeUnknown, tt.want)
		}
	}
}

// TestCELSchema checks the schemas CEL's types map to.
func TestCELSchema(t *testing.T) {
	// The expressions name params only; the loader's environment declares it the same way.
	env, err := cel.NewEnv(cel.Variable("params", cel.MapType(cel.StringType, cel.DynType)))
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"1 + 2":                             `{"type":"integer"}`,
		"1u":                                `{"minimum":0,"type":"integer"}`,
		"1.5 * 2.0":                         `{"type":"number"}`,
		"'a' + 'b'":                         `{"type":"string"}`,
		"params.x == 1":                     `{"type":"boolean"}`,
		"null":                              `{"type":"null"}`,
		"[1, 2]":                            `{"items":{"type":"integer"},"type":"array"}`,
		"{'a': true}":                       `{"additionalProperties":{"type":"boolean"},"type":"object"}`,
		"timestamp('2024-01-01T00:00:00Z')": `{"type":"string"}`,
		"params.x":                          `null`,
		"b'x'":                              `null`,
	}
	for src, want := range tests {
		checked, iss := env.Compile(src)
		if iss != nil && iss.Err() != nil {
			t.Fatalf("%s: %v", src, iss.Err())
		}
		got, _ := json.Marshal(celSchema(checked.OutputType(), 0))
		if string(got) != want {
			t.Errorf("%s: %s, want %s", src, got, want)
		}
	}
}

// TestExcludesType checks when a type keyword rejects every value of a CEL-typed result.
func TestExcludesType(t *testing.T) {
	tests := []struct {
		kw   any
		name string
		want bool
	}{
		{"string", "integer", true},
		{"number", "integer", false},
		{"integer", "number", false}, // 2.0 reads as an integer
		{[]any{"string", "null"}, "boolean", true},
		{[]any{"string", "boolean"}, "boolean", false},
		{nil, "string", false},
		{[]any{1}, "string", false},
	}
	for _, tt := range tests {
		if got := excludesType(tt.kw, tt.name); got != tt.want {
			t.Errorf("excludesType(%v, %s) = %v, want %v", tt.kw, tt.name, got, tt.want)
		}
	}
}

// TestLintTrust checks when an incompatible answer is trusted although part of the arriving
// value is only partly known.
func TestLintTrust(t *testing.T) {
	tests := []struct {
		name, consumer, code string
	}{
		{"missing key beside an unknown one", `
    input: {o: "${{ has(nodes.p.output.data.n) ? nodes.p.output.data.n : 0 }}"}
    contract:
      input: {type: object, required: [o, m]}
`, CodeRequired},
		{"key not allowed beside an unknown one", `
    input: {o: "${{ has(nodes.p.output.data.n) ? nodes.p.output.data.n : 0 }}", x: 1}
    contract:
      input: {type: object, properties: {o: true}, additionalProperties: false}
`, CodeConstraint},
		{"cross-field keyword", `
    input: {o: "${{ has(nodes.p.output.data.n) ? nodes.p.output.data.n : 0 }}", x: 1}
    contract:
      input: {type: object, properties: {x: {const: 2}}, minProperties: 1}
`, CodeUnknown},
		{"cel type into a typed member", `
    input: {o: {deep: "${{ size(nodes.p.output.data.s) }}"}}
    contract:
      input: {type: object, properties: {o: {type: object, properties: {deep: {type: [string, "null"]}}}}}
`, CodeType},
		{"cel type into an untyped member", `
    input: {o: "${{ size(nodes.p.output.data.s) }}"}
    contract:
      input: {type: object, properties: {o: {not: {type: integer}}}}
`, CodeUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ds := loadTest(t, head+lintProducer+"  c:\n    type: echo"+tt.consumer)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			fs := Lint(context.Background(), d, Options{})
			if len(fs) != 1 || fs[0].Code != tt.code {
				t.Fatalf("findings %v, want one %s", fs, tt.code)
			}
		})
	}
}

// TestLintEnv checks that a value read from env is a non-empty string: it fits a string
// and refutes a number.
func TestLintEnv(t *testing.T) {
	tests := []struct {
		input string
		want  string // substring of the one finding; "" for none
	}{
		{`{type: string, minLength: 1}`, ""},
		{`{type: integer}`, "INCOMPATIBLE"},
	}
	for _, tt := range tests {
		d, ds := loadTest(t, `version: 1
name: t
env: [TOKEN]
nodes:
  c:
    type: echo
    input: {token: "${{ env.TOKEN }}"}
    contract:
      input: {type: object, required: [token], properties: {token: `+tt.input+`}}
`)
		if ds != nil {
			t.Fatalf("load: %v", ds)
		}
		var got []string
		for _, f := range Lint(context.Background(), d, Options{}) {
			got = append(got, f.Message)
		}
		if tt.want == "" && len(got) > 0 || tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)) {
			t.Errorf("token %s: findings %q, want %q", tt.input, got, tt.want)
		}
	}
}

// TestLintFieldNotation checks that lint names a field inside an array as run messages do,
// recommendations[0].effort, in both languages, and a member whose name is digits as a member.
func TestLintFieldNotation(t *testing.T) {
	d, ds := loadTest(t, head+`  p:
    type: const
    with: {value: {status: pass, summary: s, recommendations: [], byrank: {}}}
    contract:
      output:
        type: object
        required: [recommendations, byrank]
        properties:
          recommendations: {type: array, items: {type: object, properties: {effort: {type: string}}}}
          byrank: {type: object, required: ["1"], properties: {"1": {type: object, properties: {effort: {type: string}}}}}
  c:
    type: echo
    input: "${{ nodes.p.output }}"
    contract:
      input:
        type: object
        properties:
          recommendations: {type: array, items: {type: object, required: [effort], properties: {effort: {type: integer}}}}
  e:
    type: echo
    input: "${{ nodes.p.output }}"
    contract:
      input:
        type: object
        properties:
          byrank: {type: object, properties: {"1": {type: object, properties: {effort: {type: integer}}}}}
`)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	tests := []struct{ lang, want string }{
		{"en", "'recommendations[0].effort'"},
		{"ja", "'recommendations[0].effort'"},
		{"en", "'byrank.1.effort'"},
	}
	var all []string
	for _, lang := range []string{"en", "ja"} {
		for _, f := range Lint(context.Background(), d, Options{Lang: i18n.Lang(lang)}) {
			all = append(all, lang+": "+f.Message)
		}
	}
	for _, tc := range tests {
		found := false
		for _, m := range all {
			found = found || strings.HasPrefix(m, tc.lang+": ") && strings.Contains(m, tc.want)
		}
		if !found {
			t.Errorf("%s: no finding names %s: %q", tc.lang, tc.want, all)
		}
	}
}
