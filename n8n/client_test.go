package n8n

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "n8n_api_0123456789abcdefSECRETtail"

// fastClient is a client of srv that retries without waiting long.
func fastClient(t *testing.T, url string) *Client {
	t.Helper()
	c, err := New(Config{URL: url, APIKey: testKey, Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // substring of the error; "" means no error
	}{
		{"no URL", Config{APIKey: testKey}, "no URL"},
		{"no key", Config{URL: "http://127.0.0.1:5678"}, "no API key"},
		{"bad scheme", Config{URL: "ftp://n8n.example.com", APIKey: testKey}, "want http(s)://host[:port]"},
		{"no host", Config{URL: "https://", APIKey: testKey}, "want http(s)://host[:port]"},
		{"credentials in URL", Config{URL: "https://u:p@n8n.example.com", APIKey: testKey}, "credentials in the URL"},
		// A URL that does not parse is named without its password.
		{"unparsable with a password", Config{URL: "https://u:s3cret@n8n.example.com:port", APIKey: testKey}, `n8n: bad URL https://xxxxx@n8n.example.com:port: invalid port ":port" after host`},
		{"bad scheme with a password", Config{URL: "ftp://u:s3cret@n8n.example.com", APIKey: testKey}, `n8n: bad URL "ftp://u:xxxxx@n8n.example.com": want`},
		{"plain http off loopback", Config{URL: "http://n8n.example.com:5678", APIKey: testKey}, "refusing plain http:// to n8n.example.com:5678, which is not loopback"},
		{"plain http to a LAN address", Config{URL: "http://10.0.0.7", APIKey: testKey}, "refusing plain http://"},
		// The fix named is the one the URL's source offers: $N8N_URL alone has no insecure.
		{"plain http in a DAG", Config{URL: "http://10.0.0.7", APIKey: testKey}, "; use https:// or set insecure: true"},
		{"plain http from a flag", Config{URL: "http://10.0.0.7", APIKey: testKey, URLFrom: FromFlag}, "; use https:// or pass --insecure"},
		{"plain http from $N8N_URL", Config{URL: "http://10.0.0.7", APIKey: testKey, URLFrom: FromEnv}, "unencrypted; set N8N_URL to an https:// URL"},
		{"insecure allows it", Config{URL: "http://n8n.example.com", APIKey: testKey, Insecure: true}, ""},
		{"https", Config{URL: "https://n8n.example.com/api/v1/", APIKey: testKey}, ""},
		{"loopback v4", Config{URL: "http://127.0.0.1:5678", APIKey: testKey}, ""},
		{"loopback v6", Config{URL: "http://[::1]:5678", APIKey: testKey}, ""},
		{"localhost", Config{URL: "http://localhost:5678", APIKey: testKey}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
			if err != nil && (strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "s3cret")) {
				t.Fatalf("error shows the key or the password: %v", err)
			}
		})
	}
}

