package serve

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/workspace"
)

// dagRow is a row of the DAGs page.
type dagRow struct {
	Path, Name       string
	LoadErrors       int
	Errors, Warnings int
	LoadError        string
	Nodes            int       // the DAG's nodes, when it loads
	NamePos          dag.Pos   // where it gives its name, File relative to the root
	SameName         []string  // the other files that give its name, as file:line; not cached
	LastRun          *runs.Run // its newest run, not cached: read each time the page is
}

type dagsData struct {
	Rows      []dagRow
	Truncated bool
}

func (s *Server) dagsPage(w http.ResponseWriter, r *http.Request) {
	ctx, l := r.Context(), s.lang(r)
	found, err := s.files.Find(ctx, s.files.Root())
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	d := dagsData{Truncated: found.Truncated}
	for _, f := range found.Files {
		if err := ctx.Err(); err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
		row := dagRow{Path: s.rel(f.Path)}
		src, err := s.files.ReadFile(f.Path) // Find keeps no content: 500 files of up to the size limit
		if err == nil {
			err = f.Err
		}
		if err != nil {
			row.LoadError = s.readError(f.Path, err, l).Error()
		} else {
			row = s.cachedRow(ctx, f.Path, src, l)
			if row.Name != "" {
				row.LastRun = s.lastRun(ctx, row.Name)
			}
		}
		d.Rows = append(d.Rows, row)
	}
	sameNames(d.Rows)
	s.render(w, r, http.StatusOK, "dags", d)
}

// sameNames marks the rows whose DAG name another row's file gives too: the run store lists
// runs by name, so the Last run column (and the runs page) would mix theirs.
func sameNames(rows []dagRow) {
	named := make([]*dag.DAG, len(rows))
	for i, r := range rows {
		named[i] = &dag.DAG{Name: r.Name, NamePos: r.NamePos}
	}
	for _, same := range workspace.SameNames(named) {
		for i, r := range rows {
			if r.Name == same.Name {
				rows[i].SameName = same.Others(r.NamePos)
			}
		}
	}
}

// cachedRow is the row of the DAG file at the real path p, of content src: the one
// remembered while no file its load read has changed, else lintRow's.
func (s *Server) cachedRow(ctx context.Context, p string, src []byte, l i18n.Lang) dagRow {
	key := lintKey{path: p, lang: l}
	if row, ok := s.lints.get(key, src, s.files.ReadFile); ok {
		return row
	}
	var mu sync.Mutex // the loader may read from more than one goroutine
	files := map[string]digest{p: digestOf(src, nil)}
	row := s.lintRow(ctx, p, src, l, func(q string) ([]byte, error) {
		b, err := s.files.ReadFile(q)
		mu.Lock()
		files[q] = digestOf(b, err)
		mu.Unlock()
		return b, err
	})
	if ctx.Err() == nil {
		s.lints.put(key, lintEntry{files: files, row: row})
	}
	return row
}

// lintRow loads and lints the DAG file at the real path p, of content src, reading what it
// loads with read.
func (s *Server) lintRow(ctx context.Context, p string, src []byte, l i18n.Lang, read func(string) ([]byte, error)) dagRow {
	row := dagRow{Path: s.rel(p)}
	dg, err := s.loadBytes(ctx, p, src, l, read)
	var ds dag.Diagnostics
	switch {
	case errors.As(err, &ds):
		row.LoadErrors = len(ds)
	case err != nil:
		row.LoadError = err.Error()
	default:
		row.Name, row.Nodes, row.NamePos = dg.Name, len(dg.Nodes), dg.NamePos
		row.NamePos.File = row.Path
		for _, f := range s.files.WithLang(l).Lint(ctx, dg) {
			if f.Severity == lint.SeverityError {
				row.Errors++
			} else {
				row.Warnings++
			}
		}
	}
	return row
}

// resolve turns a path under the root (relative to it, or absolute inside it) into the real
// path of a DAG file there. Paths leaving the root, also through a symbolic link, and
// files that cannot be DAG files (hidden ones, in hidden folders, not *.yaml or *.yml) are
// refused; the messages name the path as given, never the root's.
func (s *Server) resolve(p string, l i18n.Lang) (string, error) {
	real, err := s.files.Resolve(p)
	switch {
	case errors.Is(err, userfile.ErrOutsideRoot):
		return "", errors.New(i18n.Sprintf(l, "%s is outside the root", p))
	case err != nil:
		return "", errors.New(i18n.Sprintf(l, "no DAG file %s under the root", p))
	}
	for _, part := range strings.Split(s.rel(real), "/") {
		if strings.HasPrefix(part, ".") {
			return "", errors.New(i18n.Sprintf(l, "%s is not a DAG file: hidden files and folders are not served", p))
		}
	}
	if !workspace.DAGName(filepath.Base(p)) || !workspace.DAGName(filepath.Base(real)) {
		return "", errors.New(i18n.Sprintf(l, "%s is not a DAG file: only *.yaml and *.yml files are served", p))
	}
	return real, nil
}

