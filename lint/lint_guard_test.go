package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes/nodestest"
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
		// A run finds has() of a member of a string (or null) false.
		{"has of a string's member", `when: "${{ has(nodes.p.output.data.m.k) }}"`, ""},
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

// guardProducer is node p1 (line 4) of issue 42 §4: data requires n (an integer), s (a
// string), tags (strings) and m (a string or null: merged_at), and may hold code (a string).
const guardProducer = `  p1:
    type: const
    with: {value: {status: pass, summary: ok, data: {n: 3, s: a, tags: [x], m: null}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [n, s, tags, m]
            properties:
              n: {type: integer}
              s: {type: string}
              tags: {type: array, items: {type: string}}
              m: {type: [string, "null"]}
              code: {type: string}
`

// TestLintGuardsNarrow: a node's when narrows what its producers may deliver before its
// edges are proved, as a type checker narrows after `if x != nil`, so that a consumer gets
// no error for exactly the values its guard skips. Each case is node c (line 22): its when
// (line 24), and its input (line 25) or with, checked against its contract's member a (or
// echo's config). Forms that narrow nothing leave the error.
func TestLintGuardsNarrow(t *testing.T) {
	const read = "\n    input: {a: \"${{ nodes.p1.output.data.%s }}\"}\n    contract: {input: {type: object, required: [a], properties: {a: %s}}}"
	tests := []struct {
		name, when, member, schema string
		want                       string // the findings but hygiene's, as String() writes them
	}{
		{"size above 0", "size(nodes.p1.output.data.tags) > 0", "tags", "{type: array, minItems: 1}", ""},
		{"size at least 2", "size(nodes.p1.output.data.tags) >= 2", "tags", "{type: array, minItems: 2}", ""},
		{"size written backwards", "0 < nodes.p1.output.data.tags.size()", "tags", "{type: array, minItems: 1}", ""},
		{"size of a string", "size(nodes.p1.output.data.s) > 0", "s", "{type: string, minLength: 1}", ""},
		{"bound", "nodes.p1.output.data.n > 2", "n", "{type: integer, minimum: 3}", ""},
		{"bound written backwards", "2 < nodes.p1.output.data.n", "n", "{type: integer, minimum: 3}", ""},
		{"negated bound", "!(nodes.p1.output.data.n <= 2)", "n", "{type: integer, minimum: 3}", ""},
		{"not a value", "nodes.p1.output.data.s != 'zzz'", "s", "{type: string, not: {const: zzz}}", ""},
		{"one of two values", "nodes.p1.output.data.s == 'a' || nodes.p1.output.data.s == 'b'", "s", "{enum: [a, b]}", ""},
		{"in a list", "nodes.p1.output.data.s in ['a', 'b']", "s", "{enum: [a, b]}", ""},
		{"and", "size(nodes.p1.output.data.tags) > 0 && nodes.p1.output.data.n > 2", "tags", "{type: array, minItems: 1}", ""},
		{"not null", "nodes.p1.output.data.m != null", "m", "{type: string}", ""},
		{"has", "has(nodes.p1.output.data.code)", "code", "{type: string}", ""},
		{"has and a value", "has(nodes.p1.output.data.code) && nodes.p1.output.data.code == 'x'", "code", "{const: x}", ""},
		{"bound too low", "nodes.p1.output.data.n > 1", "n", "{type: integer, minimum: 3}",
			"testdata/t.yaml:24:5: error SEAM-E303 edge p1 → c: INCOMPATIBLE — p1 may produce 2 for 'a', which c's constraints reject.\n" +
				"  witness: {\"a\":2}\n" +
				"  fix: narrow 'a' in p1's output contract to fit c's contract.input, or widen that contract."},
		{"or of two producers' facts", "nodes.p1.output.data.n > 2 || nodes.p1.output.status == 'warn'", "n", "{type: integer, minimum: 3}",
			"testdata/t.yaml:24:5: error SEAM-E303 edge p1 → c: INCOMPATIBLE — p1 may produce 0 for 'a', which c's constraints reject.\n" +
				"  witness: {\"a\":0}\n" +
				"  fix: narrow 'a' in p1's output contract to fit c's contract.input, or widen that contract."},
		{"arithmetic narrows nothing", "nodes.p1.output.data.n * 2 > 4", "n", "{type: integer, minimum: 3}",
			"testdata/t.yaml:24:5: error SEAM-E303 edge p1 → c: INCOMPATIBLE — p1 may produce 0 for 'a', which c's constraints reject.\n" +
				"  witness: {\"a\":0}\n" +
				"  fix: narrow 'a' in p1's output contract to fit c's contract.input, or widen that contract."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + guardProducer + "  c:\n    type: echo\n    when: \"${{ " + tt.when + " }}\"" + fmt.Sprintf(read, tt.member, tt.schema) + "\n"
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Code != CodeNoContract && f.Code != CodeAllReq {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}

// TestLintGuardsNarrowWith: the narrowing holds for every place a node reads: with (echo's
// text is a string: merged_at, guarded not null) and a foreach list.
func TestLintGuardsNarrowWith(t *testing.T) {
	tests := []struct {
		name, node string
		want       string
	}{
		{"with", "when: \"${{ nodes.p1.output.data.m != null }}\"\n    with: {text: \"${{ nodes.p1.output.data.m }}\"}", ""},
		{"with unguarded", "with: {text: \"${{ nodes.p1.output.data.m }}\"}",
			"testdata/t.yaml:23:23: error SEAM-E302 edge p1 → c: INCOMPATIBLE — p1 may produce null for 'with.text', a type c does not accept.\n" +
				"  witness: {\"text\":null}\n" +
				"  fix: make the types of 'with.text' agree in both contracts, or put a transform node between them."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ds := loadTest(t, head+guardProducer+"  c:\n    type: echo\n    "+tt.node+"\n")
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Code != CodeNoContract && f.Code != CodeAllReq {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}

// TestLintWitnessDeliverable: lint prints a witness only when its producers may deliver it,
// by their contracts with the files they refer to (issue 42 §5): here o's schema is behind an
// anchor in shared.json, which validation follows and the checker does not, so the value it
// builds for data holds o: null; the error on b stands, and says there is no witness.
func TestLintWitnessDeliverable(t *testing.T) {
	dir := t.TempDir()
	shared := `{"$defs": {"o": {"$anchor": "o", "type": "object", "required": ["k"], "properties": {"k": {"type": "string"}}}}}`
	if err := os.WriteFile(filepath.Join(dir, "shared.json"), []byte(shared), 0o600); err != nil {
		t.Fatal(err)
	}
	src := head + `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {o: {k: a}, n: 1}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [o, n]
            properties:
              o: {$ref: "shared.json#o"}
              n: {type: integer}
  c:
    type: echo
    input: {a: "${{ nodes.p.output.data }}", b: "${{ nodes.p.output.data.n }}"}
    contract: {input: {type: object, required: [a, b], properties: {a: {type: object}, b: {type: string}}}}
`
	tests := []struct {
		lang i18n.Lang
		want string
	}{
		{i18n.English, "t.yaml:20:5: error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a number for 'b', a type c does not accept. (no witness: the value lint built is one p cannot deliver)\n" +
			"  fix: make the types of 'b' agree in both contracts, or put a transform node between them."},
		{i18n.Japanese, "（反例なし：lint が作った値は p が返せないものです）"},
	}
	for _, tt := range tests {
		d, err := dag.LoadBytes(context.Background(), filepath.Join(dir, "t.yaml"), []byte(src), dag.LoadOptions{Types: nodestest.LoadTypes()})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range Lint(context.Background(), d, Options{Lang: tt.lang}) {
			if f.Severity == SeverityError {
				got = append(got, strings.TrimPrefix(f.String(), dir+"/"))
			}
		}
		if len(got) != 1 || !strings.Contains(got[0], tt.want) {
			t.Errorf("%s: findings\n%s\nwant one with\n%s", tt.lang, strings.Join(got, "\n"), tt.want)
		}
	}
}

// TestLintAbsentWitnessThroughWhen: the witness of a read a producer may leave out is one the
// node's when lets through, so that a run with it reaches the read: here the when needs b,
// and the witness has b but not a.
func TestLintAbsentWitnessThroughWhen(t *testing.T) {
	src := head + `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {a: x, b: 1}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data: {type: object, properties: {a: {type: string}, b: {type: integer, minimum: 3}}}
  c:
    type: echo
    when: "${{ has(nodes.p.output.data.b) && nodes.p.output.data.b > 4 }}"
    with: {text: "${{ nodes.p.output.data.a }}"}
`
	d, ds := loadTest(t, src)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	var got []Finding
	for _, f := range Lint(context.Background(), d, Options{}) {
		if f.Code == CodeAbsent {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("findings %v, want one SEAM-E311", got)
	}
	b, ok := contract.Lookup(got[0].Witness, []string{"data", "b"})
	n, err := strconv.ParseFloat(fmt.Sprint(b), 64)
	if _, hasA := contract.Lookup(got[0].Witness, []string{"data", "a"}); !ok || hasA || err != nil || n <= 4 {
		t.Errorf("witness %s: want data.b above 4 and no data.a", got[0].WitnessJSON())
	}
	if vs := d.ByID["p"].Effective.Validate(got[0].Witness, "en"); len(vs) > 0 {
		t.Errorf("witness %s fails p's contract: %v", got[0].WitnessJSON(), vs)
	}
}
