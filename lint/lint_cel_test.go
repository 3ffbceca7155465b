package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// celProducer is node p1 (lines 4-20) of issue 42: its contract requires data with n (an
// integer), s (a string) and tags (strings), and allows an optional code (a string) and x (a
// number).
const celProducer = `  p1:
    type: const
    with: {value: {status: pass, summary: ok, data: {n: 2, s: a, tags: [x]}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [n, s, tags]
            properties:
              n: {type: integer}
              s: {type: string}
              tags: {type: array, items: {type: string}}
              code: {type: string}
              x: {type: number}
`

// TestLintExprTypes: lint type-checks every `when` and every CEL expression with the types
// the producers' contracts give their references: a `when` that is never a boolean is
// SEAM-E312, an operator that cannot take its operands' types (a string compared with an
// integer) SEAM-E313. The consumer c is on line 21, its `when` or input on line 23.
func TestLintExprTypes(t *testing.T) {
	tests := []struct {
		name     string
		consumer string // node c's when or input, on line 23
		want     string // the finding as String() writes it; "" for none
	}{
		{"integer when", `when: "${{ nodes.p1.output.data.n }}"`,
			"testdata/t.yaml:23:16: error SEAM-E312 when ${{ nodes.p1.output.data.n }} gives a number, never a boolean: every run fails deciding whether c runs\n" +
				"  fix: write a condition: compare the value (== 'pass', > 0), test an array's size (size(…) > 0) or a member's presence (has(…))"},
		{"string when", `when: "${{ nodes.p1.output.data.s }}"`,
			"testdata/t.yaml:23:16: error SEAM-E312 when ${{ nodes.p1.output.data.s }} gives a string, never a boolean: every run fails deciding whether c runs\n" +
				"  fix: write a condition: compare the value (== 'pass', > 0), test an array's size (size(…) > 0) or a member's presence (has(…))"},
		{"array when", `when: "${{ nodes.p1.output.data.tags }}"`,
			"testdata/t.yaml:23:16: error SEAM-E312 when ${{ nodes.p1.output.data.tags }} gives an array, never a boolean: every run fails deciding whether c runs\n" +
				"  fix: write a condition: compare the value (== 'pass', > 0), test an array's size (size(…) > 0) or a member's presence (has(…))"},
		{"optional string when", `when: "${{ nodes.p1.output.data.code }}"`,
			"testdata/t.yaml:23:16: error SEAM-E312 when ${{ nodes.p1.output.data.code }} gives a string, never a boolean: every run fails deciding whether c runs\n" +
				"  fix: write a condition: compare the value (== 'pass', > 0), test an array's size (size(…) > 0) or a member's presence (has(…))"},
		{"CEL when of a number", `when: "${{ nodes.p1.output.data.x * 2.0 }}"`,
			"testdata/t.yaml:23:16: error SEAM-E312 when ${{ nodes.p1.output.data.x * 2.0 }} gives a number, never a boolean: every run fails deciding whether c runs\n" +
				"  fix: write a condition: compare the value (== 'pass', > 0), test an array's size (size(…) > 0) or a member's presence (has(…))"},
		{"string compared with an integer", `when: "${{ nodes.p1.output.data.s == 1 }}"`,
			"testdata/t.yaml:23:39: error SEAM-E313 ${{ nodes.p1.output.data.s == 1 }} cannot work with the types its producers' contracts give its references: found no matching overload for '_==_' applied to '(string, int)'\n" +
				"  fix: compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract"},
		{"integer not equal to a string", `when: "${{ nodes.p1.output.data.n != 'x' }}"`,
			"testdata/t.yaml:23:39: error SEAM-E313 ${{ nodes.p1.output.data.n != 'x' }} cannot work with the types its producers' contracts give its references: found no matching overload for '_!=_' applied to '(int, string)'\n" +
				"  fix: compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract"},
		{"elements compared with an integer", `when: "${{ nodes.p1.output.data.tags.exists(t, t == 1) }}"`,
			"testdata/t.yaml:23:54: error SEAM-E313 ${{ nodes.p1.output.data.tags.exists(t, t == 1) }} cannot work with the types its producers' contracts give its references: found no matching overload for '_==_' applied to '(string, int)'\n" +
				"  fix: compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract"},
		{"string plus integer in input", `input: {v: "${{ nodes.p1.output.data.s + 1 }}"}`,
			"testdata/t.yaml:23:44: error SEAM-E313 ${{ nodes.p1.output.data.s + 1 }} cannot work with the types its producers' contracts give its references: found no matching overload for '_+_' applied to '(string, int)'\n" +
				"  fix: compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract"},
		{"number times an integer", `input: {v: "${{ nodes.p1.output.data.x * 2 }}"}`,
			"testdata/t.yaml:23:44: error SEAM-E313 ${{ nodes.p1.output.data.x * 2 }} cannot work with the types its producers' contracts give its references: found no matching overload for '_*_' applied to '(double, int)'\n" +
				"  fix: compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract"},
		{"item of a foreach list", "foreach: \"${{ nodes.p1.output.data.tags }}\"\n    input: {v: \"${{ item + 1 }}\"}",
			"testdata/t.yaml:24:26: error SEAM-E313 ${{ item + 1 }} cannot work with the types its producers' contracts give its references: found no matching overload for '_+_' applied to '(string, int)'\n" +
				"  fix: compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract"},
		{"boolean comparison", `when: "${{ nodes.p1.output.data.n > 2 }}"`, ""},
		{"status", `when: "${{ nodes.p1.output.status == 'pass' }}"`, ""},
		{"size", `when: "${{ size(nodes.p1.output.data.tags) > 0 }}"`, ""},
		{"has", `when: "${{ has(nodes.p1.output.data.code) }}"`, ""},
		{"membership", `when: "${{ 'x' in nodes.p1.output.data.tags }}"`, ""},
		{"and of comparisons", `when: "${{ nodes.p1.output.data.n > 2 && nodes.p1.output.data.s != '' }}"`, ""},
		// A run compares numbers across CEL's types by value: 2 == 2.0.
		{"integer equal to a double", `when: "${{ nodes.p1.output.data.n == 2.0 }}"`, ""},
		{"integer in doubles", `when: "${{ nodes.p1.output.data.n in [1.5, 2.5] }}"`, ""},
		{"integer below a double", `when: "${{ nodes.p1.output.data.n < 2.5 }}"`, ""},
		{"number equal to an integer", `when: "${{ nodes.p1.output.data.x == 2 }}"`, ""},
		{"whole output's member", `when: "${{ nodes.p1.output.data.tags[0] == 'x' }}"`, ""},
		{"string in input", `input: {v: "${{ nodes.p1.output.data.s + '!' }}"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + celProducer + "  c:\n    type: echo\n    " + tt.consumer + "\n"
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Code == CodeWhenType || f.Code == CodeExprType {
					if f.Consumer != "c" || len(f.Producers) != 1 || f.Producers[0] != "p1" {
						t.Errorf("consumer %q producers %v, want c and p1", f.Consumer, f.Producers)
					}
				}
				// Reads of members that may be absent are SEAM-E311's, and whens that are never
				// true or never false SEAM-W312's, tested on their own.
				if f.Code != CodeNoContract && f.Code != CodeAllReq && f.Code != CodeAbsent && f.Code != CodeNeverOutcome {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}

// TestLintExprTypesOutputs: the DAG's outputs are type-checked like a node's expressions,
// with no consumer; the finding is said in the language asked for.
func TestLintExprTypesOutputs(t *testing.T) {
	src := head + celProducer + "outputs:\n  v: \"${{ nodes.p1.output.data.n + 's' }}\"\n"
	d, ds := loadTest(t, src)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	tests := []struct {
		lang i18n.Lang
		want string
	}{
		{i18n.English, "testdata/t.yaml:22:34: error SEAM-E313 ${{ nodes.p1.output.data.n + 's' }} cannot work with the types its producers' contracts give its references: found no matching overload for '_+_' applied to '(int, string)'\n" +
			"  fix: compare values of one type (convert with string(…), int(…) or double(…)), or correct the reference or the producer's contract"},
		{i18n.Japanese, "testdata/t.yaml:22:34: error SEAM-E313 ${{ nodes.p1.output.data.n + 's' }} は、参照先のノードの契約が参照に与える型では成り立ちません：found no matching overload for '_+_' applied to '(int, string)'\n" +
			"  fix: 同じ型の値どうしを比べてください（string(…)、int(…)、double(…) で変換できます）。または参照か、参照先のノードの契約を直してください"},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range Lint(context.Background(), d, Options{Lang: tt.lang}) {
			if f.Code == CodeExprType {
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

// TestLintWhenTypeJapanese: SEAM-E312 in Japanese.
func TestLintWhenTypeJapanese(t *testing.T) {
	d, ds := loadTest(t, head+celProducer+"  c:\n    type: echo\n    when: \"${{ nodes.p1.output.data.tags }}\"\n")
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	want := "testdata/t.yaml:23:16: error SEAM-E312 when ${{ nodes.p1.output.data.tags }} の値は配列で、真偽値になることはありません：c を実行するかどうかを決める時点で、どの実行も失敗します\n" +
		"  fix: 条件を書いてください：値を比べる（== 'pass'、> 0）、配列の大きさを調べる（size(…) > 0）、メンバーの有無を調べる（has(…)）など"
	for _, f := range Lint(context.Background(), d, Options{Lang: i18n.Japanese}) {
		if f.Code == CodeWhenType {
			if f.String() != want {
				t.Errorf("finding\n%s\nwant\n%s", f, want)
			}
			return
		}
	}
	t.Errorf("no %s finding", CodeWhenType)
}

// TestExprTypesUncheckable: an expression the checker cannot even parse (the load never
// hands one over) is a warning that says so, not silence.
func TestExprTypesUncheckable(t *testing.T) {
	d, ds := loadTest(t, head+celProducer)
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	l := &linter{d: d, text: newLintText(i18n.English), projections: map[string]cachedProjection{}}
	e := &dag.Expr{Src: "1 +", Pos: dag.Pos{File: "x.yaml", Line: 3, Col: 7}}
	fs := l.exprTypes("c", []*dag.Expr{e}, e)
	if len(fs) != 1 || fs[0].Code != CodeUnknown || fs[0].Severity != SeverityWarning ||
		!strings.HasPrefix(fs[0].String(), `x.yaml:3:7: warning SEAM-W301 ${{ 1 + }} could not be type-checked: type-check "1 +": ERROR: <input>:1:4: Syntax error`) {
		t.Errorf("findings %v, want one W301 saying the expression could not be type-checked", fs)
	}
}

// TestLintWhenNeverBoolean: a `when` that reads a value whose schema has no one CEL type (an
// anyOf of a string and a number, or of a string and a boolean) is SEAM-E312 too: a run whose
// producer delivers the string fails; a comparison valid for every branch is clean.
func TestLintWhenNeverBoolean(t *testing.T) {
	producer := `  p1:
    type: const
    with: {value: {status: pass, summary: ok, data: {u: a, b: true}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [u, b]
            properties:
              u: {anyOf: [{type: string}, {type: number}]}
              b: {anyOf: [{type: string}, {type: boolean}]}
`
	for _, tt := range []struct{ path, want string }{
		{"u", "when ${{ nodes.p1.output.data.u }} may give a string, which is not a boolean: a run whose producer delivers one fails deciding whether c runs"},
		{"b", "when ${{ nodes.p1.output.data.b }} may give a string, which is not a boolean: a run whose producer delivers one fails deciding whether c runs"},
		{"b == true", ""},
	} {
		src := head + producer + "  c:\n    type: echo\n    when: \"${{ nodes.p1.output.data." + tt.path + " }}\"\n"
		d, ds := loadTest(t, src)
		if ds != nil {
			t.Fatalf("load: %v", ds)
		}
		var got []string
		for _, f := range Lint(context.Background(), d, Options{}) {
			if f.Code == CodeWhenType {
				got = append(got, f.Message)
			}
		}
		if strings.Join(got, "\n") != tt.want {
			t.Errorf("when reads %s: findings %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestLintComparisonOfUnion: a comparison of a value that may be of several kinds is an error
// only when no kind it may be can equal the other side, for a run finds values of different
// kinds unequal and goes on; any other operator is an error as soon as one kind fails it.
func TestLintComparisonOfUnion(t *testing.T) {
	producer := `  p1:
    type: const
    with: {value: {status: pass, summary: ok, data: {u: a}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [u]
            properties:
              u: {anyOf: [{type: string, enum: [a, b]}, {type: boolean}]}
`
	tests := []struct {
		name, consumer, want string // want: the finding's code and message, "" for none
	}{
		{"equal to a string", `when: "${{ nodes.p1.output.data.u == 'a' }}"`, ""},
		{"not equal to a boolean", `when: "${{ nodes.p1.output.data.u != true }}"`, ""},
		{"in strings", `when: "${{ nodes.p1.output.data.u in ['a', 'c'] }}"`, ""},
		{"equal to an integer", `when: "${{ nodes.p1.output.data.u == 1 }}"`,
			"SEAM-E313 ${{ nodes.p1.output.data.u == 1 }} cannot work with the types its producers' contracts give its references: found no matching overload for '_==_' applied to '(string, int)'"},
		{"plus a string", `input: {v: "${{ nodes.p1.output.data.u + '!' }}"}`,
			"SEAM-E313 ${{ nodes.p1.output.data.u + '!' }} cannot work with the types its producers' contracts give its references: found no matching overload for '_+_' applied to '(bool, string)'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkTypeFindings(t, producer, tt.consumer, tt.want) })
	}
}

// TestLintExprTypesGuarded: past a node's when, a reference's types are those its producer
// may deliver and the when lets through: size() of an integer-or-string is clean where the
// when makes it the string 'a', and an error where nothing does (the long property run,
// seed 1, DAG 8,533); a null among one anyOf branch's types is typed null (seed 3, DAG 741).
func TestLintExprTypesGuarded(t *testing.T) {
	producer := `  p1:
    type: const
    with: {value: {status: pass, summary: ok, data: {a: b}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [a]
            properties:
              a: {anyOf: [{type: integer}, {type: string, enum: [a, b]}]}
              n: {anyOf: [{type: [object, "null"]}, {type: string}]}
`
	tests := []struct {
		name, consumer, want string
	}{
		{"null in a branch's types", `input: {k: "${{ size(nodes.p1.output.data.n) }}"}`,
			"SEAM-E313 ${{ size(nodes.p1.output.data.n) }} fails when p1 delivers null for nodes.p1.output.data.n, which its contract allows: found no matching overload for 'size' applied to '(null)'"},
		{"guarded", "when: \"${{ nodes.p1.output.data.a == 'a' }}\"\n    input: {k: \"${{ size(nodes.p1.output.data.a) }}\"}", ""},
		{"unguarded", `input: {k: "${{ size(nodes.p1.output.data.a) }}"}`,
			"SEAM-E313 ${{ size(nodes.p1.output.data.a) }} cannot work with the types its producers' contracts give its references: found no matching overload for 'size' applied to '(int)'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkTypeFindings(t, producer, tt.consumer, tt.want) })
	}
}

// checkTypeFindings lints producer and a node c written as consumer, and checks that its
// SEAM-E312 and SEAM-E313 findings, code and message a line each, are want.
func checkTypeFindings(t *testing.T, producer, consumer, want string) {
	t.Helper()
	d, ds := loadTest(t, head+producer+"  c:\n    type: echo\n    "+consumer+"\n")
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	var got []string
	for _, f := range Lint(context.Background(), d, Options{}) {
		if f.Code == CodeExprType || f.Code == CodeWhenType {
			got = append(got, f.Code+" "+f.Message)
		}
	}
	if strings.Join(got, "\n") != want {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}
