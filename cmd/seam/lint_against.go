package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/gitrev"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// against is one seam lint --against: the DAG files now, judged against a git revision.
type against struct {
	e     *env
	lang  i18n.Lang
	limit int64
	rev   string // as given, without :path
	tree  *gitrev.Tree
	// types and schemas are shared by every load: the two revisions' node types are the
	// same, so their config schemas are compiled once, not once a load.
	types   *nodes.Registry
	schemas *dag.TypeSchemas
	// from and to map a path relative to the repository now to its path at rev (REV:path):
	// from is the one PATH given, to the path at rev; both empty without a mapping.
	from, to string
	// store and runs are --against-store's: the run store and how many runs of a DAG to read
	// (nil and 0 without it).
	store runs.Store
	runs  int
}

// maxAgainstStore bounds --against-store: each run read is a GetRun.
const maxAgainstStore = 1000

// lintAgainst runs the contract evolution gate over paths (DAG files, or directories whose
// DAG files are taken, with the sub-DAG files they run): found are the gate's findings, all
// those with the errors of files that do not load (at either revision), and loadErr the first
// load failure, as lintFiles returns them; err is what stops the gate before it judges
// anything (a bad revision, policy file or run store). storeRuns is --against-store ("" for
// none), read from the store sf names.
func lintAgainst(ctx context.Context, e *env, spec string, paths []string, policy, storeRuns string, sf *storeFlag, l i18n.Lang, limit int64) (found, all []lint.Finding, loadErr, err error) {
	rev, revPath, mapped := strings.Cut(spec, ":")
	if rev == "" || (mapped && revPath == "") {
		return nil, nil, nil, usage(i18n.Errorf(l, "--against: want a revision (main) or REV:path, not %q", spec))
	}
	if mapped && len(paths) != 1 {
		return nil, nil, nil, usage(i18n.Errorf(l, "--against %s: name exactly one path, the one %s was at %s", spec, revPath, rev))
	}
	var pol lint.Policy
	if policy != "" {
		b, err := userfile.Read(policy, limit)
		if err != nil {
			return nil, nil, nil, usage(fmt.Errorf("--policy: %w", err))
		}
		if pol, err = lint.ParsePolicy(b, l); err != nil {
			return nil, nil, nil, usage(err)
		}
	}
	n := 0
	if storeRuns != "" {
		if n, err = strconv.Atoi(storeRuns); err != nil || n < 1 || n > maxAgainstStore {
			return nil, nil, nil, usage(i18n.Errorf(l, "--against-store: want a number of runs from 1 to %d, not %q", maxAgainstStore, storeRuns))
		}
	}
	dir := paths[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	tree, err := gitrev.Open(ctx, dir, rev, l)
	if err != nil {
		return nil, nil, nil, usage(err)
	}
	defer tree.Close()
	a := &against{e: e, lang: l, limit: limit, rev: rev, tree: tree, types: registry(e), schemas: &dag.TypeSchemas{}, runs: n}
	if n > 0 {
		if a.store, err = openStoreToRead(ctx, e, sf); err != nil {
			return nil, nil, nil, usage(i18n.Errorf(l, "--against-store: cannot read the run store: %w", err))
		}
		defer a.store.Close()
	}
	if mapped {
		from, err := a.rel(paths[0])
		if err != nil {
			return nil, nil, nil, usage(err)
		}
		a.from, a.to = from, strings.Trim(filepath.ToSlash(filepath.Clean(revPath)), "/")
	}
	// A repository of contracts alone may have its consumers elsewhere only.
	files, err := dagFiles(paths, limit, len(pol.Consumers) == 0, l)
	if err != nil {
		return nil, nil, nil, usage(err)
	}
	// take keeps one file's findings: all of them when it failed to load (loadErr then says
	// why), else after the policy, in found too.
	take := func(fs []lint.Finding, err error) {
		if err != nil {
			all = append(all, fs...)
			if loadErr == nil {
				loadErr = err
			}
			return
		}
		fs = pol.Apply(fs, l)
		found = append(found, fs...)
		all = append(all, fs...)
	}
	seen := map[string]bool{}
	for len(files) > 0 {
		file := files[0]
		files = files[1:]
		abs, err := filepath.Abs(file)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		fs, subs, err := a.file(ctx, file)
		take(fs, err)
		if err == nil {
			files = append(files, subs...)
		}
	}
	for _, c := range pol.Consumers {
		take(a.consumer(ctx, c))
	}
	return found, all, loadErr, nil
}

// consumer judges the DAG files of another repository (c) that read this one's files at
// c.Mount: each is loaded twice, with this repository's files as they are now and as they
// were at the revision, its own files from its ref both times. Its findings name its files
// as repo@ref:path.
func (a *against) consumer(ctx context.Context, c lint.Consumer) ([]lint.Finding, error) {
	label := c.Repo + "@" + c.Ref
	fail := func(err error) ([]lint.Finding, error) {
		return []lint.Finding{{Pos: dag.Pos{File: label}, Severity: lint.SeverityError, Code: lint.CodeUnreadable, Message: err.Error()}}, usage(err)
	}
	tmp, err := os.MkdirTemp("", "seam-consumer-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "repo")
	if err := gitrev.Clone(ctx, c.Repo, c.Ref, dir, a.lang); err != nil {
		return fail(err)
	}
	ct, err := gitrev.Open(ctx, dir, "HEAD", a.lang)
	if err != nil {
		return fail(err)
	}
	defer ct.Close()
	rels, err := ct.Files(ctx, strings.Trim(path.Clean("/"+c.Dir), "/"))
	if err != nil {
		return fail(err)
	}
	mount := path.Clean(c.Mount)
	// read reads a file a consumer's DAG names: this repository's through the mount (now,
	// or at the revision), the consumer's own from its ref.
	read := func(now bool) func(string) ([]byte, error) {
		return func(p string) ([]byte, error) {
			rel, ok := under(ct.Root(), p)
			if !ok {
				return nil, i18n.Errorf(a.lang, "%s is outside the consumer's repository", p)
			}
			if rest, ok := strings.CutPrefix(rel, mount+"/"); ok {
				if now {
					return userfile.Read(filepath.Join(a.tree.Root(), filepath.FromSlash(rest)), a.limit)
				}
				return a.tree.ReadFile(a.revPath(rest), a.limit)
			}
			return ct.ReadFile(rel, a.limit)
		}
	}
	var out []lint.Finding
	for _, rel := range rels {
		if ext := path.Ext(rel); ext != ".yaml" && ext != ".yml" {
			continue
		}
		src, err := ct.ReadFile(rel, a.limit)
		if err != nil {
			return fail(err)
		}
		var top map[string]yaml.Node
		if yaml.Unmarshal(src, &top) != nil || top["nodes"].Kind == 0 {
			continue // not a DAG file
		}
		p := filepath.Join(ct.Root(), filepath.FromSlash(rel))
		name := label + ":" + rel
		opts := a.loadOptions(read(true))
		cur, err := dag.LoadBytes(ctx, p, src, opts)
		if err == nil {
			opts.ReadFile = read(false)
			var old *dag.DAG
			if old, err = dag.LoadBytes(ctx, p, src, opts); err == nil {
				for _, f := range lint.Evolve(ctx, old, cur, lint.EvolveOptions{Lang: a.lang, File: name, Against: a.rev}) {
					if f.Pos.File == p {
						f.Pos.File = name
					}
					out = append(out, f)
				}
				continue
			}
			name += " (" + i18n.Sprintf(a.lang, "with this repository at %s", a.rev) + ")"
		}
		return a.loadFailedAs(p, name, err)
	}
	return out, nil
}

// file judges one DAG file: its findings, the sub-DAG files it runs (consumers too), and
// an error when it does not load now or at the revision.
func (a *against) file(ctx context.Context, file string) ([]lint.Finding, []string, error) {
	reads := map[string][]byte{}
	read := func(path string) ([]byte, error) {
		b, err := userfile.Read(path, a.limit)
		if err == nil {
			reads[path] = b
		}
		return b, err
	}
	cur, err := dag.Load(ctx, file, a.loadOptions(read))
	if err != nil {
		return lint.LoadFindings(file, err), nil, loadFailed(a.e, file, a.lang, err)
	}
	subs := subDAGFiles(cur)
	rel, err := a.rel(file)
	if err != nil {
		return lint.LoadFindings(file, err), nil, usage(err)
	}
	oldRel := a.revPath(rel)
	src, err := a.tree.ReadFile(oldRel, a.limit)
	if errors.Is(err, fs.ErrNotExist) {
		return lint.Evolve(ctx, nil, cur, lint.EvolveOptions{Lang: a.lang, File: rel, Against: a.rev}), subs, nil
	}
	if err != nil {
		return lint.LoadFindings(file, err), nil, usage(err)
	}
	if a.unchanged(reads) {
		return nil, subs, nil // every file it reads is the same: no edge can have moved
	}
	oldPath := filepath.Join(a.tree.Root(), filepath.FromSlash(oldRel))
	old, err := dag.LoadBytes(ctx, oldPath, src, a.loadOptions(a.readAtRev))
	if err != nil {
		// Named as git names it (main:dags/x.yaml), not by a path in the checkout.
		fs, err := a.loadFailedAs(oldPath, a.rev+":"+oldRel, err)
		return fs, nil, err
	}
	opts := lint.EvolveOptions{Lang: a.lang, File: rel, Against: a.rev}
	found := lint.Evolve(ctx, old, cur, opts)
	if a.store != nil {
		stored, err := a.stored(ctx, old, cur, opts)
		if err != nil {
			return lint.LoadFindings(file, err), nil, usage(err)
		}
		found = append(found, stored...)
	}
	return found, subs, nil
}

// stored is --against-store's findings for one DAG: the outputs each node whose output
// contract changed delivered in the last a.runs successful runs of the DAG, validated
// against the new contracts (lint.Stored).
func (a *against) stored(ctx context.Context, old, cur *dag.DAG, opts lint.EvolveOptions) ([]lint.Finding, error) {
	ids := lint.ChangedOutputs(old, cur)
	if len(ids) == 0 {
		return nil, nil
	}
	outputs, err := runs.DecidedOutputs(ctx, a.store, cur.Name, ids, a.runs, a.lang)
	if err != nil {
		return nil, i18n.Errorf(a.lang, "--against-store: %w", err)
	}
	var found []lint.Finding
	for _, id := range ids {
		found = append(found, lint.Stored(cur, id, outputs[id], opts)...)
	}
	return found, nil
}

// loadFailedAs is the failed load of the file at path, shown as name (git's main:dags/x.yaml,
// or a consumer's repo@ref:path): its findings and its error, as lintFiles has them.
func (a *against) loadFailedAs(path, name string, err error) ([]lint.Finding, error) {
	var ds dag.Diagnostics
	if errors.As(err, &ds) {
		for i := range ds {
			if ds[i].Pos.File == path {
				ds[i].Pos.File = name
			}
		}
	}
	return lint.LoadFindings(name, err), loadFailed(a.e, name, a.lang, err)
}

// loadOptions are the options of every load the gate makes, reading with read (nil: the
// file system).
func (a *against) loadOptions(read func(string) ([]byte, error)) dag.LoadOptions {
	return dag.LoadOptions{Types: a.types, TypeSchemas: a.schemas, MaxFileSize: a.limit, Lang: a.lang, ReadFile: read}
}

// unchanged reports whether every file a DAG read now (path → bytes) holds the same bytes at
// the revision.
func (a *against) unchanged(reads map[string][]byte) bool {
	rels := make(map[string]string, len(reads))
	for path := range reads {
		rel, err := a.rel(path)
		if err != nil {
			return false
		}
		rels[path] = a.revPath(rel)
	}
	if err := a.tree.ReadFiles(slices.Collect(maps.Values(rels)), a.limit); err != nil {
		return false
	}
	for path, b := range reads {
		old, err := a.tree.ReadFile(rels[path], a.limit)
		if err != nil || !bytes.Equal(old, b) {
			return false
		}
	}
	return true
}

// readAtRev reads a file the DAG at the revision names: from the revision inside the
// repository, from the file system outside it (it is not versioned there).
func (a *against) readAtRev(path string) ([]byte, error) {
	rel, ok := under(a.tree.Root(), path)
	if !ok {
		return userfile.Read(path, a.limit)
	}
	return a.tree.ReadFile(rel, a.limit)
}

// rel is path relative to the repository's top level, slash-separated.
func (a *against) rel(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	// The top level has its symlinks resolved; so must the path (the file may not exist).
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	rel, ok := under(a.tree.Root(), filepath.Join(dir, filepath.Base(abs)))
	if !ok {
		return "", i18n.Errorf(a.lang, "%s is outside the git repository %s", path, a.tree.Root())
	}
	return rel, nil
}

// under is p relative to root, slash-separated, when p is root or below it.
func under(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// revPath is where the file at rel (now) was at the revision: the same path, unless
// REV:path maps it.
func (a *against) revPath(rel string) string {
	switch {
	case a.from == "":
		return rel
	case rel == a.from:
		return a.to
	case strings.HasPrefix(rel, a.from+"/"):
		return a.to + rel[len(a.from):]
	}
	return rel
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

// dagFiles are the files paths name: a file as it is, a directory's DAG files (YAML files
// with a nodes mapping, hidden directories and testdata left out), in path order. When need
// is set, a directory without one is an error.
func dagFiles(paths []string, limit int64, need bool, lang i18n.Lang) ([]string, error) {
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
				if path != p && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
				return nil
			}
			if isDAGFile(path, limit) {
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

// isDAGFile reports whether the YAML file at path is a mapping with nodes: other YAML files
// in a directory (CI configuration) are not DAGs. A file that is not YAML is taken, so that
// loading says what is wrong with it.
func isDAGFile(path string, limit int64) bool {
	b, err := userfile.Read(path, limit)
	if err != nil {
		return true
	}
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(b, &top); err != nil {
		return true
	}
	_, ok := top["nodes"]
	return ok
}
