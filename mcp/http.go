package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/internal/httpserve"
	"github.com/seam-dag/seam/internal/i18n"
)

// HTTPPath is the path the streamable HTTP transport is served on.
const HTTPPath = "/mcp"

// IsLoopback reports whether the listen address addr (HOST:PORT) is on the loopback
// interface: localhost, 127.0.0.0/8 or ::1. An empty host listens everywhere and is not.
func IsLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("listen address %q: want HOST:PORT, e.g. 127.0.0.1:8765: %w", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false, nil // a host name other than localhost may resolve anywhere
	}
	return ip.IsLoopback(), nil
}

// CheckHTTPAuth decides whether the server may listen on addr with token: off loopback a
// token is required, and a token set must be long enough (httpserve.CheckToken, said in
// lang). Neither the error nor anything else here ever contains the token.
func CheckHTTPAuth(addr, token string, lang i18n.Lang) error {
	loop, err := IsLoopback(addr)
	if err != nil {
		return err
	}
	if !loop && token == "" {
		return fmt.Errorf("listen address %q is not loopback: set SEAM_MCP_TOKEN to a bearer token clients must send, or listen on 127.0.0.1", addr)
	}
	return httpserve.CheckToken("SEAM_MCP_TOKEN", token, lang)
}

// RequireBearer lets through only the requests whose Authorization header is "Bearer
// TOKEN": RequirePrincipal with token as one admin principal named "token". The comparison
// takes the same time whatever the header holds (the hashes are compared, so not even the
// length leaks).
func RequireBearer(token string, lang i18n.Lang, next http.Handler) http.Handler {
	return RequirePrincipal(auth.Single(auth.TokenPrincipal, token), lang, next)
}

// Limits of the streamable HTTP transport's sessions.
const (
	// DefaultSessionTimeout is how long a session may stay idle (no request from its client)
	// before the server closes it; seam mcp --session-timeout overrides it.
	DefaultSessionTimeout = 10 * time.Minute
	// DefaultMaxSessions caps the sessions open at once; seam mcp --max-sessions overrides it.
	DefaultMaxSessions = 100
)

// HTTPOptions configure the streamable HTTP transport. Zero values are the defaults.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry (RequireBearer).
	Token string
	// Principals, when not nil, replace Token: every request must carry the bearer token of
	// one of them, and a tool needs the principal's role (RequirePrincipal).
	Principals auth.Source
	// SessionTimeout closes a session its client has sent nothing for this long (a request
	// running keeps it open): a client that walks away without ending its session leaves
	// nothing behind for longer. 0 is DefaultSessionTimeout.
	SessionTimeout time.Duration
	// MaxSessions caps the sessions open at once; a client opening one more gets 503 with a
	// JSON-RPC error. 0 is DefaultMaxSessions.
	MaxSessions int
	// MaxBody caps a request body in bytes (413 past it). 0 is DefaultMaxFrame.
	MaxBody int64
}

// HTTPHandler serves srv over the streamable HTTP transport on HTTPPath, every session
// sharing srv. The SDK's DNS-rebinding protection stays on: a request reaching a loopback
// listener with a Host header that is not loopback is refused with 403. With a token,
// every request must carry it (RequireBearer).
func HTTPHandler(srv *Server, opts HTTPOptions) http.Handler {
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxFrame
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.Server }, &sdk.StreamableHTTPOptions{
		SessionTimeout:      opts.SessionTimeout,
		MaxRequestBodyBytes: opts.MaxBody,
	})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, &sessionLimit{srv: srv, max: opts.MaxSessions, timeout: opts.SessionTimeout, next: h})
	switch {
	case opts.Principals != nil:
		return &httpHandler{Handler: RequirePrincipal(opts.Principals, srv.lang, mux), srv: srv}
	case opts.Token != "":
		return &httpHandler{Handler: RequireBearer(opts.Token, srv.lang, mux), srv: srv}
	}
	return &httpHandler{Handler: mux, srv: srv}
}

// httpHandler is the transport HTTPHandler returns: ServeHTTP answers the streams it refuses
// in the server's words.
type httpHandler struct {
	http.Handler
	srv *Server
}

// tooManyStreams refuses a request past its client's event streams (every MCP request is
// one) with 429 and a JSON-RPC error, as sessionLimit refuses a session.
func (h *httpHandler) tooManyStreams(w http.ResponseWriter, _ *http.Request, max int) {
	writeRPCError(w, http.StatusTooManyRequests, httpserve.TooManyStreams(h.srv.lang, max))
}

// writeRPCError answers with status and a JSON-RPC error (no id: the request was not read)
// saying msg.
func writeRPCError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(struct { // strings only: never fails
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, &jsonrpc.Error{Code: codeServerBusy, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// sessionLimit refuses a request that would open a session past max.
type sessionLimit struct {
	srv     *Server
	max     int
	timeout time.Duration // said in the refusal
	next    http.Handler

	mu      sync.Mutex
	opening int // requests opening a session now
}

// ServeHTTP counts the sessions open and being opened. A session being opened may already
// be among the server's, so near the cap a client may be refused one session early; never
// is one opened past it.
func (l *sessionLimit) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		l.next.ServeHTTP(w, r)
		return
	}
	l.mu.Lock()
	n := l.opening
	for range l.srv.Sessions() {
		n++
	}
	if n >= l.max {
		l.mu.Unlock()
		msg := msgf("the server has %d sessions open, its limit (seam mcp --max-sessions): end one (DELETE), or retry once an idle one has expired (after %v)", l.max, l.timeout)
		writeRPCError(w, http.StatusServiceUnavailable, msg.text(l.srv.lang))
		return
	}
	l.opening++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.opening--
		l.mu.Unlock()
	}()
	l.next.ServeHTTP(w, r)
}

// MaxStreamsPerClient caps the requests one client address has open at once: every MCP
// request is an event stream, and each session may hold one more (GET) for the server's
// messages, so several agents on one host need more than a browser's tabs.
const MaxStreamsPerClient = 32

// codeServerBusy is the JSON-RPC error of a session refused past the cap (the range -32000
// to -32099 is the server's own).
const codeServerBusy = -32000

// ServeHTTP serves h on ln until ctx is cancelled, then shuts down: the event streams
// clients hold open (GET) end at once, and requests in flight get at most grace to finish
// before their connections are closed. Every request is an event stream, within
// httpserve's bounds: a write its client does not take within a minute ends it, and a
// client address holds at most MaxStreamsPerClient at once (HTTPHandler's refuses the next
// in the server's language).
func ServeHTTP(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	lim := httpserve.Limits{Streams: MaxStreamsPerClient}
	if hh, ok := h.(*httpHandler); ok {
		lim.TooManyStreams = hh.tooManyStreams
	}
	if err := httpserve.Serve(ctx, ln, h, grace, lim); err != nil {
		return fmt.Errorf("mcp http: %w", err)
	}
	return nil
}
