package mcp

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/seam-dag/seam/workspace"
)

// root is the directory every DAG path a client names must stay in, and how much of a file
// in it the server reads. Every file the server reads goes through files, the workspace
// every DAG loads through (and seam serve's the same way): a DAG under the root cannot load
// a sub-DAG or a contract outside it, nor run one there when it runs.
type root struct {
	dir   string // absolute, symlinks resolved
	files *workspace.Workspace
}

// newRoot confines the server to dir ("" is "."), the workspace to files.
func newRoot(files *workspace.Workspace) root { return root{dir: files.Root(), files: files} }

// readFile reads a file under the root: a regular file within the size limit, so that a
// named pipe or a device there fails the request instead of hanging it.
func (r root) readFile(p string) ([]byte, error) { return r.files.ReadFile(p) }

// inside reports whether the absolute, clean path p is the root or below it.
func (r root) inside(p string) bool { return r.files.Inside(p) }

// resolve turns a path a client names (relative to the root, or absolute inside it) into
// the real path of an existing file under the root. Paths that leave the root, lexically
// or through a symbolic link, are refused, saying the path as the client gave it: the root's
// own path and where a link leads are not the client's to learn.
func (r root) resolve(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fail(CodeInvalidArgument, nil, "path is empty: name a DAG file under the root (list_dags shows them)")
	}
	cand := p
	if !filepath.IsAbs(cand) {
		cand = filepath.Join(r.dir, cand)
	}
	cand = filepath.Clean(cand)
	if !r.inside(cand) {
		return "", fail(CodeOutsideRoot, nil, "path %q is outside the root: name a file under it", p)
	}
	real, err := filepath.EvalSymlinks(cand)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fail(CodeNotFound, nil, "no file %q under the root (list_dags shows the DAG files)", p)
	}
	if err != nil {
		return "", fail(CodeInvalidArgument, nil, "path %q: %v", p, err)
	}
	if !r.inside(real) {
		return "", fail(CodeOutsideRoot, nil, "path %q is a symbolic link that leads outside the root", p)
	}
	return real, nil
}

// rel shows a real path under the root relative to it.
func (r root) rel(p string) string { return r.files.Rel(p) }
