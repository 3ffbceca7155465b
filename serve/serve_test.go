package serve

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// csrfOf reads the CSRF token a page's forms carry.
func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token in the page:\n%s", body)
	}
	return m[1]
}

// jarClient is a client that keeps cookies and does not follow redirects.
func jarClient(t *testing.T, f *fixture) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: f.http.Client().Transport, Jar: jar}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

func post(t *testing.T, c *http.Client, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp, b.String()
}

// TestServeCSRF: a POST without the page's CSRF token, or with another browser's, is refused
// with 403 and says why; with it, the POST reaches its handler.
func TestServeCSRF(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.start("broken.yaml", nil, true)
	c := jarClient(t, f)
	_, page := f.get(c, "/runs/"+id)
	token := csrfOf(t, page)
	other := jarClient(t, f)
	f.get(other, "/runs") // another browser, with its own CSRF cookie
	for _, tc := range []struct {
		name   string
		c      *http.Client
		form   url.Values
		code   int
		saying string
	}{
		{"no token", c, url.Values{}, http.StatusForbidden, "the form's CSRF token is missing or wrong"},
		{"wrong token", c, url.Values{"csrf": {strings.Repeat("0", 64)}}, http.StatusForbidden, "the form's CSRF token is missing or wrong"},
		{"another browser's token", other, url.Values{"csrf": {token}}, http.StatusForbidden, "the form's CSRF token is missing or wrong"},
		// The POST gets through: the run has ended, so the service refuses to cancel it.
		{"its token", c, url.Values{"csrf": {token}}, http.StatusConflict, "has already finished"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, tc.c, f.http.URL+"/runs/"+id+"/cancel", tc.form)
			if resp.StatusCode != tc.code || !strings.Contains(body, tc.saying) {
				t.Errorf("status %d, body %q; want %d saying %q", resp.StatusCode, body, tc.code, tc.saying)
			}
		})
	}
}