func TestBaseURLDropsAPIPath(t *testing.T) {
	c, err := New(Config{URL: "https://n8n.example.com/sub/api/v1/", APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.BaseURL(); got != "https://n8n.example.com/sub" {
		t.Fatalf("BaseURL = %q", got)
	}
}

func TestMask(t *testing.T) {
	tests := map[string]string{
		"":                                 "****",
		"short":                            "****",
		"abcd0123456789wxyz":               "abcd...wxyz",
		"eyJhbGciOiJIUzI1NiJ9.payload.SIG": "eyJh....SIG",
	}
	for in, want := range tests {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIDUnmarshal(t *testing.T) {
	var v struct {
		A, B, C ID
	}
	if err := json.Unmarshal([]byte(`{"A":"xYz12","B":1234,"C":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != "xYz12" || v.B != "1234" || v.C != "" {
		t.Fatalf("got %+v", v)
	}
	if err := json.Unmarshal([]byte(`{"A":true}`), &v); err == nil || !strings.Contains(err.Error(), "id must be a string or a number") {
		t.Fatalf("error = %v", err)
	}
}

func TestIDOf(t *testing.T) {
	tests := []struct {
		in      any
		want    ID
		wantErr string
	}{
		{"abc", "abc", ""},
		{json.Number("42"), "42", ""},
		{int64(7), "7", ""},
		{7, "7", ""},
		{float64(9), "9", ""},
		{1.5, "", "whole number"},
		{"  ", "", "id is empty"},
		{nil, "", "id is missing"},
		{true, "", "must be a string or a number"},
	}
	for _, tt := range tests {
		got, err := IDOf(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("IDOf(%v) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("IDOf(%v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// flaky answers each request with the next status of seq (200 with body once it runs out),
// counting requests.
func flaky(t *testing.T, seq []int, body string) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-N8N-API-KEY") != testKey {
			t.Errorf("request without the API key header")
		}
		i := int(n.Add(1)) - 1
		if i < len(seq) {
			w.WriteHeader(seq[i])
			fmt.Fprintf(w, `{"message":"busy %d"}`, seq[i])
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestRetries(t *testing.T) {
	const list = `{"data":[{"id":"w1","name":"one","active":true,"nodes":[]}],"nextCursor":null}`
	tests := []struct {
		name      string
		seq       []int
		call      func(*Client) error
		wantCalls int32
		wantErr   string
	}{
		{"429 then ok", []int{429}, listWF, 2, ""},
		{"502 503 504 then ok", []int{502, 503, 504}, listWF, 4, ""},
		{"gives up after the retries", []int{503, 503, 503, 503, 503}, listWF, 4, "HTTP 503 Service Unavailable: busy 503"},
		{"500 is not retried", []int{500}, listWF, 1, "HTTP 500 Internal Server Error: busy 500"},
		{"404 is not retried", []int{404}, listWF, 1, "HTTP 404 Not Found: busy 404"},
		{"create (POST) is not retried", []int{503}, func(c *Client) error {
			_, err := c.CreateWorkflow(context.Background(), &Workflow{Name: "x"})
			return err
		}, 1, "create workflow \"x\": n8n POST /api/v1/workflows: HTTP 503"},
		{"retry execution (POST) is not retried", []int{429}, func(c *Client) error {
			_, err := c.RetryExecution(context.Background(), "5", false)
			return err
		}, 1, "retry execution 5: n8n POST /api/v1/executions/5/retry: HTTP 429"},
		{"PUT is retried", []int{502}, func(c *Client) error {
			_, err := c.UpdateWorkflow(context.Background(), "w1", &Workflow{Name: "x"})
			return err
		}, 2, ""},
		{"activate is retried", []int{504}, func(c *Client) error {
			_, err := c.ActivateWorkflow(context.Background(), "w1")
			return err
		}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := flaky(t, tt.seq, list)
			err := tt.call(fastClient(t, srv.URL))
			if got := n.Load(); got != tt.wantCalls {
				t.Errorf("%d requests, want %d", got, tt.wantCalls)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func listWF(c *Client) error {
	p, err := c.ListWorkflows(context.Background(), WorkflowFilter{})
	if err == nil && (len(p.Data) != 1 || p.Data[0].ID != "w1") {
		return fmt.Errorf("unexpected page %+v", p)
	}
	return err
}

// TestRetryReset: a connection the server drops before answering (reset, or closed: EOF)
// is retried for the idempotent calls, GET, PUT and DELETE, and is an error for a POST,
// whose first request may have done its work.
func TestRetryReset(t *testing.T) {
	const wf = `{"id":"7","name":"x","active":false,"nodes":[],"connections":{}}`
	calls := []struct {
		name    string
		call    func(*Client) error
		retried bool
		wantErr string
	}{
		{"GET", func(c *Client) error { _, err := c.GetWorkflow(context.Background(), "7"); return err }, true, ""},
		{"PUT", func(c *Client) error {
			_, err := c.UpdateWorkflow(context.Background(), "7", &Workflow{Name: "x"})
			return err
		}, true, ""},
		{"DELETE", func(c *Client) error { _, err := c.DeleteWorkflow(context.Background(), "7"); return err }, true, ""},
		{"POST", func(c *Client) error { _, err := c.RetryExecution(context.Background(), "7", false); return err },
			false, "retry execution 7: n8n POST /api/v1/executions/7/retry: "},
	}
	for _, rst := range []bool{true, false} {
		for _, tt := range calls {
			name := tt.name + " closed"
			if rst {
				name = tt.name + " reset"
			}
			t.Run(name, func(t *testing.T) {
				var n atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if n.Add(1) == 1 {
						conn, _, err := w.(http.Hijacker).Hijack()
						if err != nil {
							t.Error(err)
							return
						}
						if tc, ok := conn.(*net.TCPConn); ok && rst {
							_ = tc.SetLinger(0) // close with RST
						}
						conn.Close()
						return
					}
					fmt.Fprint(w, wf)
				}))
				defer srv.Close()
				err := tt.call(fastClient(t, srv.URL))
				if tt.retried {
					if err != nil || n.Load() != 2 {
						t.Fatalf("error %v after %d requests, want success after 2", err, n.Load())
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || n.Load() != 1 {
					t.Fatalf("error %v after %d requests, want one request and %q", err, n.Load(), tt.wantErr)
				}
			})
		}
	}
}

// TestIdleTimeout: the client closes idle connections before n8n (Node.js, 5 s keep-alive)
// does, so that no request goes out on a connection n8n is closing.
func TestIdleTimeout(t *testing.T) {
	c, err := New(Config{URL: "http://127.0.0.1:1", APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := c.http.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport %T, want one of the client's own", c.http.Transport)
	}
	if tr.IdleConnTimeout <= 0 || tr.IdleConnTimeout >= 5*time.Second {
		t.Fatalf("idle timeout %v: want one under 5s", tr.IdleConnTimeout)
	}
}

func TestRetryAfterAndContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "600")
		w.WriteHeader(429)
	}))
	defer srv.Close()
	c := fastClient(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.ListExecutions(ctx, ExecutionFilter{})
	if err == nil || !strings.Contains(err.Error(), "while waiting to retry") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v", err)
	}
	if time.Since(start) > time.Minute { // a liveness bound, far below the 600 s Retry-After
		t.Fatalf("waited %s: the context should cut the Retry-After wait short", time.Since(start))
	}
}

func TestTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL, APIKey: testKey, Timeout: 50 * time.Millisecond, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetWorkflow(context.Background(), "w1")
	if err == nil || !strings.Contains(err.Error(), "request timed out") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v", err)
	}
}

// TestKeySanitised: n8n (or a proxy) echoing the key back does not put it in an error.
func TestKeySanitised(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"message":"key %s is not valid"}`, r.Header.Get("X-N8N-API-KEY"))
	}))
	defer srv.Close()
	_, err := fastClient(t, srv.URL).ListWorkflows(context.Background(), WorkflowFilter{})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if strings.Contains(msg, testKey) {
		t.Fatalf("error shows the key: %s", msg)
	}
	want := "list workflows: n8n GET /api/v1/workflows: HTTP 401 Unauthorized: key n8n_...tail is not valid (check the API key"
	if !strings.Contains(msg, want) {
		t.Fatalf("error %q, want it to contain %q", msg, want)
	}
	if StatusCode(err) != 401 {
		t.Fatalf("StatusCode = %d", StatusCode(err))
	}
}

func TestErrorWithoutMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, "plain text "+strings.Repeat("x", 300))
	}))
	defer srv.Close()
	_, err := fastClient(t, srv.URL).GetExecution(context.Background(), "9", true)
	if err == nil || !strings.Contains(err.Error(), "get execution 9: n8n GET /api/v1/executions/9: HTTP 400 Bad Request: plain text xxx") ||
		!strings.HasSuffix(err.Error(), "…") {
		t.Fatalf("error = %v", err)
	}
}

