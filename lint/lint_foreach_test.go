package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// lintListProducer is node p (line 4): its output contract promises data.rows, a list of
// {id (an integer ≥ 1), name (optional)} with no other member, and data.s, a string; it may
// emit data.maybe (a list) and data.either (a list or null).
const lintListProducer = `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {rows: [{id: 1, name: a}], s: x}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [rows, s]
            additionalProperties: false
            properties:
              rows: {type: array, items: {type: object, required: [id], additionalProperties: false, properties: {id: {type: integer, minimum: 1}, name: {type: string}}}}
              maybe: {type: array, items: {type: string}}
              either: {type: [array, "null"]}
              s: {type: string}
`

// TestLintForeach covers foreach nodes: the list (SEAM-E306 and warnings), item and index in
// input and with, and what consumers of a foreach node receive. Each case is the nodes after
// lintListProducer (c from line 21) and every finding but hygiene, "line:col severity code
// message"; a witness must break the schema it was found against.
func TestLintForeach(t *testing.T) {
	tests := []struct {
		name  string
		nodes string
		want  []string
	}{
		{name: "compatible", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    max_items: 20
    input: {id: "${{ item.id }}", i: "${{ index }}", row: "${{ item }}"}
    with: {text: "${{ item.name }}", count: "${{ index }}"}
    contract:
      input:
        type: object
        required: [id, i, row]
        properties:
          id: {type: integer, minimum: 0}
          i: {type: integer, minimum: 0, maximum: 19}
          row: {type: object, required: [id]}
`},
		{name: "never a list", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.s }}"
`, want: []string{"23:19 error SEAM-E306 edge p → c: INCOMPATIBLE — c runs once per item of ${{ nodes.p.output.data.s }}, but p produces a string there, never a list."}},
		{name: "never a list, by CEL's type", nodes: `  c:
    type: echo
    foreach: "${{ size(nodes.p.output.data.rows) }}"
`, want: []string{"23:19 error SEAM-E306 edge p → c: INCOMPATIBLE — c runs once per item of ${{ size(nodes.p.output.data.rows) }}, but p produces a number there, never a list."}},
		{name: "may be null", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.either }}"
`, want: []string{
			"23:19 warning SEAM-W301 edge p → c: UNKNOWN — c runs once per item of ${{ nodes.p.output.data.either }}, but p may produce null there, which is not a list (the run fails).",
			"23:19 error SEAM-E311 c reads nodes.p.output.data.either, but p may deliver an output without it; the run fails then",
		}},
		{name: "may be absent", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.maybe }}"
`, want: []string{"23:19 error SEAM-E311 c reads nodes.p.output.data.maybe, but p may deliver an output without it; the run fails then"}},
		{name: "item type", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.maybe }}"
    input: {n: "${{ item }}"}
    contract:
      input: {type: object, properties: {n: {type: integer}}}
