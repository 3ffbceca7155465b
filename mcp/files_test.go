package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNonRegularFiles puts a named pipe (and a link to one) among the DAG files under the
// root: list_dags lists the real DAG without opening the pipe, and a tool naming the pipe
// fails at once with the reason, where it used to block for good.
func TestNonRegularFiles(t *testing.T) {
	root := t.TempDir()
	ok := "version: 1\nname: ok\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: ok}}\n"
	if err := os.WriteFile(filepath.Join(root, "ok.yaml"), []byte(ok), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pipe.yaml", filepath.Join(root, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, root, false)

	list := call(t, cs, "list_dags", map[string]any{})
	if d := list.data(); num(d, "count") != 1 || d["broken"] != nil {
		t.Errorf("list_dags: %v; want ok.yaml alone", d)
	}

	for _, path := range []string{"pipe.yaml", "link.yaml"} {
		lint := call(t, cs, "lint_dag", map[string]any{"path": path})
		msg, _ := lint.env["message"].(string)
		if errCode(lint) != CodeInvalidDAG || !strings.HasSuffix(msg, "pipe.yaml: not a regular file (a named pipe)") {
			t.Errorf("lint_dag %s: %s %q; want %s, not a regular file (a named pipe)", path, errCode(lint), msg, CodeInvalidDAG)
		}
	}
}

// TestMaxFileSize: the server reads files up to $SEAM_MAX_FILE_SIZE, and refuses to start
// with a value it cannot read.
func TestMaxFileSize(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "ok.yaml"), []byte("version: 1\nname: ok\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: ok}}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(v string) func(string) string {
		return func(k string) string {
			if k == "SEAM_MAX_FILE_SIZE" {
				return v
			}
			return ""
		}
	}
	cs := connectWith(t, Options{Root: root, Getenv: getenv("20")})
	lint := call(t, cs, "lint_dag", map[string]any{"path": "ok.yaml"})
	if msg, _ := lint.env["message"].(string); !strings.HasSuffix(msg, "ok.yaml: 90 bytes is over the 20 bytes limit (SEAM_MAX_FILE_SIZE)") {
		t.Errorf("lint_dag over the limit: %q", msg)
	}

	_, err := NewServer(Options{Root: root, Types: testTypes, Getenv: getenv("much")})
	want := `mcp server: SEAM_MAX_FILE_SIZE="much": want a positive number of bytes, or one with KiB, MiB or GiB (e.g. 64MiB)`
	if err == nil || err.Error() != want {
		t.Errorf("NewServer with SEAM_MAX_FILE_SIZE=much: %v; want %s", err, want)
	}
}
