package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/workspace"
)

// TestKept: a DAG file is loaded once while neither it nor a file its load read changed;
// a change to either loads it again, and a file that does not load is tried each time.
func TestKept(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("out.json", `{"type": "object"}`)
	src := "version: 1\nname: a\nnodes:\n  n:\n    type: const\n    with: {value: {status: pass, summary: x}}\n    contract: {output: out.json}\n"
	write("a.yaml", src)
	write("broken.yaml", "version: 1\nname: b\nnodes:\n  n:\n    type: nope\n")
	w, err := workspace.New(workspace.Options{Types: func(*workspace.Workspace) *nodes.Registry { return nodes.Builtin() }})
	if err != nil {
		t.Fatal(err)
	}
	k := workspace.NewKept()
	load := func() *dag.DAG {
		t.Helper()
		ds, errs := k.LoadAll(t.Context(), w, []string{dir})
		if len(ds) != 1 || len(errs) != 1 {
			t.Fatalf("%d DAGs and %d errors, want 1 and 1 (broken.yaml): %v", len(ds), len(errs), errs)
		}
		return ds[0]
	}
	first := load()
	steps := []struct {
		name    string
		change  func()
		reloads bool
	}{
		{"nothing changed", func() {}, false},
		{"its schema file changed", func() { write("out.json", `{"type": "object", "required": ["status"]}`) }, true},
		{"nothing changed again", func() {}, false},
		{"the DAG file changed", func() { write("a.yaml", src+"# changed\n") }, true},
	}
	for _, s := range steps {
		s.change()
		if d := load(); (d != first) != s.reloads {
			t.Errorf("%s: loaded again %t, want %t", s.name, d != first, s.reloads)
		} else {
			first = d
		}
	}
}
