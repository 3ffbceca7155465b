// Package gate is the contract evolution gate (seam lint --against) as a library: the DAG
// files as they are now, judged against a git revision edge by edge (lint.Evolve), with the
// policy file's decisions, the consumers in other repositories it names and, optionally, the
// outputs the run store holds. Every front end (the CLI, MCP) calls Run and only writes the
// report (lint.WriteText and the other writers).
package gate

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
	"strings"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/gitrev"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/workspace"
)

// Config is one run of the gate.
type Config struct {
	// Against is the revision the change is judged against: REV (main, a commit), or
	// REV:path, where the one path of Paths was at REV.
	Against string
	// Paths are DAG files, or directories whose DAG files are taken; the sub-DAG files they
	// run are judged too.
	Paths []string
	// Policy is what the team decided (accepted breaks, severities), and the consumers in
	// other repositories to judge too.
	Policy lint.Policy
	// Load loads the DAG file at path from its bytes src, reading every file it names
	// (schemas, sub-DAGs) with read: as they are now, or at the revision. The gate loads
	// through it only.
	Load func(ctx context.Context, path string, src []byte, read func(string) ([]byte, error)) (*dag.DAG, error)
	// Stored, when set, calls each with what the nodes of the DAG named dagName delivered in
	// its stored runs, newest first, one output at a time (runs.EachDecidedOutput): the
	// outputs of each node whose output contract changed are validated against the new
	// contracts as they come (lint.StoredJudge), never held together.
	Stored func(ctx context.Context, dagName string, nodes []string, each func(node string, output []byte)) error
	// ReadFile reads a file as it is now; nil reads the file system within MaxFileSize.
	ReadFile func(path string) ([]byte, error)
	// MaxFileSize bounds every file read, now or at the revision.
	MaxFileSize int64
	Lang        i18n.Lang
}

// Report is what the gate found.
type Report struct {
	// Findings are those of the DAG files judged, the policy applied: what the text format
	// shows (it says what could not be judged elsewhere).
	Findings []lint.Finding
	// All are Findings with, in their place, the errors of the files that could not be
	// judged, for the machine formats: a file not judged is never taken for a clean one.
	All []lint.Finding
	// Failures are the files that could not be judged, in order.
	Failures []Failure
}

// Failure is a file the gate could not judge: it does not load (now, or at the revision), or
// cannot be read or compared. File names it as its findings do (main:dags/x.yaml for the
// revision's, repo@ref:path for a consumer's); Err says why (dag.Diagnostics when it does not
// load).
type Failure struct {
	File string
	Err  error
}

// against is one run of the gate.
type against struct {
	cfg  Config
	lang i18n.Lang
	read func(string) ([]byte, error) // a file now
	rev  string                       // as given, without :path
	tree *gitrev.Tree
	// from and to map a path relative to the repository now to its path at rev (REV:path):
	// from is the one path given, to the path at rev; both empty without a mapping.
	from, to string
}

// Run judges the DAG files cfg names against cfg.Against. Its error is what stops the gate
// before it judges anything: a bad revision, paths that name no DAG file. Files that cannot
// be judged are in the report's Failures.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	l := cfg.Lang
	if cfg.Load == nil {
		return nil, errors.New("gate: no loader")
	}
	if len(cfg.Paths) == 0 {
		return nil, errors.New("gate: no paths")
	}
	rev, revPath, mapped := strings.Cut(cfg.Against, ":")
	if rev == "" || (mapped && revPath == "") {
		return nil, i18n.Errorf(l, "--against: want a revision (main) or REV:path, not %q", cfg.Against)
	}
	if mapped && len(cfg.Paths) != 1 {
		return nil, i18n.Errorf(l, "--against %s: name exactly one path, the one %s was at %s", cfg.Against, revPath, rev)
	}
	dir := cfg.Paths[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	tree, err := gitrev.Open(ctx, dir, rev, l)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	a := &against{cfg: cfg, lang: l, read: cfg.ReadFile, rev: rev, tree: tree}
	if a.read == nil {
		a.read = func(p string) ([]byte, error) { return userfile.Read(p, cfg.MaxFileSize) }
	}
	if mapped {
		from, err := a.rel(cfg.Paths[0])
		if err != nil {
			return nil, err
		}
		to := path.Clean(filepath.ToSlash(revPath))
		if path.IsAbs(to) || to == ".." || strings.HasPrefix(to, "../") {
			return nil, i18n.Errorf(l, "--against %s: %s must be a path inside the repository, relative to its root", cfg.Against, revPath)
		}
		// A path that names nothing at the revision would compare every file with nothing
		// and find no edge that moved: a typo must not pass as a clean result.
		if files, err := tree.Files(ctx, to); err != nil {
			return nil, err
		} else if len(files) == 0 && to != "." {
			return nil, i18n.Errorf(l, "--against %s: %s names nothing at %s: check the path, as it was at %s", cfg.Against, revPath, rev, rev)
		}
		a.from, a.to = from, to
	}
	// A repository of contracts alone may have its consumers elsewhere only.
	files, err := workspace.DAGFiles(cfg.Paths, a.read, len(cfg.Policy.Consumers) == 0, l)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	// take keeps one file's findings: all of them when it could not be judged (the failure
	// says why), else after the policy, in Findings too.
	take := func(fs []lint.Finding, f *Failure) {
		if f != nil {
			rep.All = append(rep.All, fs...)
			rep.Failures = append(rep.Failures, *f)
			return
		}
		fs = cfg.Policy.Apply(fs, l)
		rep.Findings = append(rep.Findings, fs...)
		rep.All = append(rep.All, fs...)
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
		fs, subs, f := a.file(ctx, file)
		take(fs, f)
		if f == nil {
			files = append(files, subs...)
		}
	}
	for _, c := range cfg.Policy.Consumers {
		take(a.consumer(ctx, c))
	}
	return rep, nil
}

