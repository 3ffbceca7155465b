package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// formats finds, in the non-test Go files of the module, every string literal given as the
// format of i18n.Sprintf, i18n.Errorf, i18n.Format, i18n.Plural (both), i18n.M or i18n.Key (and
// of the same functions within this package, and of mcp's msgf, fail and howMany), with where
// it stands. mcp's are never passed on, so one that is not a literal is an error: the catalog
// could not be checked for it.
func formats(t *testing.T) map[string]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		inPackage := f.Name.Name == "i18n"
		// mcp says its formats through msgf and fail (mcp/messages.go), and counts the nouns
		// given to howMany as "%d noun" and "%d nouns".
		inMCP := f.Name.Name == "mcp"
		// The subset checker says its reasons through say, msg, unknown and incompatible
		// (package contract/subset).
		inSubset := f.Name.Name == "subset"
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 1 {
				return true
			}
			var name string
			mcpOwn := false
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if x, ok := fn.X.(*ast.Ident); ok && x.Name == "i18n" {
					name = fn.Sel.Name
				}
			case *ast.Ident:
				mcpOwn = inMCP && (fn.Name == "msgf" || fn.Name == "fail" || fn.Name == "howMany")
				if inPackage || mcpOwn {
					name = fn.Name
				}
				if inSubset && (fn.Name == "say" || fn.Name == "msg" || fn.Name == "unknown" || fn.Name == "incompatible") {
					name = fn.Name
				}
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && inSubset && (sel.Sel.Name == "say" || sel.Sel.Name == "unknown" || sel.Sel.Name == "incompatible") {
				name = sel.Sel.Name
			}
			var at []int // the formats' arguments: after the language; M and Key have none
			switch name {
			case "msgf", "say", "msg":
				at = []int{0}
			case "unknown":
				at = []int{1}
			case "incompatible":
				at = []int{3}
			case "fail":
				at = []int{2}
			case "howMany":
				if len(call.Args) == 2 {
					noun, ok := literal(call.Args[1])
					if !ok {
						t.Errorf("%s: howMany's noun is not a string literal: the catalog cannot be checked", fset.Position(call.Args[1].Pos()))
						return true
					}
					found["%[1]d "+noun] = fset.Position(call.Args[1].Pos()).String()
					found["%[1]d "+noun+"s"] = fset.Position(call.Args[1].Pos()).String()
				}
				return true
			case "Sprintf", "Errorf", "Format":
				at = []int{1}
			case "Plural":
				at = []int{3, 2}
			case "M", "Key":
				at = []int{0}
			default:
				return true
			}
			for _, i := range at {
				if i >= len(call.Args) {
					return true
				}
				s, ok := literal(call.Args[i])
				if !ok && mcpOwn {
					t.Errorf("%s: %s's format is not a string literal: the catalog cannot be checked", fset.Position(call.Args[i].Pos()), name)
				}
				if !ok {
					return true // a format passed on (Sprintf's own body) is checked where it is written
				}
				found[s] = fset.Position(call.Args[i].Pos()).String()
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// literal is the value of a string literal, or of literals joined with +.
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return literal(e.X)
	case *ast.BinaryExpr:
		x, okx := literal(e.X)
		y, oky := literal(e.Y)
		return x + y, e.Op == token.ADD && okx && oky
	}
	return "", false
}

// verb matches a fmt verb with an optional explicit argument index.
var verb = regexp.MustCompile(`%(?:\[(\d+)\])?[-+# 0]*\d*(?:\.\d+)?([a-zA-Z%])`)

// verbs lists the verbs of a format by the argument each takes (1-based), "%%" left out.
func verbs(format string) []string {
	var out []string
	next := 1
	for _, m := range verb.FindAllStringSubmatch(format, -1) {
		if m[2] == "%" {
			continue
		}
		if m[1] != "" {
			next, _ = strconv.Atoi(m[1])
		}
		out = append(out, strconv.Itoa(next)+m[2])
		next++
	}
	slices.Sort(out)
	return out
}

// TestCatalogComplete: every format has its Japanese, which takes the same arguments with the
// same verbs and is translated (not the English again, unless it has no letters outside its
// verbs or is in sameInJapanese), and the catalog holds nothing that no code says.
func TestCatalogComplete(t *testing.T) {
	found := formats(t)
	letters := regexp.MustCompile(`[a-zA-Z]`)
	sameInJapanese := map[string]bool{"DAG": true} // formats whose Japanese is the English, letters and all
	for f, where := range found {
		j, ok := ja()[f]
		switch {
		case !ok:
			t.Errorf("%s: no Japanese for %q", where, f)
		case !slices.Equal(verbs(f), verbs(j)):
			t.Errorf("%s: %q takes %v, its Japanese %q takes %v", where, f, verbs(f), j, verbs(j))
		case j == f && !sameInJapanese[f] && letters.MatchString(verb.ReplaceAllString(f, "")):
			t.Errorf("%s: %q is not translated", where, f)
		}
	}
	for f := range ja() {
		if _, ok := found[f]; !ok {
			t.Errorf("the catalog has %q, which no code says", f)
		}
	}
}

