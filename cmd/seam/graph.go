package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func newGraphCmd(e *env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "graph FILE",
		Short: "Print a DAG's graph as Mermaid or Graphviz DOT",
		Long: `Print a DAG's graph: a node per node (its id and type), an edge per dependency. Solid
edges carry data (a ${{ nodes.X }} reference); dashed ones only order (needs).

Exit status: 0 when printed, 2 for a usage error or a DAG that does not load.`,
		Example: `  seam graph dags/fan-in.yaml
  seam graph dags/fan-in.yaml --format dot | dot -Tsvg > fan-in.svg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "mermaid" && format != "dot" {
				return usage(fmt.Errorf("unknown --format %q: use mermaid or dot", format))
			}
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			d, err := loadDAG(cmd.Context(), e, args[0], l)
			if err != nil {
				return err
			}
			out := d.Mermaid()
			if format == "dot" {
				out = d.Dot()
			}
			_, err = io.WriteString(e.stdout, out)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "mermaid", "output format: mermaid or dot")
	return cmd
}
