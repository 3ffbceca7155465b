package gate

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/workspace"
)

// under is p relative to root, slash-separated, when p is root or below it.
func under(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// subDAGFiles are the files d's dag nodes run, resolved as the engine resolves them.
func subDAGFiles(d *dag.DAG) []string {
	var out []string
	for _, n := range d.Nodes {
		if _, ok := n.Type.(dag.RunsDAGFile); !ok {
			continue
		}
		with, ok := n.With.Literal()
		m, _ := with.(map[string]any)
		file, _ := m["file"].(string)
		if !ok || file == "" {
			continue
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(d.Dir, file)
		}
		out = append(out, file)
	}
	return out
}

// dagFiles are the files paths name: a file as it is, a directory's DAG files by the
// workspace's rule (workspace.Find), in path order, read with read. Unlike a listing, the
// gate takes every one (no cap): a file it skipped would pass unjudged. When need is set, a
// directory without one is an error.
func dagFiles(paths []string, read func(string) ([]byte, error), need bool, lang i18n.Lang) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			out = append(out, p) // a file, or one that cannot be read: loading says why
			continue
		}
		n := len(out)
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && workspace.SkipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if !workspace.DAGName(d.Name()) {
				return nil
			}
			if b, err := read(path); err != nil || workspace.IsDAG(b) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walk %s: %w", p, err)
		}
		if need && len(out) == n {
			// Nothing judged is not a clean result: the path is likely wrong.
			return nil, i18n.Errorf(lang, "%s holds no DAG file (a YAML file with nodes)", p)
		}
	}
	return out, nil
}
