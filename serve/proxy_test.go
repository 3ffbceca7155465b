package serve

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/service"
)

// proxyFixture serves with the principals file of principalsFile plus ops (found by email),
// trusting the header X-Forwarded-User from the addresses from.
func proxyFixture(t *testing.T, from ...string) *fixture {
	t.Helper()
	path := principalsFile(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, "  ops: {email: ops@example.com, roles: [operator]}\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	who, err := auth.Open(path, auth.FileOptions{CheckEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	return newFixture(t, Options{Principals: who, ProxyHeader: "X-Forwarded-User", ProxyFrom: from})
}

// TestServeTrustedProxy: the proxy's header names a principal (by name or email) only when
// the request comes from one of the proxy's addresses; a header forged from any other
// address is not read, so the request is asked to log in (or is the bearer token's), and a
// name the file does not know is refused with a message.
func TestServeTrustedProxy(t *testing.T) {
	for _, tc := range []struct {
		name, from, user, bearer string
		code                     int
		want                     string // in the body, or the Location of a redirect
	}{
		{name: "by name from the proxy", from: "127.0.0.1/32", user: "grafana", code: 200, want: `id="who">grafana<`},
		{name: "by email from the proxy", from: "127.0.0.0/8", user: "OPS@example.com", code: 200, want: `id="who">ops<`},
		{name: "a single address", from: "127.0.0.1", user: "root", code: 200, want: `id="who">root<`},
		{name: "forged from elsewhere", from: "10.0.0.5/32", user: "root", code: http.StatusSeeOther, want: "/login"},
		{name: "forged beside a viewer's token", from: "10.0.0.5/32", user: "root", bearer: viewerTok, code: 200, want: `id="who">grafana<`},
		{name: "unknown from the proxy", from: "127.0.0.1/32", user: "mallory", code: http.StatusForbidden,
			want: "the authenticating proxy says you are mallory, but no principal in the principals file has that name or email: an admin can add one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := proxyFixture(t, tc.from)
			req, err := http.NewRequest("GET", f.http.URL+"/runs", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Forwarded-User", tc.user)
			if tc.bearer != "" {
				req.Header.Set("Authorization", "Bearer "+tc.bearer)
			}
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body strings.Builder
			if _, err := io.Copy(&body, resp.Body); err != nil {
				t.Fatal(err)
			}
			got := body.String()
			if resp.StatusCode == http.StatusSeeOther {
				got = resp.Header.Get("Location")
			}
			if resp.StatusCode != tc.code || !strings.Contains(got, tc.want) {
				t.Errorf("%d %q, want %d with %q", resp.StatusCode, got, tc.code, tc.want)
			}
		})
	}
}

// TestServeTrustedProxyErrors: a trusted-proxy setting that would let anyone in, or that does
// not parse, stops the server at start with the fix, in English and Japanese.
func TestServeTrustedProxyErrors(t *testing.T) {
	file, err := auth.Open(principalsFile(t), auth.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		opts   Options
		en, ja string
	}{
		{"no addresses", Options{Principals: file, ProxyHeader: "X-Forwarded-User"},
			"serve: --auth-proxy-header X-Forwarded-User without --auth-proxy-from: give the proxy's addresses (CIDR, e.g. 10.0.0.5/32), else anyone could set the header",
			"serve: --auth-proxy-header X-Forwarded-User に --auth-proxy-from がありません: プロキシのアドレス（CIDR、例: 10.0.0.5/32）を指定してください。指定しないと誰でもヘッダーを設定できます"},
		{"no header", Options{Principals: file, ProxyFrom: []string{"10.0.0.5/32"}},
			"serve: --auth-proxy-from without --auth-proxy-header: name the header the proxy sets, e.g. --auth-proxy-header X-Forwarded-User",
			"serve: --auth-proxy-header なしの --auth-proxy-from: プロキシが設定するヘッダーを指定してください（例: --auth-proxy-header X-Forwarded-User）"},
		{"bad address", Options{Principals: file, ProxyHeader: "X-Forwarded-User", ProxyFrom: []string{"10.0.0/8"}},
			`serve: --auth-proxy-from "10.0.0/8": want an address or a CIDR, e.g. 10.0.0.5 or 10.0.0.0/24`,
			`serve: --auth-proxy-from "10.0.0/8": アドレスか CIDR を指定してください（例: 10.0.0.5 や 10.0.0.0/24）`},
		{"no principals file", Options{Token: "a-token-of-sixteen-chars", ProxyHeader: "X-Forwarded-User", ProxyFrom: []string{"10.0.0.5/32"}},
			"serve: --auth-proxy-header X-Forwarded-User needs a principals file (--principals): the header names one of its principals",
			"serve: --auth-proxy-header X-Forwarded-User には principals ファイル（--principals）が必要です: ヘッダーはそのプリンシパルの 1 つを指します"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, want := range map[i18n.Lang]string{i18n.English: tc.en, i18n.Japanese: tc.ja} {
				opts := tc.opts
				opts.Service, opts.Root, opts.Lang = service.New(service.Options{}), t.TempDir(), lang
				if _, err := New(opts); err == nil || err.Error() != want {
					t.Errorf("%s: %v\nwant %s", lang, err, want)
				}
			}
		})
	}
}
