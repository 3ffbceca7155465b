package mcp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/internal/httpserve"
)

const testToken = "tok-3f9a1c7e-never-shown"

func TestMCPIsLoopback(t *testing.T) {
	tests := []struct {
		addr string
		loop bool
		err  string
	}{
		{"127.0.0.1:8765", true, ""},
		{"127.3.2.1:0", true, ""},
		{"[::1]:8765", true, ""},
		{"localhost:8765", true, ""},
		{"LocalHost:1", true, ""},
		{"[::ffff:127.0.0.1]:1", true, ""},
		{"0.0.0.0:8765", false, ""},
		{":8765", false, ""},
		{"[::]:8765", false, ""},
		{"192.168.1.10:8765", false, ""},
		{"example.com:8765", false, ""},
		{"localhost.example.com:8765", false, ""},
		{"127.0.0.1", false, `listen address "127.0.0.1": want HOST:PORT, e.g. 127.0.0.1:8765`},
		{"", false, `listen address "": want HOST:PORT`},
	}
	for _, tc := range tests {
		t.Run(tc.addr, func(t *testing.T) {
			loop, err := IsLoopback(tc.addr)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || loop != tc.loop {
				t.Fatalf("IsLoopback(%q) = %v, %v; want %v", tc.addr, loop, err, tc.loop)
			}
		})
	}
}

func TestMCPCheckHTTPAuth(t *testing.T) {
	tests := []struct {
		addr, token string
		err         string // "" when the server may start
	}{
		{"127.0.0.1:8765", "", ""},
		{"localhost:8765", testToken, ""},
		{"[::1]:0", "", ""},
		{"0.0.0.0:8765", testToken, ""},
		{"0.0.0.0:8765", "", `listen address "0.0.0.0:8765" is not loopback: set SEAM_MCP_TOKEN`},
		{":8765", "", `listen address ":8765" is not loopback`},
		{"example.com:80", "", "is not loopback"},
		{"nonsense", testToken, `listen address "nonsense": want HOST:PORT`},
		{"127.0.0.1:8765", "short", "SEAM_MCP_TOKEN is 5 characters long: a token needs at least 16"},
		{"0.0.0.0:8765", "short", "SEAM_MCP_TOKEN is 5 characters long: a token needs at least 16"},
	}
	for _, tc := range tests {
		t.Run(tc.addr+"/"+map[bool]string{true: "token", false: "none"}[tc.token != ""], func(t *testing.T) {
			err := CheckHTTPAuth(tc.addr, tc.token, "en")
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("err %v, want %q", err, tc.err)
			case err != nil && strings.Contains(err.Error(), testToken):
				t.Fatalf("the error shows the token: %v", err)
			}
		})
	}
}

// newTestServer returns seam's MCP server on root with the built-in node types.
func newTestServer(t *testing.T, root string) *Server {
	t.Helper()
	srv, err := NewServer(Options{Root: root, Types: testTypes, Lang: "en"})
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connectHTTP connects a real client session to the streamable endpoint at url, sending
// token (none when empty).
func connectHTTP(t *testing.T, ctx context.Context, url, token string) (*sdk.ClientSession, error) {
	t.Helper()
	hc := &http.Client{Transport: http.DefaultTransport}
	if token != "" {
		hc.Transport = bearer{token: token, next: http.DefaultTransport}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	return client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
}

// TestMCPHTTPSession connects a real client over streamable HTTP, with and without a
// token: it lists the tools and calls one.
func TestMCPHTTPSession(t *testing.T) {
	for _, token := range []string{"", testToken} {
		t.Run(map[bool]string{true: "token", false: "no token"}[token != ""], func(t *testing.T) {
			root := testRoot(t)
			ts := httptest.NewServer(HTTPHandler(newTestServer(t, root), HTTPOptions{Token: token}))
			defer ts.Close()
			cs, err := connectHTTP(t, t.Context(), ts.URL+HTTPPath, token)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatalf("list tools: %v", err)
			}
			names := map[string]bool{}
			for _, tool := range tools.Tools {
				names[tool.Name] = true
			}
			if !names["lint_dag"] || !names["run_dag"] {
				t.Errorf("tools %v lack lint_dag or run_dag", names)
			}
			r := call(t, cs, "lint_dag", map[string]any{"path": "dags/lint-compatible.yaml"})
			if msg, _ := r.env["message"].(string); r.res.IsError || !strings.Contains(msg, "0 errors") {
				t.Errorf("lint_dag over HTTP: %v", r.env)
			}
		})
	}
}

// TestMCPHTTPUnauthorized sends plain requests: without the right bearer token they get
// 401 and a Bearer challenge, and the answer never shows the token; a client session
// cannot start either.
func TestMCPHTTPUnauthorized(t *testing.T) {
	ts := httptest.NewServer(HTTPHandler(newTestServer(t, t.TempDir()), HTTPOptions{Token: testToken}))
	defer ts.Close()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	tests := []struct {
		name      string
		auth      string // "" sends no Authorization header
		challenge string
		body      string
	}{
		{"no header", "", `Bearer realm="seam"`, "a bearer token is required"},
		{"wrong token", "Bearer wrong", `Bearer realm="seam", error="invalid_token"`, "invalid bearer token"},
		{"token prefix", "Bearer " + testToken[:len(testToken)-1], `error="invalid_token"`, "invalid bearer token"},
		{"token with suffix", "Bearer " + testToken + "x", `error="invalid_token"`, "invalid bearer token"},
		{"basic scheme", "Basic " + testToken, `Bearer realm="seam"`, "a bearer token is required"},
		{"scheme only", "Bearer", `Bearer realm="seam"`, "a bearer token is required"},
		{"empty token", "Bearer  ", `Bearer realm="seam"`, "a bearer token is required"}, // the header is trimmed to "Bearer"
		{"lower-case scheme, wrong token", "bearer " + strings.ToUpper(testToken), `error="invalid_token"`, "invalid bearer token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+HTTPPath, strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", resp.StatusCode)
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") || !strings.Contains(got, tc.challenge) {
				t.Errorf("WWW-Authenticate %q, want %q", got, tc.challenge)
			}
			if !strings.Contains(string(body), tc.body) || strings.Contains(string(body), testToken) {
				t.Errorf("body %q, want %q and no token", body, tc.body)
			}
		})
	}
	for _, token := range []string{"", "wrong"} {
		_, err := connectHTTP(t, t.Context(), ts.URL+HTTPPath, token)
		if err == nil {
			t.Errorf("client with token %q connected", token)
		} else if strings.Contains(err.Error(), testToken) {
			t.Errorf("the client's error shows the token: %v", err)
		}
	}
}

