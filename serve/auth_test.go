package serve

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// login logs c in with token and returns the session cookie the server set.
func login(t *testing.T, f *fixture, c *http.Client, token string) *http.Cookie {
	t.Helper()
	_, page := f.get(c, "/login")
	resp, body := post(t, c, f.http.URL+"/login", url.Values{"csrf": {csrfOf(t, page)}, "token": {token}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d %q", resp.StatusCode, body)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == sessionCookie {
			return ck
		}
	}
	t.Fatal("login set no session cookie")
	return nil
}

// TestServeLogoutEndsSession: a copy of the session cookie taken before "Log out" opens no
// page after it; a session of another login is not ended with it.
func TestServeLogoutEndsSession(t *testing.T) {
	const secret = "s3cret-token-value"
	f := newFixture(t, Options{Token: secret})
	c, other := jarClient(t, f), jarClient(t, f)
	copied := login(t, f, c, secret)
	login(t, f, other, secret)
	_, page := f.get(c, "/runs")
	if resp, _ := post(t, c, f.http.URL+"/logout", url.Values{"csrf": {csrfOf(t, page)}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", f.http.URL+"/runs", nil)
	req.AddCookie(copied)
	resp, err := jarClient(t, f).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("the copied cookie after logout: %d to %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := f.get(other, "/runs"); resp.StatusCode != http.StatusOK {
		t.Errorf("another login's session after the logout: %d, want 200", resp.StatusCode)
	}
}

// TestServeLoginRateLimit: past LoginBurst wrong tokens from one address, a login is refused
// with 429 and Retry-After before its token is compared, even the right one, saying when to
// try again, in English and in Japanese.
func TestServeLoginRateLimit(t *testing.T) {
	const secret = "s3cret-token-value"
	f := newFixture(t, Options{Token: secret})
	c := jarClient(t, f)
	_, page := f.get(c, "/login")
	csrf := csrfOf(t, page)
	for i := range LoginBurst {
		resp, _ := post(t, c, f.http.URL+"/login", url.Values{"csrf": {csrf}, "token": {"wrong-" + strconv.Itoa(i)}})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d, want 401", i+1, resp.StatusCode)
		}
	}
	for _, tc := range []struct{ lang, saying string }{
		{"en", "too many wrong tokens from your address: try again in "},
		{"ja", "このアドレスからの誤ったトークンが多すぎます："},
	} {
		form := url.Values{"csrf": {csrf}, "token": {secret}}
		req, _ := http.NewRequest("POST", f.http.URL+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept-Language", tc.lang)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		buf := make([]byte, 1<<16)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != http.StatusTooManyRequests || err != nil || secs <= 0 || !strings.Contains(b.String(), tc.saying) {
			t.Errorf("%s: %d, Retry-After %q, body %q; want 429, seconds, saying %q", tc.lang, resp.StatusCode, resp.Header.Get("Retry-After"), b.String(), tc.saying)
		}
		if sc := resp.Cookies(); len(sc) > 0 && sc[0].Name == sessionCookie {
			t.Errorf("%s: a refused login set the session cookie", tc.lang)
		}
	}
}

// TestServeBodyLimit: a POST body over MaxBody is refused with 413 before a login is tried.
func TestServeBodyLimit(t *testing.T) {
	f := newFixture(t, Options{Token: "s3cret-token-value"})
	body := "token=" + strings.Repeat("x", MaxBody)
	resp, err := f.http.Client().Post(f.http.URL+"/login", "application/x-www-form-urlencoded", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := make([]byte, 4096)
	n, _ := resp.Body.Read(b)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b[:n]), "the form could not be read (at most 1048576 bytes)") {
		t.Errorf("%d %q, want 413 saying the limit", resp.StatusCode, b[:n])
	}
}

// TestServeCSRFBoundToSession: a form's CSRF token holds for the session its page was served
// in: after logging in again, a token from the earlier session is refused; and a POST a
// browser marks as cross-site is refused whatever its token.
func TestServeCSRFBoundToSession(t *testing.T) {
	const secret = "s3cret-token-value"
	f := newFixture(t, Options{Token: secret})
	c := jarClient(t, f)
	login(t, f, c, secret)
	_, page := f.get(c, "/runs")
	old := csrfOf(t, page)
	login(t, f, c, secret)
	if resp, body := post(t, c, f.http.URL+"/logout", url.Values{"csrf": {old}}); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "the form's CSRF token is missing or wrong") {
		t.Errorf("a token of the earlier session: %d %q, want 403 naming the CSRF token", resp.StatusCode, body)
	}
	_, page = f.get(c, "/runs")
	form := url.Values{"csrf": {csrfOf(t, page)}}
	req, _ := http.NewRequest("POST", f.http.URL+"/logout", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4096)
	n, _ := resp.Body.Read(b)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b[:n]), "a request from another site is refused") {
		t.Errorf("a cross-site POST: %d %q, want 403 saying so", resp.StatusCode, b[:n])
	}
	if resp, _ := post(t, c, f.http.URL+"/logout", form); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the current session's token: %d, want 303", resp.StatusCode)
	}
}
