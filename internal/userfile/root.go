package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutsideRoot is returned (wrapped in an *Error) for a path that leaves a Root.
var ErrOutsideRoot = errors.New("outside the root")

// Root confines what is read to a directory: a server that reads the files its clients name
// (seam serve, seam mcp) reads them through one, so that a DAG under it cannot make it read,
// load or run a file elsewhere (a sub-DAG or a contract at ../x, /etc/x or behind a symbolic
// link). Reads go through os.Root, which refuses a path that leaves the directory, also
// through a symbolic link swapped in after a check.
type Root struct {
	dir   string // absolute, symbolic links resolved
	limit int64
}

// OpenRoot confines reads to the directory dir ("" is "."), each file at most limit bytes
// (limit <= 0 is DefaultMaxSize).
func OpenRoot(dir string, limit int64) (*Root, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("root %s: not a directory", dir)
	}
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	return &Root{dir: real, limit: limit}, nil
}

// Dir is the root's absolute path, symbolic links resolved.
func (r *Root) Dir() string { return r.dir }

// Inside reports whether the absolute, clean path p is the root or below it, as written.
func (r *Root) Inside(p string) bool {
	rel, err := filepath.Rel(r.dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Rel shows a path under the root relative to it, with slashes; another path as it is.
func (r *Root) Rel(p string) string {
	if rel, err := filepath.Rel(r.dir, p); err == nil && r.Inside(p) {
		return filepath.ToSlash(rel)
	}
	return p
}

// Resolve turns p (relative to the root, or absolute inside it) into the real path of an
// existing file under the root. A path that leaves the root, as written or through a
// symbolic link, is an *Error wrapping ErrOutsideRoot; a missing file wraps fs.ErrNotExist.
func (r *Root) Resolve(p string) (string, error) {
	cand := p
	if !filepath.IsAbs(cand) {
		cand = filepath.Join(r.dir, cand)
	}
	cand = filepath.Clean(cand)
	if !r.Inside(cand) {
		return "", &Error{Path: p, Err: ErrOutsideRoot}
	}
	real, err := filepath.EvalSymlinks(cand)
	if err != nil {
		return "", &Error{Path: p, Err: unwrapPath(err)}
	}
	if !r.Inside(real) {
		return "", &Error{Path: p, Err: ErrOutsideRoot}
	}
	return real, nil
}

// Read reads the file at path (absolute, or relative to the root) as the package's Read
// does, refusing one outside the root with an *Error wrapping ErrOutsideRoot. It fits
// dag.LoadOptions.ReadFile: then the DAG file, its sub-DAG files and its schema files are
// all read under the root.
func (r *Root) Read(path string) ([]byte, error) {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.dir, abs)
	}
	abs = filepath.Clean(abs)
	if !r.Inside(abs) {
		return nil, &Error{Path: path, Err: ErrOutsideRoot}
	}
	rel, _ := filepath.Rel(r.dir, abs) // Inside: never fails
	root, err := os.OpenRoot(r.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		// os.Root refuses every absolute symbolic link, and says a link out escapes in words
		// only: follow the links here, then open what they lead to through the root again.
		real, rerr := filepath.EvalSymlinks(abs)
		if rerr != nil {
			return nil, err
		}
		if !r.Inside(real) {
			return nil, &Error{Path: path, Err: ErrOutsideRoot}
		}
		rel, _ = filepath.Rel(r.dir, real)
		if f, err = root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
			return nil, err
		}
	}
	defer f.Close()
	return read(f, path, r.limit)
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
