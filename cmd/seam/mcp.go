package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/mcp"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/runs"
)

func newMCPCmd(e *env) *cobra.Command {
	var (
		root          string
		readOnly      bool
		httpAddr, who string
		sf            storeFlag
		ef            engineFlag
		maxFrame      int
		sessions      mcp.HTTPOptions
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve seam's tools to AI agents over MCP (stdio, or streamable HTTP)",
		Long: `Serve the Model Context Protocol on stdin and stdout (or over HTTP with --http), so that
an AI agent can lint, run, watch, explain and resume DAGs and check contracts: tools
lint_dag, list_dags, run_dag, get_run, list_runs, cancel_run, resume_run, explain_node,
validate_output and check_compatibility, and recorded runs as resources seam://runs/{id};
with N8N_URL and N8N_API_KEY set, also the n8n tools list_workflows, get_workflow,
validate_workflow, create_workflow, update_workflow, list_executions and get_execution.

Every DAG path a client names must stay under --root (default: the current directory):
paths with .., absolute paths elsewhere and symbolic links leading out are refused.
Runs are recorded in the run store, as by seam run, and traced as seam run's are (OTEL_*
variables; docs/telemetry.md). --read-only offers only the tools that change nothing (no
run_dag, cancel_run, resume_run, create_workflow or update_workflow). Messages follow --lang.

--http HOST:PORT serves streamable HTTP at http://HOST:PORT/mcp instead of stdio. Off
loopback (127.0.0.0/8, ::1, localhost) clients must send "Authorization: Bearer TOKEN"
with the token in $SEAM_MCP_TOKEN, and the server refuses to start without one; on
loopback the token is required when it is set; a token set must have 16 characters or
more. With --principals FILE (else $SEAM_PRINCIPALS) the bearer token names a principal,
whose roles decide the tools it may call; stdio acts as os:USER. An HTTP session its client has sent nothing
for --session-timeout is closed; past --max-sessions open at once, a new one is refused
with 503.

A JSON-RPC frame (a line on stdio, a request body over HTTP) may hold up to --max-frame
bytes and nest 1,000 levels deep. A frame that breaks these limits, is not JSON or is not a
JSON-RPC 2.0 request gets a JSON-RPC error (-32700 or -32600) and the server goes on with
the next. See docs/mcp.md.`,
		Example: `  seam mcp --root .
  claude mcp add seam -- seam mcp --root .
  seam mcp --root . --http 127.0.0.1:8765
  SEAM_MCP_TOKEN=... seam mcp --root . --http 0.0.0.0:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			switch {
			case maxFrame <= 0:
				return usage(fmt.Errorf("mcp --max-frame %d: want a positive number of bytes", maxFrame))
			case sessions.SessionTimeout <= 0:
				return usage(fmt.Errorf("mcp --session-timeout %v: want a positive duration, e.g. 10m", sessions.SessionTimeout))
			case sessions.MaxSessions <= 0:
				return usage(fmt.Errorf("mcp --max-sessions %d: want a positive number", sessions.MaxSessions))
			}
			token := strings.TrimSpace(e.getenv("SEAM_MCP_TOKEN"))
			src, err := auth.Load(auth.Config{File: who, TokenVar: "SEAM_MCP_TOKEN", Getenv: e.getenv, FileOptions: auth.FileOptions{Lang: l, Log: slog.New(slog.NewTextHandler(e.stderr, nil))}})
			if err != nil {
				return usage(fmt.Errorf("mcp --principals: %w", err))
			}
			if httpAddr != "" && !auth.IsFile(src) {
				if err := mcp.CheckHTTPAuth(httpAddr, token, l); err != nil {
					return usage(fmt.Errorf("mcp --http: %w", err))
				}
			}
			ctx := cmd.Context()
			set, err := openServerSetup(ctx, e, "mcp", &sf, &ef, readOnly, l)
			if err != nil {
				return err
			}
			defer set.close(ctx)
			srv, err := mcp.NewServer(mcp.Options{
				Engines:    set.engines,
				Root:       root,
				Types:      typesOf(e),
				Store:      set.store,
				Lang:       l,
				Getenv:     e.getenv,
				N8N:        set.n8n,
				Instrument: set.tel.apply,
				ReadOnly:   readOnly,
				Log:        slog.New(slog.NewTextHandler(e.stderr, nil)),
			})
			if err != nil {
				return usage(err)
			}
			defer srv.Close() // before the store closes: the runs still going are recorded canceled
			if httpAddr != "" {
				sessions.Principals, sessions.MaxBody = src, int64(maxFrame)
				return serveMCPHTTP(ctx, e, srv, httpAddr, sessions)
			}
			// Not the SDK's IOTransport: one bad frame would end the session (mcp.StdioTransport).
			t := &mcp.StdioTransport{Reader: e.stdin, Writer: e.stdout, MaxFrame: maxFrame, Lang: l}
			if err := srv.Run(ctx, t); err != nil && !errors.Is(err, ctx.Err()) && !errors.Is(err, io.EOF) {
				return fmt.Errorf("mcp: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&root, "root", ".", "the directory DAG paths are confined to")
	cmd.Flags().StringVar(&who, "principals", "", "with --http, the principals `FILE`: whose bearer tokens are let in and what each may do (default: $SEAM_PRINCIPALS; docs/mcp.md)")
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "offer only the tools that change nothing (no run_dag, cancel_run, resume_run, create_workflow, update_workflow)")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on `HOST:PORT` (e.g. 127.0.0.1:8765) instead of stdio")
	cmd.Flags().IntVar(&maxFrame, "max-frame", mcp.DefaultMaxFrame, "the largest JSON-RPC frame a client may send, in `bytes` (a line on stdio, a request body over HTTP)")
	cmd.Flags().DurationVar(&sessions.SessionTimeout, "session-timeout", mcp.DefaultSessionTimeout, "with --http, close a session its client has sent nothing for this `long`")
	cmd.Flags().IntVar(&sessions.MaxSessions, "max-sessions", mcp.DefaultMaxSessions, "with --http, the most sessions open at once")
	sf.add(cmd)
	ef.add(cmd, "temporal also offers run_dag the engine argument temporal: runs on seam workers (docs/temporal.md) (default: $SEAM_ENGINE, then embedded only)")
	sf.addNoMigrate(cmd)
	return cmd
}

// mcpShutdownGrace bounds how long `seam mcp --http` waits for requests in flight on SIGINT.
const mcpShutdownGrace = 5 * time.Second

// serveMCPHTTP listens on addr and serves srv over streamable HTTP until ctx is cancelled,
// announcing the endpoint on stderr (never the token).
func serveMCPHTTP(ctx context.Context, e *env, srv *mcp.Server, addr string, opts mcp.HTTPOptions) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return usage(fmt.Errorf("mcp --http: %w", err))
	}
	how := map[bool]string{true: "bearer token from SEAM_MCP_TOKEN required", false: "no token"}[opts.Principals != nil]
	if auth.IsFile(opts.Principals) {
		how = "bearer token of a principal required"
	}
	fmt.Fprintf(e.stderr, "seam mcp: serving streamable HTTP at http://%s%s (%s)\n", ln.Addr(), mcp.HTTPPath, how)
	return mcp.ServeHTTP(ctx, ln, mcp.HTTPHandler(srv, opts), mcpShutdownGrace) // errors name "mcp http" and the address
}

// serverSetup is what seam mcp and seam serve open before they serve.
type serverSetup struct {
	tel          *runTelemetry
	store        runs.Store // nil for a read-only server without a store
	n8n          *n8n.Client
	engines      map[string]engine.Engine
	closeEngines func()
}

// openServerSetup checks the n8n instance of $N8N_URL (envN8N); sets up telemetry (runs are
// traced as seam run's are, from the OTEL_* variables; before the node types, whose HTTP
// clients it instruments); reaches the engines --engine offers; and opens the run store
// (mcpStore) last, so that a bad $N8N_URL or a Temporal that does not answer leaves no new
// store behind. cmd names the command in a usage error. On an error it closes what it had
// opened.
func openServerSetup(ctx context.Context, e *env, cmd string, sf *storeFlag, ef *engineFlag, readOnly bool, l i18n.Lang) (*serverSetup, error) {
	n8nClient, err := envN8N(e, l)
	if err != nil {
		return nil, usage(fmt.Errorf("%s: %w", cmd, err))
	}
	tel, err := setupTelemetry(ctx, e, "", l)
	if err != nil {
		return nil, err
	}
	s := &serverSetup{tel: tel, n8n: n8nClient}
	if s.engines, s.closeEngines, err = ef.offered(ctx, e, l); err != nil {
		s.closeEngines = nil // what offered returns with an error is not to be called
		s.close(ctx)
		return nil, err
	}
	if s.store, err = mcpStore(ctx, e, sf, readOnly); err != nil {
		s.close(ctx)
		return nil, err
	}
	return s, nil
}

// close closes the engines, then the store, and shuts telemetry down last.
func (s *serverSetup) close(ctx context.Context) {
	if s.closeEngines != nil {
		s.closeEngines()
	}
	if s.store != nil {
		s.store.Close()
	}
	s.tel.shutdown(ctx)
}

// mcpStore opens the run store: created when missing, unless the server is read-only; a
// read-only server without a store answers get_run and list_runs with an error.
func mcpStore(ctx context.Context, e *env, sf *storeFlag, readOnly bool) (runs.Store, error) {
	if !readOnly {
		return openStore(ctx, e, sf)
	}
	if _, err := os.Stat(sf.resolve(e)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return openStoreToRead(ctx, e, sf)
}

// envN8N is the n8n instance of $N8N_URL with the key in $N8N_API_KEY, for the MCP tools and
// the web view's executions pages; nil when either is unset. Its errors are said in lang (the
// web view asks it for each page's own).
func envN8N(e *env, lang i18n.Lang) (*n8n.Client, error) {
	url, key := e.getenv(n8n.EnvURL), e.getenv(n8n.EnvAPIKey)
	if url == "" || key == "" {
		return nil, nil
	}
	return n8n.New(n8n.Config{URL: url, APIKey: key, Lang: lang, URLFrom: n8n.FromEnv}) // its errors start "n8n:
}
