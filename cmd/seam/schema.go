package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/schemas"
)

func newSchemaCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Work with contracts (JSON Schemas)",
	}
	cmd.AddCommand(newSchemaInferCmd(e), newSchemaVendorCmd(e))
	return cmd
}

func newSchemaVendorCmd(e *env) *cobra.Command {
	var into string
	cmd := &cobra.Command{
		Use:   "vendor URL --into DIR",
		Short: "Fetch a schema and every schema it refers to into a catalog folder",
		Long: `Fetch the JSON Schema at URL over HTTP(S), and every document its $refs reach, each once,
into DIR byte for byte, laid out so that a catalog entry (prefix → dir) resolves every URL of
the set offline; print the files written and the catalog: lines to add to the DAG. This is
the only command that fetches a schema: loading, lint, validate and compat never do.
Refused, with nothing written: a URL that is not http(s), an HTTP error, an answer that is
not JSON, a document over 16 MiB, a set over 64 MiB or 1000 documents, more than 5 redirects.

Exit status: 0 written, 2 usage error or a refusal.`,
		Example: `  seam schema vendor https://json.schemastore.org/pyproject.json --into vendor/schemastore`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			v, err := contract.Vendor(cmd.Context(), args[0], into, contract.VendorOptions{Lang: l})
			if err != nil {
				return usage(err)
			}
			_, err = io.WriteString(e.stdout, v.Summary(l))
			return err
		},
	}
	cmd.Flags().StringVar(&into, "into", "", "the folder to write the schemas into")
	_ = cmd.MarkFlagRequired("into")
	return cmd
}

func newSchemaInferCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "infer SAMPLE.json...",
		Short: "Draft an output contract from example outputs",
		Long: `Draft a contract.output from example outputs of a node (JSON files, - for stdin). Each
sample must be a valid node output (the standard output contract). The draft describes
structure, not content: a field is required when every sample has it, the types seen are
unified (integer when every number is integral), array items come from all elements, and no
enum, pattern, length or bound is drawn from the values. Review it before use: it knows
only the samples.

Exit status: 0 drafted, 2 usage error or a sample that is not a valid node output.`,
		Example: `  seam schema infer out1.json out2.json > dags/schemas/summary.json`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			c, err := contract.NewCompiler(contract.Options{Standard: schemas.NodeOutput})
			if err != nil {
				return fmt.Errorf("standard contract: %w", err)
			}
			samples := make([]any, 0, len(args))
			for _, name := range args {
				v, err := readSample(e, name)
				if err != nil {
					return usage(err)
				}
				if vs := c.Standard().Validate(v, l); len(vs) > 0 {
					return usage(fmt.Errorf("%s: not a valid node output: %s: %s", name, samplePointer(vs[0].Pointer), vs[0].Message))
				}
				samples = append(samples, v)
			}
			s, err := contract.Infer(samples)
			if err != nil {
				return usage(err)
			}
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(s)
		},
	}
}

func samplePointer(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// readSample reads one JSON sample from a file, or from stdin for "-".
func readSample(e *env, name string) (any, error) {
	b, err := e.readInput(name)
	if err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	v, err := contract.ParseJSON(b)
	if err != nil {
		return nil, fmt.Errorf("sample %s: %w", name, err)
	}
	return v, nil
}
