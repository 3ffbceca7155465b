package main

import "github.com/spf13/cobra"

func newGraphCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "graph", Short: "TODO"}
}
