package engine

import (
	"reflect"
	"strings"
	"testing"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

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
		res := mustRun(t, d, RunOptions{Lang: i18n.Lang(l.lang)})
		if res.Status != dag.RunFailed || node(t, res, "other").Status != dag.NodePassed {
			t.Errorf("%s: run %s, other %s", l.lang, res.Status, node(t, res, "other").Status)
		}
		want := []contract.Violation{{Pointer: "/data/n", Value: "1e-10000000", Message: l.tiny}}
		if n := node(t, res, "tiny"); n.Status != dag.NodeFailed || !reflect.DeepEqual(n.Violations, want) {
			t.Errorf("%s: tiny %s %+v", l.lang, n.Status, n.Violations)
		}
		if n := node(t, res, "many"); l.many != "" && (n.Status != dag.NodeFailed || len(n.Violations) != 1 ||
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
		res := mustRun(t, d, RunOptions{Lang: i18n.Lang(lang)})
		n := node(t, res, "a")
		if n.Status != dag.NodeFailed || n.Reason != want.reason || len(n.Violations) != 1 || n.Violations[0].Message != want.message {
			t.Errorf("%s: %s %q %+v, want %q, %q", lang, n.Status, n.Reason, n.Violations, want.reason, want.message)
		}
	}
}
