package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// absentProducer is node p (line 4): data requires n, l (a list of at least one integer), o
// (an object requiring k, or null), u (one of two objects, one with a, one with b) and r (a
// $ref into $defs requiring k, declaring m); it may emit opt.
const absentProducer = `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {n: 1, l: [1], o: {k: a}, u: {a: x}, r: {k: y}}}}
    contract:
      output:
        $defs: {r: {type: object, required: [k], properties: {k: {type: string}, m: {type: string}}}}
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [n, l, o, u, r]
            properties:
              n: {type: integer}
              opt: {type: string}
              l: {type: array, minItems: 1, items: {type: integer}}
              o: {type: [object, "null"], required: [k], properties: {k: {type: string}}}
              u: {anyOf: [{type: object, required: [a], properties: {a: {type: string}}}, {type: object, required: [b], properties: {b: {type: string}}}]}
              r: {$ref: "#/$defs/r"}
`

// TestLintAbsent covers SEAM-E311, a read of a path the producer may leave out, for each
// shape of absence and each guard lint understands. Each case is the nodes (and outputs)
// after absentProducer (from line 23) and every finding but hygiene; each witness must be a
// value p's contract accepts in which the path cannot be read.
func TestLintAbsent(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{name: "optional member", src: `  c:
    type: echo
    with: {text: "${{ nodes.p.output.data.opt }}"}
`, want: []string{"25:23 error SEAM-E311 c reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then"}},
		{name: "required members", src: `  c:
    type: echo
    with: {text: "${{ nodes.p.output.data.r.k }}", count: "${{ nodes.p.output.data.l[0] }}"}
`},
		{name: "one anyOf branch", src: `  c:
    type: echo
    input: {t: "${{ nodes.p.output.data.u.a }}"}
`, want: []string{"25:21 error SEAM-E311 c reads nodes.p.output.data.u.a, but p may deliver an output without it; the run fails then"}},
		{name: "index past minItems", src: `  c:
    type: echo
    with: {count: "${{ nodes.p.output.data.l[1] }}"}
`, want: []string{"25:24 error SEAM-E311 c reads nodes.p.output.data.l[1], but p may deliver nodes.p.output.data.l with 1 items, too few for [1]; the run fails then"}},
		{name: "nullable object walked", src: `  c:
    type: echo
    with: {text: "${{ nodes.p.output.data.o.k }}"}
`, want: []string{"25:23 error SEAM-E311 c reads nodes.p.output.data.o.k, but p may deliver nodes.p.output.data.o as null, without 'k'; the run fails then"}},
		{name: "member behind a $ref into $defs", src: `  c:
    type: echo
    with: {text: "${{ nodes.p.output.data.r.m }}"}
`, want: []string{"25:23 error SEAM-E311 c reads nodes.p.output.data.r.m, but p may deliver an output without it; the run fails then"}},
		{name: "in text, input and when", src: `  c:
    type: echo
    when: "${{ nodes.p.output.data.opt == 'x' || nodes.p.output.data.n > 0 }}"
    input: {o: "${{ nodes.p.output.data.opt }}"}
    with: {text: "opt is ${{ nodes.p.output.data.opt }}"}
`, want: []string{
			"25:16 error SEAM-E311 c reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then",
			"26:21 error SEAM-E311 c reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then",
			"27:30 error SEAM-E311 c reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then",
		}},
		// A when that compares opt guarantees it is there when the node runs: only the when's
		// own read is reported (issue 42 §4).
		{name: "after a when that reads it", src: `  c:
    type: echo
    when: "${{ nodes.p.output.data.opt == 'x' }}"
    input: {o: "${{ nodes.p.output.data.opt }}"}
    with: {text: "opt is ${{ nodes.p.output.data.opt }}"}
`, want: []string{
			"25:16 error SEAM-E311 c reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then",
		}},
		{name: "an input contract that requires it is not E304 too", src: `  c:
    type: echo
    input: {o: "${{ nodes.p.output.data.opt }}"}
    contract:
      input: {type: object, required: [o]}
`, want: []string{"25:21 error SEAM-E311 c reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then"}},
		{name: "a DAG output", src: `outputs:
  o: "${{ nodes.p.output.data.opt }}"
`, want: []string{"24:11 error SEAM-E311 the DAG's output o reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then"}},
		{name: "has() and a conditional", src: `  c:
    type: echo
    input: {t: "${{ has(nodes.p.output.data.opt) ? nodes.p.output.data.opt : 'none' }}"}
`},
		{name: "negated has() and a conditional", src: `  c:
    type: echo
    input: {t: "${{ !has(nodes.p.output.data.u.a) ? 'none' : nodes.p.output.data.u.a }}"}
`},
		{name: "has() and &&", src: `  c:
    type: echo
    when: "${{ has(nodes.p.output.data.opt) && nodes.p.output.data.opt == 'x' }}"
`},
		{name: "has() in when", src: `  c:
    type: echo
    when: "${{ has(nodes.p.output.data.opt) }}"
    input: {o: "${{ nodes.p.output.data.opt }}"}
    with: {text: "${{ nodes.p.output.data.opt }}"}
    contract:
      input: {type: object, required: [o]}
`},
		{name: "has() of another path", src: `  c:
    type: echo
    input: {t: "${{ has(nodes.p.output.data.n) ? nodes.p.output.data.opt : 'none' }}"}
`, want: []string{"25:50 error SEAM-E311 c reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then"}},
		{name: "has() on the other branch", src: `  c:
    type: echo
    input: {t: "${{ has(nodes.p.output.data.opt) ? 'none' : nodes.p.output.data.opt }}"}
`, want: []string{"25:61 error SEAM-E311 c reads nodes.p.output.data.opt, but p may deliver an output without it; the run fails then"}},
		{name: "size() guards an index", src: `  c:
    type: echo
    input: {t: "${{ size(nodes.p.output.data.l) > 1 ? nodes.p.output.data.l[1] : 0 }}"}
`},
		{name: "size() in when guards an index", src: `  c:
    type: echo
    when: "${{ size(nodes.p.output.data.l) >= 2 }}"
    with: {count: "${{ nodes.p.output.data.l[1] }}"}
`},
		// A run finds has() of a member of null (or of a string) false: nothing to report.
		{name: "has() of a nullable object's member", src: `  c:
    type: echo
    input: {t: "${{ has(nodes.p.output.data.o.k) ? nodes.p.output.data.o.k : '' }}"}
`},
		{name: "!= null and has() guard a nullable object", src: `  c:
    type: echo
    input: {t: "${{ nodes.p.output.data.o != null && has(nodes.p.output.data.o.k) ? nodes.p.output.data.o.k : '' }}"}
`},
		{name: "an open member is not judged", src: `  q: {type: const, with: {value: {status: pass, summary: s, data: {x: 1}}}}
  c:
    type: echo
    input: {t: "${{ nodes.q.output.data.x }}", u: "${{ nodes.q.output.data }}"}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + absentProducer
			if strings.HasPrefix(tt.src, "outputs:") {
				src = strings.Replace(src, "nodes:\n", "", 1)
				src = "version: 1\nname: t\nnodes:\n" + absentProducer + tt.src
			} else {
				src += tt.src
			}
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			got, fs := edgeFindings(d)
			for _, f := range fs {
				if f.Code == CodeAbsent {
					checkAbsentWitness(t, d, f)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// checkAbsentWitness checks that a SEAM-E311 finding's witness is a value its producer's
// contract accepts and that it names the producer and carries a fix.
func checkAbsentWitness(t *testing.T, d *dag.DAG, f Finding) {
	t.Helper()
	if !f.HasWitness || len(f.Producers) != 1 || f.Hint == "" {
		t.Fatalf("%s: witness %v, producers %v, fix %q", f.Code, f.HasWitness, f.Producers, f.Hint)
	}
	if vs := d.ByID[f.Producers[0]].Effective.Validate(f.Witness, "en"); len(vs) > 0 {
		t.Errorf("witness %s fails %s's contract: %v", f.WitnessJSON(), f.Producers[0], vs)
	}
}

// TestLintAbsentWitness checks the witness and the fix of each shape: the producer value
// lacks exactly what the reference reads, and the fix names it.
func TestLintAbsentWitness(t *testing.T) {
	tests := []struct {
		ref     string
		path    []string // where the witness cannot be read
		witness string
		fix     string
	}{
		{"nodes.p.output.data.opt", []string{"data", "opt"}, "",
			"require 'data.opt' in p's output contract, or guard the read: `has(nodes.p.output.data.opt) ? nodes.p.output.data.opt : <default>`"},
		{"nodes.p.output.data.l[3]", []string{"data", "l", "3"}, "",
			"require minItems: 4 for data.l in p's output contract, or guard the read: `size(nodes.p.output.data.l) > 3 ? nodes.p.output.data.l[3] : <default>`"},
		{"nodes.p.output.data.o.k", []string{"data", "o", "k"}, "",
			"declare it an object that requires 'k' in p's output contract, or guard the read: `nodes.p.output.data.o != null && has(nodes.p.output.data.o.k) ? nodes.p.output.data.o.k : <default>`"},
		{"nodes.p.output.data.u.b", []string{"data", "u", "b"}, "",
			"require 'data.u.b' in p's output contract, or guard the read: `has(nodes.p.output.data.u.b) ? nodes.p.output.data.u.b : <default>`"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			d, ds := loadTest(t, head+absentProducer+"  c:\n    type: echo\n    with: {text: \"${{ "+tt.ref+" }}\"}\n")
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var f *Finding
			for _, x := range Lint(context.Background(), d, Options{}) {
				if x.Code == CodeAbsent {
					f = &x
				}
			}
			if f == nil {
				t.Fatal("no SEAM-E311")
			}
			checkAbsentWitness(t, d, *f)
			if _, ok := contract.Lookup(f.Witness, tt.path); ok {
				t.Errorf("witness %s holds %v", f.WitnessJSON(), tt.path)
			}
			if tt.witness != "" && f.WitnessJSON() != tt.witness {
				t.Errorf("witness %s, want %s", f.WitnessJSON(), tt.witness)
			}
			if f.Hint != tt.fix {
				t.Errorf("fix %q\nwant %q", f.Hint, tt.fix)
			}
		})
	}
}

// TestLintAbsentJapanese checks SEAM-E311's message and fix in Japanese.
func TestLintAbsentJapanese(t *testing.T) {
	d, ds := loadTest(t, head+absentProducer+`  c:
    type: echo
    with: {text: "${{ nodes.p.output.data.opt }}"}
`)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	fs := Lint(context.Background(), d, Options{Lang: i18n.Japanese})
	if len(fs) != 1 {
		t.Fatalf("findings %v, want one", fs)
	}
	want := "c は nodes.p.output.data.opt を読みますが、p はそれを含まない出力を返す場合があり、そのとき実行は失敗します"
	wantFix := "p の出力契約で 'data.opt' を必須にするか、読み出しをガードしてください：`has(nodes.p.output.data.opt) ? nodes.p.output.data.opt : <既定値>`"
	if fs[0].Message != want || fs[0].Hint != wantFix {
		t.Errorf("got %q / %q, want %q / %q", fs[0].Message, fs[0].Hint, want, wantFix)
	}
}

// TestLintAbsentWitnessThroughSize: a when that asks an open object for a member (size(b) >
// 0) and reads b.a is SEAM-E311, with a witness the when lets through: b holds another
// member, where the witness was {} (the when false, the read never reached), which a run
// cannot confirm (the property run, seed 1, DAG 9,882).
func TestLintAbsentWitnessThroughSize(t *testing.T) {
	d, ds := loadTest(t, head+`  p:
    type: const
    with: {value: {status: pass, summary: s, data: {b: {a: 1}, c: 2}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [b, c]
            properties:
              b: {type: object, properties: {a: {type: integer}}}
              c: {type: integer, minimum: 2, maximum: 3}
  c:
    type: echo
    when: "${{ nodes.p.status == 'passed' && size(nodes.p.output.data.b) > 0 }}"
    input: {k: "${{ nodes.p.output.data.b.a }}"}
`)
	if ds != nil {
		t.Fatal(ds)
	}
	_, fs := edgeFindings(d)
	if len(fs) != 1 || fs[0].Code != CodeAbsent {
		t.Fatalf("findings: %+v, want one SEAM-E311", fs)
	}
	checkAbsentWitness(t, d, fs[0])
	b, _ := fs[0].Witness.(map[string]any)["data"].(map[string]any)["b"].(map[string]any)
	if len(b) == 0 {
		t.Errorf("witness %v: its data.b is empty, so the when is false and the read is never reached", fs[0].Witness)
	}
}
