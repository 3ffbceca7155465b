package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
// token is required. Neither the error nor anything else here ever contains the token.
func CheckHTTPAuth(addr, token string) error {
	loop, err := IsLoopback(addr)
	if err != nil {
		return err
	}
	if !loop && token == "" {
		return fmt.Errorf("listen address %q is not loopback: set SEAM_MCP_TOKEN to a bearer token clients must send, or listen on 127.0.0.1", addr)
	}
	return nil
}

// RequireBearer lets through only the requests whose Authorization header is "Bearer
// TOKEN"; the others get 401 with a WWW-Authenticate challenge. The comparison takes the
// same time whatever the header holds (the hashes are compared, so not even the length
// leaks).
func RequireBearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="seam"`)
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="seam", error="invalid_token"`)
			http.Error(w, "invalid bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// HTTPHandler serves srv over the streamable HTTP transport on HTTPPath, every session
// sharing srv. The SDK's DNS-rebinding protection stays on: a request reaching a loopback
// listener with a Host header that is not loopback is refused with 403. With a token,
// every request must carry it (RequireBearer).
func HTTPHandler(srv *Server, token string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.Server }, nil))
	if token == "" {
		return mux
	}
	return RequireBearer(token, mux)
}

// ServeHTTP serves h on ln until ctx is cancelled, then shuts down: the event streams
// clients hold open (GET) end at once, and requests in flight get at most grace to finish
// before their connections are closed.
func ServeHTTP(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	streams, endStreams := context.WithCancel(context.WithoutCancel(ctx))
	defer endStreams()
	hs := &http.Server{
		Handler:           endOnShutdown(streams, h),
		ReadHeaderTimeout: 10 * time.Second,
	}
	hs.RegisterOnShutdown(endStreams)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("mcp http: serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close() // requests still running after the grace period
	}
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("mcp http: shut down %s: %w", ln.Addr(), err)
	}
	return nil
}

// endOnShutdown cancels the context of GET requests (the long-lived event streams, which
// never become idle) when streams is done, so that a shutdown need not wait for them.
func endOnShutdown(streams context.Context, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			defer context.AfterFunc(streams, cancel)()
			r = r.WithContext(ctx)
		}
		h.ServeHTTP(w, r)
	})
}
