package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/workspace"
)

// TestSubDAGConfinedAtRunTime: a sub-DAG file under the root when run_dag loaded its parent,
// swapped for a symbolic link out of the root before its node runs, is refused when the
// node runs, as it would have been at load: the run does not read or run the file outside.
func TestSubDAGConfinedAtRunTime(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	child := func(said string) string {
		return "version: 1\nname: child\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: " + said + "}}\n"
	}
	// wait holds the run until the test has swapped the file: until the file go exists.
	parent := "version: 1\nname: parent\nnodes:\n  wait:\n    type: exec\n" +
		"    with: {command: [sh, -c, 'while [ ! -e go ]; do sleep 0.01; done; echo {\\\"status\\\":\\\"pass\\\",\\\"summary\\\":\\\"go\\\"}']}\n" +
		"  sub:\n    type: dag\n    needs: [wait]\n    with: {file: child.yaml}\n"
	for dir, files := range map[string]map[string]string{
		root:    {"parent.yaml": parent, "child.yaml": child("inside")},
		outside: {"child.yaml": child("outside")},
	} {
		for name, src := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cs, _, st := storeServer(t, root)
	r := call(t, cs, "run_dag", map[string]any{"path": "parent.yaml"})
	id, _ := r.data()["id"].(string)
	if id == "" {
		t.Fatalf("run_dag: %v", r.env)
	}
	if err := os.Remove(filepath.Join(root, "child.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "child.yaml"), filepath.Join(root, "child.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var status, reason string
	waitFor(t, func() bool {
		run, as, err := st.GetRun(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			if a.Node == "sub" {
				reason = a.Reason
			}
		}
		status = string(run.Status)
		return status != "running"
	})
	if status != "failed" || !strings.Contains(reason, "outside the root") {
		t.Errorf("run %s, sub's reason %q; want failed, the sub-DAG refused as outside the root", status, reason)
	}
}

// TestListDAGsTruncated: past workspace.MaxFound DAG files under the root, list_dags lists
// the first and says there are more, where it used to stop without a word.
func TestListDAGsTruncated(t *testing.T) {
	root := t.TempDir()
	dag := "version: 1\nname: d\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: ok}}\n"
	for i := range workspace.MaxFound + 1 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("d%03d.yaml", i)), []byte(dag), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, root, false)
	r := call(t, cs, "list_dags", map[string]any{})
	msg, _ := r.env["message"].(string)
	if d := r.data(); num(d, "count") != workspace.MaxFound || d["truncated"] != true || !strings.Contains(msg, "there are more, not listed") {
		t.Errorf("list_dags: %q, count %v, truncated %v; want %d listed and truncated", msg, d["count"], d["truncated"], workspace.MaxFound)
	}
}
