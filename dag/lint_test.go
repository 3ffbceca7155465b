package dag

import (
	"context"
	"strings"
	"testing"
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
`, code: CodeLintRequired, severity: SeverityError, witness: true,
			message: "edge p → c: INCOMPATIBLE — c requires 'priority' but p does not produce it."},
		{name: "required mapping key", consumer: `
    input: {n: "${{ nodes.p.output.data.n }}"}
    contract:
      input: {type: object, required: [n, m]}
`, code: CodeLintRequired, severity: SeverityError, witness: true,
			message: "edge p → c: INCOMPATIBLE — c requires 'm' but its input does not provide it."},
		{name: "type", consumer: `
    input: {n: "${{ nodes.p.output.data.n }}"}
    contract:
      input: {type: object, properties: {n: {type: string}}}
`, code: CodeLintType, severity: SeverityError, witness: true,
			message: "edge p → c: INCOMPATIBLE — p may produce a number for 'n', a type c does not accept."},
		{name: "constraint", consumer: `
    input: {n: "${{ nodes.p.output.data.n }}"}
    contract:
      input: {type: object, properties: {n: {type: integer, maximum: 5}}}
`, code: CodeLintConstraint, severity: SeverityError, witness: true,
			message: "which c's constraints reject."},
		{name: "optional", consumer: `
    input: {o: "${{ nodes.p.output.data.opt }}"}
    contract:
      input: {type: object, required: [o]}
`, code: CodeLintOptional, severity: SeverityError, witness: true,
			message: "c requires 'o' but p only may produce it."},
		{name: "unknown field elsewhere", consumer: `
    input: {o: "${{ nodes.p.output.data.opt }}", x: "${{ nodes.p.output.data.n + 1 }}"}
    contract:
      input: {type: object, required: [o]}
`, code: CodeLintOptional, severity: SeverityError, witness: true,
			message: "c requires 'o' but p only may produce it."},
		{name: "unknown field at fault", consumer: `
    input: {o: "${{ nodes.p.output.data.opt }}", x: "${{ nodes.p.output.data.n + 1 }}"}
    contract:
      input: {type: object, properties: {x: {type: string}}}
`, code: CodeLintUnknown, severity: SeverityWarning,
			message: "'x' may not fit c's contract.input, but the arriving value is only partly known (the expression \"nodes.p.output.data.n + 1\" is not a plain path)."},
		{name: "through a $ref", consumer: `
    input: {k: "${{ nodes.p.output.data.r.k }}"}
    contract:
      input: {type: object, required: [k], properties: {k: {type: string}}}
`, code: CodeLintOptional, severity: SeverityError, witness: true,
			message: "c requires 'k' but p only may produce it."},
		{name: "undeclared", consumer: `
    input: {x: "${{ nodes.p.output.data.nope }}"}
    contract:
      input: {type: object}
`, code: CodeLintUndeclared, severity: SeverityError,
			message: "nodes.p.output.data.nope: p's output contract does not declare data.nope"},
		{name: "unknown", consumer: `
    input: {n: "${{ nodes.p.output.data.n + 1 }}"}
    contract:
      input: {type: object, properties: {n: {type: string}}}
`, code: CodeLintUnknown, severity: SeverityWarning,
			message: "edge p → c: UNKNOWN — 'n' may not fit c's contract.input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + lintProducer + "  c:\n    type: echo" + tt.consumer
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			fs := Lint(context.Background(), d)
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
			if tt.code != CodeLintUndeclared && f.Pos.Line != 24 {
				t.Errorf("position %+v, want the input key on line 24", f.Pos)
			}
		})
	}
}

func TestLintStringOutput(t *testing.T) {
	f := Finding{Pos: Pos{File: "f.yaml", Line: 3, Col: 5}, Severity: SeverityError, Code: CodeLintRequired,
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
		p := project(src, src, tt.path, 0)
		if p.present() != tt.present || p.inexact != tt.inexact || p.undeclared != -1 {
			t.Errorf("%v: present %v inexact %v undeclared %d, want %v %v -1", tt.path, p.present(), p.inexact, p.undeclared, tt.present, tt.inexact)
		}
	}
}
