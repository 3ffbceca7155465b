package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// rawPost posts body to the endpoint as a client would, in session id (none when empty),
// and returns the status, the session id the answer names and the answer's body.
func rawPost(ctx context.Context, hc *http.Client, url, id, body string) (status int, sessionID, answer string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b), err
}

// openSession does what a client that walks away does: initialize a session over plain
// HTTP, say it is initialized, and never end it. It returns the session id, or the status
// and body of a refusal.
func openSession(t *testing.T, hc *http.Client, url string) (id string, status int, body string) {
	t.Helper()
	status, id, body, err := rawPost(t.Context(), hc, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"walks-away","version":"1"}}}`)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if status != http.StatusOK || id == "" {
		return "", status, body
	}
	status, _, _, err = rawPost(t.Context(), hc, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		t.Fatalf("initialized: %v", err)
	}
	if status != http.StatusAccepted {
		t.Fatalf("initialized: status %d", status)
	}
	return id, http.StatusOK, ""
}

// sessions counts the server's open sessions.
func sessions(srv *Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// waitSessions polls until srv has want sessions open.
func waitSessions(t *testing.T, srv *Server, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for sessions(srv) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions open, want %d", sessions(srv), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMCPHTTPSessionsExpire opens sessions over plain HTTP and walks away from them: the
// server closes each once idle for the session timeout, and the goroutine count returns to
// what it was before they opened.
func TestMCPHTTPSessionsExpire(t *testing.T) {
	const abandoned = 50
	srv := newTestServer(t, t.TempDir())
	ts := httptest.NewServer(HTTPHandler(srv, HTTPOptions{SessionTimeout: 300 * time.Millisecond, MaxSessions: abandoned}))
	defer ts.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	hc := &http.Client{Transport: tr}

	runtime.GC()
	baseline := runtime.NumGoroutine()
	for i := range abandoned {
		if _, status, body := openSession(t, hc, ts.URL+HTTPPath); status != http.StatusOK {
			t.Fatalf("session %d: status %d: %s", i, status, body)
		}
	}
	tr.CloseIdleConnections() // the clients are gone
	if n := sessions(srv); n == 0 {
		t.Fatal("no session stayed open: the test checks nothing")
	}
	waitSessions(t, srv, 0)
	if err := waitGoroutines(baseline+goroutineSlack, 30*time.Second); err != nil {
		t.Errorf("after the sessions expired: %v (baseline %d)", err, baseline)
	}
}

// TestMCPHTTPMaxSessions checks the cap: past MaxSessions a new session is refused with 503
// and a JSON-RPC error saying why and what to do, in the server's language; once one has
// been ended, a new one opens.
func TestMCPHTTPMaxSessions(t *testing.T) {
	for _, tc := range []struct{ lang, want string }{
		{"en", "the server has 3 sessions open, its limit (seam mcp --max-sessions): end one (DELETE), or retry once an idle one has expired (after 10m0s)"},
		{"ja", "サーバーのセッション数が上限の 3 に達しています（seam mcp --max-sessions）：セッションを 1 つ終了する（DELETE）か、使われていないセッションが期限切れになってから（10m0s 後）再試行してください"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			srv, err := NewServer(Options{Root: t.TempDir(), Types: testTypes, Lang: i18n.Lang(tc.lang)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			ts := httptest.NewServer(HTTPHandler(srv, HTTPOptions{MaxSessions: 3}))
			defer ts.Close()
			hc := ts.Client()
			var ids []string
			for range 3 {
				id, status, body := openSession(t, hc, ts.URL+HTTPPath)
				if status != http.StatusOK {
					t.Fatalf("status %d: %s", status, body)
				}
				ids = append(ids, id)
			}
			_, status, body := openSession(t, hc, ts.URL+HTTPPath)
			var rep struct {
				JSONRPC string `json:"jsonrpc"`
				ID      any    `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &rep); err != nil || status != http.StatusServiceUnavailable ||
				rep.JSONRPC != "2.0" || rep.ID != nil || rep.Error.Code != -32000 || rep.Error.Message != tc.want {
				t.Errorf("the fourth session: status %d, %s (%v); want 503 and %q", status, body, err, tc.want)
			}

			req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, ts.URL+HTTPPath, nil)
			req.Header.Set("Mcp-Session-Id", ids[0])
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			waitSessions(t, srv, 2)
			if _, status, body := openSession(t, hc, ts.URL+HTTPPath); status != http.StatusOK {
				t.Errorf("after ending one: status %d: %s", status, body)
			}
		})
	}
}
