package dag

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// nestedItems is a schema in YAML flow style whose items nest depth levels below it.
func nestedItems(depth int) string {
	return strings.Repeat("{items: ", depth) + "{type: string}" + strings.Repeat("}", depth)
}

// TestLoadLimits: schemas and numbers beyond contract's limits are load errors with their own
// code, at the place in the file that goes past the limit.
func TestLoadLimits(t *testing.T) {
	dir := t.TempDir()
	deepFile := strings.Repeat(`{"items":`, contract.MaxSchemaDepth+1) + "{}" + strings.Repeat("}", contract.MaxSchemaDepth+1)
	if err := os.WriteFile(filepath.Join(dir, "deep.json"), []byte(deepFile), 0o644); err != nil {
		t.Fatal(err)
	}
	deepPtr := strings.Repeat("/items", contract.MaxSchemaDepth+1)
	// What nests too deep is the 66th mapping, at column 23 + 8·65 of line 7.
	tests := []struct {
		name string
		src  string
		want []string
	}{{
		name: "inline schema at the depth limit",
		src:  head + "  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    contract: {input: " + nestedItems(contract.MaxSchemaDepth) + "}\n",
	}, {
		name: "inline schema too deep",
		src:  head + "  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    contract: {input: " + nestedItems(contract.MaxSchemaDepth+1) + "}\n",
		want: []string{`7:543 SEAM-E120 node "a" contract.input: schema beyond seam's limits: at ` + deepPtr + `: subschemas nest more than 64 levels deep`},
	}, {
		name: "schema file too deep",
		src:  head + "  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    contract: {output: deep.json}\n",
		want: []string{`7:24 SEAM-E120 node "a" contract.output: schema beyond seam's limits: deep.json at ` + deepPtr + `: subschemas nest more than 64 levels deep`},
	}, {
		name: "number in an inline schema",
		src:  head + "  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    contract:\n      output: {properties: {n: {maximum: 1e-10000000}}}\n",
		want: []string{`8:42 SEAM-E120 node "a" contract.output: number 1e-10000000 has an exponent beyond seam's limit of ±1000`},
	}, {
		name: "number in an input",
		src:  head + "  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    input: {n: [1, -1E-1001]}\n",
		want: []string{`7:20 SEAM-E120 number -1E-1001 has an exponent beyond seam's limit of ±1000`},
	}, {
		// YAML reads a number beyond float64 as a string: nothing for validation to compare.
		name: "too many digits for YAML",
		src:  head + "  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    input: {n: 1" + strings.Repeat("0", contract.MaxNumberDigits) + "}\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadBytes(context.Background(), filepath.Join(dir, "t.yaml"), []byte(tt.src), LoadOptions{Types: loadTestTypes()})
			var ds Diagnostics
			if err != nil && !errors.As(err, &ds) {
				t.Fatalf("LoadBytes: %v", err)
			}
			var got []string
			for _, d := range ds {
				got = append(got, brief(d))
				if d.Hint == "" {
					t.Errorf("no hint: %s", d)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestRunNumberBeyondLimits: an exec node printing a number jsonschema cannot compare (it
// used to panic on it, taking the process down) fails that node with a violation naming the
// number, in the run's language; the rest of the run goes on.
func TestRunNumberBeyondLimits(t *testing.T) {
	noLeaks(t)
	many := strings.TrimSuffix(strings.Repeat("1e999999,", 20), ",")
	d := load(t, newRecorder(), `version: 1
name: numbers
nodes:
  tiny:
    type: exec
    with: {command: [sh, -c, 'echo "{\"status\":\"pass\",\"summary\":\"x\",\"data\":{\"n\":1e-10000000}}"']}
    contract:
      output: {properties: {data: {properties: {n: {maximum: 1}}}}}
  many:
    type: exec
    with: {command: [sh, -c, 'echo "{\"status\":\"pass\",\"summary\":\"x\",\"data\":{\"n\":[`+many+`]}}"']}
    contract:
      output: {properties: {data: {properties: {n: {items: {maximum: 1}}}}}}
  other: {type: const, with: {value: {status: pass, summary: fine}}}
`)
	for _, l := range []struct{ lang, tiny, many string }{
		{"en", "field 'data.n' is a number beyond seam's limits: its exponent must be between -1000 and 1000",
			"field 'data.n[0]' is a number beyond seam's limits: its exponent must be between -1000 and 1000"},
		{"ja", "フィールド 'data.n' は seam の上限を超える数値です：指数は -1000 から 1000 の範囲である必要があります", ""},
	} {
		res := mustRun(t, d, RunOptions{Lang: l.lang})
		if res.Status != RunFailed || node(t, res, "other").Status != NodePassed {
			t.Errorf("%s: run %s, other %s", l.lang, res.Status, node(t, res, "other").Status)
		}
		want := []contract.Violation{{Pointer: "/data/n", Value: "1e-10000000", Message: l.tiny}}
		if n := node(t, res, "tiny"); n.Status != NodeFailed || !reflect.DeepEqual(n.Violations, want) {
			t.Errorf("%s: tiny %s %+v", l.lang, n.Status, n.Violations)
		}
		if n := node(t, res, "many"); l.many != "" && (n.Status != NodeFailed || len(n.Violations) != 1 ||
			n.Violations[0].Message != l.many || n.Violations[0].Pointer != "/data/n/0") {
			t.Errorf("%s: many %s %+v", l.lang, n.Status, n.Violations)
		}
	}
}

// TestRunInputViolationWording: a node's input that breaks its contract.input is spoken of as
// the input, not the output.
func TestRunInputViolationWording(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), `version: 1
name: input
nodes:
  a:
    type: probe
    input: [1]
    contract: {input: {type: object}}
`)
	for lang, want := range map[string]struct{ reason, message string }{
		"en": {"input breaks its contract", "the input must be an object, got array"},
		"ja": {"入力が契約に違反しています", "入力はオブジェクトが必要ですが、配列が指定されています"},
	} {
		res := mustRun(t, d, RunOptions{Lang: lang})
		n := node(t, res, "a")
		if n.Status != NodeFailed || n.Reason != want.reason || len(n.Violations) != 1 || n.Violations[0].Message != want.message {
			t.Errorf("%s: %s %q %+v, want %q, %q", lang, n.Status, n.Reason, n.Violations, want.reason, want.message)
		}
	}
}
