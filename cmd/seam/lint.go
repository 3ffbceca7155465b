package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/dag"
)

func newLintCmd(e *env) *cobra.Command {
	var strict bool
	var format string
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check statically that every node's input fits its contract.input",
		Long: `Check DAG files without running them: for every node that declares contract.input and has
an input, the schema of the value that arrives (its producers' output contracts, projected
along the references) must be a subset of the contract. Each edge is compatible,
incompatible (an error, with a witness: a value the producers may deliver and the consumer
rejects) or unknown (a warning; an error with --strict).

Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage or load error.`,
		Example: `  seam lint dags/triage.yaml
  seam lint --strict --format json dags/*.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usage(fmt.Errorf("--format: want text or json, not %q", format))
			}
			var all []dag.Finding
			var loadErr error
			for _, file := range args {
				d, err := loadDAG(cmd.Context(), e, file)
				if err != nil {
					if loadErr == nil {
						loadErr = err
					}
					continue
				}
				for _, f := range dag.Lint(cmd.Context(), d) {
					if strict && f.Severity == dag.SeverityWarning {
						f.Severity = dag.SeverityError
					}
					all = append(all, f)
				}
			}
			errs, warns := 0, 0
			for _, f := range all {
				if f.Severity == dag.SeverityError {
					errs++
				} else {
					warns++
				}
			}
			var err error
			if format == "json" {
				err = printLintJSON(e, all)
			} else {
				err = printLint(e, all, errs, warns, loadErr != nil)
			}
			switch {
			case err != nil:
				return err
			case loadErr != nil:
				return loadErr
			case errs > 0:
				return failed()
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "treat unknown compatibility as an error")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func printLint(e *env, fs []dag.Finding, errs, warns int, loadFailed bool) error {
	for _, f := range fs {
		fmt.Fprintln(e.stdout, f)
	}
	if errs == 0 && warns == 0 {
		if loadFailed {
			return nil // not "no problems": stderr says what could not be loaded
		}
		_, err := fmt.Fprintln(e.stdout, "no problems")
		return err
	}
	_, err := fmt.Fprintf(e.stdout, "%d %s, %d %s\n", errs, plural(errs, "error"), warns, plural(warns, "warning"))
	return err
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

type lintJSON struct {
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Col       int      `json:"col"`
	Severity  string   `json:"severity"`
	Code      string   `json:"code"`
	Producers []string `json:"producers"`
	Consumer  string   `json:"consumer,omitempty"`
	Message   string   `json:"message"`
	Witness   any      `json:"witness,omitempty"`
	Fix       string   `json:"fix,omitempty"`
}

func printLintJSON(e *env, fs []dag.Finding) error {
	out := make([]lintJSON, len(fs))
	for i, f := range fs {
		out[i] = lintJSON{File: f.Pos.File, Line: f.Pos.Line, Col: f.Pos.Col, Severity: f.Severity, Code: f.Code,
			Producers: f.Producers, Consumer: f.Consumer, Message: f.Message, Fix: f.Hint}
		if out[i].Producers == nil {
			out[i].Producers = []string{}
		}
		if f.HasWitness {
			out[i].Witness = f.Witness
		}
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
