package serve

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/service"
)

// oidcIssuer is the issuer of the real OpenID provider scripts/test.sh starts
// (scripts/oidc-server.sh: zitadel/oidc's example provider, whose public client "native" may
// come back to http://127.0.0.1/login/oidc/callback on any port, and whose users are
// test-user@localhost, subject id1, email test-user@zitadel.ch, and test-user2, subject id2,
// email test-user2@zitadel.ch, both with the password verysecure).
func oidcIssuer(t *testing.T) string {
	t.Helper()
	if os.Getenv("SEAM_SKIP_OIDC") == "1" {
		t.Skip("SEAM_SKIP_OIDC=1: the single sign-on tests are skipped")
	}
	iss := os.Getenv("SEAM_TEST_OIDC")
	if iss == "" {
		t.Skip("SEAM_TEST_OIDC is not set: scripts/test.sh starts a real OpenID provider (scripts/oidc-server.sh start) and sets it; SEAM_SKIP_OIDC=1 skips these tests")
	}
	return iss
}

// ssoFixture serves the test DAGs with a principals file whose oidc: block names the real
// provider at issuer, and whose principals are body.
func ssoFixture(t *testing.T, issuer, body string) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "principals.yaml")
	file := "oidc: {issuer: \"" + issuer + "\", client_id: native}\nprincipals:\n" + body
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	who, err := auth.Open(path, auth.FileOptions{CheckEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	return newFixture(t, Options{Principals: who})
}

// TestServeSSOIssuerDown: a server whose provider does not answer at start does not start,
// and says which issuer and what to check.
func TestServeSSOIssuerDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String() + "/"
	ln.Close()
	path := filepath.Join(t.TempDir(), "principals.yaml")
	if err := os.WriteFile(path, []byte("oidc: {issuer: \""+issuer+"\", client_id: seam}\nprincipals:\n  ada: {oidc: id1, roles: [viewer]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	who, err := auth.Open(path, auth.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Service: service.New(service.Options{}), Principals: who, Root: t.TempDir()})
	want := "serve: oidc: the issuer " + issuer + " does not answer its discovery document ("
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "check issuer in the principals file and that the provider is reachable from here") {
		t.Errorf("New: %v, want %q…", err, want)
	}
}

var loginIDRE = regexp.MustCompile(`name="id" value="([^"]+)"`)

// loginAtProvider logs in to f through the provider as user with a plain HTTP client that keeps
// cookies and follows redirects, as a browser would, and returns the client and the answer
// of seam's callback.
func loginAtProvider(t *testing.T, f *fixture, user string) (*http.Client, *http.Response, string) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	resp, err := c.Get(f.http.URL + "/login/oidc") // on to the provider's login form
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := loginIDRE.FindSubmatch(b)
	if m == nil {
		t.Fatalf("the provider's login form (%s, %d) has no id: %s", resp.Request.URL, resp.StatusCode, b)
	}
	form := url.Values{"id": {string(m[1])}, "username": {user}, "password": {"verysecure"}}
	resp, err = c.PostForm(resp.Request.URL.Scheme+"://"+resp.Request.URL.Host+"/login/username", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ = io.ReadAll(resp.Body)
	return c, resp, string(b)
}

// TestServeSSO logs in through a real OpenID provider (code flow with PKCE, state and nonce
// checked, ID token verified): a person the principals file maps, by the provider's subject
// or by the verified email its userinfo gives, lands on the runs page as that principal and
// has that principal's roles; one it does not map is refused with a page that says what an
// admin can add.
func TestServeSSO(t *testing.T) {
	iss := oidcIssuer(t)
	for _, tc := range []struct {
		name, body, user string
		code             int
		who              string // the principal logged in; "" for a refusal
		refused          string
	}{
		{name: "by subject", body: "  ada: {oidc: id1, roles: [operator]}\n", user: "test-user@localhost", code: 200, who: "ada"},
		{name: "by verified email", body: "  bob: {email: test-user2@zitadel.ch, roles: [viewer]}\n", user: "test-user2", code: 200, who: "bob"},
		{name: "not mapped", body: "  ada: {oidc: id1, roles: [operator]}\n", user: "test-user2", code: http.StatusForbidden,
			refused: `the OpenID provider says you are test-user2@zitadel.ch (id2), but no principal in the principals file is you: an admin can add oidc: &#34;id2&#34; (or your verified email as email:) to a principal, or give one of your groups roles in oidc: role_map`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ssoFixture(t, iss, tc.body)
			c, resp, body := loginAtProvider(t, f, tc.user)
			if resp.StatusCode != tc.code {
				t.Fatalf("the callback answered %d, want %d: %s", resp.StatusCode, tc.code, body)
			}
			if tc.who == "" {
				if !strings.Contains(body, `id="sso-refused">`+tc.refused+`</p>`) {
					t.Errorf("the refusal page says:\n%s\nwant %q", body, tc.refused)
				}
				if r, _ := f.get(c, "/runs"); r.Request.URL.Path != "/login" {
					t.Errorf("after a refusal /runs landed on %s, want the login page", r.Request.URL.Path)
				}
				return
			}
			r, page := f.get(c, "/runs")
			if r.StatusCode != 200 || !strings.Contains(page, `id="who">`+tc.who+`<`) {
				t.Errorf("/runs after the login: %d, want the page naming %s:\n%s", r.StatusCode, tc.who, page)
			}
		})
	}
}

