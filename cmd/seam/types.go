package main

import "github.com/spf13/cobra"

func newTypesCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "types", Short: "TODO"}
}
