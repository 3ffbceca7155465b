package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/internal/i18n"
)

func newCompatCmd(e *env) *cobra.Command {
	var asJSON, strict bool
	var catalog []string
	cmd := &cobra.Command{
		Use:   "compat A.json B.json",
		Short: "Check that every value schema A accepts, schema B accepts too",
		Long: `Check two JSON Schemas statically: is A (what a producer may emit) a subset of B (what a
consumer accepts)? The answer is compatible, incompatible with a witness — a value A accepts
and B rejects, checked against both — or unknown with the reason.

Exit status: 0 compatible (or unknown), 1 incompatible (or unknown with --strict), 2 usage or
schema error.`,
		Example: `  seam compat producer.json consumer.json
  seam compat producer.json consumer.json --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			c, err := e.compiler(contract.Options{Catalog: contract.ParseCatalog(catalog)})
			if err != nil {
				return usage(err)
			}
			a, err := c.File(args[0])
			if err != nil {
				return usage(err)
			}
			b, err := c.File(args[1])
			if err != nil {
				return usage(err)
			}
			res := subset.CheckNamed(a, b, args[0], args[1]) // the reason names the files
			if asJSON {
				err = printCompatJSON(e, res, l)
			} else {
				err = printCompat(e, res, l)
			}
			if err != nil {
				return err
			}
			if res.Verdict == subset.Incompatible || res.Verdict == subset.Unknown && strict {
				return failed()
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"verdict", "reason", "path", "rule", "witness"}`)
	cmd.Flags().BoolVar(&strict, "strict", false, "treat unknown as a failure (exit 1)")
	cmd.Flags().StringArrayVar(&catalog, "catalog", nil, catalogUsage)
	return cmd
}

// printCompat writes the verdict and, unless compatible, the reason in lang: the verdict word
// stays English, as scripts read it.
func printCompat(e *env, res subset.Result, lang i18n.Lang) error {
	if res.Verdict == subset.Compatible {
		_, err := fmt.Fprintln(e.stdout, "compatible")
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", res.Verdict, res.ReasonIn(lang))
	if res.Path != "" {
		fmt.Fprintf(e.stdout, "  at: %s\n", res.Path)
	}
	if res.Rule != "" {
		fmt.Fprintf(e.stdout, "  rule: %s\n", res.Rule)
	}
	if res.Verdict == subset.Incompatible {
		w, err := json.Marshal(res.Witness)
		if err != nil {
			return fmt.Errorf("witness: %w", err)
		}
		fmt.Fprintf(e.stdout, "  witness: %s\n", w)
	}
	return nil
}

func printCompatJSON(e *env, res subset.Result, lang i18n.Lang) error {
	out := struct {
		Verdict string `json:"verdict"`
		Reason  string `json:"reason,omitempty"`
		Path    string `json:"path,omitempty"`
		Rule    string `json:"rule,omitempty"`
		// Raw JSON, so that a witness that is null is written, and only a missing one left out.
		Witness json.RawMessage `json:"witness,omitempty"`
	}{Verdict: res.Verdict.String(), Reason: res.ReasonIn(lang), Path: res.Path, Rule: res.Rule}
	if res.Verdict == subset.Incompatible {
		w, err := json.Marshal(res.Witness)
		if err != nil {
			return fmt.Errorf("witness: %w", err)
		}
		out.Witness = w
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