// TestServeLogin: with a token, pages redirect to the login form, a wrong token is refused,
// the right one sets an HttpOnly, SameSite=Strict cookie that opens the pages, and neither
// the cookie nor a page holds the token.
func TestServeLogin(t *testing.T) {
	const secret = "s3cret-token-value"
	f := newFixture(t, Options{Token: secret})
	c := jarClient(t, f)
	resp, _ := f.get(c, "/runs")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Fatalf("GET /runs without login: %d to %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, page := f.get(c, "/login")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /login: %d", resp.StatusCode)
	}
	token := csrfOf(t, page)
	resp, body := post(t, c, f.http.URL+"/login", url.Values{"csrf": {token}, "token": {"wrong"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "That token is not the server&#39;s.") {
		t.Fatalf("wrong token: %d %q", resp.StatusCode, body)
	}
	resp, _ = post(t, c, f.http.URL+"/login", url.Values{"csrf": {token}, "token": {secret}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("right token: %d", resp.StatusCode)
	}
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == sessionCookie {
			session = ck
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || strings.Contains(session.Value, secret) {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, without the token", session)
	}
	resp, page = f.get(c, "/runs")
	if resp.StatusCode != http.StatusOK || strings.Contains(page, secret) {
		t.Fatalf("GET /runs after login: %d (token in page: %v)", resp.StatusCode, strings.Contains(page, secret))
	}
	// Logging out forgets the session.
	resp, _ = post(t, c, f.http.URL+"/logout", url.Values{"csrf": {csrfOf(t, page)}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	if resp, _ := f.get(c, "/runs"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("GET /runs after logout: %d, want 303 to /login", resp.StatusCode)
	}
	// A POST without the session is refused even with a CSRF token.
	anon := jarClient(t, f)
	_, lp := f.get(anon, "/login")
	resp, body = post(t, anon, f.http.URL+"/runs/x/cancel", url.Values{"csrf": {csrfOf(t, lp)}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "log in first") {
		t.Fatalf("POST without login: %d %q", resp.StatusCode, body)
	}
}

// TestServeCheckAuth: off loopback the server refuses to start without a token, and
// anywhere with a token shorter than 16 characters.
func TestServeCheckAuth(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		loopback    bool
		err         string
	}{
		{"127.0.0.1:8080", "", true, ""},
		{"localhost:8080", "", true, ""},
		{"[::1]:8080", "", true, ""},
		{"0.0.0.0:8080", "", false, `listen address "0.0.0.0:8080" is not loopback: set SEAM_SERVE_TOKEN`},
		{":8080", "", false, `listen address ":8080" is not loopback`},
		{"192.168.1.5:8080", "a-token-of-16-ch", false, ""},
		{"192.168.1.5:8080", "tok", false, "SEAM_SERVE_TOKEN is 3 characters long: a token needs at least 16"},
		{"127.0.0.1:8080", "fifteen-chars-x", false, "SEAM_SERVE_TOKEN is 15 characters long: a token needs at least 16"},
		{"8080", "", false, `listen address "8080": want HOST:PORT`},
	} {
		loop, err := CheckAuth(tc.addr, tc.token, "en")
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.addr, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.addr, err, tc.err)
		case err == nil && loop != tc.loopback:
			t.Errorf("%s: loopback %v, want %v", tc.addr, loop, tc.loopback)
		}
	}
}

// TestServeHostCheck: on loopback, a request naming another host (DNS rebinding) is refused.
func TestServeHostCheck(t *testing.T) {
	f := newFixture(t, Options{Loopback: true})
	req, _ := http.NewRequest("GET", f.http.URL+"/runs", nil)
	req.Host = "evil.example:80"
	resp, err := f.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("Host evil.example: %d, want 403", resp.StatusCode)
	}
	if resp, _ := f.get(nil, "/runs"); resp.StatusCode != http.StatusOK {
		t.Errorf("Host 127.0.0.1: %d, want 200", resp.StatusCode)
	}
}

// TestServeReadOnly: a read-only server shows no run form or buttons and refuses their POSTs.
func TestServeReadOnly(t *testing.T) {
	f := newFixture(t, Options{ReadOnly: true})
	id := f.start("broken.yaml", nil, true)
	c := jarClient(t, f)
	_, page := f.get(c, "/runs/"+id)
	if strings.Contains(page, `id="resume"`) {
		t.Error("a read-only run page shows the resume button")
	}
	_, dagPage := f.get(c, "/dags/greet.yaml")
	if strings.Contains(dagPage, `id="run-form"`) {
		t.Error("a read-only DAG page shows the run form")
	}
	u, _ := url.Parse(f.http.URL)
	var token string
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == csrfCookie {
			token = f.srv.mac("csrf", ck.Value+"\x00") // what a form would carry, had the page one (no session)
		}
	}
	resp, body := post(t, c, f.http.URL+"/dags/greet.yaml", url.Values{"csrf": {token}, "p.name": {"Ada"}})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "this server is read-only") {
		t.Errorf("POST run on a read-only server: %d %q", resp.StatusCode, body)
	}
}

// TestServeHeaders: every page carries a CSP without inline script, and outputs are text.
func TestServeHeaders(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.start("script.yaml", nil, true)
	resp, page := f.get(nil, "/runs/"+id+"?node=evil")
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q: want script-src 'self' without unsafe-inline", csp)
	}
	if strings.Contains(page, "<script>document.title") || !strings.Contains(page, "&lt;script&gt;document.title") {
		t.Errorf("the output is not escaped:\n%s", page)
	}
}

// TestServeOutputDownload: a node's output downloads from its run's page, the output of a
// pure node too (the store keeps it packed with its attempt); an unknown output is a 404.
func TestServeOutputDownload(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.start("script.yaml", nil, true)
	_, page := f.get(nil, "/runs/"+id+"?node=evil")
	link := regexp.MustCompile(`href="(/runs/[^"]+/outputs/[0-9a-f]{64})" download`).FindStringSubmatch(page)
	if link == nil {
		t.Fatalf("no download link on the page:\n%s", page)
	}
	resp, body := f.get(nil, link[1])
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"summary":"\u003cscript\u003edocument.title='pwned'`) {
		t.Errorf("download: %d %q %q; want 200, JSON, the output as it is", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	resp, body = f.get(nil, "/runs/"+id+"/outputs/"+strings.Repeat("0", 64))
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "not found") {
		t.Errorf("unknown output: %d %q; want 404 saying not found", resp.StatusCode, body)
	}
}

