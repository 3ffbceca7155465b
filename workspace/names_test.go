package workspace_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/workspace"
)

// TestSameNames: DAG files that give one name are found, with where each gives it, and said
// in both languages; distinct names, and one file given twice as a sub-DAG, are not.
func TestSameNames(t *testing.T) {
	named := func(name string) string {
		return "version: 1\n# a comment moves the name down a line\nname: " + name + "\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: ok}}\n"
	}
	tests := []struct {
		name  string
		files map[string]string
		load  []string
		want  []string // each SameName's Warning in English
		ja    string   // the first one's in Japanese, when any
	}{
		{"one file given twice", map[string]string{"a.yaml": named("one")}, []string{"a.yaml", "a.yaml"}, nil, ""},
		{"distinct names", map[string]string{"a.yaml": named("one"), "b.yaml": named("two")}, []string{"a.yaml", "b.yaml"}, nil, ""},
		{"two files, one name", map[string]string{"a.yaml": named("one"), "sub/b.yaml": named("one")}, []string{"a.yaml", "sub/b.yaml"},
			[]string{`warning: 2 DAG files are named "one" (a.yaml:3:7, sub/b.yaml:3:7): runs are listed by DAG name, so theirs would mix; give each file a name of its own`},
			`警告: 2 個の DAG ファイルが同じ名前 "one" です（a.yaml:3:7, sub/b.yaml:3:7）。`},
		{"three files, two names", map[string]string{"a.yaml": named("one"), "b.yaml": named("two"), "c.yaml": named("one"), "d.yaml": named("one")},
			[]string{"a.yaml", "b.yaml", "c.yaml", "d.yaml"},
			[]string{`warning: 3 DAG files are named "one" (a.yaml:3:7, c.yaml:3:7, d.yaml:3:7): runs are listed by DAG name, so theirs would mix; give each file a name of its own`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tt.files)
			w := open(t, dir)
			var ds []*dag.DAG
			for _, f := range tt.load {
				d, err := w.Load(context.Background(), filepath.Join(dir, filepath.FromSlash(f)))
				if err != nil {
					t.Fatal(err)
				}
				d.NamePos.File = f // as given on a command line, relative
				ds = append(ds, d)
			}
			got := workspace.SameNames(ds)
			var said []string
			for _, s := range got {
				said = append(said, s.Warning(i18n.English))
			}
			if strings.Join(said, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(said, "\n"), strings.Join(tt.want, "\n"))
			}
			if tt.ja != "" && !strings.HasPrefix(got[0].Warning(i18n.Japanese), tt.ja) {
				t.Errorf("in Japanese: %s\nwant the start %s", got[0].Warning(i18n.Japanese), tt.ja)
			}
			if len(got) > 0 {
				// what the web view shows on the first file's row: the other files, by line
				var want []string
				for _, f := range tt.load[1:] {
					if strings.Contains(tt.files[f], "name: "+got[0].Name+"\n") {
						want = append(want, f+":3")
					}
				}
				if others := got[0].Others(got[0].At[0]); strings.Join(others, " ") != strings.Join(want, " ") {
					t.Errorf("Others = %q, want %q", others, want)
				}
			}
		})
	}
}