// failed is the failure of the file named name: err's diagnostics as findings when it did
// not load, else one finding on the file with code, the gate's reason.
func failed(code, name string, err error) ([]lint.Finding, *Failure) {
	f := &Failure{File: name, Err: err}
	var ds dag.Diagnostics
	if errors.As(err, &ds) {
		return lint.LoadFindings(name, err), f
	}
	return []lint.Finding{{Pos: dag.Pos{File: name}, Severity: lint.SeverityError, Code: code, Message: err.Error()}}, f
}

// load reads the DAG file at path with read and loads it.
func (a *against) load(ctx context.Context, path string, read func(string) ([]byte, error)) (*dag.DAG, error) {
	src, err := read(path)
	if err != nil {
		return nil, fmt.Errorf("load DAG: %w", err)
	}
	return a.cfg.Load(ctx, path, src, read)
}

// consumer judges the DAG files of another repository (c) that read this one's files at
// c.Mount: each is loaded twice, with this repository's files as they are now and as they
// were at the revision, its own files from its ref both times. Its findings name its files
// as repo@ref:path.
func (a *against) consumer(ctx context.Context, c lint.Consumer) ([]lint.Finding, *Failure) {
	label := c.Repo + "@" + c.Ref
	limit := a.cfg.MaxFileSize
	tmp, err := os.MkdirTemp("", "seam-consumer-")
	if err != nil {
		return failed(lint.CodeConsumerUnusable, label, err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "repo")
	// Fetching is what may wait on the network: a repository that never answers must not
	// hang the gate. What follows reads the local copy.
	cctx, cancel := context.WithTimeout(ctx, c.Deadline())
	err = gitrev.Clone(cctx, c.Repo, c.Ref, dir, a.lang)
	if errors.Is(cctx.Err(), context.DeadlineExceeded) {
		err = i18n.Errorf(a.lang, "consumer %s: no answer within %s; raise timeout in its policy entry if it is only slow", label, c.Deadline())
	}
	cancel()
	if err != nil {
		return failed(lint.CodeConsumerUnusable, label, err)
	}
	ct, err := gitrev.Open(ctx, dir, "HEAD", a.lang)
	if err != nil {
		return failed(lint.CodeConsumerUnusable, label, err)
	}
	defer ct.Close()
	rels, err := ct.Files(ctx, strings.Trim(path.Clean("/"+c.Dir), "/"))
	if err != nil {
		return failed(lint.CodeConsumerUnusable, label, err)
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
					return a.read(filepath.Join(a.tree.Root(), filepath.FromSlash(rest)))
				}
				return a.tree.ReadFile(a.revPath(rest), limit)
			}
			return ct.ReadFile(rel, limit)
		}
	}
	var out []lint.Finding
	for _, rel := range rels {
		if !workspace.DAGName(path.Base(rel)) {
			continue
		}
		src, err := ct.ReadFile(rel, limit)
		if err != nil {
			return failed(lint.CodeConsumerUnusable, label, err)
		}
		if !workspace.IsDAG(src) {
			continue
		}
		p := filepath.Join(ct.Root(), filepath.FromSlash(rel))
		name := label + ":" + rel
		cur, err := a.cfg.Load(ctx, p, src, read(true))
		if err == nil {
			var old *dag.DAG
			if old, err = a.cfg.Load(ctx, p, src, read(false)); err == nil {
				for _, f := range lint.Evolve(ctx, old, cur, lint.EvolveOptions{Lang: a.lang, File: name, Against: a.rev}) {
					if f.Pos.File == p {
						f.Pos.File = name
					}
					out = append(out, f)
				}
				continue
			}
			name += " (" + i18n.Sprintf(a.lang, "with this repository at %s", a.rev) + ")"
			return failedAs(lint.CodeRevUnreadable, p, name, err)
		}
		return failedAs(lint.CodeConsumerUnusable, p, name, err)
	}
	return out, nil
}

