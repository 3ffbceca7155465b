package mcp

import (
	"errors"
	"fmt"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
	"github.com/seam-dag/seam/workspace"
)

// Options configure the server. Everything it uses is passed in here.
type Options struct {
	// Root is the directory every DAG path must stay in ("" is the current directory).
	Root string
	// Types builds the node types DAGs may use (the CLI's registry) for the server's
	// workspace, through which the `dag` type loads what it runs (workspace.Options.Types).
	Types func(*workspace.Workspace) *nodes.Registry
	// Store records runs and answers get_run and list_runs; nil disables them.
	Store runs.Store
	// Lang is the language of the answers' messages and of the violations and lint findings
	// in them: "en" or "ja".
	Lang i18n.Lang
	// Getenv reads the environment variables DAGs declare under env, and
	// $SEAM_MAX_FILE_SIZE; nil reads none.
	Getenv func(string) string
	// N8N, when not nil, is the n8n instance the n8n tools operate; without it they are not
	// registered.
	N8N *n8n.Client
	// Instrument, when not nil, is applied to the options of every run before it starts: the
	// CLI sets its tracer, metrics and the secrets its exporters mask there.
	Instrument func(*engine.RunOptions, *dag.DAG)
	// Engines are the engines run_dag's engine argument may name besides "embedded", this
	// server's (the default): the CLI offers "temporal" when started with --engine temporal.
	Engines map[string]engine.Engine
	// ReadOnly registers only the tools that change nothing (no run_dag).
	ReadOnly bool
	// Local is who a tool call is made by when the transport names nobody (stdio, HTTP
	// without principals); nil is the operating-system user who started the server.
	Local *auth.Principal
	// Version is the server version announced to clients.
	Version string
	// Log receives what a client never sees: the stack of a panic recovered in a handler or
	// a run. nil discards it.
	Log *slog.Logger

	// testAdd, set only by tests, registers more tools and resources after seam's (e.g.
	// handlers that panic).
	testAdd func(*sdk.Server)
}

// Server is seam's MCP server: the SDK's server with seam's tools registered (connect it to
// a transport with Run or Connect), and the runs its clients started.
type Server struct {
	*sdk.Server
	svc  *service.Service
	lang i18n.Lang // of the messages outside a tool's answer (the HTTP session cap's)
}

// Close cancels the runs that run_dag started and that are still going, and returns once
// each has been recorded as canceled. Call it when the server stops serving.
func (s *Server) Close() { s.svc.Close() }

// server holds what the tools share.
type server struct {
	root root // its files are the workspace every DAG loads through
	opts Options
	// svc starts, resumes, cancels and reads the runs, and tracks those the clients started.
	svc *service.Service
}

// NewServer returns the MCP server with seam's tools registered.
func NewServer(opts Options) (*Server, error) {
	if opts.Types == nil {
		return nil, fmt.Errorf("mcp server: no node types given")
	}
	if opts.Root == "" {
		opts.Root = "." // confined all the same: a client names files under it only
	}
	files, err := workspace.New(workspace.Options{Root: opts.Root, Getenv: opts.Getenv, Lang: opts.Lang, Types: opts.Types})
	if err != nil {
		return nil, fmt.Errorf("mcp server: %w", err)
	}
	r := newRoot(files)
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Local == nil {
		opts.Local = auth.OS("", opts.Getenv)
	}
	// cancel_run reaches the runs on Temporal when the server offers it.
	elsewhere, _ := opts.Engines["temporal"].(engine.Canceler)
	svc := service.New(service.Options{Store: opts.Store, Lang: opts.Lang, Getenv: opts.Getenv,
		Logger: opts.Log, Instrument: opts.Instrument, ShowPath: r.rel, Elsewhere: elsewhere})
	s := &server{root: r, opts: opts, svc: svc}
	srv := sdk.NewServer(&sdk.Implementation{Name: "seam", Title: "seam: DAGs with output contracts", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: "seam runs DAGs defined in YAML and validates every node output against its contract. " +
			"DAG paths are relative to the server's root. Start with list_dags; lint_dag before run_dag, which " +
			"returns the run id at once; get_run until it has finished; explain_node for a node that failed; " +
			"after fixing the file, resume_run reuses what passed. Answers are minimal; pass raw: true for full " +
			"outputs and statistics.",
	})
	if err := errors.Join(s.addDAGTools(srv), s.addGateTools(srv), s.addContractTools(srv), s.addRunTools(srv),
		s.addApprovalTools(srv),
		s.addExplainTools(srv), s.addN8NTools(srv),
		s.addSimulateTool(srv),
		s.addScheduleTools(srv),
	); err != nil {
		return nil, fmt.Errorf("mcp server: %w", err)
	}
	s.addResources(srv)
	if opts.testAdd != nil {
		opts.testAdd(srv)
	}
	srv.AddReceivingMiddleware(recoverPanics(opts.Log, opts.Lang), checkRoles(opts.Local, opts.Lang))
	return &Server{Server: srv, svc: svc, lang: opts.Lang}, nil
}

func ptr[T any](v T) *T { return &v }

// readOnlyTool annotates a tool that reads only seam's own files and store.
func readOnlyTool(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
}
