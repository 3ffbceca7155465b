// Package serve is seam's web view (`seam serve`): the runs of a run store, a run's graph
// coloured by status with each edge's lint verdict, a node's attempts, output and
// violations, the DAG files under a root with their lint findings and a form to run them.
// It reads and starts runs only through a service.Service. Pages are rendered on the server
// with html/template (outputs as text, never as HTML); the only script is an embedded file
// that follows a run's events (SSE), allowed by a Content-Security-Policy without inline
// script.
package serve

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/httpserve"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/service"
	"github.com/seam-dag/seam/workspace"
)

//go:embed assets
var assets embed.FS

// Limits of what a request may ask (docs/limits.md).
const (
	// MaxBody caps a POST body (a run form's params, a login) in bytes.
	MaxBody = 1 << 20
	// PageSize is how many runs the runs page lists at once.
	PageSize = 50
	// MaxDAGFiles caps the DAG files the DAGs page reads under the root.
	MaxDAGFiles = 500
	// MaxShownOutput is how many bytes of an output the node panel shows; the whole is a
	// download away.
	MaxShownOutput = 64 << 10
	// MaxLogTail is how many bytes of a node's stderr the node panel shows (the end).
	MaxLogTail = 8 << 10
	// MaxEventStreams caps the SSE streams open at once; one more gets 503.
	MaxEventStreams = 200
)

// Options configure a Server.
type Options struct {
	// Service reads, starts, cancels and resumes the runs.
	Service *service.Service
	// Root is the directory whose DAG files the DAGs page lists and runs; "" is ".".
	Root string
	// Types builds the node types DAG files are loaded with for the server's workspace,
	// through which the `dag` type loads what it runs (workspace.Options.Types).
	Types func(*workspace.Workspace) *nodes.Registry
	// Lang fixes the language of the pages ("en" or "ja"); "" follows each request's
	// Accept-Language.
	Lang i18n.Lang
	// ReadOnly leaves out the run form and the cancel and resume buttons, and refuses
	// their POSTs.
	ReadOnly bool
	// Token, when set, is what the login form asks for; without it every page is open.
	// It stands for one admin principal named "token" (auth.Single); Principals, when set,
	// replaces it.
	Token string
	// Principals, when not nil, are who may log in (form or "Authorization: Bearer") and
	// what each may do: every request then needs one, loopback included.
	Principals auth.Source
	// Local is who a request is when no login is asked (loopback without a token), recorded
	// on the runs it starts; nil is the operating-system user who started the server.
	Local *auth.Principal
	// ProxyHeader, when set, is the header an authenticating proxy names the person in
	// (X-Forwarded-User), believed only from the addresses of ProxyFrom (CIDRs or addresses).
	ProxyHeader string
	ProxyFrom   []string
	// Loopback is set when the server listens on loopback only: a request whose Host is not
	// loopback is then refused (DNS rebinding).
	Loopback bool
	// Getenv reads $SEAM_MAX_FILE_SIZE, the limit of every file read under the root; nil
	// keeps userfile.DefaultMaxSize.
	Getenv func(string) string
	// Engines are the engines the run form offers besides the Service's own ("embedded"):
	// the CLI offers "temporal" when started with --engine temporal.
	Engines map[string]engine.Engine
	// N8N, when not nil, is the n8n instance whose executions the n8n pages list.
	N8N *n8n.Client
	// Logger receives what a page cannot say (a failed write); nil is slog.Default().
	Logger *slog.Logger
}

// Server serves the web view. Build it with New; it is an http.Handler.
type Server struct {
	opts Options
	// files reads every file the server reads: the DAG files and what they load (also
	// when a run runs a sub-DAG), and the contracts explain quotes, only under the root.
	files *workspace.Workspace
	lints *lintCache      // the DAGs page's rows
	needs *needsCache     // the timeline's needs of each DAG file
	kept  *workspace.Kept // the DAGs under the root the webhooks and the schedule pages load
	mux   *http.ServeMux
	tmpl  *template.Template
	texts map[string]i18n.Message
	key   []byte // signs the CSRF tokens; random per process
	// origins refuses the POSTs a browser marks as sent from another site (Sec-Fetch-Site,
	// Origin), whatever token they carry.
	origins *http.CrossOriginProtection
	// who are the principals a login or a bearer token is looked up in; nil when no login
	// is asked.
	who      auth.Source
	sessions *sessions
	tries    *httpserve.Tries
	// sso logs in through the principals file's OpenID provider; nil without an oidc: block.
	sso       *auth.OIDC
	ssoLogins *ssoLogins
	proxy     *proxy // the trusted proxy; nil when none is
	streams   chan struct{}
}