// TestServeRunForm: the server checks a run form's params again: a value the schema refuses
// or that is not of its type is said on the form (400), and nothing runs.
func TestServeRunForm(t *testing.T) {
	f := newFixture(t, Options{})
	c := jarClient(t, f)
	_, page := f.get(c, "/dags/greet.yaml")
	token := csrfOf(t, page)
	for _, tc := range []struct {
		name   string
		form   url.Values
		saying string
	}{
		{"too short", url.Values{"p.name": {"A"}}, "name: field &#39;name&#39; must have minLength 2"},
		{"missing", url.Values{}, "name"},
		{"not an integer", url.Values{"p.name": {"Ada"}, "p.times": {"two"}}, `times: &#34;two&#34; is not an integer`},
		{"above the maximum", url.Values{"p.name": {"Ada"}, "p.times": {"9"}}, "times: field &#39;times&#39; must be ≤ 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("csrf", token)
			resp, body := post(t, c, f.http.URL+"/dags/greet.yaml", tc.form)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `id="form-errors"`) || !strings.Contains(body, tc.saying) {
				t.Errorf("status %d; want 400 with form errors saying %q:\n%s", resp.StatusCode, tc.saying, body)
			}
		})
	}
	list, _, err := f.svc.List(t.Context(), runsFilter())
	if err != nil || len(list) != 0 {
		t.Errorf("runs after refused forms: %d (%v), want none", len(list), err)
	}
}

// TestServeOutsideRoot: a DAG path leaving the root is refused.
func TestServeOutsideRoot(t *testing.T) {
	f := newFixture(t, Options{})
	for _, p := range []string{"/dags/%2e%2e/%2e%2e/etc/passwd", "/dags/nope.yaml"} {
		resp, body := f.get(nil, p)
		if resp.StatusCode != http.StatusNotFound || strings.Contains(body, "root:") {
			t.Errorf("GET %s: %d", p, resp.StatusCode)
		}
	}
}

// TestServeTemplateTexts: every word the templates say is in texts(), so that it has its
// Japanese in the i18n catalog (TestCatalogComplete checks the catalog).
func TestServeTemplateTexts(t *testing.T) {
	files, err := fs.Glob(assets, "assets/*.html")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{})
	re := regexp.MustCompile(`\{\{t \S+ "([^"]*)"\}\}`)
	n := 0
	for _, name := range files {
		b, err := fs.ReadFile(assets, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			n++
			if _, ok := f.srv.texts[m[1]]; !ok {
				t.Errorf("%s: %q is not in texts()", name, m[1])
			}
		}
	}
	if n == 0 {
		t.Fatal("no {{t}} found in the templates")
	}
}

// TestServeLang: pages follow Accept-Language unless the server's language is fixed.
func TestServeLang(t *testing.T) {
	for _, tc := range []struct {
		fixed, accept, want string
	}{
		{"", "ja-JP,ja;q=0.9,en;q=0.8", "<h1>実行一覧</h1>"},
		{"", "fr-FR,en;q=0.5", "<h1>Runs</h1>"},
		{"", "", "<h1>Runs</h1>"},
		{"ja", "en-US", "<h1>実行一覧</h1>"},
	} {
		f := newFixture(t, Options{})
		f.srv.opts.Lang = i18n.Lang(tc.fixed)
		req, _ := http.NewRequest("GET", f.http.URL+"/runs", nil)
		req.Header.Set("Accept-Language", tc.accept)
		resp, err := f.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		io.Copy(&b, resp.Body)
		resp.Body.Close()
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("lang %q, Accept-Language %q: the page does not hold %q", tc.fixed, tc.accept, tc.want)
		}
	}
}

