package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/workspace"
)

// TestLoadSharesContractFiles: loads through one workspace compile a contract file once
// while it and what it $refs are unchanged, and still record them among each DAG's sources
// (the run's file-changed warning and a Temporal run's files read them); a change to a
// referred file is seen by the next load, in both the contract and the sources.
func TestLoadSharesContractFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("common.json", `{"$defs": {"n": {"type": "integer"}}}`)
	write("out.json", `{"type": "object", "properties": {"data": {"type": "object", "properties": {"n": {"$ref": "common.json#/$defs/n"}}}}}`)
	for _, name := range []string{"a.yaml", "b.yaml", "c.yaml"} {
		write(name, "version: 1\nname: t\nnodes:\n  p:\n    type: const\n    with: {value: {status: pass, summary: s, data: {n: 1}}}\n    contract: {output: out.json}\n")
	}
	w, err := workspace.New(workspace.Options{Types: func(*workspace.Workspace) *nodes.Registry { return nodes.Builtin() }})
	if err != nil {
		t.Fatal(err)
	}
	load := func(name string) *dag.DAG {
		t.Helper()
		d, err := w.Load(context.Background(), filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	sources := func(d *dag.DAG) []string {
		var out []string
		for p := range d.Sources {
			out = append(out, filepath.Base(p))
		}
		slices.Sort(out)
		return out
	}
	invalid := map[string]any{"status": "pass", "summary": "s", "data": map[string]any{"n": "seven"}}
	a, b := load("a.yaml"), load("b.yaml")
	if a.ByID["p"].OutputContract != b.ByID["p"].OutputContract {
		t.Error("two loads compiled out.json twice")
	}
	want := []string{"b.yaml", "common.json", "out.json"}
	if got := sources(b); !slices.Equal(got, want) {
		t.Errorf("sources of the second load %v, want %v", got, want)
	}
	if vs := b.ByID["p"].Effective.Validate(invalid, "en"); len(vs) != 1 || vs[0].Keyword != "/allOf/1/properties/data/properties/n/$ref/type" {
		t.Errorf("violations %+v, want one of n's type", vs)
	}
	write("common.json", `{"$defs": {"n": {"type": ["integer", "string"]}}}`)
	c := load("c.yaml")
	if c.ByID["p"].OutputContract == a.ByID["p"].OutputContract {
		t.Error("a load after common.json changed got the old compile")
	}
	if vs := c.ByID["p"].Effective.Validate(invalid, "en"); len(vs) != 0 {
		t.Errorf("after common.json allows a string: violations %+v", vs)
	}
	if d := c.Sources[filepath.Join(dir, "common.json")]; string(d.Data) != `{"$defs": {"n": {"type": ["integer", "string"]}}}` {
		t.Errorf("sources hold common.json as %q", d.Data)
	}
}