func TestSprintf(t *testing.T) {
	if _, err := os.Stat("../../go.mod"); err != nil {
		t.Fatal("the test must run in internal/i18n:", err)
	}
	tests := []struct {
		lang   Lang
		format string
		args   []any
		want   string
	}{
		{"en", "node %s failed after %d attempts", []any{"a", 3}, "node a failed after 3 attempts"},
		{"ja", "no such format %s", []any{"x"}, "no such format x"}, // no entry: the English
	}
	if got := M("no such format %s", "y").In("ja"); got != "no such format y" {
		t.Errorf("M(...).In(ja) = %q", got)
	}
	for _, tt := range tests {
		if got := Sprintf(tt.lang, tt.format, tt.args...); got != tt.want {
			t.Errorf("Sprintf(%s, %q) = %q, want %q", tt.lang, tt.format, got, tt.want)
		}
	}
	if got := verbs("%[2]s は %[1]d 回"); !slices.Equal(got, []string{"1d", "2s"}) {
		t.Errorf("verbs with indexes: %v", got)
	}
}

// TestOneWay: outside this package no code asks which language it speaks (lang == "ja",
// case i18n.Japanese, ...): it says an English format through the catalog instead, so the two
// languages cannot drift apart in one place and not another.
func TestOneWay(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	isJA := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.BasicLit:
			return e.Kind == token.STRING && e.Value == `"ja"`
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			return ok && x.Name == "i18n" && e.Sel.Name == "Japanese"
		}
		return false
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || path == filepath.Join(root, "internal", "i18n")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isJA(n.X) || isJA(n.Y)) {
					t.Errorf("%s: compares a language with Japanese: say an English format through i18n instead", fset.Position(n.Pos()))
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isJA(e) {
						t.Errorf("%s: a case for Japanese: say an English format through i18n instead", fset.Position(e.Pos()))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		flag    string
		env     map[string]string
		want    Lang
		wantErr string
	}{
		{"ja", map[string]string{"SEAM_LANG": "en"}, Japanese, ""},
		{"", map[string]string{"SEAM_LANG": "ja", "LANG": "en_US.UTF-8"}, Japanese, ""},
		{"", map[string]string{"SEAM_LANG": "EN", "LANG": "ja_JP.UTF-8"}, English, ""},
		{"", map[string]string{"LANG": "ja_JP.UTF-8"}, Japanese, ""},
		{"", map[string]string{"LC_MESSAGES": "ja_JP.UTF-8", "LANG": "en_US.UTF-8"}, Japanese, ""},
		{"", map[string]string{"LC_ALL": "C", "LC_MESSAGES": "ja_JP.UTF-8"}, English, ""},
		{"", map[string]string{"LC_ALL": "ja", "LANG": "fr_FR.UTF-8"}, Japanese, ""},
		{"", map[string]string{"LANG": "fr_FR.UTF-8"}, English, ""},
		{"", nil, English, ""},
		{"fr", nil, "", `unsupported language "fr" (want en or ja)`},
		{"", map[string]string{"SEAM_LANG": "fr"}, "", `unsupported language "fr" (want en or ja)`},
	}
	for _, tt := range tests {
		got, err := Resolve(tt.flag, func(k string) string { return tt.env[k] })
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("Resolve(%q, %v) error = %v, want %q", tt.flag, tt.env, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q, %v) = %q, %v; want %q", tt.flag, tt.env, got, err, tt.want)
		}
	}
}

func TestPlural(t *testing.T) {
	tests := []struct {
		lang Lang
		n    int
		want string
	}{
		{English, 1, "1 item"},
		{English, 0, "0 items"},
		{English, 2, "2 items"},
		{Japanese, 1, "1 項目"},
		{Japanese, 2, "2 項目"},
	}
	for _, tt := range tests {
		if got := Plural(tt.lang, tt.n, "%d item", "%d items", tt.n); got != tt.want {
			t.Errorf("Plural(%s, %d) = %q, want %q", tt.lang, tt.n, got, tt.want)
		}
	}
}

// TestCatalogParts: where two parts of the catalog have one format, they say it alike.
func TestCatalogParts(t *testing.T) {
	parts := catalogParts()
	seen := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(parts)) {
		for en, j := range parts[name] {
			if prev, ok := seen[en]; ok && parts[prev][en] != j {
				t.Errorf("%q is %q in %s but %q in %s", en, parts[prev][en], prev, j, name)
			}
			seen[en] = name
		}
	}
}

func TestInline(t *testing.T) {
	tests := []struct {
		lang        Lang
		s           string
		inline, top string
	}{
		{Japanese, "with", " with ", "with "},
		{Japanese, "a の出力契約", " a の出力契約", "a の出力契約"},
		{Japanese, "入力", "入力", "入力"},
		{Japanese, "", "", ""},
		{English, "its with", "its with", "its with"},
	}
	for _, tt := range tests {
		if got := Inline(tt.lang, tt.s); got != tt.inline {
			t.Errorf("Inline(%s, %q) = %q, want %q", tt.lang, tt.s, got, tt.inline)
		}
		if got := InlineStart(tt.lang, tt.s); got != tt.top {
			t.Errorf("InlineStart(%s, %q) = %q, want %q", tt.lang, tt.s, got, tt.top)
		}
	}
}
