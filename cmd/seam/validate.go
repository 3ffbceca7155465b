package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

func newValidateCmd(e *env) *cobra.Command {
	var (
		schema, node string
		asJSON       bool
		catalog      []string
	)
	cmd := &cobra.Command{
		Use:   "validate (--schema S | --node FILE#ID) [FILE|-]",
		Short: "Validate a JSON document against a contract",
		Long: `Validate a JSON document (FILE, or stdin when FILE is - or absent) against the schema
file S, or against the effective output contract of node ID in the DAG file FILE.

Prints "valid", or one line per violation: where, what, the value and the schema keyword.
Exit status: 0 valid, 1 violations (including input that is not JSON), 2 usage or schema error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lang, err := lang(cmd, e)
			if err != nil {
				return err
			}
			s, err := validateSchema(cmd.Context(), e, schema, node, catalog, lang)
			if err != nil {
				return usage(err)
			}
			name := "-"
			if len(args) == 1 {
				name = args[0]
			}
			doc, err := readDocument(e, name)
			if err != nil {
				return usage(err)
			}
			var violations []contract.Violation
			if v, err := contract.ParseJSON(doc); err != nil {
				violations = []contract.Violation{contract.ParseViolation(err, lang)}
			} else {
				violations = s.Validate(v, lang)
			}
			if err := contract.WriteViolations(e.stdout, violations, asJSON, lang); err != nil {
				return err
			}
			if len(violations) > 0 {
				return failed()
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", "JSON Schema file to validate against")
	f.StringVar(&node, "node", "", "validate against the output contract of a DAG node: FILE#ID")
	f.BoolVar(&asJSON, "json", false, `print {"valid": bool, "violations": [...]}`)
	f.StringArrayVar(&catalog, "catalog", nil, catalogUsage)
	cmd.MarkFlagsMutuallyExclusive("schema", "node")
	cmd.MarkFlagsOneRequired("schema", "node")
	return cmd
}

// validateSchema compiles the schema file, or finds the node's contract.
func validateSchema(ctx context.Context, e *env, schema, node string, catalog []string, lang i18n.Lang) (*contract.Schema, error) {
	if node != "" {
		path, id, ok := strings.Cut(node, "#")
		if !ok || path == "" || id == "" {
			return nil, fmt.Errorf("--node %q: want FILE#ID", node)
		}
		return nodeSchema(ctx, e, path, id, lang)
	}
	c, err := e.compiler(contract.Options{Catalog: contract.ParseCatalog(catalog)})
	if err != nil {
		return nil, fmt.Errorf("--schema: %w", err)
	}
	return c.File(schema)
}

// nodeSchema returns the effective output contract of node id in the DAG file at path.
func nodeSchema(ctx context.Context, e *env, path, id string, lang i18n.Lang) (*contract.Schema, error) {
	d, err := loadDAG(ctx, e, path, lang)
	if err != nil {
		return nil, err
	}
	n, ok := d.ByID[id]
	if !ok {
		return nil, fmt.Errorf("--node %s#%s: %s has no node %q", path, id, path, id)
	}
	return n.Effective, nil
}

// readDocument reads the document: the file name, or stdin for "-".
func readDocument(e *env, name string) ([]byte, error) {
	b, err := e.readInput(name)
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	return b, nil
}
