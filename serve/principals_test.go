package serve

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/internal/i18n"
)

const (
	viewerTok   = "viewer-token-0123456789"
	operatorTok = "operator-token-0123456789"
	approverTok = "approver-token-0123456789"
	adminTok    = "admin-token-0123456789"
)

// principalsFile writes a principals file with one principal per role and returns its path.
func principalsFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "principals.yaml")
	body := "principals:\n" +
		"  grafana: {token_sha256: \"" + auth.Hash(viewerTok) + "\", roles: [viewer]}\n" +
		"  ci-bot: {token_sha256: \"" + auth.Hash(operatorTok) + "\", roles: [operator]}\n" +
		"  alice: {token_sha256: \"" + auth.Hash(approverTok) + "\", roles: [approver], groups: [leads]}\n" +
		"  root: {token_sha256: \"" + auth.Hash(adminTok) + "\", roles: [admin]}\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func principalsFixture(t *testing.T) (*fixture, string) {
	path := principalsFile(t)
	who, err := auth.Open(path, auth.FileOptions{CheckEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	return newFixture(t, Options{Principals: who}), path
}

// bearerDo sends method path with "Authorization: Bearer tok" (none when tok is "") and form.
func bearerDo(t *testing.T, f *fixture, method, path, tok string, form url.Values) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.http.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	c := &http.Client{Transport: f.http.Client().Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestServePrincipalRoles: with a principals file every request needs a principal (the test
// server is on loopback); each role sees the pages, only operator and admin start a run, and
// the others get a 403 page naming the role needed. A bearer request needs no CSRF token; a
// token in the URL's query is not read.
func TestServePrincipalRoles(t *testing.T) {
	f, _ := principalsFixture(t)
	run := url.Values{"p.name": {"Ada"}}
	cases := []struct {
		name, method, path, tok string
		form                    url.Values
		code                    int
		has                     []string
	}{
		{"nobody is sent to log in", "GET", "/runs", "", nil, http.StatusSeeOther, nil},
		{"a token in the query is not read", "GET", "/runs?token=" + adminTok, "", nil, http.StatusSeeOther, nil},
		{"access_token in the query is not read", "GET", "/runs?access_token=" + adminTok, "", nil, http.StatusSeeOther, nil},
		{"nobody may post (no CSRF token either)", "POST", "/dags/greet.yaml", "", run, http.StatusForbidden, []string{"CSRF token"}},
		{"a wrong bearer token", "GET", "/runs", "not-a-token-0123456789", nil, http.StatusUnauthorized, []string{"that bearer token is not one of the server's principals"}},
		{"viewer reads runs", "GET", "/runs", viewerTok, nil, http.StatusOK, []string{`id="who">grafana<`}},
		{"viewer reads DAGs, no run form", "GET", "/dags/greet.yaml", viewerTok, nil, http.StatusOK, []string{`id="who">grafana<`, "read-only"}},
		{"viewer may not run", "POST", "/dags/greet.yaml", viewerTok, run, http.StatusForbidden,
			[]string{"grafana may not do this: it needs the role operator (or admin), and grafana has viewer. An admin can add the role in the principals file."}},
		{"approver may not run", "POST", "/dags/greet.yaml", approverTok, run, http.StatusForbidden, []string{"alice may not do this: it needs the role operator"}},
		{"approver reads", "GET", "/runs", approverTok, nil, http.StatusOK, []string{`id="who">alice<`}},
		{"operator runs", "POST", "/dags/greet.yaml", operatorTok, run, http.StatusSeeOther, nil},
		{"admin runs", "POST", "/dags/greet.yaml", adminTok, run, http.StatusSeeOther, nil},
		{"operator sees the run form", "GET", "/dags/greet.yaml", operatorTok, nil, http.StatusOK, []string{`id="run-form"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := bearerDo(t, f, c.method, c.path, c.tok, c.form)
			if resp.StatusCode != c.code {
				t.Fatalf("%d, want %d: %s", resp.StatusCode, c.code, body)
			}
			if c.code == http.StatusSeeOther && c.tok == "" && resp.Header.Get("Location") != "/login" {
				t.Errorf("sent to %q, want /login", resp.Header.Get("Location"))
			}
			for _, h := range c.has {
				if !strings.Contains(body, h) {
					t.Errorf("the answer lacks %q:\n%s", h, body)
				}
			}
			for _, tok := range []string{viewerTok, operatorTok, approverTok, adminTok} {
				if strings.Contains(body, tok) || strings.Contains(body, auth.Hash(tok)) {
					t.Errorf("the page shows a token or its hash")
				}
			}
		})
	}
}

// TestServePrincipalLogin: the login form asks for the principal's own token and takes it; the session is that
// principal's (a viewer's POST is refused with the role, in Japanese too), and a principal
// removed from the file loses its session at the next request.
func TestServePrincipalLogin(t *testing.T) {
	f, path := principalsFixture(t)
	c := jarClient(t, f)
	if _, page := f.get(c, "/login"); !strings.Contains(page, "Your token") || strings.Contains(page, "SEAM_SERVE_TOKEN") {
		t.Errorf("the login form of a principals file asks for SEAM_SERVE_TOKEN:\n%s", page)
	}
	login(t, f, c, viewerTok)
	_, page := f.get(c, "/dags/greet.yaml")
	if !strings.Contains(page, `id="who">grafana<`) || strings.Contains(page, `id="run-form"`) {
		t.Errorf("a viewer's DAG page: want the name and no run form:\n%s", page)
	}
	req, _ := http.NewRequest("POST", f.http.URL+"/dags/greet.yaml", strings.NewReader(url.Values{"csrf": {csrfOf(t, page)}, "p.name": {"Ada"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept-Language", "ja")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := i18n.Sprintf(i18n.Japanese, "%s may not do this: it needs the role %s (or admin), and %s has %s. An admin can add the role in the principals file.", "grafana", "operator", "grafana", "viewer")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), want) || !strings.Contains(string(b), "許可されていません") {
		t.Errorf("a viewer's run in Japanese: %d, want 403 saying %q:\n%s", resp.StatusCode, want, b)
	}
	if resp, _ := f.get(c, "/runs"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the session: %d", resp.StatusCode)
	}
	// grafana removed from the file: its session opens nothing more.
	if err := os.WriteFile(path, []byte("principals:\n  root: {token_sha256: \""+auth.Hash(adminTok)+"\", roles: [admin]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if resp, _ := f.get(c, "/runs"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a revoked principal's session: %d, want 303 to the login", resp.StatusCode)
	}
	// A wrong token on the form is refused as before.
	_, page = f.get(c, "/login")
	if resp, _ := post(t, c, f.http.URL+"/login", url.Values{"csrf": {csrfOf(t, page)}, "token": {viewerTok}}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a revoked token's login: %d, want 401", resp.StatusCode)
	}
}

// TestServeRunShowsWho: a run started with an operator's token is that principal's on the
// run page, and a cancel by another principal says who.
func TestServeRunShowsWho(t *testing.T) {
	f, _ := principalsFixture(t)
	resp, body := bearerDo(t, f, "POST", "/dags/slow.yaml", operatorTok, url.Values{})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") {
		t.Fatalf("start: %d %q %s", resp.StatusCode, loc, body)
	}
	if resp, body := bearerDo(t, f, "POST", loc+"/cancel", adminTok, url.Values{}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d %s", resp.StatusCode, body)
	}
	_, page := bearerDo(t, f, "GET", loc, viewerTok, nil)
	for _, want := range []string{`id="started-by">ci-bot<`, `id="canceled-by">root<`} {
		if !strings.Contains(page, want) {
			t.Errorf("the run page lacks %q:\n%s", want, page)
		}
	}
}

// TestServeBrowserPrincipals drives a real Chromium: a page asks for the login form, where a
// viewer's token signs in (the header names grafana, the DAG page has no run form); an
// operator signs in and fills the run form, and when the file has made it a viewer
// meanwhile, the submit lands on a 403 page naming the role needed.
func TestServeBrowserPrincipals(t *testing.T) {
	p := tab{t, browser(t)}
	f, path := principalsFixture(t)
	login := func(token string) {
		p.do(chromedp.Navigate(f.http.URL+"/dags/greet.yaml"), // sent to the login form
			chromedp.WaitVisible(css(`input[name="token"]`)),
			chromedp.SendKeys(css(`input[name="token"]`), token),
			chromedp.Submit(css(`input[name="token"]`)),
			chromedp.WaitVisible(css(`#who`)))
	}
	login(viewerTok)
	if who := p.text(`#who`); who != "grafana" {
		t.Errorf("signed in as %q, want grafana", who)
	}
	p.do(chromedp.Navigate(f.http.URL+"/dags/greet.yaml"), chromedp.WaitVisible(css(`#who`)))
	if n := p.eval(`document.querySelectorAll("#run-form").length`); n != 0 {
		t.Errorf("a viewer's DAG page has %d run forms", n)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector("#logout").click()`), chromedp.WaitVisible(css(`input[name="token"]`)))
	login(operatorTok)
	p.do(chromedp.Navigate(f.http.URL+"/dags/greet.yaml"), chromedp.WaitVisible(css(`#run-form`)),
		chromedp.SendKeys(css(`input[name="p.name"]`), "Ada"))
	demoted := "principals:\n  ci-bot: {token_sha256: \"" + auth.Hash(operatorTok) + "\", roles: [viewer]}\n"
	if err := os.WriteFile(path, []byte(demoted), 0o600); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.Click(css(`#run-submit`)), chromedp.WaitVisible(css(`#forbidden`)))
	if got := p.text(`#forbidden`); !strings.Contains(got, "ci-bot may not do this: it needs the role operator (or admin), and ci-bot has viewer.") {
		t.Errorf("the 403 page says %q", got)
	}
	if h := p.text(`h1`); h != "Not allowed" {
		t.Errorf("the 403 page's title: %q", h)
	}
}

// TestServeBearerRateLimit: wrong bearer tokens count as wrong logins do: past LoginBurst
// from one address even a right token is refused with 429 before it is compared.
func TestServeBearerRateLimit(t *testing.T) {
	f, _ := principalsFixture(t)
	for range LoginBurst {
		if resp, _ := bearerDo(t, f, "GET", "/runs", "wrong-token-0123456789", nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a wrong token: %d, want 401", resp.StatusCode)
		}
	}
	resp, body := bearerDo(t, f, "GET", "/runs", viewerTok, nil)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "too many wrong tokens from your address") {
		t.Errorf("a right token after %d wrong ones: %d %q", LoginBurst, resp.StatusCode, body)
	}
}
