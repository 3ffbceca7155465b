package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/internal/buildinfo"
)

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print seam's version and the revision it was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, "seam "+buildinfo.Version(l))
			return nil
		},
	}
}
