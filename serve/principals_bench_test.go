package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seam-dag/seam/auth"
)

// BenchmarkServeRunsPagePrincipals: the runs page (100 runs) side by side without a
// principals file, with one of 50 principals by bearer token (the last one's, so every hash
// is compared) and by a login session (docs/performance.md).
func BenchmarkServeRunsPagePrincipals(b *testing.B) {
	open := benchServer(b, 100)
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
	guarded, err := New(Options{Service: open.opts.Service, Root: b.TempDir(), Types: builtinTypes, Lang: "en", Principals: who})
	if err != nil {
		b.Fatal(err)
	}
	session := &http.Cookie{Name: sessionCookie, Value: guarded.sessions.start("p49", time.Now())}
	for _, c := range []struct {
		name string
		srv  *Server
		set  func(*http.Request)
	}{
		{"principals=none", open, func(*http.Request) {}},
		{"principals=50/bearer", guarded, func(r *http.Request) { r.Header.Set("Authorization", "Bearer token-49-0123456789") }},
		{"principals=50/session", guarded, func(r *http.Request) { r.AddCookie(session) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				w := httptest.NewRecorder()
				r := httptest.NewRequest("GET", "/runs", nil)
				c.set(r)
				c.srv.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
