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
	"github.com/seam-dag/seam/nodes/nodestest"
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
			_, err := LoadBytes(context.Background(), filepath.Join(dir, "t.yaml"), []byte(tt.src), LoadOptions{Types: nodestest.LoadTypes()})
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

// TestLoadLimitsJapanese: the SEAM-E120 messages are said in LoadOptions.Lang, the reason of
// the limit too.
func TestLoadLimitsJapanese(t *testing.T) {
	deepPtr := strings.Repeat("/items", contract.MaxSchemaDepth+1)
	tests := []struct {
		name string
		src  string
		want []string
	}{{
		name: "inline schema too deep",
		src:  head + "  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    contract: {input: " + nestedItems(contract.MaxSchemaDepth+1) + "}\n",
		want: []string{`7:543 SEAM-E120 ノード "a" の contract.input：スキーマが seam の上限を超えています：` + deepPtr + ` で：サブスキーマの入れ子が 64 段を超えています`},
	}, {
		name: "number in an inline schema",
		src:  head + "  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    contract:\n      output: {properties: {n: {maximum: 1e-10000000}}}\n",
		want: []string{`8:42 SEAM-E120 ノード "a" の contract.output：数値 1e-10000000 の指数が seam の上限 ±1000 を超えています`},
	}, {
		name: "number in an input",
		src:  head + "  a:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    input: {n: [1, -1E-1001]}\n",
		want: []string{`7:20 SEAM-E120 数値 -1E-1001 の指数が seam の上限 ±1000 を超えています`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadBytes(context.Background(), filepath.Join(t.TempDir(), "t.yaml"), []byte(tt.src), LoadOptions{Types: nodestest.LoadTypes(), Lang: "ja"})
			var ds Diagnostics
			if err != nil && !errors.As(err, &ds) {
				t.Fatalf("LoadBytes: %v", err)
			}
			var got []string
			for _, d := range ds {
				got = append(got, brief(d))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