// TestMCPHTTPHostProtection checks that the SDK's DNS-rebinding protection stays on: on a
// loopback listener, a request whose Host is not loopback is refused even with the token.
func TestMCPHTTPHostProtection(t *testing.T) {
	ts := httptest.NewServer(HTTPHandler(newTestServer(t, t.TempDir()), HTTPOptions{Token: testToken}))
	defer ts.Close()
	tests := []struct {
		host   string
		status int
	}{
		{"evil.example:80", http.StatusForbidden},
		{"attacker.test", http.StatusForbidden},
		{strings.TrimPrefix(ts.URL, "http://"), http.StatusOK},
		{"localhost", http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+HTTPPath, strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tc.host
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("Host %q: status %d, want %d", tc.host, resp.StatusCode, tc.status)
			}
		})
	}
}

// TestMCPServeHTTPShutdown serves on a real loopback listener, keeps a client session
// (with its event stream) open, cancels the context and checks that ServeHTTP returns
// well before the grace period (the open stream does not hold it up) and stops listening.
func TestMCPServeHTTPShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- ServeHTTP(ctx, ln, HTTPHandler(newTestServer(t, t.TempDir()), HTTPOptions{Token: testToken}), time.Minute)
	}()
	url := "http://" + ln.Addr().String() + HTTPPath
	cs, err := connectHTTP(t, t.Context(), url, testToken)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("list tools: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	case <-time.After(30 * time.Second): // half the grace period: a loaded machine is slow, a held stream holds a minute
		t.Fatal("ServeHTTP did not return within 30s of the context being cancelled (its grace period is a minute)")
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("still listening after shutdown")
	}
}

// TestMCPServeHTTPGrace checks that a request still running when the grace period ends
// does not hold up the shutdown: ServeHTTP closes its connection and returns.
func TestMCPServeHTTPGrace(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	stuck := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(ctx, ln, stuck, 200*time.Millisecond) }()
	go func() {
		if resp, err := http.Post("http://"+ln.Addr().String()+HTTPPath, "application/json", strings.NewReader("{}")); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	begin := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
		if d := time.Since(begin); d < 200*time.Millisecond {
			t.Errorf("returned after %v, before the grace period", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeHTTP waited past its grace period")
	}
}

// TestMCPServeHTTPListenerError checks that a listener failing outside a shutdown is
// reported with its address.
func TestMCPServeHTTPListenerError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	err = ServeHTTP(t.Context(), ln, http.NotFoundHandler(), time.Second)
	if err == nil || !strings.Contains(err.Error(), "mcp http: serve "+ln.Addr().String()) || !errors.Is(err, net.ErrClosed) {
		t.Errorf("err %v, want the serve error with the address", err)
	}
}

// TestMCPHTTPBodyLimit: a request body over HTTPOptions.MaxBody gets 413 and opens no
// session; one within it is served.
func TestMCPHTTPBodyLimit(t *testing.T) {
	srv := newTestServer(t, t.TempDir())
	ts := httptest.NewServer(HTTPHandler(srv, HTTPOptions{MaxBody: 1024}))
	defer ts.Close()
	initialize := func(pad int) *http.Response {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"` + strings.Repeat("x", pad) + `","version":"1"}}}`
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+HTTPPath, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := initialize(2048); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 2 KiB body: %d, want 413", resp.StatusCode)
	}
	n := 0
	for range srv.Sessions() {
		n++
	}
	if n != 0 {
		t.Errorf("%d sessions after a refused body, want none", n)
	}
	if resp := initialize(10); resp.StatusCode != http.StatusOK {
		t.Errorf("a small body: %d, want 200", resp.StatusCode)
	}
}

// TestMCPHTTPSlowClient: a client that sends half a request body and then nothing, before
// any session, has its connection closed.
func TestMCPHTTPSlowClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	lim := httpserve.Limits{Body: 200 * time.Millisecond}
	go func() {
		done <- httpserve.Serve(ctx, ln, HTTPHandler(newTestServer(t, t.TempDir()), HTTPOptions{}), time.Second, lim)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST "+HTTPPath+" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\":")
	// The deadline only keeps a server that never closes from hanging the test.
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if b, err := io.ReadAll(c); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server kept the connection open (read %q)", b)
	}
}
