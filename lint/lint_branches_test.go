package lint

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// enumProducer is node p (line 4): data.kind is one of bug, feature; data.n an integer in
// 1..5; data.tags a list of strings.
const enumProducer = `  p:
    type: const
    with: {value: {status: pass, summary: s, data: {kind: bug, n: 1}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [kind, n]
            properties:
              kind: {enum: [bug, feature]}
              n: {type: integer, minimum: 1, maximum: 5}
              tags: {type: array, items: {type: string}}
`

// TestLintNeverOutcome: a when whose condition a value's contract cannot meet is never
// true (or never false), SEAM-W312, by exhaustion of an enum or by the subset checker; a
// when both outcomes of which may happen, or of a form not understood, says nothing.
func TestLintNeverOutcome(t *testing.T) {
	tests := []struct {
		name, when string
		want       []string // W312 findings as String() writes them
	}{
		{"outside the enum", `nodes.p.output.data.kind == 'question'`, []string{
			"testdata/t.yaml:21:16: warning SEAM-W312 node c's when is never true, so the node is always skipped: nodes.p.output.data.kind is one of \"bug\", \"feature\", and none of them meets the condition.\n" +
				"  fix: compare nodes.p.output.data.kind with a value p's contract allows, or widen that contract if the value can occur."}},
		{"unequal to outside the enum", `nodes.p.output.data.kind != 'question'`, []string{
			"testdata/t.yaml:21:16: warning SEAM-W312 node c's when is never false, so it decides nothing: nodes.p.output.data.kind is one of \"bug\", \"feature\", and none of them meets the condition.\n" +
				"  fix: remove the when, or compare nodes.p.output.data.kind with what tells the cases apart."}},
		{"beyond the bounds", `nodes.p.output.data.n > 7`, []string{
			"testdata/t.yaml:21:16: warning SEAM-W312 node c's when is never true, so the node is always skipped: what p's contract allows at nodes.p.output.data.n and what the condition needs there cannot meet (proved by the subset checker).\n" +
				"  fix: compare nodes.p.output.data.n with a value p's contract allows, or widen that contract if the value can occur."}},
		{"within the bounds", `nodes.p.output.data.n >= 5`, nil},
		{"inside the enum", `nodes.p.output.data.kind == 'bug'`, nil},
		{"both sides of an and", `nodes.p.output.data.kind == 'bug' && nodes.p.output.data.n < 1`, []string{
			"testdata/t.yaml:21:16: warning SEAM-W312 node c's when is never true, so the node is always skipped: what p's contract allows at nodes.p.output.data.n and what the condition needs there cannot meet (proved by the subset checker).\n" +
				"  fix: compare nodes.p.output.data.n with a value p's contract allows, or widen that contract if the value can occur."}},
		{"a form not understood", `nodes.p.output.data.kind.startsWith('q')`, nil},
		{"an optional list", `size(nodes.p.output.data.tags) > 0`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + enumProducer + "  c:\n    type: const\n    when: \"${{ " + tt.when + " }}\"\n    with: {value: {status: pass, summary: s}}\n"
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatal(ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Code == CodeNeverOutcome {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n---\n") != strings.Join(tt.want, "\n---\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n---\n"), strings.Join(tt.want, "\n---\n"))
			}
		})
	}
}

