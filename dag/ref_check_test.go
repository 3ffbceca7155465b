package dag

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
)

// TestTypeCheck: each reference takes the type the caller gives it (the rest stay dyn), the
// result has the checked type, errors come at the operator's position, and numbers of
// different CEL types compare as a run compares them.
func TestTypeCheck(t *testing.T) {
	typed := map[string]*types.Type{
		"nodes.a.output.data.n":    types.IntType,
		"nodes.a.output.data.s":    types.StringType,
		"nodes.a.output.data.tags": types.NewListType(types.StringType),
		"nodes.a.output.data.m":    types.NewMapType(types.DoubleType, types.DynType),
		"params.x":                 types.DoubleType,
	}
	typeOf := func(r Ref) *types.Type {
		name := r.Root
		if r.Root == "nodes" {
			name += "." + r.Node + ".output"
		}
		return typed[strings.Join(append([]string{name}, r.Path...), ".")]
	}
	tests := []struct {
		src    string
		result string // the result's type; "" when the check fails
		issue  string // "line:col message" of the first issue
	}{
		{`"${{ nodes.a.output.data.n }}"`, "int", ""},
		{`"${{ nodes.a.output.data.tags }}"`, "list(string)", ""},
		{`"${{ nodes.a.output.data.s + 'x' }}"`, "string", ""},
		{`"${{ nodes.a.output.data.n > 1 && nodes.a.output.data.s != '' }}"`, "bool", ""},
		{`"${{ nodes.a.output.data.other }}"`, "dyn", ""}, // not typed: dyn, as loaded
		{`"${{ nodes.a.output.data.n == 2.0 }}"`, "", ""}, // numbers: no issue
		{`"${{ nodes.a.output.data.n != params.x }}"`, "", ""},
		{`"${{ nodes.a.output.data.n in [1.5] }}"`, "", ""},
		{`"${{ nodes.a.output.data.n in nodes.a.output.data.m }}"`, "", ""},
		{`"${{ nodes.a.output.data.n < params.x }}"`, "bool", ""},
		{`"${{ nodes.a.output.data.s == 1 }}"`, "", "1:28 found no matching overload for '_==_' applied to '(string, int)'"},
		{`"${{ nodes.a.output.data.s in [1] }}"`, "", "1:28 found no matching overload for '@in' applied to '(string, list(int))'"},
		{`"${{ nodes.a.output.data.tags == [1.5] }}"`, "", "1:31 found no matching overload for '_==_' applied to '(list(string), list(double))'"},
		{`"${{ nodes.a.output.data.n + params.x }}"`, "", "1:28 found no matching overload for '_+_' applied to '(int, double)'"},
		{"|\n  ${{ nodes.a.output.data.n +\n  'x' }}\n", "", "2:29 found no matching overload for '_+_' applied to '(int, string)'"},
	}
	tc, err := NewTypeChecker()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			tmpl, diags := compileYAML(t, tt.src)
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			var e *Expr
			tmpl.WalkExprs(func(x *Expr) { e = x })
			res, issues, err := tc.Check(e, typeOf)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if res != nil {
				got = res.String()
			}
			if tt.result != "" && got != tt.result || tt.result == "" && tt.issue != "" && res != nil {
				t.Errorf("result %q, want %q", got, tt.result)
			}
			var issue string
			if len(issues) > 0 {
				issue = fmt.Sprintf("%d:%d %s", issues[0].Pos.Line, issues[0].Pos.Col, issues[0].Message)
			}
			if issue != tt.issue {
				t.Errorf("issue %q, want %q", issue, tt.issue)
			}
		})
	}
}

// TestTypeCheckParseError: an expression that does not parse (the load refuses it first)
// is an error that names it.
func TestTypeCheckParseError(t *testing.T) {
	tc, err := NewTypeChecker()
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = tc.Check(&Expr{Src: "a +"}, func(Ref) *types.Type { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), `type-check "a +": ERROR: <input>:1:4: Syntax error`) {
		t.Errorf("error %v, want one naming the expression", err)
	}
}

// TestTypeCheckConditionalBranches: a conditional whose branches differ in type (a guarded
// default of null) is no issue, as a run evaluates it; one whose condition is a string is.
func TestTypeCheckConditionalBranches(t *testing.T) {
	tc, err := NewTypeChecker()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		src    string
		issues int
	}{
		{"size(nodes.a.output.data.l) > 0 ? nodes.a.output.data.l[0] : null", 0},
		{"nodes.a.output.data.s ? 1 : 'x'", 1},
	} {
		e := &Expr{Src: tt.src}
		typeOf := func(r Ref) *types.Type {
			switch r.Path[len(r.Path)-1] {
			case "l":
				return types.NewListType(types.StringType)
			case "s":
				return types.StringType
			}
			return nil
		}
		_, issues, err := tc.Check(e, typeOf)
		if err != nil {
			t.Fatal(err)
		}
		if len(issues) != tt.issues {
			t.Errorf("%s: issues %v, want %d", tt.src, issues, tt.issues)
		}
	}
}