`, want: []string{
			"23:19 error SEAM-E311 c reads nodes.p.output.data.maybe, but p may deliver an output without it; the run fails then",
			"24:5 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a string for 'n', a type c does not accept.",
		}},
		{name: "item optional member", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    input: {n: "${{ item.name }}"}
    contract:
      input: {type: object, required: [n]}
`, want: []string{"24:5 error SEAM-E304 edge p → c: INCOMPATIBLE — c requires 'n' but p only may produce it."}},
		{name: "item lacks a member", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    input: "${{ item }}"
    contract:
      input: {type: object, required: [id, title]}
`, want: []string{"24:5 error SEAM-E301 edge p → c: INCOMPATIBLE — c requires 'title' but p does not produce it."}},
		{name: "item constraint", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    input: {id: "${{ item.id }}"}
    contract:
      input: {type: object, properties: {id: {maximum: 5}}}
`, want: []string{"24:5 error SEAM-E303 edge p → c: INCOMPATIBLE — p may produce 6 for 'id', which c's constraints reject."}},
		{name: "item undeclared", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    input: {x: "${{ item.nope }}"}
    contract:
      input: {type: object, required: [x]}
`, want: []string{"24:21 error SEAM-E305 item.nope: the elements of c's foreach list do not declare nope"}},
		{name: "item in with", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    with: {count: "${{ item.name }}"}
`, want: []string{"24:24 error SEAM-E302 edge p → c: INCOMPATIBLE — p may produce a string for 'with.count', a type c does not accept."}},
		{name: "index", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    with: {text: "${{ index }}"}
    input: {i: "${{ index }}"}
    contract:
      input: {type: object, properties: {i: {maximum: 10}}}
  d:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    max_items: 11
    input: {i: "${{ index }}"}
    contract:
      input: {type: object, properties: {i: {maximum: 10}}}
`, want: []string{
			"24:23 error SEAM-E302 edge with → c: INCOMPATIBLE — its with may produce a number for 'with.text', a type c does not accept.",
			"25:5 error SEAM-E303 edge input → c: INCOMPATIBLE — its input may produce 999 for 'i', which c's constraints reject.",
		}},
		{name: "literal list", nodes: `  c:
    type: echo
    foreach: [1, 2]
    with: {count: "${{ item }}", text: "${{ item }}"}
`, want: []string{"24:45 error SEAM-E302 edge with → c: INCOMPATIBLE — its with may produce a number for 'with.text', a type c does not accept."}},
		{name: "consumer after success", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    with: {text: "${{ item.name }}"}
  d:
    type: echo
    input: {all: "${{ nodes.c.output.data.items }}", first: "${{ nodes.c.output.data.items[0].status }}", status: "${{ nodes.c.output.status }}"}
    contract:
      input:
        type: object
        required: [all, status]
        properties:
          all: {type: array, maxItems: 1000, items: {type: object, required: [status, data], properties: {status: {enum: [pass, warn]}, data: {required: [text]}}}}
          first: {enum: [pass, warn]}
          status: {enum: [pass, warn]}
`},
		{name: "consumer that runs always", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    with: {text: "${{ item.name }}"}
  d:
    type: echo
    run_if: always
    input: {all: "${{ nodes.c.output.data.items }}"}
    contract:
      input: {type: object, properties: {all: {type: array, items: {type: object, required: [data]}}}}
`, want: []string{`28:5 error SEAM-E301 edge c → d: INCOMPATIBLE — d requires 'all[0].data' but c does not produce it.`}},
		{name: "foreach over a foreach node", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    with: {text: "${{ item.name }}"}
  d:
    type: echo
    foreach: "${{ nodes.c.output.data.items }}"
    with: {text: "${{ item.summary }}", count: "${{ item.status }}"}
`, want: []string{"28:53 error SEAM-E302 edge c → d: INCOMPATIBLE — c may produce a string for 'with.count', a type d does not accept."}},
		{name: "consumer of a member foreach does not make", nodes: `  c:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    with: {text: "${{ item.name }}"}
  d:
    type: echo
    with: {text: "${{ nodes.c.output.data.text }}"}
`, want: []string{"27:23 error SEAM-E305 nodes.c.output.data.text: c's output contract does not declare data.text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ds := loadTest(t, head+lintListProducer+tt.nodes)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			got, fs := edgeFindings(d)
			for _, f := range fs {
				if f.HasWitness != (f.Severity == SeverityError && f.Code != CodeUndeclared) {
					t.Errorf("%s: has witness %v", f.Code, f.HasWitness)
				}
				if !f.HasWitness {
					continue
				}
				n := d.ByID[f.Consumer]
				var vs []contract.Violation
				switch {
				case f.Code == CodeAbsent:
					// A value the producer may deliver, checked in TestLintAbsent.
					if vs := d.ByID[f.Producers[0]].Effective.Validate(f.Witness, "en"); len(vs) > 0 {
						t.Errorf("witness %s fails %s's contract: %v", f.WitnessJSON(), f.Producers[0], vs)
					}
					continue
				case f.Code == CodeNotList:
					if _, ok := f.Witness.([]any); ok {
						t.Errorf("witness %s is a list", f.WitnessJSON())
					}
					continue
				case strings.Contains(f.Message, "'with."):
					vs = n.Config.Validate(f.Witness, "en")
				default:
					vs = n.InputContract.Validate(f.Witness, "en")
				}
				if len(vs) == 0 {
					t.Errorf("witness %s passes %s's schema", f.WitnessJSON(), f.Consumer)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLintForeachJapanese checks the foreach messages in Japanese.
func TestLintForeachJapanese(t *testing.T) {
	d, ds := loadTest(t, head+lintListProducer+`  c:
    type: echo
    foreach: "${{ nodes.p.output.data.s }}"
  e:
    type: echo
    foreach: "${{ nodes.p.output.data.rows }}"
    input: {x: "${{ item.nope }}"}
`)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	var got []string
	for _, f := range Lint(context.Background(), d, Options{Lang: "ja"}) {
		got = append(got, f.Message+" / "+f.Hint)
	}
	want := []string{
		"エッジ p → c: 非互換 — c は ${{ nodes.p.output.data.s }} の要素ごとに実行されますが、p はそこに文字列を出力し、リストにはなりません。 / foreach でリストを参照するか、p の出力契約でそれをリストにしてください。",
		"item.nope: e の foreach リストの要素は nope を宣言していません / 要素が宣言しているフィールドを参照するか、リストの出所でそれを宣言してください。",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLintForeachHygiene checks that a foreach node's contract, which is each item's, is
// judged by what its readers read of the items.
func TestLintForeachHygiene(t *testing.T) {
	producer := `  c:
    type: const
    foreach: [1, 2]
    with: {value: {status: pass, summary: s, data: {a: 1, b: 2, c: 3}}}
    contract:
      output:
        required: [data]
        properties:
          data: {required: [a, b, c], properties: {a: {}, b: {}, c: {}}}
`
	tests := []struct {
		name, reader string
		want         []string
	}{
		{"one member of an item", `  r: {type: echo, input: "${{ nodes.c.output.data.items[0].data.a }}"}
`, []string{"4:3 SEAM-W304 node c's contract.output requires all 3 fields of 'data', but no consumer reads b, c."}},
		{"the items whole", `  r: {type: echo, input: "${{ nodes.c.output.data.items }}"}
`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ds := loadTest(t, head+producer+tt.reader)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				got = append(got, fmt.Sprintf("%d:%d %s %s", f.Pos.Line, f.Pos.Col, f.Code, f.Message))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestElementOf checks the schema of a list's elements, and when it is exactly known.
func TestElementOf(t *testing.T) {
	tests := []struct {
		list  string
		want  string
		exact bool
	}{
		{`true`, `true`, true},
		{`{"type":"array"}`, `true`, true},
		{`{"type":"array","items":{"type":"string"},"minItems":1}`, `{"type":"string"}`, true},
		{`{"allOf":[{"items":{"type":"string"}},{"items":{"maxLength":3}}]}`, `{"allOf":[{"type":"string"},{"maxLength":3}]}`, true},
		{`{"const":[1,"a"]}`, `{"enum":[1,"a"]}`, true},
		{`{"const":"a"}`, `true`, false},
		{`{"items":{"type":"string"},"maxItems":0}`, `{"type":"string"}`, false},
		{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, false},
		{`{"prefixItems":[{"type":"string"}]}`, `{"anyOf":[{"type":"string"},true]}`, false},
		{`{"items":{"type":"string"},"contains":{"const":"a"}}`, `{"type":"string"}`, false},
	}
	for _, tt := range tests {
		v, err := contract.ParseJSON([]byte(tt.list))
		if err != nil {
			t.Fatal(err)
		}
		got, exact := elementOf(v, 0)
		b, _ := json.Marshal(got)
		if string(b) != tt.want || exact != tt.exact {
			t.Errorf("%s: %s exact %v, want %s exact %v", tt.list, b, exact, tt.want, tt.exact)
		}
	}
}
