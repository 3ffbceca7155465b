package mcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/httpserve"
)

// mcpPost sends an initialize request to ts with the Authorization header auth ("" for none)
// and Accept-Language lang ("" for none); it returns the status, Retry-After and body.
func mcpPost(t *testing.T, ts *httptest.Server, auth, lang string) (int, string, string) {
	t.Helper()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+HTTPPath, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), strings.TrimSpace(string(b))
}

// TestMCPHTTPRefusalLanguage: the 401 bodies say what to send, in the language the client's
// Accept-Language names first, else in the server's.
func TestMCPHTTPRefusalLanguage(t *testing.T) {
	ts := httptest.NewServer(HTTPHandler(newTestServer(t, t.TempDir()), HTTPOptions{Principals: principals(t)}))
	defer ts.Close()
	for _, tc := range []struct {
		name, auth, lang, want string
	}{
		{"no token, server's language", "", "", "a bearer token is required: send the header Authorization: Bearer TOKEN"},
		{"no token, ja", "", "ja-JP,en;q=0.5", "ベアラートークンが必要です: ヘッダー Authorization: Bearer TOKEN を送ってください"},
		{"no token, neither", "", "fr-FR", "a bearer token is required: send the header Authorization: Bearer TOKEN"},
		{"wrong token, en", "Bearer wrong-0123456789", "en-US", "invalid bearer token: it is none of the tokens this server lets in"},
		{"wrong token, ja", "Bearer wrong-0123456789", "fr, ja", "無効なベアラートークンです: このサーバーが受け付けるトークンのどれでもありません"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, body := mcpPost(t, ts, tc.auth, tc.lang); code != http.StatusUnauthorized || body != tc.want {
				t.Errorf("%d %q, want 401 %q", code, body, tc.want)
			}
		})
	}
}

// TestMCPHTTPBearerRateLimit: past httpserve.TokenBurst wrong tokens from one address, a
// token (even a right one) gets 429 with Retry-After and a message before it is compared; a
// request without a token does not count.
func TestMCPHTTPBearerRateLimit(t *testing.T) {
	for _, tc := range []struct{ lang, want string }{
		{"", "too many wrong tokens from your address: try again in "},
		{"ja", "このアドレスからの誤ったトークンが多すぎます："},
	} {
		t.Run("lang "+tc.lang, func(t *testing.T) {
			ts := httptest.NewServer(HTTPHandler(newTestServer(t, t.TempDir()), HTTPOptions{Principals: principals(t)}))
			defer ts.Close()
			for range 3 {
				if code, _, _ := mcpPost(t, ts, "", tc.lang); code != http.StatusUnauthorized {
					t.Fatalf("no token: %d, want 401", code)
				}
			}
			for i := range httpserve.TokenBurst {
				if code, _, body := mcpPost(t, ts, "Bearer wrong-0123456789", tc.lang); code != http.StatusUnauthorized {
					t.Fatalf("wrong token %d: %d %q, want 401", i+1, code, body)
				}
			}
			code, retry, body := mcpPost(t, ts, "Bearer grafana-token-0123456789", tc.lang)
			if code != http.StatusTooManyRequests || retry == "" || !strings.Contains(body, tc.want) {
				t.Errorf("a right token after %d wrong ones: %d Retry-After %q %q, want 429 and %q", httpserve.TokenBurst, code, retry, body, tc.want)
			}
		})
	}
}
