package main

import (
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/userfile"
	"github.com/seam-dag/seam/serve"
	"github.com/seam-dag/seam/service"
)

// serveShutdownGrace bounds how long `seam serve` waits for requests in flight on SIGINT.
const serveShutdownGrace = 5 * time.Second

func newServeCmd(e *env) *cobra.Command {
	var (
		addr, root, who, proxyHeader string
		proxyFrom                    []string
		readOnly, noSch              bool
		sf                           storeFlag
		ef                           engineFlag
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a web view of the runs and the DAG files",
		Long: `Serve a web view at http://ADDR/: the runs of the run store (newest first, filtered by
DAG and status), a run's graph coloured by node status with each edge's lint verdict, a
node's attempts, output, stderr and violations (what seam explain says), the DAG files
under --root with their lint findings, and a form to run one. Running runs update live.

On loopback (127.0.0.0/8, ::1, localhost, the default) no login is needed, and requests
whose Host is not loopback are refused. Off loopback the server refuses to start unless
$SEAM_SERVE_TOKEN holds a token of 16 characters or more, which a login page asks for
(SEAM_MCP_TOKEN is not read: the web view and the MCP server have tokens of their own).
With --principals FILE (else $SEAM_PRINCIPALS) every request needs a principal, loopback
included: the login page, single sign-on (the file's oidc:), "Authorization: Bearer TOKEN"
or an authenticating proxy's header (--auth-proxy-header, believed only from
--auth-proxy-from); POSTs need the operator role. After 5 wrong tokens from one address
the login allows one try every 10 s; Log out ends the session on the server. Only files under --root are read, DAGs' sub-DAGs and contracts
included. --read-only leaves out the run
form and the cancel and resume buttons. With N8N_URL and N8N_API_KEY set, n8n's executions
have pages too. Pages follow --lang, else the browser's language.
See docs/serve.md.`,
		Example: `  seam serve --root dags
  SEAM_SERVE_TOKEN=... seam serve --addr 0.0.0.0:8080 --store postgres://... --read-only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			sf.lang = l
			token := strings.TrimSpace(e.getenv("SEAM_SERVE_TOKEN"))
			src, err := auth.Load(auth.Config{File: who, TokenVar: "SEAM_SERVE_TOKEN", Getenv: e.getenv, FileOptions: auth.FileOptions{Lang: l, Log: slog.New(slog.NewTextHandler(e.stderr, nil))}})
			if err != nil {
				return usage(fmt.Errorf("serve --principals: %w", err))
			}
			loopback, err := serve.CheckListen(addr, token, src, l)
			if err != nil {
				return usage(fmt.Errorf("serve --addr: %w", err))
			}
			if _, err := userfile.MaxSize(e.getenv); err != nil {
				return usage(err) // before anything opens
			}
			ctx := cmd.Context()
			set, err := openServerSetup(ctx, e, "serve", &sf, &ef, readOnly, l)
			if err != nil {
				return err
			}
			defer set.close(ctx)
			log := slog.New(slog.NewTextHandler(e.stderr, nil))
			elsewhere, _ := set.engines["temporal"].(engine.Canceler) // cancels and answers reach runs on Temporal
			svc := service.New(service.Options{Store: set.store, Lang: l, Getenv: e.getenv, Logger: log,
				ShowPath: displayPath, Instrument: set.tel.apply, AroundLint: set.tel.lint, Elsewhere: elsewhere})
			// Before the store and the engines close: the runs still going are recorded canceled.
			defer svc.Close()
			if m := set.tel.tel.Meter(); m != nil { // the gauge of the open approvals, by age
				stop, err := svc.ObserveApprovals(m, nil)
				if err != nil {
					return err
				}
				defer stop()
			}
			if ws, err := openWorkspace(e, root, l); err == nil && !noSch && !readOnly {
				stop, err := startScheduler(ctx, e, svc, ws, []string{root})
				if err != nil {
					return err
				}
				defer stop() // before the service closes
			}
			var pageLang i18n.Lang
			if f, _ := cmd.Flags().GetString("lang"); f != "" || e.getenv("SEAM_LANG") != "" {
				pageLang = l // else each page follows the browser
			}
			srv, err := serve.New(serve.Options{Service: svc, Root: root, Types: typesOf(e), Lang: pageLang, Engines: set.engines,
				ReadOnly: readOnly, Principals: src, Loopback: loopback, Getenv: e.getenv, N8N: set.n8n, Logger: log,
				ProxyHeader: proxyHeader, ProxyFrom: proxyFrom})
			if err != nil {
				return usage(err)
			}
			var lc net.ListenConfig
			ln, err := lc.Listen(ctx, "tcp", addr)
			if err != nil {
				return usage(fmt.Errorf("serve --addr: %w", err))
			}
			how := map[bool]string{true: "login or bearer token of a principal", false: "no login"}[auth.IsFile(src)]
			if token != "" {
				how = "login with the token in SEAM_SERVE_TOKEN"
			}
			fmt.Fprintf(e.stderr, "seam serve: http://%s/ (%s)\n", ln.Addr(), how)
			return serve.Serve(ctx, ln, srv, serveShutdownGrace)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT`")
	cmd.Flags().StringVar(&root, "root", ".", "the directory whose DAG files the DAGs page lists and runs")
	cmd.Flags().StringVar(&who, "principals", "", "the principals `FILE`: who may log in and what each may do (default: $SEAM_PRINCIPALS; docs/serve.md)")
	cmd.Flags().StringVar(&proxyHeader, "auth-proxy-header", "", "the `HEADER` an authenticating proxy names a principal in (e.g. X-Forwarded-User), believed only from --auth-proxy-from")
	cmd.Flags().StringSliceVar(&proxyFrom, "auth-proxy-from", nil, "the authenticating proxy's addresses (`CIDR`, repeatable)")
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "start, cancel and resume nothing (no run form, no buttons, no scheduler)")
	cmd.Flags().BoolVar(&noSch, "no-scheduler", false, "do not start the runs of the DAGs' schedules under --root (seam scheduler does it elsewhere)")
	sf.add(cmd)
	ef.add(cmd, "temporal also offers the temporal engine in the run form: runs on seam workers (docs/temporal.md) (default: $SEAM_ENGINE, then embedded only)")
	sf.addNoMigrate(cmd)
	return cmd
}

// newTokenCmd is seam token new: the tokens of the principals seam serve and seam mcp let in.
func newTokenCmd(e *env) *cobra.Command {
	var roles []string
	newCmd := &cobra.Command{Use: "new NAME", Short: "Draw a token for a principal and print the line to add to the principals file", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			out, err := auth.NewTokenText(args[0], roles, l)
			if err != nil {
				return usage(fmt.Errorf("token new: %w", err))
			}
			_, err = fmt.Fprint(e.stdout, out)
			return err
		}}
	newCmd.Flags().StringArrayVar(&roles, "role", nil, "a `ROLE` of the principal: viewer (the default), operator, approver or admin; repeat for more")
	cmd := &cobra.Command{Use: "token", Short: "Tokens of the principals seam serve and seam mcp --http let in (docs/serve.md)"}
	cmd.AddCommand(newCmd)
	return cmd
}
