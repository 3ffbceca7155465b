package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/workspace"
)

func (s *server) addDAGTools(srv *sdk.Server) error {
	var errs []error
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "lint_dag",
		Description: "Check a DAG file without running it: that it loads, and that every edge fits its consumer's contract " +
			"(static compatibility), plus contract hygiene warnings. Returns counts, the first errors with their node, " +
			"and suggestions. Run it before run_dag.",
		Annotations: readOnlyTool("Lint a DAG"),
	}, s.lintDAG))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "list_dags",
		Description: "List the DAG files under the server's root, with each DAG's name and the JSON Schema of its params " +
			"(what run_dag's params must satisfy).",
		Annotations: readOnlyTool("List DAG files"),
	}, s.listDAGs))
	return errors.Join(errs...)
}

// inlineName is the file name an inline DAG is given: its relative paths (sub-DAGs, schema
// files) resolve from the root, and its diagnostics name it.
const inlineName = "(inline).yaml"

// loadInput loads the DAG a client names: a file under the root, or YAML given inline. It
// returns the DAG and how to name it in messages.
func (s *server) loadInput(ctx context.Context, path, src string) (*dag.DAG, message, error) {
	switch {
	case path != "" && src != "":
		return nil, message{}, fail(CodeInvalidArgument, nil, "give either path or yaml, not both")
	case src != "":
		d, err := s.root.files.LoadBytes(ctx, filepath.Join(s.root.dir, inlineName), []byte(src))
		if err := s.loadError(inlineName, err); err != nil {
			return nil, message{}, err
		}
		return d, msgf("the inline DAG"), nil
	case path == "":
		return nil, message{}, fail(CodeInvalidArgument, nil, "give path (a DAG file under the root; list_dags lists them) or yaml (a DAG written inline)")
	}
	d, err := s.load(ctx, path)
	return d, verbatim(path), err
}

// load loads the DAG file at a client's path, confined to the root.
func (s *server) load(ctx context.Context, path string) (*dag.DAG, error) {
	real, err := s.root.resolve(path)
	if err != nil {
		return nil, err
	}
	// A hidden file (.env.yaml, .git/…) is no DAG by workspace's rule, and what a failed load
	// quotes of it would reach the client.
	if rel, err := filepath.Rel(s.root.dir, real); err == nil {
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			if part != "." && part != ".." && strings.HasPrefix(part, ".") {
				return nil, fail(CodeInvalidArgument, nil, "path %q is hidden (%s starts with a dot): the server loads no hidden file; list_dags lists the DAG files", path, part)
			}
		}
	}
	return s.loadReal(ctx, path, real)
}

// loadReal loads the DAG file at the real path real, which the client named path: it, its
// sub-DAG files at any depth and its schema files are all read under the root.
func (s *server) loadReal(ctx context.Context, path, real string) (*dag.DAG, error) {
	d, err := s.root.files.Load(ctx, real)
	if err := s.loadError(path, err); err != nil {
		return nil, err
	}
	return d, nil
}

// loadError is the answer to a DAG that does not load: its diagnostics, as details. A DAG
// that names a file outside the root (a sub-DAG, at any depth) is refused as a path outside
// it: running it would run that file.
func (s *server) loadError(path string, err error) error {
	var (
		ds      dag.Diagnostics
		details any
		outside *workspace.OutsideRootError
	)
	if errors.As(err, &ds) {
		details = newDiagnostics(s.root, ds)
	}
	switch {
	case errors.As(err, &outside):
		return fail(CodeOutsideRoot, details, "%s names the file %s, which is not under the root", path, outside.File)
	case ds != nil:
		return fail(CodeInvalidDAG, details, "%s does not load: %v", path, howMany(len(ds), "error"))
	case err != nil:
		return fail(CodeInvalidDAG, nil, "%s does not load: %v", path, err)
	}
	return nil
}

// problem is one error or warning, as minimal answers list them.
type problem struct {
	Severity string `json:"severity,omitempty"` // lint findings: error or warning
	Code     string `json:"code,omitempty"`
	Node     string `json:"node,omitempty"`
	At       string `json:"at,omitempty"` // file:line:col
	Message  string `json:"message"`
}

func posString(r root, p dag.Pos) string {
	if p.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", r.rel(p.File), p.Line, p.Col)
}

// diagnostics are the errors of a DAG file that does not load.
type diagnostics struct {
	Count int          `json:"count"`
	Items []diagnostic `json:"diagnostics"`
}

type diagnostic struct {
	problem
	Hint string `json:"hint,omitempty"`
}

func newDiagnostics(r root, ds dag.Diagnostics) diagnostics {
	out := diagnostics{Count: len(ds), Items: make([]diagnostic, 0, len(ds))}
	for _, d := range ds {
		out.Items = append(out.Items, diagnostic{problem{Code: d.Code, At: posString(r, d.Pos), Message: d.Message}, d.Hint})
	}
	return out
}

func (d diagnostics) minimal() any {
	m := minimalProblems{Count: d.Count}
	for _, it := range d.Items {
		if len(m.Errors) < minimalErrors {
			m.Errors = append(m.Errors, it.problem)
		}
		if it.Hint != "" && len(m.Suggestions) < minimalSuggestions {
			m.Suggestions = append(m.Suggestions, it.Hint)
		}
	}
	return m
}

type minimalProblems struct {
	Count       int       `json:"count"`
	Errors      []problem `json:"errors,omitempty"`
	Suggestions []string  `json:"suggestions,omitempty"`
}

// LintInput are lint_dag's arguments.
type LintInput struct {
	Path string `json:"path,omitempty" jsonschema:"the DAG file, relative to the server's root"`
	YAML string `json:"yaml,omitempty" jsonschema:"a DAG written inline, instead of path; its relative paths resolve from the root"`
	Common
}

