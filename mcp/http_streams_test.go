package mcp

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/httpserve"
)

// TestMCPHTTPStreamsPerClient: every MCP request is an event stream; a client address past
// its streams is refused with 429 and a JSON-RPC error that says why, in the server's
// language, while a stream it holds (a session's GET) stays open.
func TestMCPHTTPStreamsPerClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	h := HTTPHandler(newTestServer(t, t.TempDir()), HTTPOptions{})
	// One stream per client here, where ServeHTTP allows MaxStreamsPerClient, with the
	// refusal ServeHTTP uses.
	lim := httpserve.Limits{Streams: 1, TooManyStreams: h.(*httpHandler).tooManyStreams}
	go func() { done <- httpserve.Serve(ctx, ln, h, time.Second, lim) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	url := "http://" + ln.Addr().String() + HTTPPath
	hc := &http.Client{}
	id, status, body := openSession(t, hc, url)
	if id == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	// The session's stream of server messages: held open.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	held, err := hc.Do(req)
	if err != nil || held.StatusCode != http.StatusOK {
		t.Fatalf("the session's GET stream: %v %v", held, err)
	}
	defer held.Body.Close()

	status, _, body, err = rawPost(t.Context(), hc, url, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal([]byte(body), &answer)
	const want = "this client holds 1 event streams open, its limit: close one, or retry once one has ended"
	if status != http.StatusTooManyRequests || answer.Error.Code != codeServerBusy || answer.Error.Message != want {
		t.Errorf("a request past the client's streams: %d %s; want 429, the error %q", status, body, want)
	}
}
