package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/mcp"
	"github.com/seam-dag/seam/runs"
)

func newMCPCmd(e *env) *cobra.Command {
	var (
		root     string
		readOnly bool
		sf       storeFlag
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve seam's tools to AI agents over MCP (stdio)",
		Long: `Serve the Model Context Protocol on stdin and stdout, so that an AI agent can lint, run
and inspect DAGs and check contracts: tools lint_dag, list_dags, run_dag, get_run,
list_runs, validate_output and check_compatibility.

Every DAG path a client names must stay under --root (default: the current directory):
paths with .., absolute paths elsewhere and symbolic links leading out are refused.
Runs are recorded in the run store, as by seam run; --read-only leaves run_dag out.
See docs/mcp.md.`,
		Example: `  seam mcp --root .
  claude mcp add seam -- seam mcp --root .`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			st, err := mcpStore(ctx, e, &sf, readOnly)
			if err != nil {
				return err
			}
			if st != nil {
				defer st.Close()
			}
			srv, err := mcp.NewServer(mcp.Options{
				Root:     root,
				Types:    registry(e),
				Store:    st,
				Lang:     l,
				Getenv:   e.getenv,
				ReadOnly: readOnly,
			})
			if err != nil {
				return usage(err)
			}
			t := &sdk.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
			if err := srv.Run(ctx, t); err != nil && !errors.Is(err, ctx.Err()) && !errors.Is(err, io.EOF) {
				return fmt.Errorf("mcp: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&root, "root", ".", "the directory DAG paths are confined to")
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "offer only the tools that change nothing (no run_dag)")
	sf.add(cmd)
	return cmd
}

// mcpStore opens the run store: created when missing, unless the server is read-only; a
// read-only server without a store answers get_run and list_runs with an error.
func mcpStore(ctx context.Context, e *env, sf *storeFlag, readOnly bool) (*runs.Store, error) {
	if !readOnly {
		return openStore(ctx, e, sf)
	}
	if _, err := os.Stat(sf.resolve(e)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return openStoreToRead(ctx, e, sf)
}

// nopWriteCloser lets the server's transport close stdout's writer without closing stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