// rel shows a path under the root relative to it.
func (s *Server) rel(p string) string { return s.files.Rel(p) }

// load loads the DAG file at the real path p; it and every file it loads (sub-DAGs,
// contracts, $refs) are read under the root.
func (s *Server) load(ctx context.Context, p string, l i18n.Lang) (*dag.DAG, error) {
	src, err := s.files.ReadFile(p)
	if err != nil {
		return nil, s.readError(p, err, l)
	}
	if !workspace.IsDAG(src) {
		return nil, errors.New(i18n.Sprintf(l, "%s is not a DAG file: it has no top-level nodes key", s.rel(p)))
	}
	return s.loadBytes(ctx, p, src, l, s.files.ReadFile)
}

// loadBytes loads src as the DAG file at the real path p, reading what it loads with read
// (the workspace's reader, or one that wraps it). Diagnostics name files relative to the
// root.
func (s *Server) loadBytes(ctx context.Context, p string, src []byte, l i18n.Lang, read func(string) ([]byte, error)) (*dag.DAG, error) {
	d, err := s.files.WithLang(l).LoadWith(ctx, p, src, read)
	var ds dag.Diagnostics
	if errors.As(err, &ds) {
		for i := range ds {
			ds[i].Pos.File = s.rel(ds[i].Pos.File)
			ds[i].Message = s.hidePaths(ds[i].Message)
			ds[i].Hint = s.hidePaths(ds[i].Hint)
		}
		return nil, ds
	}
	if err != nil {
		return nil, errors.New(s.hidePaths(err.Error()))
	}
	return d, nil
}

// absPath finds the absolute paths in a message: a slash after a space, a quote or a
// parenthesis, up to one of them or a colon.
var absPath = regexp.MustCompile(`(^|[\s"'(])(/[^\s"'():,;]+)`)

// hidePaths shows the absolute paths in a message relative to the root, and those outside
// it by their file name only: a page never says where the root or anything else lies.
func (s *Server) hidePaths(msg string) string {
	return absPath.ReplaceAllStringFunc(msg, func(m string) string {
		i := strings.IndexByte(m, '/')
		p := filepath.Clean(m[i:])
		if s.files.Inside(p) {
			return m[:i] + s.rel(p)
		}
		return m[:i] + ".../" + filepath.Base(p)
	})
}

// readError says why the file at the real path p could not be read, naming it relative to
// the root.
func (s *Server) readError(p string, err error, l i18n.Lang) error {
	var (
		pe *fs.PathError
		ue *userfile.Error
	)
	switch {
	case errors.As(err, &ue):
		err = ue.Err
	case errors.As(err, &pe):
		err = pe.Err
	}
	if errors.Is(err, os.ErrNotExist) {
		return errors.New(i18n.Sprintf(l, "no DAG file %s under the root", s.rel(p)))
	}
	return errors.New(i18n.Sprintf(l, "%s cannot be read: %v", s.rel(p), err))
}

// MaxLintCache caps the DAGs page's rows remembered (a row per DAG file and language).
const MaxLintCache = 2 * MaxDAGFiles

// lintCache remembers the DAGs page's row of each DAG file with a digest of every file its
// load read: the DAG file, its sub-DAG files, its schema files and their $refs. A row
// stands while each of them has the same digest; linting 500 files on every visit took
// seconds of CPU.
type lintCache struct {
	mu   sync.Mutex
	rows map[lintKey]lintEntry
}

type lintKey struct {
	path string // real
	lang i18n.Lang
}

type lintEntry struct {
	files map[string]digest // by real path
	row   dagRow
}

// digest is a file's SHA-256; zero for a file that could not be read.
type digest [sha256.Size]byte

func digestOf(b []byte, err error) digest {
	if err != nil {
		return digest{}
	}
	return sha256.Sum256(b)
}

// get returns key's row when every file its load read is as it was: the DAG file is src
// now, the others are read again with read.
func (c *lintCache) get(key lintKey, src []byte, read func(string) ([]byte, error)) (dagRow, bool) {
	c.mu.Lock()
	e, ok := c.rows[key]
	c.mu.Unlock()
	if !ok {
		return dagRow{}, false
	}
	own := digestOf(src, nil)
	for p, d := range e.files {
		now := own
		if p != key.path {
			now = digestOf(read(p))
		}
		if now != d {
			return dagRow{}, false
		}
	}
	return e.row, true
}

// put remembers e as key's row, forgetting another row when MaxLintCache are.
func (c *lintCache) put(key lintKey, e lintEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.rows[key]; !ok && len(c.rows) >= MaxLintCache {
		for k := range c.rows {
			delete(c.rows, k)
			break
		}
	}
	c.rows[key] = e
}
