package lint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/nodes/nodestest"
)

// FuzzLint lints whatever loads: Lint must never panic, must finish in bounded time, and
// every error it reports must be one with a witness or an undeclared reference.
func FuzzLint(f *testing.F) {
	f.Add([]byte(head + lintProducer + "  c:\n    type: echo\n    input: {n: \"${{ nodes.p.output.data.n }}\"}\n    contract:\n      input: {type: object, properties: {n: {type: string}}}\n"))
	f.Add([]byte(head + lintProducer + "  c:\n    type: echo\n    needs: [p]\n    with: {count: \"${{ nodes.p.output.data.n * 2 }}\"}\n    contract:\n      input: {type: object, required: [p, q]}\n"))
	if files, err := filepath.Glob("../dags/*.yaml"); err == nil {
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	types := nodes.Builtin()
	for _, name := range []string{"echo", "jq"} {
		t, _ := nodestest.LoadTypes().Lookup(name)
		types.Add(t)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := dag.LoadBytes(context.Background(), "../dags/fuzz.yaml", src, dag.LoadOptions{Types: types})
		if err != nil {
			return
		}
		start := time.Now()
		fs := Lint(context.Background(), d, Options{})
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("lint took %s", el)
		}
		for _, f := range fs {
			if f.Severity == SeverityError && !f.HasWitness && f.Code != CodeUndeclared {
				t.Errorf("error without a witness: %v", f)
			}
		}
	})
}