// CheckAuth decides whether the server may listen on addr with token: off loopback a token
// is required, and a token set must be long enough (httpserve.CheckToken). The error never
// holds the token.
func CheckAuth(addr, token string, lang i18n.Lang) (loopback bool, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, i18n.Errorf(lang, "listen address %q: want HOST:PORT, e.g. 127.0.0.1:8080: %w", addr, err)
	}
	loopback = strings.EqualFold(host, "localhost")
	if ip, err := netip.ParseAddr(host); err == nil {
		loopback = ip.IsLoopback()
	}
	if !loopback && token == "" {
		return false, i18n.Errorf(lang, "listen address %q is not loopback: set SEAM_SERVE_TOKEN to the token the login page asks for, or listen on 127.0.0.1", addr)
	}
	if err := httpserve.CheckToken("SEAM_SERVE_TOKEN", token, lang); err != nil {
		return false, err
	}
	return loopback, nil
}

// New returns a Server.
func New(opts Options) (*Server, error) {
	if opts.Service == nil {
		return nil, fmt.Errorf("serve: no run service")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Local == nil {
		opts.Local = auth.OS("", opts.Getenv)
	}
	if opts.Root == "" {
		opts.Root = "."
	}
	files, err := workspace.New(workspace.Options{Root: opts.Root, Getenv: opts.Getenv, Types: opts.Types})
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s := &Server{opts: opts, files: files, lints: &lintCache{rows: map[lintKey]lintEntry{}}, needs: &needsCache{byID: map[[sha256.Size]byte]map[string][]string{}}, kept: workspace.NewKept(), key: key, origins: http.NewCrossOriginProtection(), texts: map[string]i18n.Message{},
		sessions: &sessions{byValue: map[string]session{}}, tries: &httpserve.Tries{},
		ssoLogins: &ssoLogins{byState: map[string]ssoLogin{}},
		streams:   make(chan struct{}, MaxEventStreams)}
	for _, m := range slices.Concat(texts(), principalTexts(), webTexts(),
		ssoTexts(),
		approvalTexts(),
		scheduleTexts(),
	) {
		s.texts[m.In("en")] = m
	}
	if s.who = opts.Principals; s.who == nil && opts.Token != "" {
		s.who = auth.Single(auth.TokenPrincipal, opts.Token)
	}
	lang := opts.Lang
	if lang == "" {
		lang = i18n.English
	}
	if s.proxy, err = newProxy(opts, s.who, lang); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if s.who != nil && s.who.Current().OIDC() != nil {
		if s.sso, err = dialSSO(s.who.Current().OIDC(), opts.Getenv, lang); err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
	}
	s.tmpl, err = template.New("").Funcs(s.funcs()).ParseFS(assets, "assets/*.html")
	if err != nil {
		return nil, fmt.Errorf("serve: templates: %w", err)
	}
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets/static") // a constant path in the embedded tree
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /login", s.login)
	m.HandleFunc("POST /logout", s.logout)
	m.HandleFunc("GET /login/oidc", s.ssoStart)
	m.HandleFunc("GET /login/oidc/callback", s.ssoCallback)
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/runs", http.StatusSeeOther)
	})
	m.HandleFunc("GET /runs", s.runsPage)
	m.HandleFunc("GET /runs/{id}", s.runPage)
	m.HandleFunc("GET /runs/{id}/events", s.runEvents)
	m.HandleFunc("GET /runs/{id}/timeline", s.runTimeline)
	m.HandleFunc("GET /runs/{id}/outputs/{hash}", s.output)
	m.HandleFunc("GET /runs/{id}/nodes/{node}/log", s.nodeLog)
	m.HandleFunc("POST /runs/{id}/cancel", s.cancel)
	m.HandleFunc("POST /runs/{id}/resume", s.resume)
	m.HandleFunc("POST /runs/{id}/approvals/{node}", s.answer)
	m.HandleFunc("GET /approvals", s.approvalsPage)
	m.HandleFunc("GET /dags", s.dagsPage)
	m.HandleFunc("GET /schedules", s.schedulesPage)
	m.HandleFunc("GET /schedules/{dag}/{trigger}", s.schedulePage)
	m.HandleFunc("POST /schedules/{dag}/{trigger}/pause", s.setPaused(true))
	m.HandleFunc("POST /schedules/{dag}/{trigger}/resume", s.setPaused(false))
	m.HandleFunc("GET /dags/{path...}", s.dagPage)
	m.HandleFunc("POST /dags/{path...}", s.startRun)
	if s.opts.N8N != nil {
		m.HandleFunc("GET /n8n/executions", s.executionsPage)
		m.HandleFunc("GET /n8n/executions/{id}", s.executionPage)
	}
	s.mux = m
}

