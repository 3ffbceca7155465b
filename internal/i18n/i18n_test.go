package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// formats finds, in the non-test Go files of the module, every string literal given as the
// format of i18n.Sprintf, i18n.Errorf, i18n.Format or i18n.M (and of Sprintf, Errorf, Format
// and M within this package), with where it stands.
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
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 1 {
				return true
			}
			var name string
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if x, ok := fn.X.(*ast.Ident); ok && x.Name == "i18n" {
					name = fn.Sel.Name
				}
			case *ast.Ident:
				if inPackage {
					name = fn.Name
				}
			}
			at := 1 // the format's argument: after the language, but M has none
			switch name {
			case "Sprintf", "Errorf", "Format":
				if len(call.Args) < 2 {
					return true
				}
			case "M":
				at = 0
			default:
				return true
			}
			lit, ok := call.Args[at].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true // a format passed on (Sprintf's own body) is checked where it is written
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
				return true
			}
			found[s] = fset.Position(lit.Pos()).String()
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
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
// same verbs, and the catalog holds nothing that no code says.
func TestCatalogComplete(t *testing.T) {
	found := formats(t)
	for f, where := range found {
		j, ok := ja[f]
		if !ok {
			t.Errorf("%s: no Japanese for %q", where, f)
			continue
		}
		if !slices.Equal(verbs(f), verbs(j)) {
			t.Errorf("%s: %q takes %v, its Japanese %q takes %v", where, f, verbs(f), j, verbs(j))
		}
	}
	for f := range ja {
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
		lang, format string
		args         []any
		want         string
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
