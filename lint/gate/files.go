package gate

import (
	"path/filepath"
	"strings"

	"github.com/seam-dag/seam/dag"
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