// ServeHTTP applies the headers every answer carries, the Host check, the login and the
// CSRF check, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	l := s.lang(r)
	if s.opts.Loopback && !loopbackHost(r.Host) {
		http.Error(w, i18n.Sprintf(l, "host %q is not loopback: this server answers only requests to 127.0.0.1 or localhost", r.Host), http.StatusForbidden)
		return
	}
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/hooks/") {
		s.hook(w, r) // authenticated by its signature or bearer token, with no form or CSRF
		return
	}
	s.csrfCookie(w, r)
	who, bearer := s.principal(r)
	if r.Method == http.MethodPost {
		if err := s.origins.Check(r); err != nil {
			http.Error(w, i18n.Sprintf(l, "a request from another site is refused: open seam's page and send the form from there"), http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		if err := r.ParseForm(); err != nil {
			if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
				http.Error(w, i18n.Sprintf(l, "the form could not be read (at most %d bytes): %v", MaxBody, err), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, i18n.Sprintf(l, "the form could not be read: %v", err), http.StatusBadRequest)
			return
		}
		// A bearer request needs no CSRF token: a page of another site cannot set the header.
		if bearer == noBearer && !hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(s.csrfToken(r))) {
			http.Error(w, i18n.Sprintf(l, "the form's CSRF token is missing or wrong: reload the page and try again"), http.StatusForbidden)
			return
		}
	}
	if s.who != nil && !strings.HasPrefix(r.URL.Path, "/static/") && r.URL.Path != "/login" && !strings.HasPrefix(r.URL.Path, "/login/oidc") && !s.allowed(w, r, who, bearer) {
		return
	}
	s.mux.ServeHTTP(w, r.WithContext(auth.With(r.Context(), who)))
}

// Cookies the server sets: both HttpOnly and SameSite=Strict.
const (
	sessionCookie = "seam_session"
	csrfCookie    = "seam_csrf"
)

// csrfCookie returns the browser's CSRF secret, setting a new one when it has none. Forms
// carry a MAC of it (csrfToken), which a page of another site cannot read.
func (s *Server) csrfCookie(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 64 {
		r.Header.Set("X-Seam-CSRF", c.Value)
		return c.Value
	}
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	v := hex.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: v, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	r.Header.Set("X-Seam-CSRF", v)
	return v
}

// csrfToken is the token the forms of the page answering r carry: a MAC of the browser's CSRF
// secret and its session, so that a token outlives neither a login nor a logout.
func (s *Server) csrfToken(r *http.Request) string {
	var session string
	if c, err := r.Cookie(sessionCookie); err == nil {
		session = c.Value
	}
	return s.mac("csrf", r.Header.Get("X-Seam-CSRF")+"\x00"+session)
}

// mac is the hex HMAC of what under the server's key, for purpose.
func (s *Server) mac(purpose, what string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(purpose + "\x00" + what))
	return hex.EncodeToString(m.Sum(nil))
}

func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// lang is the language of the answer to r: Options.Lang, else the first of en and ja the
// browser prefers.
func (s *Server) lang(r *http.Request) i18n.Lang {
	if s.opts.Lang != "" {
		return s.opts.Lang
	}
	if l, ok := httpserve.AcceptLanguage(r.Header.Get("Accept-Language")); ok {
		return l
	}
	return i18n.English
}

// Serve serves h on ln until ctx is cancelled, then shuts down: the event streams end at
// once, and other requests get at most grace to finish. An event stream is bounded by
// httpserve (each write within a minute, httpserve.DefaultStreams per client address); h,
// a *Server, refuses one past them in the page's language.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	lim := httpserve.Limits{}
	if s, ok := h.(*Server); ok {
		lim.TooManyStreams = func(w http.ResponseWriter, r *http.Request, max int) {
			http.Error(w, httpserve.TooManyStreams(s.lang(r), max), http.StatusTooManyRequests)
		}
	}
	if err := httpserve.Serve(ctx, ln, h, grace, lim); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