func TestDecodeError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data": 5}`)
	}))
	defer srv.Close()
	_, err := fastClient(t, srv.URL).ListExecutions(context.Background(), ExecutionFilter{})
	if err == nil || !strings.Contains(err.Error(), "list executions: n8n GET /api/v1/executions: decode answer:") {
		t.Fatalf("error = %v", err)
	}
}

func TestBadID(t *testing.T) {
	c := fastClient(t, "http://127.0.0.1:1")
	for id, want := range map[ID]string{
		" ":   "get workflow: id is empty",
		"..":  `get workflow: id ".." is not an n8n id`,
		"a/b": `get workflow: id "a/b" is not an n8n id`,
		"x?y": `get workflow: id "x?y" is not an n8n id`,
	} {
		if _, err := c.GetWorkflow(context.Background(), id); err == nil || err.Error() != want {
			t.Errorf("id %q: error = %v, want %s", id, err, want)
		}
	}
}

// TestCursorFollowing: All follows nextCursor; a cursor that repeats stops with an error.
func TestCursorFollowing(t *testing.T) {
	pages := map[string]string{
		"":   `{"data":[{"id":"3"},{"id":"2"}],"nextCursor":"c1"}`,
		"c1": `{"data":[{"id":"1"}],"nextCursor":null}`,
		"c2": `{"data":[{"id":"1"}],"nextCursor":"c2"}`,
	}
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		fmt.Fprint(w, pages[r.URL.Query().Get("cursor")])
	}))
	defer srv.Close()
	c := fastClient(t, srv.URL)
	p, err := c.ListExecutions(context.Background(), ExecutionFilter{WorkflowID: "w1", Status: "error", Limit: 2, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Data) != 3 || p.Data[2].ID != "1" || p.NextCursor != "" {
		t.Fatalf("page %+v", p)
	}
	if want := "limit=2&status=error&workflowId=w1"; queries[0] != want {
		t.Fatalf("first query %q, want %q", queries[0], want)
	}
	if want := "cursor=c1&limit=2&status=error&workflowId=w1"; queries[1] != want {
		t.Fatalf("second query %q, want %q", queries[1], want)
	}
	_, err = c.ListExecutions(context.Background(), ExecutionFilter{Cursor: "c2", All: true})
	if err == nil || !strings.Contains(err.Error(), "list executions: page 1: n8n's cursor does not advance") {
		t.Fatalf("error = %v", err)
	}
}

