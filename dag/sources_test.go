package dag

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/seam-dag/seam/nodes"
)

// TestLoadSources: a DAG keeps every file its load read, at any depth, with its digest, and
// the sub-DAGs its dag nodes run, loaded once with it.
func TestLoadSources(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"main.yaml": "version: 1\nname: main\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: ok}}\n" +
			"    contract: {output: out.json}\n  sub:\n    type: dag\n    with: {file: child.yaml}\n",
		"out.json":    `{"type": "object", "properties": {"n": {"$ref": "defs.json"}}}`,
		"defs.json":   `{"type": "integer"}`,
		"child.yaml":  "version: 1\nname: child\nnodes:\n  b:\n    type: const\n    with: {value: {status: pass, summary: ok}}\n    contract: {output: child.json}\n",
		"child.json":  `{"type": "object"}`,
		"unread.json": `{}`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg := nodes.Builtin()
	reg.Add(loadOnlyDAGType{})
	d, err := Load(context.Background(), filepath.Join(dir, "main.yaml"), LoadOptions{Types: reg})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dag  *DAG
		want []string
	}{
		{d, []string{"child.json", "child.yaml", "defs.json", "main.yaml", "out.json"}},
		{d.SubDAGs["sub"], []string{"child.json", "child.yaml"}},
	}
	for _, tc := range tests {
		if tc.dag == nil {
			t.Fatalf("no sub-DAG: %v", d.SubDAGs)
		}
		var got []string
		for p, s := range tc.dag.Sources {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rel)
			if string(s.Data) != files[rel] || s.Digest != sha256.Sum256([]byte(files[rel])) {
				t.Errorf("%s: source %s holds %q", tc.dag.Name, rel, s.Data)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: sources %v, want %v", tc.dag.Name, got, tc.want)
		}
	}
	if d.SubDAGs["sub"].Name != "child" || len(d.SubDAGs) != 1 || d.SubDAGs["sub"].SubDAGs != nil {
		t.Errorf("sub-DAGs: %v", d.SubDAGs)
	}
}
