package main

import "github.com/spf13/cobra"

func newRunCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "run", Short: "TODO"}
}