func TestBackoff(t *testing.T) {
	c := fastClient(t, "http://127.0.0.1:1")
	c.cfg.Backoff, c.cfg.MaxBackoff = 100*time.Millisecond, time.Second
	c.jitter = func() float64 { return 1 } // the upper end of each range
	tests := []struct {
		attempt    int
		retryAfter time.Duration
		want       time.Duration
	}{
		{0, 0, 100 * time.Millisecond},
		{1, 0, 200 * time.Millisecond},
		{3, 0, 800 * time.Millisecond},
		{4, 0, time.Second},
		{40, 0, time.Second},
		{0, 3 * time.Second, 3 * time.Second},
		{0, time.Hour, time.Minute},
	}
	for _, tt := range tests {
		if got := c.backoff(tt.attempt, tt.retryAfter); got != tt.want {
			t.Errorf("backoff(%d, %s) = %s, want %s", tt.attempt, tt.retryAfter, got, tt.want)
		}
	}
}

// TestSanitiseEscapedKey checks that a key n8n echoes URL-escaped is masked too.
func TestSanitiseEscapedKey(t *testing.T) {
	c := &Client{key: "n8n_ab/cd+ef=gh"}
	got := c.sanitize("raw n8n_ab/cd+ef=gh, escaped n8n_ab%2Fcd%2Bef%3Dgh")
	if want := "raw " + Mask(c.key) + ", escaped ***"; got != want {
		t.Errorf("sanitize = %q, want %q", got, want)
	}
}

// TestSanitiseShortKey: a key shorter than nodes.MinSecret is not masked, as no secret that
// short is anywhere: masking "k" would garble every message that has the letter.
func TestSanitiseShortKey(t *testing.T) {
	c := &Client{key: "k"}
	if got, want := c.sanitize("GET /api/v1/workflows/12"), "GET /api/v1/workflows/12"; got != want {
		t.Errorf("sanitize = %q, want %q", got, want)
	}
}

// TestCursorPageLimit: a cursor that advances for ever stops at maxPages with a message that
// names the limit, not the one for a cursor that does not advance.
func TestCursorPageLimit(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"data":[{"id":"1"}],"nextCursor":"c%d"}`, n.Add(1))
	}))
	defer srv.Close()
	c := fastClient(t, srv.URL)
	_, err := c.ListWorkflows(context.Background(), WorkflowFilter{All: true})
	if want := fmt.Sprintf("page %d: stopped after %d pages, seam's limit on one list; narrow it with a filter", maxPages, maxPages); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("ListWorkflows error = %v, want %q", err, want)
	}
	_, err = c.ExecutionList(context.Background(), ExecutionQuery{ExecutionFilter: ExecutionFilter{All: true}})
	if want := fmt.Sprintf("list executions: page %d: stopped after %d pages", maxPages, maxPages); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("ExecutionList error = %v, want %q", err, want)
	}
}