// file judges one DAG file: its findings, the sub-DAG files it runs (consumers too), and
// a failure when it does not load now or at the revision.
func (a *against) file(ctx context.Context, file string) ([]lint.Finding, []string, *Failure) {
	limit := a.cfg.MaxFileSize
	cur, err := a.load(ctx, file, a.read)
	if err != nil {
		fs, f := failed(lint.CodeUnreadable, file, err)
		return fs, nil, f
	}
	subs := subDAGFiles(cur)
	rel, err := a.rel(file)
	if err != nil {
		fs, f := failed(lint.CodeOutsideRepo, file, err)
		return fs, nil, f
	}
	oldRel := a.revPath(rel)
	src, err := a.tree.ReadFile(oldRel, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return lint.Evolve(ctx, nil, cur, lint.EvolveOptions{Lang: a.lang, File: rel, Against: a.rev}), subs, nil
	}
	if err != nil {
		fs, f := failed(lint.CodeRevUnreadable, file, err)
		return fs, nil, f
	}
	if a.unchanged(cur.Sources) {
		return nil, subs, nil // every file it reads is the same: no edge can have moved
	}
	oldPath := filepath.Join(a.tree.Root(), filepath.FromSlash(oldRel))
	old, err := a.cfg.Load(ctx, oldPath, src, a.readAtRev)
	if err != nil {
		// Named as git names it (main:dags/x.yaml), not by a path in the checkout.
		fs, f := failedAs(lint.CodeRevUnreadable, oldPath, a.rev+":"+oldRel, err)
		return fs, nil, f
	}
	opts := lint.EvolveOptions{Lang: a.lang, File: rel, Against: a.rev}
	found := lint.Evolve(ctx, old, cur, opts)
	if a.cfg.Stored != nil {
		stored, err := a.stored(ctx, old, cur, opts)
		if err != nil {
			fs, f := failed(lint.CodeStoreUnreadable, file, err)
			return fs, nil, f
		}
		found = append(found, stored...)
	}
	return found, subs, nil
}

// stored is --against-store's findings for one DAG: the outputs each node whose output
// contract changed delivered in its stored runs, validated against the new contracts
// (lint.Stored).
func (a *against) stored(ctx context.Context, old, cur *dag.DAG, opts lint.EvolveOptions) ([]lint.Finding, error) {
	ids := lint.ChangedOutputs(old, cur)
	if len(ids) == 0 {
		return nil, nil
	}
	judges := map[string]*lint.StoredJudge{}
	for _, id := range ids {
		judges[id] = lint.NewStoredJudge(cur, id, opts)
	}
	err := a.cfg.Stored(ctx, cur.Name, ids, func(id string, output []byte) {
		if j := judges[id]; j != nil {
			j.Add(output)
		}
	})
	if err != nil {
		return nil, i18n.Errorf(a.lang, "--against-store: %w", err)
	}
	var found []lint.Finding
	for _, id := range ids {
		if j := judges[id]; j != nil {
			found = append(found, j.Findings()...)
		}
	}
	return found, nil
}

// failedAs is the failed load of the file at path, shown as name (git's main:dags/x.yaml,
// or a consumer's repo@ref:path).
func failedAs(code, path, name string, err error) ([]lint.Finding, *Failure) {
	var ds dag.Diagnostics
	if errors.As(err, &ds) {
		for i := range ds {
			if ds[i].Pos.File == path {
				ds[i].Pos.File = name
			}
		}
	}
	return failed(code, name, err)
}

// unchanged reports whether every file a DAG's load read now (its sources) holds the same
// bytes at the revision.
func (a *against) unchanged(reads map[string]dag.Source) bool {
	limit := a.cfg.MaxFileSize
	rels := make(map[string]string, len(reads))
	for path := range reads {
		rel, err := a.rel(path)
		if err != nil {
			return false
		}
		rels[path] = a.revPath(rel)
	}
	if err := a.tree.ReadFiles(slices.Collect(maps.Values(rels)), limit); err != nil {
		return false
	}
	for path, src := range reads {
		old, err := a.tree.ReadFile(rels[path], limit)
		if err != nil || !bytes.Equal(old, src.Data) {
			return false
		}
	}
	return true
}

// readAtRev reads a file the DAG at the revision names: from the revision inside the
// repository, as it is now outside it (it is not versioned there).
func (a *against) readAtRev(path string) ([]byte, error) {
	rel, ok := under(a.tree.Root(), path)
	if !ok {
		return a.read(path)
	}
	return a.tree.ReadFile(rel, a.cfg.MaxFileSize)
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
