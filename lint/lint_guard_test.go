package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// nullProducer is node p (line 4): data requires o (an object, or null), l (a list of
// strings, or null) and m (a string, or null: GitHub's merged_at).
const nullProducer = `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {o: {k: a}, l: [x], m: "2026-01-01"}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [o, l, m]
            properties:
              o: {type: [object, "null"], properties: {k: {type: string}}}
              l: {type: [array, "null"], items: {type: string}}
              m: {type: [string, "null"]}
`

// TestLintNullOperand: an operator or function that cannot take null (size) applied to a
// reference whose schema allows null beside another type is an error with a witness, the
// producer's output holding null there, unless a guard excludes null where it is read: a
// conditional, && or the node's when, testing != null, has() of a member, or a size.
func TestLintNullOperand(t *testing.T) {
	const fix = "  fix: guard the read: `nodes.p.output.data.o != null ? … : <default>` (or test it in the node's when), or declare nodes.p.output.data.o never null in p's output contract"
	tests := []struct {
		name     string
		consumer string // node c's when and input, from line 18
		want     string // the finding as String() writes it; "" for none
	}{
		{"size in when", `when: "${{ size(nodes.p.output.data.o) > 0 }}"`,
			"testdata/t.yaml:21:20: error SEAM-E313 ${{ size(nodes.p.output.data.o) > 0 }} fails when p delivers null for nodes.p.output.data.o, which its contract allows: found no matching overload for 'size' applied to '(null)'\n" +
				"  witness: {\"data\":{\"l\":null,\"m\":\"\",\"o\":null},\"status\":\"pass\",\"summary\":\"a\"}\n" + fix},
		{"size in input", `input: {v: "${{ size(nodes.p.output.data.o) }}"}`,
			"testdata/t.yaml:21:25: error SEAM-E313 ${{ size(nodes.p.output.data.o) }} fails when p delivers null for nodes.p.output.data.o, which its contract allows: found no matching overload for 'size' applied to '(null)'\n" +
				"  witness: {\"data\":{\"l\":null,\"m\":\"\",\"o\":null},\"status\":\"pass\",\"summary\":\"a\"}\n" + fix},
		{"conditional", `input: {v: "${{ nodes.p.output.data.o != null ? size(nodes.p.output.data.o) : 0 }}"}`, ""},
		{"and", `when: "${{ nodes.p.output.data.o != null && size(nodes.p.output.data.o) > 0 }}"`, ""},
		{"has of a member", `when: "${{ nodes.p.output.data.o != null && has(nodes.p.output.data.o.k) && size(nodes.p.output.data.o) > 0 }}"`, ""},
		{"when not null", "when: \"${{ nodes.p.output.data.o != null }}\"\n    input: {v: \"${{ size(nodes.p.output.data.o) }}\"}", ""},
		{"when has", "when: \"${{ nodes.p.output.data.o != null && has(nodes.p.output.data.o.k) }}\"\n    input: {v: \"${{ size(nodes.p.output.data.o) }}\"}", ""},
		{"when size", "when: \"${{ nodes.p.output.data.l != null && size(nodes.p.output.data.l) > 1 }}\"\n    input: {v: \"${{ nodes.p.output.data.l.exists(x, x == 'a') }}\"}", ""},
		{"equality with null", `when: "${{ nodes.p.output.data.m == null }}"`, ""},
		{"string method", `when: "${{ nodes.p.output.data.m.startsWith('2026') }}"`,
			"testdata/t.yaml:21:48: error SEAM-E313 ${{ nodes.p.output.data.m.startsWith('2026') }} fails when p delivers null for nodes.p.output.data.m, which its contract allows: found no matching overload for 'startsWith' applied to 'null.(string)'\n" +
				"  witness: {\"data\":{\"l\":null,\"m\":null,\"o\":{}},\"status\":\"pass\",\"summary\":\"a\"}\n" +
				"  fix: guard the read: `nodes.p.output.data.m != null ? … : <default>` (or test it in the node's when), or declare nodes.p.output.data.m never null in p's output contract"},
		{"guarded string method", `when: "${{ nodes.p.output.data.m != null && nodes.p.output.data.m.startsWith('2026') }}"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ds := loadTest(t, head+nullProducer+"  c:\n    type: echo\n    "+tt.consumer+"\n")
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Code == CodeNoContract || f.Code == CodeAllReq {
					continue
				}
				got = append(got, f.String())
				if f.HasWitness {
					if vs := d.ByID["p"].Effective.Validate(f.Witness, "en"); len(vs) > 0 {
						t.Errorf("witness %s fails p's contract: %v", f.WitnessJSON(), vs)
					}
					// The witness holds null where the message says.
					at := f.Message[strings.Index(f.Message, "null for nodes.p.output.")+len("null for nodes.p.output."):]
					at = at[:strings.Index(at, ",")]
					if v, ok := contract.Lookup(f.Witness, strings.Split(at, ".")); !ok || v != nil {
						t.Errorf("witness %s does not hold null at %s", f.WitnessJSON(), at)
					}
				}
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}
