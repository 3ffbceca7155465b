package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/auth"
)

// BenchmarkGetRunPrincipals: get_run over HTTP with one client, side by side without a
// principals file and with one of 50 principals (the token is the last one's, so every
// hash is compared; docs/performance.md).
func BenchmarkGetRunPrincipals(b *testing.B) {
	f := newRunFixture(b, benchRuns)
	srv := newFixtureServer(b, f.store)
	path := filepath.Join(b.TempDir(), "principals.yaml")
	body := "principals:\n"
	for i := range 50 {
		body += fmt.Sprintf("  p%d: {token_sha256: %q, roles: [viewer]}\n", i, auth.Hash(fmt.Sprintf("token-%d-0123456789", i)))
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		b.Fatal(err)
	}
	who, err := auth.Open(path, auth.FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		opts  HTTPOptions
		token string
	}{
		{"principals=none", HTTPOptions{}, ""},
		{"principals=50", HTTPOptions{Principals: who}, "token-49-0123456789"},
	} {
		b.Run(c.name, func(b *testing.B) {
			ts := httptest.NewServer(HTTPHandler(srv, c.opts))
			defer ts.Close()
			tr := http.DefaultTransport.(*http.Transport).Clone()
			defer tr.CloseIdleConnections()
			var rt http.RoundTripper = tr
			if c.token != "" {
				rt = bearer{token: c.token, next: tr}
			}
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
				&sdk.StreamableClientTransport{Endpoint: ts.URL + HTTPPath, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := map[string]any{"id": f.wide}
			for b.Loop() {
				if _, err := callOK(context.Background(), cs, "get_run", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
