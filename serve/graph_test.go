package serve

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/nodes"
)

// TestVerdicts: each edge of the graph is drawn with lint's verdict; an edge into a foreach
// node, whose list lint proves is a list (or warns or errs when it cannot), is drawn as lint
// decided it, not as unknown.
func TestVerdicts(t *testing.T) {
	const list = `
  list:
    type: const
    with: {value: {status: pass, summary: x, data: {items: [a, b]}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data: {type: object, required: [items], properties: {items: {type: array, items: {type: string}}}}
`
	tests := []struct {
		name, nodes string
		edge        [2]string
		want        string
	}{
		{"a foreach over a list its contract proves", list + `
  each:
    type: exec
    foreach: "${{ nodes.list.output.data.items }}"
    with: {command: [echo, "${{ item }}"], output: text}
`, [2]string{"list", "each"}, proven},
		{"a foreach over a string", list + `
  each:
    type: exec
    foreach: "${{ nodes.list.output.summary }}"
    with: {command: [echo, "${{ item }}"], output: text}
`, [2]string{"list", "each"}, incompatible},
		{"a foreach over what no contract describes", `
  free:
    type: exec
    with: {command: [echo, "[1]"]}
  each:
    type: exec
    foreach: "${{ nodes.free.output.data.items }}"
    with: {command: [echo, "${{ item }}"], output: text}
`, [2]string{"free", "each"}, unknown},
		{"needs only", list + `
  after:
    type: exec
    needs: [list]
    with: {command: [echo], output: text}
`, [2]string{"list", "after"}, orderOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "d.yaml")
			if err := os.WriteFile(p, []byte("version: 1\nname: d\nnodes:"+tt.nodes), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := dag.Load(context.Background(), p, dag.LoadOptions{Types: nodes.Builtin()})
			if err != nil {
				t.Fatal(err)
			}
			fs := lint.Lint(context.Background(), d, lint.Options{})
			if got := verdicts(d, fs)[tt.edge]; got != tt.want {
				t.Errorf("edge %s → %s: %q, want %q; lint said: %v", tt.edge[0], tt.edge[1], got, tt.want, fs)
			}
		})
	}
}
