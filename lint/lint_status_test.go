package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// statusProducer is node a (lines 4-6), which the consumer c (line 7) reads the status of.
const statusProducer = `  a:
    type: const
    with: {value: {status: pass, summary: ok}}
`

// TestLintStatusNames: nodes.<id>.status compared with a string that no node ends with is
// SEAM-E317, with the statuses and the nearest one; it is typed a string for CEL's checker.
func TestLintStatusNames(t *testing.T) {
	const hint = "\n  fix: compare with one of the statuses a node ends with; what a's output says of itself (pass, warn, fail) is nodes.a.output.status"
	tests := []struct {
		name, consumer, want string
	}{
		{"a status", `when: "${{ nodes.a.status == 'failed' }}"`, ""},
		{"every status", `when: "${{ nodes.a.status in ['passed', 'warned', 'failed', 'skipped', 'canceled'] }}"`, ""},
		{"not equal", `when: "${{ nodes.a.status != 'skipped' }}"`, ""},
		{"an output's status", `when: "${{ nodes.a.status == 'fail' }}"`,
			`testdata/t.yaml:9:34: error SEAM-E317 ${{ nodes.a.status == 'fail' }} compares nodes.a.status with "fail", which is not a status (passed, warned, failed, skipped, canceled); did you mean "failed"?` + hint},
		{"Argo's word", `when: "${{ 'Succeeded' == nodes.a.status }}"`,
			`testdata/t.yaml:9:16: error SEAM-E317 ${{ 'Succeeded' == nodes.a.status }} compares nodes.a.status with "Succeeded", which is not a status (passed, warned, failed, skipped, canceled); did you mean "passed"?` + hint},
		{"a capital", `when: "${{ nodes.a.status != 'Failed' }}"`,
			`testdata/t.yaml:9:34: error SEAM-E317 ${{ nodes.a.status != 'Failed' }} compares nodes.a.status with "Failed", which is not a status (passed, warned, failed, skipped, canceled); did you mean "failed"?` + hint},
		{"a typo in a list", `when: "${{ nodes.a.status in ['failed', 'skiped'] }}"`,
			`testdata/t.yaml:9:45: error SEAM-E317 ${{ nodes.a.status in ['failed', 'skiped'] }} compares nodes.a.status with "skiped", which is not a status (passed, warned, failed, skipped, canceled); did you mean "skipped"?` + hint},
		{"nothing near", `when: "${{ nodes.a.status == 'done' }}"`,
			`testdata/t.yaml:9:34: error SEAM-E317 ${{ nodes.a.status == 'done' }} compares nodes.a.status with "done", which is not a status (passed, warned, failed, skipped, canceled)` + hint},
		{"in with", `with: {value: {status: pass, summary: "${{ nodes.a.status == 'ok' ? 'y' : 'n' }}"}}`,
			`testdata/t.yaml:9:66: error SEAM-E317 ${{ nodes.a.status == 'ok' ? 'y' : 'n' }} compares nodes.a.status with "ok", which is not a status (passed, warned, failed, skipped, canceled)` + hint},
		// CEL's checker sees a string.
		{"typed a string", `when: "${{ nodes.a.status + 1 == 2 }}"`,
			`testdata/t.yaml:9:31: error SEAM-E313 ${{ nodes.a.status + 1 == 2 }} cannot work with the types its producers' contracts give its references: found no matching overload for '_+_' applied to '(string, int)'` +
				"\n  fix: compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract"},
		{"a string, never a boolean", `when: "${{ nodes.a.status }}"`,
			"testdata/t.yaml:9:16: error SEAM-E312 when ${{ nodes.a.status }} gives a string, never a boolean: every run fails deciding whether c runs" +
				"\n  fix: write a condition: compare the value (== 'pass', > 0), test an array's size (size(…) > 0) or a member's presence (has(…))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + statusProducer + "  c:\n    type: const\n    " + tt.consumer + "\n"
			if !strings.HasPrefix(tt.consumer, "with") {
				src += "    with: {value: {status: pass, summary: c}}\n"
			}
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Code == CodeStatusName && (f.Consumer != "c" || len(f.Producers) != 1 || f.Producers[0] != "a") {
					t.Errorf("consumer %q producers %v, want c and a", f.Consumer, f.Producers)
				}
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

// TestLintStatusNamesOutputs: the DAG's outputs are checked too, with no consumer, in the
// language asked for.
func TestLintStatusNamesOutputs(t *testing.T) {
	src := head + statusProducer + "outputs:\n  ok: \"${{ nodes.a.status == 'pass' }}\"\n"
	d, ds := loadTest(t, src)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	tests := []struct {
		lang i18n.Lang
		want string
	}{
		{i18n.English, `testdata/t.yaml:8:30: error SEAM-E317 ${{ nodes.a.status == 'pass' }} compares nodes.a.status with "pass", which is not a status (passed, warned, failed, skipped, canceled); did you mean "passed"?` +
			"\n  fix: compare with one of the statuses a node ends with; what a's output says of itself (pass, warn, fail) is nodes.a.output.status"},
		{i18n.Japanese, `testdata/t.yaml:8:30: error SEAM-E317 ${{ nodes.a.status == 'pass' }} は nodes.a.status を "pass" と比べていますが、これはノードの状態ではありません（passed, warned, failed, skipped, canceled）。"passed" のことですか？` +
			"\n  fix: ノードが終わるときの状態のどれかと比べてください。a の出力が自分について言う status（pass、warn、fail）は nodes.a.output.status です"},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range Lint(context.Background(), d, Options{Lang: tt.lang}) {
			if f.Code == CodeStatusName {
				got = append(got, f.String())
				if f.Consumer != "" {
					t.Errorf("consumer %q, want none", f.Consumer)
				}
			}
		}
		if strings.Join(got, "\n") != tt.want {
			t.Errorf("%s: findings\n%s\nwant\n%s", tt.lang, strings.Join(got, "\n"), tt.want)
		}
	}
}

// An unknown node's status is the loader's error, as any reference to an unknown node is.
func TestLintStatusUnknownNode(t *testing.T) {
	_, ds := loadTest(t, head+statusProducer+"  c:\n    type: const\n    when: \"${{ nodes.b.status == 'failed' }}\"\n    with: {value: {status: pass, summary: c}}\n")
	want := `testdata/t.yaml:9:16: error SEAM-E105 reference to unknown node "b"`
	if len(ds) != 1 || !strings.HasPrefix(ds[0].String(), want) {
		t.Fatalf("got %v, want %s", ds, want)
	}
}

// A consumer whose when reads a's status runs after a failed: it may receive a's own
// failing output, or (by default input) nothing of a, so lint does not narrow a's output to
// what a passing node hands on.
func TestLintStatusReaderNotNarrowed(t *testing.T) {
	tests := []struct {
		name, consumer string
		want           []string // codes
	}{
		{"input contract on a's status", `
    when: "${{ nodes.a.status != 'skipped' }}"
    input: "${{ nodes.a.output.status }}"
    contract: {input: {enum: [pass, warn]}}`, []string{CodeConstraint}},
		{"same without the status read", `
    input: "${{ nodes.a.output.status }}"
    contract: {input: {enum: [pass, warn]}}`, nil},
		{"default input requiring a", `
    when: "${{ nodes.a.status != 'skipped' }}"
    contract: {input: {type: object, required: [a]}}`, []string{CodeOptional}},
		{"same without the status read", `
    needs: [a]
    contract: {input: {type: object, required: [a]}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + statusProducer + "  c:\n    type: echo" + tt.consumer + "\n"
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Severity == SeverityError {
					got = append(got, f.Code)
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("codes %v, want %v", got, tt.want)
			}
		})
	}
}
