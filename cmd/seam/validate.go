package main

import "github.com/spf13/cobra"

func newValidateCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "validate", Short: "TODO"}
}
