package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/workspace"
)

// write writes files (by slash-separated path) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// open opens a workspace at root ("" unconfined) with the built-in types and dag.
func open(t *testing.T, root string) *workspace.Workspace {
	t.Helper()
	w, err := workspace.New(workspace.Options{Root: root, Types: func(w *workspace.Workspace) *nodes.Registry {
		reg := nodes.Builtin()
		engine.AddDAGType(reg, nil, w)
		return reg
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

const (
	okDAG  = "version: 1\nname: ok\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: ok}}\n"
	subDAG = "version: 1\nname: parent\nnodes:\n  run:\n    type: dag\n    with: {file: child.yaml}\noutputs:\n  said: ${{ nodes.run.output.data.said }}\n"
)

func child(said string) string {
	return "version: 1\nname: child\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: " + said + "}}\noutputs:\n  said: ${{ nodes.a.output.summary }}\n"
}

// TestFind: the one rule for which files are DAG files, and the cap.
func TestFind(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write(t, root, map[string]string{
		"a.yaml":                  okDAG,
		"b.yml":                   okDAG,
		"broken.yaml":             "nodes:\n  a: [\n",
		"flow.yaml":               `{"version": 1, "name": "f", "nodes": {}}`,
		"ci.yaml":                 "on: push\njobs: {}\n",
		"broken-other.yaml":       "jobs: [\n",
		"list.yaml":               "- nodes\n",
		"nested-key.yaml":         "spec:\n  nodes: {}\n",
		".hidden.yaml":            okDAG,
		"readme.md":               okDAG,
		"dags/c.yaml":             okDAG,
		".git/d.yaml":             okDAG,
		"node_modules/e.yaml":     okDAG,
		"testdata/f.yaml":         okDAG,
		"deep/er/g.YAML.yaml":     okDAG,
		"upper.YAML":              okDAG,
		"schemas/contract.json":   `{"nodes": 1}`,
		"schemas/contract.yaml":   "type: object\n",
		"dags/.seam/cache/h.yaml": okDAG,
	})
	write(t, outside, map[string]string{"out.yaml": okDAG})
	if err := os.Symlink(filepath.Join(outside, "out.yaml"), filepath.Join(root, "link-out.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.yaml", filepath.Join(root, "link-in.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		root string // "" unconfined
		want string // the files found, relative, with ! after an unreadable one
	}{
		{"confined", root, "a.yaml b.yml broken.yaml dags/c.yaml deep/er/g.YAML.yaml flow.yaml link-in.yaml pipe.yaml!"},
		{"unconfined", "", "a.yaml b.yml broken.yaml dags/c.yaml deep/er/g.YAML.yaml flow.yaml link-in.yaml link-out.yaml pipe.yaml!"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			found, err := open(t, tc.root).Find(t.Context(), root)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range found.Files {
				rel, _ := filepath.Rel(root, f.Path)
				if f.Err != nil {
					rel += "!"
				}
				got = append(got, filepath.ToSlash(rel))
			}
			if strings.Join(got, " ") != tc.want || found.Truncated {
				t.Errorf("Find: %v (truncated %v)\nwant %s", got, found.Truncated, tc.want)
			}
		})
	}
}

// TestFindTruncated: past MaxFound DAG files, Find says so rather than cutting the list
// silently; other YAML does not count.
func TestFindTruncated(t *testing.T) {
	for _, n := range []int{workspace.MaxFound, workspace.MaxFound + 1} {
		root := t.TempDir()
		files := map[string]string{"other.yaml": "a: 1\n"}
		for i := range n {
			files[filepath.Join("d", strings.Repeat("x", 1+i/100), string(rune('a'+i%26))+string(rune('a'+i/26%26))+".yaml")] = okDAG
		}
		write(t, root, files)
		found, err := open(t, root).Find(t.Context(), root)
		if err != nil {
			t.Fatal(err)
		}
		if len(found.Files) != workspace.MaxFound || found.Truncated != (n > workspace.MaxFound) {
			t.Errorf("%d DAG files: found %d, truncated %v", n, len(found.Files), found.Truncated)
		}
	}
}

// TestLoadConfined: under a root, a DAG that names a file outside it, as a sub-DAG or a
// contract, at any depth, does not load, and says which file; unconfined, it loads.
func TestLoadConfined(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write(t, outside, map[string]string{"child.yaml": child("outside"), "s.json": `{"type": "object"}`})
	write(t, root, map[string]string{
		"dotdot.yaml":   strings.Replace(subDAG, "child.yaml", "../"+filepath.Base(outside)+"/child.yaml", 1),
		"absolute.yaml": strings.Replace(subDAG, "child.yaml", filepath.Join(outside, "child.yaml"), 1),
		"deeper.yaml":   strings.Replace(subDAG, "child.yaml", "absolute.yaml", 1),
		"linked.yaml":   subDAG,
	})
	if err := os.Symlink(filepath.Join(outside, "child.yaml"), filepath.Join(root, "child.yaml")); err != nil {
		t.Fatal(err)
	}
	confined, unconfined := open(t, root), open(t, "")
	for _, name := range []string{"dotdot.yaml", "absolute.yaml", "deeper.yaml", "linked.yaml"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(root, name)
			_, err := confined.Load(t.Context(), path)
			var oe *workspace.OutsideRootError
			var ds dag.Diagnostics
			if !errors.As(err, &oe) || !errors.As(err, &ds) {
				t.Fatalf("confined: %v; want an OutsideRootError with diagnostics", err)
			}
			if !strings.HasSuffix(oe.File, "child.yaml") {
				t.Errorf("confined: the file refused is %s, want child.yaml", oe.File)
			}
			d, err := unconfined.Load(t.Context(), path)
			if err != nil {
				t.Fatalf("unconfined: %v", err)
			}
			if len(d.SubDAGs) != 1 {
				t.Errorf("unconfined: sub-DAGs %v", d.SubDAGs)
			}
		})
	}
}

// TestSubDAGConfinedAtRunTime: a sub-DAG file inside the root when its parent loaded, swapped
// for a symbolic link out of the root before the node runs, is refused when it runs: the
// engine loads it again through the workspace, not around it. Unconfined (the CLI), the
// link is followed.
func TestSubDAGConfinedAtRunTime(t *testing.T) {
	tests := []struct {
		name     string
		confined bool
		want     dag.RunStatus
	}{
		{"confined", true, dag.RunFailed},
		{"unconfined", false, dag.RunSuccess},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			write(t, root, map[string]string{"parent.yaml": subDAG, "child.yaml": child("inside")})
			write(t, outside, map[string]string{"child.yaml": child("outside")})
			w := open(t, "")
			if tc.confined {
				w = open(t, root)
			}
			d, err := w.Load(t.Context(), filepath.Join(root, "parent.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(root, "child.yaml")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "child.yaml"), filepath.Join(root, "child.yaml")); err != nil {
				t.Fatal(err)
			}
			res, err := engine.Run(context.Background(), d, engine.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tc.want {
				t.Fatalf("run %s, want %s: %+v", res.Status, tc.want, res.Nodes)
			}
			if tc.confined {
				if reason := res.Nodes[0].Reason; !strings.Contains(reason, userfile.ErrOutsideRoot.Error()) {
					t.Errorf("node run failed with %q, want it refused as outside the root", reason)
				}
			} else if res.Outputs["said"] != "outside" {
				t.Errorf("outputs %v", res.Outputs)
			}
		})
	}
}

// TestLoadWith: a load with another reader reads every file through it, with the
// workspace's types, and keeps what it read as the DAG's sources.
func TestLoadWith(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{filepath.Join(dir, "child.yaml"): child("from read")}
	var asked []string
	read := func(p string) ([]byte, error) {
		asked = append(asked, p)
		if src, ok := files[p]; ok {
			return []byte(src), nil
		}
		return nil, os.ErrNotExist
	}
	main := filepath.Join(dir, "parent.yaml")
	d, err := open(t, dir).LoadWith(t.Context(), main, []byte(subDAG), read)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || d.SubDAGs["run"] == nil || len(d.Sources) != 2 || string(d.Sources[filepath.Join(dir, "child.yaml")].Data) != files[filepath.Join(dir, "child.yaml")] {
		t.Errorf("asked %v; sources %v", asked, d.Sources)
	}
}

// TestLoadWithConfined: under a root, a reader of the workspace's callers (a git revision's
// files) is confined too: neither the DAG file nor a file it names may lie outside the root.
func TestLoadWithConfined(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	read := func(p string) ([]byte, error) { return []byte(child("from read")), nil }
	w := open(t, root)
	_, err := w.LoadWith(t.Context(), filepath.Join(outside, "parent.yaml"), []byte(subDAG), read)
	var out *workspace.OutsideRootError
	if !errors.As(err, &out) || out.File != filepath.Join(outside, "parent.yaml") {
		t.Errorf("a DAG file outside the root: err = %v", err)
	}
	escape := strings.Replace(subDAG, "child.yaml", "../"+filepath.Base(outside)+"/child.yaml", 1)
	_, err = w.LoadWith(t.Context(), filepath.Join(root, "parent.yaml"), []byte(escape), read)
	if !errors.As(err, &out) || out.File != filepath.Join(outside, "child.yaml") || !strings.Contains(err.Error(), "outside the root") {
		t.Errorf("a sub-DAG outside the root: err = %v", err)
	}
}
