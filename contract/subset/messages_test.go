package subset

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestReasonsComplete finds every reason format the checker says (the format argument of
// unknown, incompatible, say and msg in this package) and checks reasonJA has its Japanese,
// with the same verbs.
func TestReasonsComplete(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{"unknown": 1, "incompatible": 3, "say": 0, "msg": 0}
	fset := token.NewFileSet()
	found := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			switch x := call.Fun.(type) {
			case *ast.Ident:
				fn = x.Name
			case *ast.SelectorExpr:
				fn = x.Sel.Name
			}
			i, ok := at[fn]
			if !ok || len(call.Args) <= i {
				return true
			}
			if id, ok := call.Args[i].(*ast.Ident); ok && id.Name == "format" {
				return true // passed on: its callers are checked
			}
			lit, ok := call.Args[i].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: %s's format is not a literal", fset.Position(call.Pos()), fn)
				return true
			}
			en, _ := strconv.Unquote(lit.Value)
			found++
			ja, ok := i18n.Lookup(i18n.Japanese, en)
			if !ok {
				t.Errorf("%s: no Japanese for %q", fset.Position(call.Pos()), en)
				return true
			}
			if !slices.Equal(reasonVerbs(en), reasonVerbs(ja)) {
				t.Errorf("%s: %q has verbs %v, its Japanese %q %v", fset.Position(call.Pos()), en, reasonVerbs(en), ja, reasonVerbs(ja))
			}
			return true
		})
	}
	if found < 30 {
		t.Errorf("found only %d reasons", found)
	}
}

// reasonVerbs lists a format's verbs by the argument they take: "1s", "2d".
func reasonVerbs(f string) []string {
	var out []string
	next := 1
	for _, m := range regexp.MustCompile(`%(?:\[(\d+)\])?([a-z])`).FindAllStringSubmatch(f, -1) {
		i := next
		if m[1] != "" {
			i, _ = strconv.Atoi(m[1])
		}
		next = i + 1
		out = append(out, strconv.Itoa(i)+m[2])
	}
	slices.Sort(out)
	return out
}

// TestSubsetReasonIn says the reasons of the new categories in both languages, with the
// schemas' names.
func TestSubsetReasonIn(t *testing.T) {
	tests := []struct{ a, b, en, ja string }{
		{`{"type":"object"}`, `{"type":"object","minProperties":1}`,
			"producer.json may produce an object with 0 members, outside consumer.json's minProperties or maxProperties",
			"producer.json はメンバーが 0 個のオブジェクトを出力することがあり、これは consumer.json の minProperties または maxProperties の範囲外です"},
		{`{"type":"string","pattern":"^[a-z]+$"}`, `{"type":"string","pattern":"^[a-y]+$"}`,
			`producer.json may produce "z", which breaks consumer.json's pattern`,
			`producer.json は "z" を出力することがあり、これは consumer.json の pattern に違反します`},
		{`{"type":["string","null"]}`, `{"not":{"type":"string","minLength":1}}`,
			`producer.json may produce "a", which consumer.json's not excludes`,
			`producer.json は consumer.json の not が除外する "a" を出力することがあります`},
		{`{"type":["string","integer"]}`, `{"anyOf":[{"type":"string"},{"type":"boolean"}]}`,
			"the value matches none of consumer.json's anyOf branches",
			"その値は consumer.json の anyOf のどの分岐にも一致しません"},
		{`{"type":"string","format":"date"}`, `{"type":"array","unevaluatedItems":false}`,
			"consumer.json uses unevaluatedItems, which seam does not compare yet",
			"consumer.json は seam がまだ比較できない unevaluatedItems を使っています"},
	}
	for _, tc := range tests {
		a, b := compileBoth(t, tc.a, tc.b)
		r := CheckNamed(a, b, "producer.json", "consumer.json")
		if r.Reason != tc.en || r.ReasonIn("en") != tc.en {
			t.Errorf("%s ⊆ %s: %q, want %q", tc.a, tc.b, r.Reason, tc.en)
		}
		if got := r.ReasonIn("ja"); got != tc.ja {
			t.Errorf("%s ⊆ %s: ja %q, want %q", tc.a, tc.b, got, tc.ja)
		}
	}
	// Nested: the validator's message inside the reason is said in the same language.
	a, b := compileBoth(t, `{"type":"object","required":["id"],"propertyNames":{"pattern":"^z"}}`, `{"type":"object","required":["x"]}`)
	r := Check(a, b)
	en, ja := r.ReasonIn("en"), r.ReasonIn("ja")
	if r.Verdict != Unknown || !strings.HasPrefix(en, "a counterexample was built but did not verify: a rejects it (") ||
		!strings.HasPrefix(ja, "反例を組み立てましたが検証に通りませんでした：a がそれを拒否します（") || strings.Contains(ja, "must") {
		t.Errorf("got %v\n%s\n%s", r.Verdict, en, ja)
	}
}
