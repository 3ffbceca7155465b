// Package workspace is the one door for DAG files: every front end (the CLI, the MCP server,
// the web view, the Temporal client) and the engine's sub-DAG runs load them through a
// Workspace. It owns what every load must agree on: the root the files are confined to (none
// for the CLI), the file size limit ($SEAM_MAX_FILE_SIZE), the node types, their compiled
// config schemas and contract files shared between loads, and the language of the
// diagnostics; and the one rule for which YAML files are DAG files (Find).
package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/nodes"
)

// Options configure New.
type Options struct {
	// Root, when set, is the directory every file a load reads must stay in, at load and at
	// run time: the DAG file, its contracts and their $refs, its sub-DAG files at any depth;
	// a path that leaves it, as written or through a symbolic link, is refused. "" confines
	// nothing: the CLI reads the files its user names, absolute sub-DAG paths included.
	Root string
	// Getenv reads $SEAM_MAX_FILE_SIZE, the limit of every file read; nil reads nothing and
	// keeps userfile.DefaultMaxSize.
	Getenv func(string) string
	// Lang is the language of the diagnostics; WithLang changes it for one caller.
	Lang i18n.Lang
	// Types builds the node types DAGs may use. It is given the workspace being built, so
	// that a type that loads DAG files when it runs (engine.AddDAGType) loads them through
	// it, confined as every other load; nil allows no type.
	Types func(*Workspace) *nodes.Registry
}

// Workspace loads and lints DAG files. It is safe for concurrent use.
type Workspace struct {
	root    *userfile.Root // nil: unconfined
	limit   int64
	lang    i18n.Lang
	types   *nodes.Registry
	schemas *dag.TypeSchemas    // the types' config schemas, compiled once for every load
	files   *contract.FileCache // contract files, compiled once while unchanged
}

// New opens a workspace. A root that is not a directory and a $SEAM_MAX_FILE_SIZE that does
// not parse are errors.
func New(opts Options) (*Workspace, error) {
	limit := int64(userfile.DefaultMaxSize)
	if opts.Getenv != nil {
		var err error
		if limit, err = userfile.MaxSize(opts.Getenv); err != nil {
			return nil, err
		}
	}
	w := &Workspace{limit: limit, lang: opts.Lang, schemas: &dag.TypeSchemas{}, files: &contract.FileCache{}}
	if opts.Root != "" {
		root, err := userfile.OpenRoot(opts.Root, limit)
		if err != nil {
			return nil, err
		}
		w.root = root
	}
	w.types = nodes.NewRegistry()
	if opts.Types != nil {
		w.types = opts.Types(w)
	}
	return w, nil
}

// WithLang is the workspace speaking lang: the same root, types and caches.
func (w *Workspace) WithLang(lang i18n.Lang) *Workspace {
	c := *w
	c.lang = lang
	return &c
}

// Lang is the language of the workspace's diagnostics.
func (w *Workspace) Lang() i18n.Lang { return w.lang }

// MaxFileSize is the limit of every file read ($SEAM_MAX_FILE_SIZE), for the reads that do
// not go through the workspace (a git revision's files).
func (w *Workspace) MaxFileSize() int64 { return w.limit }

// Types are the node types DAGs may use.
func (w *Workspace) Types() *nodes.Registry { return w.types }

// Root is the directory the workspace is confined to (absolute, symbolic links resolved), or
// "" when it is not.
func (w *Workspace) Root() string {
	if w.root == nil {
		return ""
	}
	return w.root.Dir()
}

// ReadFile reads a file as every load does: a regular file within the size limit, under the
// root when there is one (an *userfile.Error wrapping userfile.ErrOutsideRoot otherwise).
func (w *Workspace) ReadFile(path string) ([]byte, error) {
	if w.root == nil {
		return userfile.Read(path, w.limit)
	}
	return w.root.Read(path)
}

// Resolve turns a path a client names (relative to the root, or absolute inside it) into the
// real path of an existing file under the root, refusing one that leaves it (an
// *userfile.Error wrapping userfile.ErrOutsideRoot). Unconfined, it is the absolute path.
func (w *Workspace) Resolve(path string) (string, error) {
	if w.root == nil {
		return filepath.Abs(path)
	}
	return w.root.Resolve(path)
}

// Inside reports whether the absolute, clean path p is under the root (always, unconfined).
func (w *Workspace) Inside(p string) bool { return w.root == nil || w.root.Inside(p) }