// TestServeResumeCancel: resume runs a failed run again under its id; cancel and resume say
// why not when they cannot (409, the service's message).
func TestServeResumeCancel(t *testing.T) {
	f := newFixture(t, Options{})
	failed := f.start("broken.yaml", nil, true)
	ok := f.start("script.yaml", nil, true)
	c := jarClient(t, f)
	_, page := f.get(c, "/runs/"+failed)
	token := csrfOf(t, page)
	for _, tc := range []struct {
		name, path string
		code       int
		saying     string
	}{
		{"resume a succeeded run", "/runs/" + ok + "/resume", http.StatusConflict, "there is nothing to resume"},
		{"cancel an ended run", "/runs/" + ok + "/cancel", http.StatusConflict, "has already finished"},
		{"cancel no run", "/runs/nope/cancel", http.StatusNotFound, "no run nope in"},
		{"resume a failed run", "/runs/" + failed + "/resume", http.StatusSeeOther, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, c, f.http.URL+tc.path, url.Values{"csrf": {token}})
			if resp.StatusCode != tc.code || !strings.Contains(body, tc.saying) {
				t.Errorf("status %d, body %q; want %d saying %q", resp.StatusCode, body, tc.code, tc.saying)
			}
		})
	}
	// The resume ran: the run's second session is recorded.
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, _, err := f.svc.Show(t.Context(), failed)
		if err != nil {
			t.Fatal(err)
		}
		if r.Resumes == 1 && r.Status != "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the resumed run: resumes %d, status %s", r.Resumes, r.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeEvents: a run's event stream sends its state as JSON, then "end" once it ended;
// a stream of no run answers 404 with the service's message.
func TestServeEvents(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.start("broken.yaml", nil, true)
	resp, body := f.get(nil, "/runs/"+id+"/events")
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	for _, want := range []string{`"status":"failed"`, `"classify":{"status":"failed"`, "event: end\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("stream %q does not hold %q", body, want)
		}
	}
	resp, body = f.get(nil, "/runs/nope/events")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "no run nope in") {
		t.Errorf("events of no run: %d %q", resp.StatusCode, body)
	}
}

// TestServeRepairPanel: a node repaired after breaking its contract shows, per attempt, the
// violations that were fed back, and that it passed repaired.
func TestServeRepairPanel(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.start("repair.yaml", nil, true)
	_, page := f.get(nil, "/runs/"+id+"?node=draft")
	for _, want := range []string{`<td class="fed"><code>/data</code>: `, "(repaired)", "st-passed"} {
		if !strings.Contains(page, want) {
			t.Errorf("the draft panel does not hold %q:\n%s", want, page)
		}
	}
}

// TestServeInterrupted: a run recorded running by an owner that is gone (its process on this
// host, or its lease on another) reads interrupted, is not followed live (its page would
// reload for ever) and offers resume, saying why.
func TestServeInterrupted(t *testing.T) {
	f := newFixture(t, Options{})
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	tests := []struct {
		name string
		run  runs.Run
	}{
		{"its process died", runs.Run{ID: "20260101T000000.000-deadbeef", PID: gone.Process.Pid, Host: host}},
		{"its lease expired", runs.Run{ID: "20260101T000000.000-1ea5eeee", PID: 42, Host: "another-host",
			LeaseOwner: "another-host/42/ab", LeaseUntil: time.Now().Add(-time.Second)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run
			r.DAG, r.File, r.Status, r.Started = "broken", filepath.Join(f.root, "broken.yaml"), dag.RunRunning, time.Now()
			if err := f.st.CreateRun(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			// The start record of an attempt that died with its owner: no longer running, and
			// without a duration that grows for ever.
			start := runs.Attempt{RunID: r.ID, Node: "broken", Item: -1, Attempt: 1, Status: dag.NodeRunning, Started: time.Now().Add(-time.Hour)}
			if err := f.st.RecordAttempts(t.Context(), []runs.Attempt{start}); err != nil {
				t.Fatal(err)
			}
			if _, panel := f.get(nil, "/runs/"+r.ID+"?node=broken"); !strings.Contains(panel, `<span class="status st-interrupted">interrupted</span></td><td>`+start.Started.Local().Format(time.DateTime)) ||
				strings.Contains(panel, "1h0") {
				t.Errorf("the attempt of an interrupted run is not shown interrupted, without a duration:\n%s", panel)
			}
			_, page := f.get(nil, "/runs/"+r.ID)
			for _, want := range []string{`id="interrupted"`, `data-live=""`, `id="resume"`, `id="run-status">interrupted<`} {
				if !strings.Contains(page, want) {
					t.Errorf("the page of an interrupted run does not hold %q", want)
				}
			}
			if strings.Contains(page, `id="cancel"`) {
				t.Error("the page of an interrupted run offers cancel")
			}
			_, list := f.get(nil, "/runs")
			if strings.Contains(list, "data-live=") {
				t.Error("the runs page follows an interrupted run")
			}
			if !strings.Contains(list, `data-status>interrupted<`) {
				t.Error("the runs page does not say the run is interrupted")
			}
		})
	}
}

// TestServeOutputErrors: a run failed by a DAG output that could not be resolved says so,
// with the output's name and why.
func TestServeOutputErrors(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.start("lost-output.yaml", nil, true)
	_, page := f.get(nil, "/runs/"+id)
	for _, want := range []string{`id="output-errors"`, "outputs that could not be resolved:", `{&#34;code&#34;:&#34;${{ nodes.a.output.data.code }}: no field \&#34;code\&#34;&#34;}`, `st-failed`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not hold %q:\n%s", want, page)
		}
	}
}

