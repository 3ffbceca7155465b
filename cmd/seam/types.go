package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/nodes"
)

func newTypesCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "types [TYPE]",
		Short: "List the node types, or describe one: its configuration and its output",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg := registry(e)
			if len(args) == 0 {
				if asJSON {
					all := make([]nodes.TypeDoc, 0, len(reg.Names()))
					for _, name := range reg.Names() {
						t, _ := reg.Lookup(name)
						all = append(all, nodes.DocOf(t))
					}
					return writeTypesJSON(e.stdout, all)
				}
				return nodes.List(e.stdout, reg)
			}
			t, ok := reg.Lookup(args[0])
			if !ok {
				return usage(unknownTypeError(reg, args[0]))
			}
			if asJSON {
				return writeTypesJSON(e.stdout, nodes.DocOf(t))
			}
			return nodes.Describe(e.stdout, t)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the types' config and output schemas as JSON")
	return cmd
}

func unknownTypeError(reg *nodes.Registry, name string) error {
	if hint := reg.Closest(name); hint != "" {
		return fmt.Errorf("unknown node type %q (did you mean %q?)", name, hint)
	}
	return fmt.Errorf("unknown node type %q (known: %s)", name, strings.Join(reg.Names(), ", "))
}

func writeTypesJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
