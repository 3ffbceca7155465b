package dag

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/nodes"
)

// subDAG checks a `dag` node's file while the parent loads: the file loads, it does not lead
// back to a file being loaded (a cycle between files), and its params schema becomes the
// node's input contract unless the node declares one.
func (l *loader) subDAG(ctx context.Context, n *Node, src *nodeSource) {
	if _, ok := n.Type.(RunsDAGFile); !ok || src.withNode == nil {
		return
	}
	var fv *yaml.Node
	for i := 0; i+1 < len(src.withNode.Content); i += 2 {
		if src.withNode.Content[i].Value == "file" {
			fv = deref(src.withNode.Content[i+1])
		}
	}
	if fv == nil || fv.Kind != yaml.ScalarNode || fv.Tag != "!!str" || strings.Contains(fv.Value, "${{") {
		return // the config schema and the type's Check report it
	}
	path := fv.Value
	if !filepath.IsAbs(path) {
		path = filepath.Join(l.dir, path)
	}
	target, err1 := filepath.Abs(path)
	self, err2 := filepath.Abs(l.file)
	if err1 != nil || err2 != nil {
		l.addAt(fv, CodeSubDAG, i18n.Format(l.lang, "check the path"), i18n.Sprintf(l.lang, "node %q: cannot resolve %s", n.ID, fv.Value))
		return
	}
	chain := append(append([]string(nil), l.parents...), self)
	for k, p := range chain {
		if p == target {
			names := make([]string, 0, len(chain)-k+1)
			for _, q := range chain[k:] {
				names = append(names, filepath.Base(q))
			}
			names = append(names, filepath.Base(target))
			l.addAt(fv, CodeCycle, i18n.Format(l.lang, "a DAG file cannot run itself, directly or through others; move the shared nodes into a third file"),
				i18n.Sprintf(l.lang, "node %q: DAG files form a cycle: %s", n.ID, strings.Join(names, " → ")))
			return
		}
	}
	b, err := l.opts.read(path)
	if err != nil {
		l.addAt(fv, CodeSubDAG, i18n.Format(l.lang, "check the path: it is relative to this DAG file"),
			i18n.Sprintf(l.lang, "node %q: cannot read the DAG file %s: %v", n.ID, fv.Value, say(l.lang, unwrapPathError(err))))
		return
	}
	// ReadFile records in this load's sources too: the child's files are the parent's.
	child, err := newLoader(path, b, LoadOptions{Types: l.types, MaxFileSize: l.maxFileSize, Lang: l.lang, ReadFile: l.opts.ReadFile, TypeSchemas: l.opts.TypeSchemas, Files: l.opts.Files})
	if err != nil {
		l.fatal = err
		return
	}
	child.parents = chain
	d := child.load(ctx)
	switch {
	case child.fatal != nil:
		l.fatal = child.fatal
	case len(child.diags) > 0:
		child.diags.sort()
		noun := i18n.Format(l.lang, "errors")
		if len(child.diags) == 1 {
			noun = i18n.Format(l.lang, "error")
		}
		first := child.diags[0]
		l.addAt(fv, CodeSubDAG, i18n.Sprintf(l.lang, "run `seam graph %s` to see them all", fv.Value),
			i18n.Sprintf(l.lang, "node %q: %s does not load (%d %s); the first: %s:%d:%d: %s %s", n.ID, fv.Value, len(child.diags), noun,
				filepath.Base(first.Pos.File), first.Pos.Line, first.Pos.Col, first.Code, first.Message))
	default:
		l.subDAGs[n.ID] = d
		if n.InputContract == nil {
			n.InputContract = d.Params
		}
	}
}

// unwrapPathError drops the path an *os.PathError or a *userfile.Error repeats, since the
// message names it.
func unwrapPathError(err error) error {
	switch e := err.(type) {
	case *os.PathError:
		return e.Err
	case *userfile.Error:
		return e.Err
	}
	return err
}

// SubDAGType declares the `dag` node type, which runs another DAG file as one node: its name,
// config and output schemas, and its check. An engine embeds it in the type it registers,
// adding Run; the loader then loads the file a node of that type names (with.file) along with
// the DAG, reports the file's errors and cycles between files, and takes the file's params
// schema as the node's input contract unless the node declares one.
type SubDAGType struct{}

// RunsDAGFile is implemented by the types whose nodes run another DAG file: those that embed
// SubDAGType, whatever their name. The loader loads the file along with the DAG; a host runs
// such a node as a run of its own (on Temporal, a child workflow).
type RunsDAGFile interface{ runsDAGFile() }

func (SubDAGType) runsDAGFile() {}

func (SubDAGType) Name() string { return "dag" }
func (SubDAGType) Doc() string {
	return "Runs another DAG file as one node: the input is its params, its outputs are the output's data."
}

func (SubDAGType) ConfigSchema() []byte {
	return []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "dag node configuration",
  "type": "object",
  "required": ["file"],
  "additionalProperties": false,
  "properties": {
    "file": {
      "description": "The DAG file to run, relative to this DAG file. The node's input is its params.",
      "type": "string",
      "minLength": 1
    }
  }
}`)
}

func (SubDAGType) OutputSchema() []byte {
	return []byte(`{
  "type": "object",
  "required": ["data"],
  "properties": {"data": {"description": "The sub-DAG's outputs, by name.", "type": "object"}}
}`)
}

// Check refuses a reference as the file: the loader must know the file to check its params
// and to find cycles between files.
func (SubDAGType) Check(with map[string]any) error {
	file, ok := with["file"].(string)
	if ok && strings.Contains(file, "${{") {
		return &nodes.ConfigError{Path: "/file", Offset: -1, Err: i18n.M("must be a file name, not a reference")}
	}
	return nil
}