// Rel shows a path under the root relative to it, with slashes; another path as it is.
func (w *Workspace) Rel(p string) string {
	if w.root == nil {
		return p
	}
	return w.root.Rel(p)
}

// OutsideRootError is the error of a load that read, or tried to read, a file outside the
// root: the DAG names it (as a sub-DAG or a contract, at any depth), and running the DAG
// would run or read it. Err is the load's error (dag.Diagnostics, most often).
type OutsideRootError struct {
	File string // the first file refused, as the loader named it
	Err  error
}

func (e *OutsideRootError) Error() string { return e.Err.Error() }
func (e *OutsideRootError) Unwrap() error { return e.Err }

// Load reads, parses and checks the DAG file at path (dag.Load) through the workspace.
func (w *Workspace) Load(ctx context.Context, path string) (*dag.DAG, error) {
	return w.load(ctx, path, nil, false, nil)
}

// LoadBytes parses and checks src as the DAG file at path (dag.LoadBytes): what it names
// is read through the workspace.
func (w *Workspace) LoadBytes(ctx context.Context, path string, src []byte) (*dag.DAG, error) {
	return w.load(ctx, path, src, true, nil)
}

// LoadWith loads src as the DAG file at path, reading every file it names with read in
// place of the workspace's reader (with the workspace's types, caches and language): the
// contract gate loads DAG files as they are at a git revision so, and a caller that must
// know what a failed load read wraps ReadFile. read answers for what it reads; a nil read is
// the workspace's.
func (w *Workspace) LoadWith(ctx context.Context, path string, src []byte, read func(string) ([]byte, error)) (*dag.DAG, error) {
	return w.load(ctx, path, src, true, read)
}

// LoadDAG loads the DAG file at path in lang: the engine's `dag` node type reloads the file
// it runs with it at run time (engine.DAGLoader), confined as the first load was.
func (w *Workspace) LoadDAG(ctx context.Context, path string, lang i18n.Lang) (*dag.DAG, error) {
	return w.WithLang(lang).Load(ctx, path)
}

// load loads the DAG file at path, of content src when given (else read), reading what it
// names with read (nil: the workspace's reader).
func (w *Workspace) load(ctx context.Context, path string, src []byte, given bool, read func(string) ([]byte, error)) (*dag.DAG, error) {
	opts := dag.LoadOptions{Types: w.types, TypeSchemas: w.schemas, Files: w.files, MaxFileSize: w.limit, Lang: w.lang, ReadFile: read}
	var ref refused
	if w.root != nil {
		opts.Root = w.root.Dir()
		if read == nil {
			read = w.root.Read
		} else {
			// Another reader (a git revision's files) knows no root: confine its paths here.
			if !w.root.Inside(filepath.Clean(path)) {
				return nil, &OutsideRootError{File: path, Err: &userfile.Error{Path: path, Err: userfile.ErrOutsideRoot}}
			}
			read = lexicallyInside(w.root, read)
		}
		opts.ReadFile = ref.reading(read)
	}
	var (
		d   *dag.DAG
		err error
	)
	if !given {
		d, err = dag.Load(ctx, path, opts)
	} else {
		d, err = dag.LoadBytes(ctx, path, src, opts)
	}
	if err != nil {
		if f := ref.first(); f != "" {
			return nil, &OutsideRootError{File: f, Err: err}
		}
		return nil, err
	}
	return d, nil
}

// lexicallyInside reads through read only the paths under root, refusing the rest as a
// confined read does.
func lexicallyInside(root *userfile.Root, read func(string) ([]byte, error)) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if !root.Inside(filepath.Clean(p)) {
			return nil, &userfile.Error{Path: p, Err: userfile.ErrOutsideRoot}
		}
		return read(p)
	}
}

// refused remembers the first file a load was refused as outside the root.
type refused struct {
	mu   sync.Mutex
	file string
}

func (r *refused) reading(read func(string) ([]byte, error)) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		b, err := read(p)
		if errors.Is(err, userfile.ErrOutsideRoot) {
			r.mu.Lock()
			if r.file == "" {
				r.file = p
			}
			r.mu.Unlock()
		}
		return b, err
	}
}

func (r *refused) first() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.file
}

// Lint checks a loaded DAG statically (lint.Lint) in the workspace's language.
func (w *Workspace) Lint(ctx context.Context, d *dag.DAG) []lint.Finding {
	return lint.Lint(ctx, d, lint.Options{Lang: w.lang})
}
