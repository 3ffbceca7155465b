package lint

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// loadApproval loads src with the test types and the real approval type.
func loadApproval(t *testing.T, src string) *dag.DAG {
	t.Helper()
	types := nodestest.LoadTypes()
	a, _ := nodes.Builtin().Lookup(nodes.ApprovalTypeName)
	types.Add(a)
	d, err := dag.LoadBytes(context.Background(), "testdata/t.yaml", []byte(src), dag.LoadOptions{Types: types})
	var ds dag.Diagnostics
	if errors.As(err, &ds) || err != nil {
		t.Fatalf("load: %v", err)
	}
	return d
}

// draftNode is node draft (lines 4-8), whose output the approval review (line 9) shows.
const draftNode = `  draft:
    type: const
    with: {value: {status: pass, summary: ok, data: {reply: hi, n: 3}}}
    contract:
      output: {type: object, required: [data], properties: {data: {type: object, required: [reply, n], properties: {reply: {type: string}, n: {type: integer}}}}}
`

// approvalFindings lints head+draftNode+rest and returns its findings as text, those of codes
// alone when codes are given.
func approvalFindings(t *testing.T, rest string, lang i18n.Lang, codes ...string) []string {
	t.Helper()
	d := loadApproval(t, head+draftNode+rest)
	var got []string
	for _, f := range Lint(context.Background(), d, Options{Lang: lang}) {
		if len(codes) == 0 || slicesContains(codes, f.Code) {
			got = append(got, f.String())
		}
	}
	return got
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

const reviewHead = `  review:
    type: approval
    with:
      title: "Send?"
      show: ["${{ nodes.draft.output.data }}"]
`

// TestLintApproval: each of an approval's own rules (SEAM-E320..E325) with its message, and
// an approval that breaks none of them.
func TestLintApproval(t *testing.T) {
	form := "      form: {type: object, required: [reply], properties: {reply: {type: string, minLength: 1}, tone: {type: string, enum: [warm, formal]}}}\n"
	tests := []struct {
		name, rest string
		want       []string
	}{
		{"clean", reviewHead + form + "      approvers: anyone\n", nil},
		{"named approvers", reviewHead + form + "      approvers: {principals: [alice]}\n", nil},
		{"no approvers", reviewHead + form, []string{
			"testdata/t.yaml:9:3: error SEAM-E320 approval review names no approvers, so no one could answer it\n  fix: name who may answer (approvers: {principals: [alice], groups: [leads]}), or write approvers: anyone"}},
		{"inside a foreach", reviewHead + form + "      approvers: anyone\n    foreach: [1, 2]\n", []string{
			"testdata/t.yaml:9:3: error SEAM-E321 approval review runs inside a foreach, which this version of seam cannot wait on\n  fix: ask once for the whole list: give the approval the list as evidence (show) and move the foreach after it"}},
		{"a oneOf in the form", reviewHead + "      approvers: anyone\n      form: {type: object, properties: {reply: {oneOf: [{type: string}, {type: integer}]}}}\n", []string{
			"testdata/t.yaml:15:13: error SEAM-E322 approval review's form uses oneOf at /properties/reply, which the web view cannot render as a field\n  fix: write the form with scalars (string, integer, number, boolean), enums, arrays of scalars and nested objects"}},
		{"an array of objects", reviewHead + "      approvers: anyone\n      form: {type: object, properties: {rows: {type: array, items: {type: object}}}}\n", []string{
			"testdata/t.yaml:15:13: error SEAM-E322 approval review's form uses items of type object at /properties/rows/items, which the web view cannot render as a field\n  fix: write the form with scalars (string, integer, number, boolean), enums, arrays of scalars and nested objects"}},
		{"a nested object and an array of scalars", reviewHead + "      approvers: anyone\n      form: {type: object, properties: {to: {type: object, properties: {name: {type: string}}}, tags: {type: array, items: {type: string, enum: [a, b]}}}}\n", nil},
		{"a default the field rejects", reviewHead + "      approvers: anyone\n      form: {type: object, properties: {n: {type: integer, minimum: 1, default: 0}}}\n", []string{
			"testdata/t.yaml:15:13: error SEAM-E323 approval review's form gives /properties/n the default 0, which its schema rejects: field 'n' must be ≥ 1\n  fix: give a default the field accepts, or leave the default out"}},
		{"on_timeout's decision", reviewHead + form + "      approvers: anyone\n      on_timeout: {decision: deny, reply: ok}\n", []string{
			"testdata/t.yaml:16:19: error SEAM-E323 approval review's on_timeout decides \"deny\", which is not one of its decisions (approve, reject)\n  fix: give on_timeout an answer a person could give: one of the decisions and fields the form accepts"}},
		{"on_timeout's fields", reviewHead + form + "      approvers: anyone\n      on_timeout: {decision: reject, tone: rude}\n", []string{
			"testdata/t.yaml:16:19: error SEAM-E323 approval review's on_timeout answer does not fit its form: missing required field: reply\n  fix: give on_timeout an answer a person could give: one of the decisions and fields the form accepts",
			"testdata/t.yaml:16:19: error SEAM-E323 approval review's on_timeout answer does not fit its form: field 'tone' must be one of: warm, formal\n  fix: give on_timeout an answer a person could give: one of the decisions and fields the form accepts"}},
		{"on_timeout filled by the prefill", reviewHead + form + "      approvers: anyone\n      prefill: {reply: \"${{ nodes.draft.output.data.reply }}\"}\n      on_timeout: {decision: reject}\n", nil},
		{"on_timeout filled by a literal prefill", reviewHead + form + "      approvers: anyone\n      prefill: {reply: hi}\n      on_timeout: {decision: reject}\n", nil},
		{"on_timeout with a comment", reviewHead + form + "      approvers: anyone\n      on_timeout: {decision: reject, reply: none, comment: late}\n", nil},
		{"rewind to an upstream node", reviewHead + form + "      approvers: anyone\n      on_reject: {rewind: draft, max_rounds: 2}\n", nil},
		{"rewind elsewhere", reviewHead + form + "      approvers: anyone\n      on_reject: {rewind: review}\n", []string{
			"testdata/t.yaml:16:18: error SEAM-E325 approval review rewinds to \"review\", which is not a node it depends on\n  fix: name a node upstream of the approval (one whose output its evidence reads)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := approvalFindings(t, tt.rest, i18n.English, CodeNoApprovers, CodeApprovalForeach, CodeFormNotRenderable, CodeAnswerInvalid, CodeNeverTrue, CodeRewindNotUpstream)
			if strings.Join(got, "\n---\n") != strings.Join(tt.want, "\n---\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(tt.want, "\n---\n"))
			}
		})
	}
}

// TestLintApprovalPrefill: a prefill is proved against the form as an input edge is, with a
// witness; the form's required fields may be left to the person.
func TestLintApprovalPrefill(t *testing.T) {
	form := "      approvers: anyone\n      form: {type: object, required: [reply, n], properties: {reply: {type: string, minLength: 1}, n: {type: integer}, tone: {type: string}}}\n"
	tests := []struct {
		name, prefill string
		want          []string
	}{
		{"fits", "{n: \"${{ nodes.draft.output.data.n }}\"}", nil},
		{"a field the form leaves open", "{extra: \"${{ nodes.draft.output.data.n }}\"}", nil},
		{"a constraint the producer does not promise", "{reply: \"${{ nodes.draft.output.data.reply }}\"}", []string{
			"testdata/t.yaml:16:29: error SEAM-E303 edge draft → review: INCOMPATIBLE — draft may produce \"\" for 'reply', which review's constraints reject.\n  witness: {\"reply\":\"\"}\n  fix: narrow 'reply' in draft's output contract to fit review's form, or widen that contract."}},
		{"a string into an integer", "{n: \"${{ nodes.draft.output.data.reply }}\"}", []string{
			"testdata/t.yaml:16:25: error SEAM-E302 edge draft → review: INCOMPATIBLE — draft may produce a string for 'n', a type review does not accept.\n  witness: {\"n\":\"\"}\n  fix: make the types of 'n' agree in both contracts, or put a transform node between them."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := approvalFindings(t, reviewHead+form+"      prefill: "+tt.prefill+"\n", i18n.English, CodeRequired, CodeType, CodeConstraint, CodeOptional)
			if strings.Join(got, "\n---\n") != strings.Join(tt.want, "\n---\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(tt.want, "\n---\n"))
			}
		})
	}
}

// TestLintApprovalOutput: what an approval hands on is its form's fields and its decision,
// proved like any producer's output: a consumer's contract reading them fits, one demanding a
// field the form does not hold is SEAM-E301, and a when comparing the decision (or a form
// enum) with a value outside its set is SEAM-E324.
func TestLintApprovalOutput(t *testing.T) {
	review := reviewHead + "      approvers: anyone\n      decisions: [approve, reject, escalate]\n      form: {type: object, required: [reply], properties: {reply: {type: string}, tone: {type: string, enum: [warm, formal]}}}\n"
	tests := []struct {
		name, consumer string
		want           []string
	}{
		{"reads the answer", `input: {reply: "${{ nodes.review.output.data.reply }}", d: "${{ nodes.review.output.data.decision }}"}
    contract: {input: {type: object, required: [reply, d], properties: {reply: {type: string}, d: {enum: [approve, reject, escalate]}}}}`, nil},
		{"a field the form does not hold", `input: {x: "${{ nodes.review.output.data }}"}
    contract: {input: {type: object, required: [x], properties: {x: {type: object, required: [sent]}}}}`, []string{
			"testdata/t.yaml:19:5: error SEAM-E301 edge review → send: INCOMPATIBLE — send requires 'x.sent' but review does not produce it.\n  witness: {\"x\":{\"decision\":\"approve\",\"reply\":\"\"}}\n  fix: add 'x.sent' to review's output contract, or put a transform node between them."}},
		{"a decision offered", `when: "${{ nodes.review.output.data.decision == 'escalate' }}"`, nil},
		{"a decision not offered", `when: "${{ nodes.review.output.data.decision == 'approved' }}"`, []string{
			"testdata/t.yaml:19:53: error SEAM-E324 ${{ nodes.review.output.data.decision == 'approved' }} compares nodes.review.output.data.decision with \"approved\", which it never is (approve, reject, escalate): the comparison never holds\n  fix: compare with one of approve, reject, escalate"}},
		{"a form enum in a list", `when: "${{ nodes.review.output.data.tone in ['warm', 'casual'] }}"`, []string{
			"testdata/t.yaml:19:58: error SEAM-E324 ${{ nodes.review.output.data.tone in ['warm', 'casual'] }} compares nodes.review.output.data.tone with \"casual\", which it never is (formal, warm): the comparison never holds\n  fix: compare with one of formal, warm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rest := review + "  send:\n    type: const\n    " + tt.consumer + "\n    with: {value: {status: pass, summary: s}}\n"
			got := approvalFindings(t, rest, i18n.English, CodeRequired, CodeType, CodeNeverTrue)
			if strings.Join(got, "\n---\n") != strings.Join(tt.want, "\n---\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(tt.want, "\n---\n"))
			}
		})
	}
}

// TestLintApprovalAnswerMembers: a read of the answer is proved against what the run service
// records: the form's fields laid over the prefill (an answer cannot take a prefilled member
// away), the decision and the comment; a member the form does not declare is as uncertain as
// a producer's undeclared member (SEAM-W301), or missing for good when the form is closed.
func TestLintApprovalAnswerMembers(t *testing.T) {
	review := func(form, prefill string) string {
		s := reviewHead + "      approvers: anyone\n      form: " + form + "\n"
		if prefill != "" {
			s += "      prefill: " + prefill + "\n"
		}
		return s
	}
	open := "{type: object, required: [reply], properties: {reply: {type: string}, tone: {type: string}}}"
	closed := "{type: object, additionalProperties: false, properties: {reply: {type: string}}}"
	reads := func(ref string) string {
		return "  send:\n    type: const\n    input: {x: \"${{ " + ref + " }}\"}\n    with: {value: {status: pass, summary: s}}\n"
	}
	tests := []struct {
		name, rest string
		want       []string
	}{
		{"an optional member prefilled from a producer", review(open, "{tone: \"${{ nodes.draft.output.data.reply }}\"}") + reads("nodes.review.output.data.tone"), nil},
		{"an optional member prefilled with a literal", review(open, "{tone: warm}") + reads("nodes.review.output.data.tone"), nil},
		{"an optional member not prefilled", review(open, "{reply: \"${{ nodes.draft.output.data.reply }}\"}") + reads("nodes.review.output.data.tone"), []string{
			"testdata/t.yaml:19:21: error SEAM-E311 send reads nodes.review.output.data.tone, but review may deliver an output without it; the run fails then\n  witness: {\"data\":{\"decision\":\"approve\",\"reply\":\"\"},\"status\":\"pass\",\"summary\":\"a\"}\n  fix: require 'data.tone' in review's output contract, or guard the read: `has(nodes.review.output.data.tone) ? nodes.review.output.data.tone : <default>`"}},
		{"a member an open form does not declare", review(open, "") + reads("nodes.review.output.data.zz"), []string{
			"testdata/t.yaml:18:21: warning SEAM-W301 nodes.review.output.data.zz: review's output contract does not declare data.zz (it allows other fields, so it may be there)\n  fix: declare it in review's output contract, or correct the reference."}},
		{"a member a closed form does not declare", review(closed, "") + reads("nodes.review.output.data.zz"), []string{
			"testdata/t.yaml:18:21: error SEAM-E305 nodes.review.output.data.zz: review's output contract does not declare data.zz\n  fix: declare it in review's output contract, or reference a field it declares."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := approvalFindings(t, tt.rest, i18n.English)
			if strings.Join(got, "\n---\n") != strings.Join(tt.want, "\n---\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(tt.want, "\n---\n"))
			}
		})
	}
}
