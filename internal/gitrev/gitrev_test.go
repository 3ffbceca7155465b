package gitrev

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// repo makes a git repository with one commit holding files (path → content).
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for p, c := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=seam", "-c", "user.email=seam@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return dir
}

func TestTree(t *testing.T) {
	dir := repo(t, map[string]string{"a.json": "{}", "d/b.yaml": "version: 1\n", "big.txt": strings.Repeat("x", 100)})
	// The checkout changes; the tree at HEAD does not.
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Open(context.Background(), filepath.Join(dir, "d"), "HEAD", i18n.English)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.ReadFiles([]string{"d/b.yaml", "missing", "a.json", "d", "big.txt"}, 50); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel, want, err string
		notExist       bool
	}{
		{rel: "a.json", want: "{}"},
		{rel: "d/b.yaml", want: "version: 1\n"},
		{rel: "missing", err: "missing does not exist at HEAD", notExist: true},
		{rel: "d", err: "d is a tree at HEAD, not a file", notExist: true},
		{rel: "big.txt", err: "big.txt is over the limit of 50 bytes at HEAD"},
		{rel: "../x", notExist: true},
	}
	for _, tt := range tests {
		b, err := tr.ReadFile(tt.rel, 50)
		switch {
		case tt.want != "" && (err != nil || string(b) != tt.want):
			t.Errorf("%s: %q, %v; want %q", tt.rel, b, err, tt.want)
		case tt.want == "" && err == nil:
			t.Errorf("%s: %q, want an error", tt.rel, b)
		case tt.err != "" && !strings.Contains(err.Error(), tt.err):
			t.Errorf("%s: %v, want %q", tt.rel, err, tt.err)
		case errors.Is(err, fs.ErrNotExist) != tt.notExist:
			t.Errorf("%s: %v: not-exist %v, want %v", tt.rel, err, errors.Is(err, fs.ErrNotExist), tt.notExist)
		}
	}
	if root, _ := filepath.EvalSymlinks(dir); tr.Root() != root {
		t.Errorf("Root %s, want %s", tr.Root(), root)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := repo(t, map[string]string{"a": "a"})
	tests := []struct {
		dir, rev string
		lang     i18n.Lang
		want     string
	}{
		{dir: dir, rev: "nope", want: "--against nope: no such revision in "},
		{dir: dir, rev: "nope", lang: i18n.Japanese, want: "にそのリビジョンはありません"},
		{dir: dir, rev: "-x", want: "--against -x: a revision cannot start with '-' or hold a line break"},
		{dir: t.TempDir(), rev: "HEAD", want: "is not in a git repository"},
	}
	for _, tt := range tests {
		tr, err := Open(context.Background(), tt.dir, tt.rev, tt.lang)
		if err == nil {
			tr.Close()
			t.Errorf("Open(%s): no error, want %q", tt.rev, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%s): %v, want %q", tt.rev, err, tt.want)
		}
	}
}

func TestCloneErrors(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	tests := []struct {
		url, ref string
		lang     i18n.Lang
		want     string
	}{
		{url: "-x", ref: "main", want: "consumer -x@main: neither the repository nor the ref may start with '-'"},
		{url: "file:///nowhere", ref: "-b", lang: i18n.Japanese, want: "利用側 file:///nowhere@-b: リポジトリも ref も '-' で始められません"},
		{url: "file://" + t.TempDir() + "/none", ref: "main", want: "@main: cannot fetch it: "},
	}
	for _, tt := range tests {
		err := Clone(context.Background(), tt.url, tt.ref, filepath.Join(t.TempDir(), "c"), tt.lang)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Clone(%s, %s): %v, want %q", tt.url, tt.ref, err, tt.want)
		}
	}
}
