package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/lint/gate"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/workspace"
)

// Output formats of seam lint.
var lintFormats = []string{"text", "json", "sarif", "github"}

func newLintCmd(e *env) *cobra.Command {
	var strict bool
	var format, color, againstRev, policy, againstStore string
	var sf storeFlag
	cmd := &cobra.Command{
		Use:   "lint PATH...",
		Short: "Prove, before running, that every edge of a DAG fits its consumer",
		Long: `Check DAG files without running them (a directory: every DAG file under it, by the
rule seam serve lists them). For every node that declares contract.input, the
schema of the value that arrives — its input, or the object of its upstream outputs keyed
by id — must be a subset of the contract; for every node whose with holds references,
what arrives there must fit the type's config schema. The producers' output contracts
are projected along the references. Each edge is compatible, incompatible (an error,
with a witness: a value the producers may deliver and the consumer rejects) or unknown
(a warning; an error with --strict). References to undeclared fields are errors;
contract hygiene problems are warnings.

Formats: text (coloured on a terminal unless NO_COLOR is set), json, sarif (SARIF 2.1.0,
for code scanning) and github (workflow annotations).

With --against REV (a git revision, or REV:path for the path the one PATH had there), lint
judges a change instead: the DAG files under the PATHS (files or directories, with the
sub-DAG files they run) are loaded now and at REV, and every edge whose verdict moved is
reported — newly incompatible (an error, with a witness), newly unknown (a warning), fixed
(a note) — with a fingerprint; so is a node whose output contract now allows a value it
rejected (SEAM-W305), for consumers seam cannot see, and an edge unknown at both revisions
whose contracts changed (SEAM-W308; an error with --strict). A contract change no consumer
depends on is not an error. --policy names a file of accepted fingerprints and severity overrides.
--against-store N validates the outputs that each node whose output contract changed
delivered in the last N successful runs of its DAG in the run store (--store) against the
new contracts, and warns with how many fail (SEAM-W306), values masked.

Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage or load error.`,
		Example: `  seam lint dags/triage.yaml
  seam lint dags/                         # every DAG file under dags/
  seam lint --strict --format json dags/*.yaml
  seam lint --format sarif dags/*.yaml > seam.sarif
  seam lint --format github dags/*.yaml   # in a GitHub Actions step
  seam lint --against origin/main dags/   # what this change breaks`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(lintFormats, format) {
				return usage(fmt.Errorf("--format: want %s, not %q", strings.Join(lintFormats, ", "), format))
			}
			if color != "auto" && color != "always" && color != "never" {
				return usage(fmt.Errorf("--color: want auto, always or never, not %q", color))
			}
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			w, err := openWorkspace(e, "", l)
			if err != nil {
				return err
			}
			var found, all []lint.Finding
			var loadErr error
			if againstRev != "" {
				sf.lang = l
				found, all, loadErr, err = lintAgainst(cmd.Context(), e, w, againstRev, args, policy, againstStore, &sf)
				if err != nil {
					return err // nothing could be judged: a bad revision, a bad policy file
				}
			} else {
				if policy != "" {
					return usage(i18n.Errorf(l, "--policy applies to --against only"))
				}
				if againstStore != "" {
					return usage(i18n.Errorf(l, "--against-store applies to --against only"))
				}
				found, all, loadErr = lintFiles(cmd.Context(), e, w, args)
			}
			if strict {
				lint.Strict(found)
				lint.Strict(all)
			}
			errs, _ := lint.Count(found)
			switch format {
			case "json":
				err = lint.WriteJSON(e.stdout, all)
			case "sarif":
				err = lint.WriteSARIF(e.stdout, all)
			case "github":
				err = lint.WriteGitHub(e.stdout, all)
			default:
				err = lint.WriteText(e.stdout, found, lint.TextOptions{Lang: l, Colour: useColour(e, e.stdout, color), LoadFailed: loadErr != nil})
			}
			switch {
			case err != nil:
				return fmt.Errorf("print findings: %w", err)
			case loadErr != nil:
				return loadErr
			case errs > 0:
				return failed()
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "treat unknown compatibility (SEAM-W301, and --against's SEAM-W308) as an error")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json, sarif or github")
	cmd.Flags().StringVar(&againstRev, "against", "", "judge the change since this git revision (REV or REV:path): report the edges whose verdict moved")
	cmd.Flags().StringVar(&policy, "policy", "", "with --against: a YAML file of accepted fingerprints and severity overrides")
	cmd.Flags().StringVar(&againstStore, "against-store", "", "with --against: validate the last N stored outputs of each node whose output contract changed (at most 1000 runs)")
	sf.add(cmd)
	cmd.Flags().StringVar(&color, "color", "auto", "colour text output: auto (on a terminal, unless NO_COLOR is set), always or never")
	return cmd
}

// lintFiles lints each DAG file paths name (a directory: every DAG file under it), and warns
// on stderr of files that share a name: found are lint's findings; all adds the errors of files that
// do not load, in file order, for the machine formats (text prints those on stderr, as every
// command does), so that CI never takes a file that does not load for clean; loadErr is the
// first load failure.
func lintFiles(ctx context.Context, e *env, w *workspace.Workspace, paths []string) (found, all []lint.Finding, loadErr error) {
	files, err := workspace.DAGFiles(paths, w.ReadFile, true, w.Lang())
	if err != nil {
		return nil, nil, usage(err)
	}
	var loaded []*dag.DAG
	for _, file := range files {
		d, err := w.Load(ctx, file)
		if err != nil {
			all = append(all, lint.LoadFindings(file, err)...)
			if err := loadFailed(e, file, w.Lang(), err); loadErr == nil {
				loadErr = err
			}
			continue
		}
		fs := w.Lint(ctx, d)
		found = append(found, fs...)
		all = append(all, fs...)
		loaded = append(loaded, d)
	}
	for _, same := range workspace.SameNames(loaded) {
		fmt.Fprintln(e.stderr, same.Warning(w.Lang()))
	}
	return found, all, loadErr
}

// maxAgainstStore bounds --against-store: each run read is a GetRun.
const maxAgainstStore = 1000

// lintAgainst runs the contract evolution gate (lint/gate) over paths: found are its
// findings, all those with the errors of the files it could not judge, and loadErr the first
// of those, as lintFiles returns them; err is what stops the gate before it judges anything
// (a bad revision, policy file or run store). storeRuns is --against-store ("" for none),
// read from the store sf names.
func lintAgainst(ctx context.Context, e *env, w *workspace.Workspace, spec string, paths []string, policy, storeRuns string, sf *storeFlag) (found, all []lint.Finding, loadErr, err error) {
	l := w.Lang()
	cfg := gate.Config{Against: spec, Paths: paths, Load: w.LoadWith, MaxFileSize: w.MaxFileSize(), Lang: l}
	if policy != "" {
		b, err := w.ReadFile(policy)
		if err != nil {
			return nil, nil, nil, usage(fmt.Errorf("--policy: %w", err))
		}
		if cfg.Policy, err = lint.ParsePolicy(b, l); err != nil {
			return nil, nil, nil, usage(err)
		}
	}
	if storeRuns != "" {
		n, err := strconv.Atoi(storeRuns)
		if err != nil || n < 1 || n > maxAgainstStore {
			return nil, nil, nil, usage(i18n.Errorf(l, "--against-store: want a number of runs from 1 to %d, not %q", maxAgainstStore, storeRuns))
		}
		st, err := openStoreToRead(ctx, e, sf)
		if err != nil {
			return nil, nil, nil, usage(i18n.Errorf(l, "--against-store: cannot read the run store: %w", err))
		}
		defer st.Close()
		cfg.Stored = func(ctx context.Context, dagName string, nodes []string, each func(string, []byte)) error {
			return runs.EachDecidedOutput(ctx, st, dagName, nodes, n, l, each)
		}
	}
	rep, err := gate.Run(ctx, cfg)
	if err != nil {
		return nil, nil, nil, usage(err)
	}
	for _, f := range rep.Failures {
		if err := loadFailed(e, f.File, l, f.Err); loadErr == nil {
			loadErr = err
		}
	}
	return rep.Findings, rep.All, loadErr, nil
}

// useColour decides whether text output to w is coloured: always, never, or (auto) when w
// is a terminal and NO_COLOR is unset or empty (https://no-color.org).
func useColour(e *env, w io.Writer, mode string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if e.getenv("NO_COLOR") != "" || e.getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
