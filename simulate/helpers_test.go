package simulate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/workspace"
)

// open is a workspace with the CLI's node types: the built-ins, dag and n8n's (whose
// variables are never set here: a simulation reads none).
func open(t testing.TB) *workspace.Workspace {
	t.Helper()
	w, err := workspace.New(workspace.Options{Types: func(w *workspace.Workspace) *nodes.Registry {
		reg := nodes.Builtin()
		engine.AddDAGType(reg, func(string) string { return "" }, w)
		for _, ty := range n8n.Types(n8n.Options{}) {
			reg.Add(ty)
		}
		return reg
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// load loads src as the DAG file name in a temporary directory, with files beside it.
func load(t *testing.T, src string, files map[string]string) *dag.DAG {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "dag.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := open(t).Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