// lintResult is lint_dag's data.
type lintResult struct {
	DAG      string    `json:"dag"`
	File     string    `json:"file"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Findings []finding `json:"findings"`
}

type finding struct {
	problem
	Producers []string `json:"producers,omitempty"`
	Witness   any      `json:"witness,omitempty"`
	Hint      string   `json:"hint,omitempty"`
}

type minimalLint struct {
	DAG         string    `json:"dag"`
	Errors      int       `json:"errors"`
	Warnings    int       `json:"warnings"`
	First       []problem `json:"first,omitempty"` // errors first, then warnings
	Suggestions []string  `json:"suggestions,omitempty"`
}

func (l lintResult) minimal() any {
	m := minimalLint{DAG: l.DAG, Errors: l.Errors, Warnings: l.Warnings}
	// Errors first, then warnings, in file order.
	for _, sev := range []string{lint.SeverityError, lint.SeverityWarning} {
		for _, f := range l.Findings {
			if f.problem.Severity != sev {
				continue
			}
			if len(m.First) < minimalErrors {
				m.First = append(m.First, f.problem)
			}
			if f.Hint != "" && len(m.Suggestions) < minimalSuggestions {
				m.Suggestions = append(m.Suggestions, f.Hint)
			}
		}
	}
	return m
}

func (s *server) lintDAG(ctx context.Context, _ *sdk.CallToolRequest, in LintInput) (message, any, error) {
	d, name, err := s.loadInput(ctx, in.Path, in.YAML)
	if err != nil {
		return message{}, nil, err
	}
	res := s.lintResult(d, s.root.files.Lint(ctx, d))
	errs, warnings := howMany(res.Errors, "error"), howMany(res.Warnings, "warning")
	if res.Errors == 0 {
		return msgf("%s: %v, %v; it can run", name, errs, warnings), res, nil
	}
	return msgf("%s: %v, %v", name, errs, warnings), res, nil
}

// lintResult is lint_dag's data about d's findings fs; run_dag's error details when lint
// stopped a run.
func (s *server) lintResult(d *dag.DAG, fs []lint.Finding) lintResult {
	res := lintResult{DAG: d.Name, File: s.root.rel(d.File), Findings: []finding{}}
	for _, f := range fs {
		if f.Severity == lint.SeverityError {
			res.Errors++
		} else {
			res.Warnings++
		}
		fd := finding{
			problem:   problem{Severity: f.Severity, Code: f.Code, Node: f.Consumer, At: posString(s.root, f.Pos), Message: f.Message},
			Producers: f.Producers,
			Hint:      f.Hint,
		}
		if f.HasWitness {
			fd.Witness = f.Witness
		}
		res.Findings = append(res.Findings, fd)
	}
	return res
}

// ListInput are list_dags' arguments.
type ListInput struct {
	Common
}

type dagEntry struct {
	Path        string `json:"path"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Params      any    `json:"params,omitempty"` // the params JSON Schema
	Nodes       int    `json:"nodes,omitempty"`
}

type brokenEntry struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

type dagList struct {
	Count  int           `json:"count"`
	DAGs   []dagEntry    `json:"dags"`
	Broken []brokenEntry `json:"broken,omitempty"`
	// Truncated says that the root holds more DAG files than workspace.MaxFound, which
	// list_dags reads: those listed are the first, in path order.
	Truncated bool `json:"truncated,omitempty"`
}

func (l dagList) minimal() any {
	m := dagList{Count: l.Count, DAGs: make([]dagEntry, len(l.DAGs)), Truncated: l.Truncated}
	for i, d := range l.DAGs {
		m.DAGs[i] = dagEntry{Path: d.Path, Name: d.Name, Params: d.Params}
	}
	for _, b := range first(l.Broken, minimalErrors) {
		m.Broken = append(m.Broken, brokenEntry{Path: b.Path, Message: b.Message})
	}
	return m
}

func (s *server) listDAGs(ctx context.Context, _ *sdk.CallToolRequest, _ ListInput) (message, any, error) {
	found, err := s.root.files.Find(ctx, s.root.dir)
	if err != nil {
		return message{}, nil, fail(CodeInternal, nil, "list DAG files under the root: %v", err)
	}
	list := dagList{DAGs: []dagEntry{}, Truncated: found.Truncated}
	for _, f := range found.Files {
		if err := ctx.Err(); err != nil {
			return message{}, nil, fail(CodeInternal, nil, "list DAG files: %v", err)
		}
		if f.Err != nil {
			continue // a named pipe, a file over the limit: lint_dag says why when named
		}
		rel := s.root.rel(f.Path)
		d, err := s.load(ctx, rel)
		if err != nil {
			var te *toolError
			if errors.As(err, &te) {
				list.Broken = append(list.Broken, brokenEntry{Path: rel, Message: te.msg.text(s.opts.Lang), Details: te.details})
			}
			continue
		}
		e := dagEntry{Path: rel, Name: d.Name, Description: d.Description, Nodes: len(d.Nodes)}
		if d.Params != nil {
			e.Params = d.Params.Source()
		}
		list.DAGs = append(list.DAGs, e)
	}
	list.Count = len(list.DAGs)
	listed := howMany(list.Count, "DAG file")
	if found.Truncated {
		return msgf("%v under the root, of the first %d found; there are more, not listed (docs/limits.md)", listed, workspace.MaxFound), list, nil
	}
	if n := len(list.Broken); n > 0 {
		return msgf("%v under the root; %d do not load (lint_dag says why)", listed, n), list, nil
	}
	return msgf("%v under the root", listed), list, nil
}
