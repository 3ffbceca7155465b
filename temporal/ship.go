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

// ship adds the files that the exec nodes of d and of its sub-DAGs name (shipExec), the
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
		if n.Type.Name() == "exec" {
			if err := s.shipExec(n, dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// shipExec adds what exec node n, of the DAG file in dir, names by a relative path: the
// folder it runs in (dir:, walked whole) and the files of its command (a program named with
// a slash, ./classify.py, and arguments that are files, [python3, classify.py]). Those paths
// must stay under dir or the folder of the DAG file run. Values that references compute, a
// shell script's words and absolute paths are left as they are: they must make sense on the
// worker.
func (s *shipper) shipExec(n *dag.Node, dir string) error {
	wd := dir
	switch v := field(n.With, "dir").(type) {
	case nil:
		if n.With.Child("dir") != nil {
			return nil // a reference computes it
		}
	case string:
		if filepath.IsAbs(v) || strings.Contains(v, "${{") {
			return nil
		}
		wd = filepath.Join(dir, v)
		if !s.allowed(dir, wd) {
			return i18n.Errorf(s.lang, "node %s: dir %s is outside the DAG file's folder, so it cannot travel with a run on Temporal: move it beside the DAG file, or give an absolute path that exists on every worker", n.ID, v)
		}
		if err := s.walk(n.ID, wd); err != nil {
			return err
		}
	default:
		return nil // a reference
	}
	if shell, _ := field(n.With, "shell").(bool); shell {
		return nil
	}
	for i, arg := range argv(n.With) {
		if arg == "" || filepath.IsAbs(arg) || strings.Contains(arg, "${{") || (i == 0 && !strings.ContainsRune(arg, '/')) {
			continue // a program on the worker's PATH, or not known before the run
		}
		p := filepath.Join(wd, arg)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // it fails on either engine, or it is not a file
		}
		if !s.allowed(dir, p) {
			return i18n.Errorf(s.lang, "node %s: %s is outside the DAG file's folder, so it cannot travel with a run on Temporal: move it beside the DAG file, or install it on every worker and name it by an absolute path", n.ID, arg)
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

// argv is an exec node's command as far as it is known before the run: "" for an argument
// a reference computes.
func argv(with *dag.Template) []string {
	var items []any
	switch v := field(with, "command").(type) {
	case []any:
		items = v
	case nil:
		c := with.Child("command")
		if c == nil || c.Kind() != dag.TemplateArray {
			return nil
		}
		for _, e := range c.Elems() {
			v, _ := e.Literal()
			items = append(items, v)
		}
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it.(string)
	}
	return out
}
