package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
)

// MaxFound caps the DAG files Find returns: a listing reads and loads each.
const MaxFound = 500

// Found are the DAG files under a directory.
type Found struct {
	Files []FoundFile // in lexical order of their paths
	// Truncated says that there are more DAG files than MaxFound: Files holds the first.
	Truncated bool
}

// FoundFile is a file that is a DAG file by its name and content, or that may be one by its
// name but could not be read (a named pipe, a file over the size limit): Err says why, and
// each front end decides whether to show it.
type FoundFile struct {
	Path string // dir joined with the path below it
	Err  error
}

// Find lists the DAG files under dir. The rule, the one every front end lists by:
//
//   - folders whose name starts with "." (.git, .seam), node_modules and testdata are not
//     entered (dir itself always is);
//   - a file may be a DAG file when its name ends in .yaml or .yml and does not start with
//     ".";
//   - it is one when it has a top-level `nodes` key: when it parses as YAML, it is a mapping
//     with that key; when it does not, a line starts with `nodes:`, so that a broken DAG
//     file is listed (loading says what is wrong) while other YAML (CI settings, a compose
//     file) is not, not even why it does not load, which would quote it;
//   - files are read through the workspace: under a root, a file that leads out of it (a
//     symbolic link) is not listed at all, and a file that cannot be read is listed with
//     its error.
//
// An unreadable folder hides what is in it. At most MaxFound files are returned; Truncated
// says when there were more.
func (w *Workspace) Find(ctx context.Context, dir string) (*Found, error) {
	found := &Found{}
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder hides its files, nothing more
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := de.Name()
		if de.IsDir() {
			if p != dir && SkipDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if !DAGName(name) {
			return nil
		}
		src, err := w.ReadFile(p)
		switch {
		case errors.Is(err, userfile.ErrOutsideRoot):
			return nil
		case err == nil && !IsDAG(src):
			return nil
		}
		if len(found.Files) == MaxFound {
			found.Truncated = true
			return filepath.SkipAll
		}
		found.Files = append(found.Files, FoundFile{Path: p, Err: err})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// DAGFiles are the files paths name: a file as it is, a directory's DAG files by Find's rule,
// in path order, read with read. Unlike a listing, lint and the gate take every one (no cap):
// a file they skipped would pass unjudged. When need is set, a directory without one is an
// error.
func DAGFiles(paths []string, read func(string) ([]byte, error), need bool, lang i18n.Lang) ([]string, error) {
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
				if path != p && SkipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if !DAGName(d.Name()) {
				return nil
			}
			if b, err := read(path); err != nil || IsDAG(b) {
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

// SkipDir reports whether Find leaves out a folder of this name: hidden ones (.git, .seam),
// node_modules and testdata.
func SkipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata"
}

// DAGName reports whether a file's name may be a DAG file's: *.yaml or *.yml, not hidden.
func DAGName(name string) bool {
	ext := filepath.Ext(name)
	return !strings.HasPrefix(name, ".") && (ext == ".yaml" || ext == ".yml")
}

// nodesLine finds the top-level key every DAG file has, in YAML that does not parse.
var nodesLine = regexp.MustCompile(`(?m)^nodes[ \t]*:`)

// IsDAG reports whether src is a DAG file's content, by Find's rule: a top-level `nodes`
// key.
func IsDAG(src []byte) bool {
	var top yaml.Node
	if err := yaml.Unmarshal(src, &top); err != nil {
		return nodesLine.Match(src)
	}
	if len(top.Content) == 0 || top.Content[0].Kind != yaml.MappingNode {
		return false
	}
	m := top.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "nodes" {
			return true
		}
	}
	return false
}
