package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/workspace"
)

// Output formats of seam lint.
var lintFormats = []string{"text", "json", "sarif", "github"}

func newLintCmd(e *env) *cobra.Command {
	var strict bool
	var format, color, againstRev, policy, againstStore string
	var sf storeFlag
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Prove, before running, that every edge of a DAG fits its consumer",
		Long: `Check DAG files without running them. For every node that declares contract.input, the
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
rejected (SEAM-W305), for consumers seam cannot see. A contract change no consumer depends
on is not an error. --policy names a file of accepted fingerprints and severity overrides.
--against-store N validates the outputs that each node whose output contract changed
delivered in the last N successful runs of its DAG in the run store (--store) against the
new contracts, and warns with how many fail (SEAM-W306), values masked.

Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage or load error.`,
		Example: `  seam lint dags/triage.yaml
  seam lint --strict --format json dags/*.yaml
  seam lint --format sarif dags/*.yaml > seam.sarif
  seam lint --format github dags/*.yaml   # in a GitHub Actions step
  seam lint --against origin/main dags/   # what this change breaks`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !contains(lintFormats, format) {
				return usage(fmt.Errorf("--format: want %s, not %q", strings.Join(lintFormats, ", "), format))
			}
			if color != "auto" && color != "always" && color != "never" {
				return usage(fmt.Errorf("--color: want auto, always or never, not %q", color))
			}
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			limit, err := userfile.MaxSize(e.getenv)
			if err != nil {
				return usage(err)
			}
			var found, all []lint.Finding
			var loadErr error
			if againstRev != "" {
				sf.lang = l
				found, all, loadErr, err = lintAgainst(cmd.Context(), e, againstRev, args, policy, againstStore, &sf, l, limit)
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
				w, err := openWorkspace(e, "", l)
				if err != nil {
					return err
				}
				found, all, loadErr = lintFiles(cmd.Context(), e, w, args)
			}
			if strict {
				for _, fs := range [][]lint.Finding{found, all} {
					for i := range fs {
						if fs[i].Severity == lint.SeverityWarning && fs[i].Code == lint.CodeUnknown {
							fs[i].Severity = lint.SeverityError
						}
					}
				}
			}
			errs, warns := countFindings(found)
			switch format {
			case "json":
				err = printLintJSON(e.stdout, all)
			case "sarif":
				err = printLintSARIF(e.stdout, all)
			case "github":
				err = printLintGitHub(e.stdout, all)
			default:
				on := useColour(e, e.stdout, color)
				err = printLint(e.stdout, found, errs, warns, loadErr != nil, l, on)
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
	cmd.Flags().BoolVar(&strict, "strict", false, "treat unknown compatibility (SEAM-W301) as an error")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json, sarif or github")
	cmd.Flags().StringVar(&againstRev, "against", "", "judge the change since this git revision (REV or REV:path): report the edges whose verdict moved")
	cmd.Flags().StringVar(&policy, "policy", "", "with --against: a YAML file of accepted fingerprints and severity overrides")
	cmd.Flags().StringVar(&againstStore, "against-store", "", "with --against: validate the last N stored outputs of each node whose output contract changed (at most 1000 runs)")
	sf.add(cmd)
	cmd.Flags().StringVar(&color, "color", "auto", "colour text output: auto (on a terminal, unless NO_COLOR is set), always or never")
	return cmd
}

// lintFiles lints each DAG file: found are lint's findings; all adds the errors of files that
// do not load, in file order, for the machine formats (text prints those on stderr, as every
// command does), so that CI never takes a file that does not load for clean; loadErr is the
// first load failure.
func lintFiles(ctx context.Context, e *env, w *workspace.Workspace, files []string) (found, all []lint.Finding, loadErr error) {
	for _, file := range files {
		d, err := w.Load(ctx, file)
		if err != nil {
			all = append(all, loadFindings(file, err)...)
			if err := loadFailed(e, file, w.Lang(), err); loadErr == nil {
				loadErr = err
			}
			continue
		}
		fs := w.Lint(ctx, d)
		found = append(found, fs...)
		all = append(all, fs...)
	}
	return found, all, loadErr
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// countFindings counts errors and warnings; notes (seam lint --against's fixed edges and
// accepted breaks) are neither.
func countFindings(fs []lint.Finding) (errs, warns int) {
	for _, f := range fs {
		switch f.Severity {
		case lint.SeverityError:
			errs++
		case lint.SeverityWarning:
			warns++
		}
	}
	return errs, warns
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

// Colours of the text format (SGR codes).
const (
	sgrError   = "1;31"
	sgrWarning = "1;33"
	sgrPos     = "1"
	sgrDim     = "2"
)

func printLint(w io.Writer, fs []lint.Finding, errs, warns int, loadFailed bool, lang i18n.Lang, on bool) error {
	for _, f := range fs {
		if _, err := fmt.Fprintln(w, findingText(f, on)); err != nil {
			return err
		}
	}
	notes := len(fs) - errs - warns
	if errs == 0 && warns == 0 && notes == 0 {
		if loadFailed {
			return nil // not "no problems": stderr says what could not be loaded
		}
		_, err := fmt.Fprintln(w, i18n.Sprintf(lang, "no problems"))
		return err
	}
	es, ws := i18n.Plural(lang, errs, "%d error", "%d errors", errs), i18n.Plural(lang, warns, "%d warning", "%d warnings", warns)
	if notes > 0 {
		_, err := io.WriteString(w, i18n.Sprintf(lang, "%s, %s, %s\n", es, ws, i18n.Plural(lang, notes, "%d note", "%d notes", notes)))
		return err
	}
	_, err := io.WriteString(w, i18n.Sprintf(lang, "%s, %s\n", es, ws))
	return err
}

// findingText is f as seam lint prints it, coloured when on.
func findingText(f lint.Finding, on bool) string {
	if !on {
		return f.String()
	}
	var b strings.Builder
	if f.Pos.File != "" {
		b.WriteString(colour(fmt.Sprintf("%s:%d:%d:", f.Pos.File, f.Pos.Line, f.Pos.Col), sgrPos, true) + " ")
	}
	sev := sgrWarning
	switch f.Severity {
	case lint.SeverityError:
		sev = sgrError
	case lint.SeverityInfo:
		sev = sgrDim
	}
	fmt.Fprintf(&b, "%s %s %s", colour(f.Severity, sev, true), colour(f.Code, sgrPos, true), f.Message)
	if f.HasWitness {
		fmt.Fprintf(&b, "\n  %s %s", colour("witness:", sgrDim, true), f.WitnessJSON())
	}
	if f.Hint != "" {
		fmt.Fprintf(&b, "\n  %s %s", colour("fix:", sgrDim, true), f.Hint)
	}
	if f.Fingerprint != "" {
		fmt.Fprintf(&b, "\n  %s %s", colour("fingerprint:", sgrDim, true), f.Fingerprint)
	}
	return b.String()
}

type lintJSON struct {
	File      string          `json:"file"`
	Line      int             `json:"line"`
	Col       int             `json:"col"`
	Severity  string          `json:"severity"`
	Code      string          `json:"code"`
	Producers []string        `json:"producers"`
	Consumer  string          `json:"consumer,omitempty"`
	Message   string          `json:"message"`
	Witness   json.RawMessage `json:"witness,omitempty"` // raw, so that a null witness is kept
	Fix       string          `json:"fix,omitempty"`
	// seam lint --against: how the edge moved, and the finding's stable identity.
	Change      string `json:"change,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

func printLintJSON(w io.Writer, fs []lint.Finding) error {
	out := make([]lintJSON, len(fs))
	for i, f := range fs {
		out[i] = lintJSON{File: f.Pos.File, Line: f.Pos.Line, Col: f.Pos.Col, Severity: f.Severity, Code: f.Code,
			Producers: f.Producers, Consumer: f.Consumer, Message: f.Message, Fix: f.Hint,
			Change: f.Change, Fingerprint: f.Fingerprint}
		if out[i].Producers == nil {
			out[i].Producers = []string{}
		}
		if f.HasWitness {
			w, err := json.Marshal(f.Witness)
			if err != nil {
				return fmt.Errorf("witness of %s: %w", f.Code, err)
			}
			out[i].Witness = w
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