// TestServeRunLint: the run form refuses a DAG lint finds errors in, saying so, unless it
// is asked to run anyway.
func TestServeRunLint(t *testing.T) {
	f := newFixture(t, Options{})
	src, err := os.ReadFile("../dags/lint-incompatible.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "incompatible.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	c := jarClient(t, f)
	_, page := f.get(c, "/dags/incompatible.yaml")
	token := csrfOf(t, page)
	resp, body := post(t, c, f.http.URL+"/dags/incompatible.yaml", url.Values{"csrf": {token}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not run: lint found 1 error") {
		t.Errorf("run despite lint: %d, want 400 saying lint found 1 error:\n%s", resp.StatusCode, body)
	}
	resp, _ = post(t, c, f.http.URL+"/dags/incompatible.yaml", url.Values{"csrf": {token}, "nolint": {"on"}})
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/runs/") {
		t.Errorf("run with nolint: %d to %q, want 303 to the run", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestServeItemsPanel: a foreach node's panel counts the items that passed (their attempts
// are never final: the node's record is), and shows what a failed item output.
func TestServeItemsPanel(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.start("items.yaml", nil, true)
	_, page := f.get(nil, "/runs/"+id+"?node=each")
	if !strings.Contains(page, "foreach items passed: 5/5") {
		t.Errorf("each's panel does not count its 5 items passed:\n%s", page)
	}
	_, page = f.get(nil, "/runs/"+id+"?node=check")
	for _, want := range []string{"foreach items passed: 1/2", `<div class="item-failed" data-item="1">`, `&#34;why&#34;: &#34;the item was fail&#34;`} {
		if !strings.Contains(page, want) {
			t.Errorf("check's panel does not hold %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, `data-item="0"`) {
		t.Errorf("check's panel shows the item that passed as failed")
	}
}

// TestServeStatusSigns: the graph marks each node's status by a sign besides its colour, and
// a duration under a millisecond shows in µs, not as 0s.
func TestServeStatusSigns(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.start("items.yaml", nil, true)
	_, page := f.get(nil, "/runs/"+id)
	for node, sign := range map[string]string{"each": "✓", "check": "✗"} {
		if !regexp.MustCompile(`data-node="` + node + `">.*?<tspan class="icon">` + sign + `</tspan>`).MatchString(page) {
			t.Errorf("node %s is not marked %s in the graph:\n%s", node, sign, page)
		}
	}
	id = f.start("script.yaml", nil, true) // a const node: done in microseconds
	_, page = f.get(nil, "/runs/"+id+"?node=evil")
	if !regexp.MustCompile(`<td>\d+µs</td>`).MatchString(page) || strings.Contains(page, "<td>0s</td>") {
		t.Errorf("the const node's duration is not in µs:\n%s", page)
	}
}
