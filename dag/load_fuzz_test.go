package dag

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// FuzzLoad feeds arbitrary files to the loader: it must never panic, and it must either
// return a DAG that holds together or diagnostics that point into the file.
// The seed corpus is testdata/fuzz/FuzzLoad: examples, invalid files and past crashers.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(head + "  a: {type: const, with: {value: 1}}\n  b: {type: echo, with: {text: \"${{ nodes.a.output.summary }}\"}}\n"))
	// The built-in types (their checks run at load time) and the test types.
	types := nodes.Builtin()
	for _, name := range []string{"echo", "jq"} {
		t, _ := nodestest.LoadTypes().Lookup(name)
		types.Add(t)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const file = "testdata/fuzz.yaml"
		d, err := LoadBytes(context.Background(), file, src, LoadOptions{Types: types})
		if err != nil {
			if d != nil {
				t.Fatal("a DAG and an error")
			}
			var ds Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("error %v (%T), want diagnostics", err, err)
			}
			if len(ds) == 0 {
				t.Fatal("empty diagnostics")
			}
			lines := len(lineStarts(src)) - 1
			for _, d := range ds {
				if d.Pos.File != file || d.Pos.Line < 1 || d.Pos.Line > lines || d.Pos.Col < 1 ||
					!strings.HasPrefix(d.Code, "SEAM-E1") || d.Message == "" || d.Hint == "" {
					t.Errorf("bad diagnostic %+v", d)
				}
			}
			if !slices.IsSortedFunc(ds, func(a, b Diagnostic) int { return comparePos(a.Pos, b.Pos) }) {
				t.Error("diagnostics not sorted by position")
			}
			return
		}
		if len(d.Nodes) == 0 || len(d.Order) != len(d.Nodes) || len(d.ByID) != len(d.Nodes) {
			t.Fatalf("%d nodes, %d ordered, %d by id", len(d.Nodes), len(d.Order), len(d.ByID))
		}
		done := make(map[string]bool, len(d.Nodes))
		for _, n := range d.Order {
			for _, dep := range n.Deps {
				if !done[dep] {
					t.Fatalf("node %s ordered before its dependency %s", n.ID, dep)
				}
			}
			done[n.ID] = true
			if n.Type == nil || n.Effective == nil || n.With == nil || n.Retry.Attempts < 1 {
				t.Fatalf("node %s incomplete: %+v", n.ID, n)
			}
		}
		_, _ = d.Mermaid(), d.Dot()
	})
}
