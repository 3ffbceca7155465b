package temporal

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/nodes"
)

// MaxBundleFiles caps the files of a bundle: the folders exec nodes run in are walked for
// them.
const MaxBundleFiles = 1000

// shipper gathers a bundle's files: those the DAG's loading reads, and those its exec nodes
// run or run among, which the embedded engine finds beside the DAG file and a worker finds
// only if they travel with the run.
type shipper struct {
	lang    i18n.Lang
	maxFile int64
	top     string // the folder of the DAG file run

	mu    sync.Mutex // the loader may read files from several goroutines
	files map[string]*shipped
	dirs  map[string]bool // the folders exec nodes run in, by absolute path
	total int             // bytes in files
}

type shipped struct {
	data []byte
	exec bool
}

// add keeps the file at the absolute path p, once.
func (s *shipper) add(p string, data []byte, exec bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[p]; ok {
		f.exec = f.exec || exec
		return
	}
	s.files[p] = &shipped{data: data, exec: exec}
	s.total += len(data)
}

// ship adds the files that the nodes of d and of its sub-DAGs name (shipLocal), the
// sub-DAGs as d's load loaded them.
func (s *shipper) ship(d *dag.DAG) error {
	dir, err := filepath.Abs(d.Dir)
	if err != nil {
		return err
	}
	for _, n := range d.Nodes {
		if _, sub := n.Type.(dag.RunsDAGFile); sub {
			// A file a reference computes has no sub-DAG: the run says it is not in the bundle.
			if child := d.SubDAGs[n.ID]; child != nil {
				if err := s.ship(child); err != nil {
					return err
				}
			}
			continue
		}
		if lf, ok := n.Type.(nodes.LocalFiles); ok {
			if err := s.shipLocal(n, lf, dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// shipLocal adds the files and folders node n, of the DAG file in dir, names by a relative
// path (nodes.LocalFiles): a folder it runs in walked whole, a file if it is one. Those paths
// must stay under dir or the folder of the DAG file run. What the type does not name (values
// references compute, absolute paths) must make sense on the worker.
func (s *shipper) shipLocal(n *dag.Node, lf nodes.LocalFiles, dir string) error {
	with, _ := n.With.Unresolved().(map[string]any)
	for _, f := range lf.LocalFiles(with) {
		p := filepath.Join(dir, f.Path)
		if f.Dir {
			if !s.allowed(dir, p) {
				return i18n.Errorf(s.lang, "node %s: dir %s is outside the DAG file's folder, so it cannot travel with a run on Temporal: move it beside the DAG file, or give an absolute path that exists on every worker", n.ID, f.Written)
			}
			if err := s.walk(n.ID, p); err != nil {
				return err
			}
			continue
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // it fails on either engine, or it is not a file
		}
		if !s.allowed(dir, p) {
			return i18n.Errorf(s.lang, "node %s: %s is outside the DAG file's folder, so it cannot travel with a run on Temporal: move it beside the DAG file, or install it on every worker and name it by an absolute path", n.ID, f.Written)
		}
		if err := s.file(n.ID, p, fi); err != nil {
			return err
		}
	}
	return nil
}

// allowed reports whether p is under dir, the folder of the DAG file that names it, or under
// the folder of the DAG file run.
func (s *shipper) allowed(dir, p string) bool {
	return within(dir, p) || within(s.top, p)
}

// walk adds the folder wd, which node id runs in, with the files under it but for hidden
// folders (.git, .seam); a folder that is not there is left to fail as on the embedded
// engine.
func (s *shipper) walk(id, wd string) error {
	if fi, err := os.Stat(wd); err != nil || !fi.IsDir() {
		return nil
	}
	return filepath.WalkDir(wd, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case e.IsDir() && p != wd && strings.HasPrefix(e.Name(), "."):
			return filepath.SkipDir
		case e.IsDir():
			s.mu.Lock()
			s.dirs[p] = true
			s.mu.Unlock()
			return nil
		}
		fi, err := os.Stat(p) // a link is shipped as the file it points to
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		return s.file(id, p, fi)
	})
}

// file adds the file at p for node id, refusing it past the bundle's limits.
func (s *shipper) file(id, p string, fi fs.FileInfo) error {
	data, err := userfile.Read(p, s.maxFile)
	if err != nil {
		return i18n.Errorf(s.lang, "node %s: a file it runs: %w", id, err)
	}
	s.add(p, data, fi.Mode()&0o111 != 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.total > MaxBundle:
		return i18n.Errorf(s.lang, "node %s: with %s, the files of the run hold %d bytes, more than the %d a run on Temporal carries (docs/limits.md): give the node a dir that holds only what it runs, or install the files on every worker and name them by absolute paths", id, p, s.total, MaxBundle)
	case len(s.files) > MaxBundleFiles:
		return i18n.Errorf(s.lang, "node %s: with %s, the run has more than the %d files a run on Temporal carries (docs/limits.md): give the node a dir that holds only what it runs, or install the files on every worker and name them by absolute paths", id, p, MaxBundleFiles)
	}
	return nil
}

// field is the value of key in with when no reference computes it, else nil.
func field(with *dag.Template, key string) any {
	if v, ok := with.Literal(); ok {
		m, _ := v.(map[string]any)
		return m[key]
	}
	if c := with.Child(key); c != nil {
		v, _ := c.Literal()
		return v
	}
	return nil
}