// TestLintNeverOutcomeJapanese: SEAM-W312 is said in Japanese too.
func TestLintNeverOutcomeJapanese(t *testing.T) {
	d, ds := loadTest(t, head+enumProducer+"  c:\n    type: const\n    when: \"${{ nodes.p.output.data.kind == 'question' }}\"\n    with: {value: {status: pass, summary: s}}\n")
	if ds != nil {
		t.Fatal(ds)
	}
	var got string
	for _, f := range Lint(context.Background(), d, Options{Lang: i18n.Japanese}) {
		if f.Code == CodeNeverOutcome {
			got = f.Message + "\n" + f.Hint
		}
	}
	want := "ノード c の when は決して真にならないため、このノードは常にスキップされます：nodes.p.output.data.kind は \"bug\", \"feature\" のいずれかで、どれも条件を満たしません。\n" +
		"nodes.p.output.data.kind を p の契約が許す値と比較するか、その値が起こりうるなら契約を広げてください。"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestNodeBranches: each outcome of a when, and of a foreach over a reference, is what it
// requires of the values it reads; Reads are what plain references require of outputs.
func TestNodeBranches(t *testing.T) {
	src := head + enumProducer + `  c:
    type: const
    when: "${{ nodes.p.output.data.kind == 'bug' && params.n > 2 }}"
    with: {value: {status: pass, summary: s}}
  e:
    type: const
    foreach: "${{ nodes.p.output.data.tags }}"
    input: {n: "${{ nodes.p.output.data.n }}"}
    with: {value: {status: pass, summary: s}}
  f:
    type: const
    when: "${{ nodes.p.output.data.kind.startsWith('b') }}"
    with: {value: {status: pass, summary: s}}
`
	d, ds := loadTest(t, src)
	if ds != nil {
		t.Fatal(ds)
	}
	js := func(cs []Constraint) string {
		b, err := json.Marshal(cs)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	bs := NodeBranches(d)
	for _, tt := range []struct{ name, got, want string }{
		{"c true", js(bs["c"].WhenTrue), `[{"Node":"","Schema":{"properties":{"n":{"exclusiveMinimum":2}},"required":["n"],"type":"object"}},{"Node":"p","Schema":{"properties":{"data":{"properties":{"kind":{"const":"bug"}},"required":["kind"],"type":"object"}},"required":["data"],"type":"object"}}]`},
		{"c false", js(bs["c"].WhenFalse), `null`},
		{"e empty", js(bs["e"].ForeachEmpty), `[{"Node":"p","Schema":{"properties":{"data":{"properties":{"tags":{"maxItems":0,"type":"array"}},"required":["tags"],"type":"object"}},"required":["data"],"type":"object"}}]`},
		{"e items", js(bs["e"].ForeachItems), `[{"Node":"p","Schema":{"properties":{"data":{"properties":{"tags":{"minItems":1,"type":"array"}},"required":["tags"],"type":"object"}},"required":["data"],"type":"object"}}]`},
		{"f true", js(bs["f"].WhenTrue), `null`},
		{"reads", js(Reads(d)), `[{"Node":"p","Schema":{"allOf":[{"properties":{"data":{"required":["n"],"type":"object"}},"required":["data"],"type":"object"},{"properties":{"data":{"required":["tags"],"type":"object"}},"required":["data"],"type":"object"}]}}]`},
	} {
		if tt.got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, tt.got, tt.want)
		}
	}
	if _, ok := bs["p"]; ok {
		t.Error("p has neither a when nor a foreach, yet has branches")
	}
}

// TestNodeBranchesMembers: each constraint names the places the condition reads, with what
// the producer's contract allows there (true: the DAG has no params schema) and what the
// outcome needs there.
func TestNodeBranchesMembers(t *testing.T) {
	src := head + enumProducer + `  c:
    type: const
    when: "${{ nodes.p.output.data.kind == 'bug' && params.n > 2 }}"
    with: {value: {status: pass, summary: s}}
  e:
    type: const
    foreach: "${{ nodes.p.output.data.tags }}"
    with: {value: {status: pass, summary: s}}
  g:
    type: const
    when: "${{ nodes.p.output.data.kind == 'bug' || nodes.p.output.data.n > 3 }}"
    with: {value: {status: pass, summary: s}}
`
	d, ds := loadTest(t, src)
	if ds != nil {
		t.Fatal(ds)
	}
	js := func(cs []Constraint) string {
		var ms [][]Member
		for _, c := range cs {
			ms = append(ms, c.Members)
		}
		b, err := json.Marshal(ms)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	bs := NodeBranches(d)
	for _, tt := range []struct{ name, got, want string }{
		{"c true", js(bs["c"].WhenTrue), `[[{"Path":["n"],"Contract":true,"Want":{"exclusiveMinimum":2}}],[{"Path":["data","kind"],"Contract":{"enum":["bug","feature"]},"Want":{"const":"bug"}}]]`},
		{"e items", js(bs["e"].ForeachItems), `[[{"Path":["data","tags"],"Contract":{"items":{"type":"string"},"type":"array"},"Want":{"minItems":1,"type":"array"}}]]`},
		{"g false", js(bs["g"].WhenFalse), `[[{"Path":["data","kind"],"Contract":{"enum":["bug","feature"]},"Want":{"not":{"const":"bug"}}},{"Path":["data","n"],"Contract":{"maximum":5,"minimum":1,"type":"integer"},"Want":{"maximum":3}}]]`},
	} {
		if tt.got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, tt.got, tt.want)
		}
	}
}