// TestServeSSOForgedAnswer: an answer at the callback that is not for a login this browser
// started (no state cookie, another state, a state used once already) is refused, and no
// code is traded for it.
func TestServeSSOForgedAnswer(t *testing.T) {
	f := ssoFixture(t, oidcIssuer(t), "  ada: {oidc: id1, roles: [operator]}\n")
	c, resp, _ := loginAtProvider(t, f, "test-user@localhost")
	if resp.StatusCode != 200 {
		t.Fatalf("the login answered %d", resp.StatusCode)
	}
	again := resp.Request.URL.String() // the callback with its code and state, once more
	for _, tc := range []struct{ name, url, want string }{
		{"no state cookie", f.http.URL + "/login/oidc/callback?code=x&state=y", "this answer of the OpenID provider is not for a login this browser started here: log in again"},
		{"used once already", again, "this answer of the OpenID provider is not for a login this browser started here: log in again"},
		{"provider's error", f.http.URL + "/login/oidc/callback?error=access_denied&error_description=no", "the OpenID provider did not log you in: access_denied no"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, body := f.get(&http.Client{Jar: c.Jar}, strings.TrimPrefix(tc.url, f.http.URL))
			if r.StatusCode < 400 || !strings.Contains(body, tc.want) {
				t.Errorf("%s: %d %s, want %q", tc.url, r.StatusCode, body, tc.want)
			}
		})
	}
}

// TestServeBrowserSSO drives a real Chromium through the login page's single sign-on link and
// the real provider's login form: a person the file does not map is refused with a page that
// says so; one it maps lands on the runs page as the mapped principal.
func TestServeBrowserSSO(t *testing.T) {
	iss := oidcIssuer(t)
	p := tab{t, browser(t)}
	f := ssoFixture(t, iss, "  ada: {oidc: id1, roles: [operator]}\n")
	login := func(user, until string) {
		p.do(chromedp.Navigate(f.http.URL+"/runs"), // sent to the login page
			chromedp.WaitVisible(css(`#sso`)),
			chromedp.Click(css(`#sso`)),
			chromedp.WaitVisible(css(`#username`)),
			chromedp.SendKeys(css(`#username`), user),
			chromedp.SendKeys(css(`#password`), "verysecure"),
			chromedp.Submit(css(`#password`)),
			chromedp.WaitVisible(css(until)))
	}
	login("test-user2", `#sso-refused`)
	if got := p.text(`#sso-refused`); !strings.Contains(got, "the OpenID provider says you are test-user2@zitadel.ch (id2), but no principal in the principals file is you") {
		t.Errorf("the refusal says %q", got)
	}
	login("test-user@localhost", `header #who`)
	if who := p.text(`header #who`); who != "ada" {
		t.Errorf("signed in as %q, want ada", who)
	}
	if h := p.text(`h1`); h != "Runs" {
		t.Errorf("landed on the page %q, want Runs", h)
	}
}
