package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

// These tests talk to real HTTP servers on loopback (httptest), not to a fake client.

// serve starts a server for one test; it is closed when the test ends.
func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func runHTTPNode(t *testing.T, ctx context.Context, call *Call) (*Result, error) {
	t.Helper()
	return httpType{}.Run(ctx, call)
}

// decodeOutput parses an output as the engine would.
func decodeOutput(t *testing.T, b []byte) map[string]any {
	t.Helper()
	v, err := decodeJSON(b)
	if err != nil {
		t.Fatalf("output %s: %v", b, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("output %s is not an object", b)
	}
	return m
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestHTTPResponses(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/object":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			io.WriteString(w, `{"items": [1, 2.50, 12345678901234567890], "name": "a<b"}`)
		case "/array":
			w.Header().Set("Content-Type", "application/problem+json")
			io.WriteString(w, `["x", null]`)
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "hello\nworld\n")
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/contract":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"status": "warn", "summary": "from the service"}`)
		case "/not-json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"a": `)
		case "/two":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"a": 1} {"b": 2}`)
		}
	})
	tests := []struct {
		name, path, output string
		wantData           string
		wantSummary        string
		wantErr            string
	}{
		{name: "json object", path: "/object", wantData: `{"items":[1,2.50,12345678901234567890],"name":"a<b"}`,
			wantSummary: "GET " + srv.URL + "/object: 200 OK, 57 bytes application/json"},
		{name: "json array", path: "/array", wantData: `{"value":["x",null]}`,
			wantSummary: "GET " + srv.URL + "/array: 200 OK, 11 bytes application/problem+json"},
		{name: "text", path: "/text", wantData: `{"text":"hello\nworld\n"}`,
			wantSummary: "GET " + srv.URL + "/text: 200 OK, 12 bytes text/plain"},
		{name: "empty", path: "/empty", wantData: `{}`, wantSummary: "GET " + srv.URL + "/empty: 204 No Content"},
		{name: "text of json", path: "/object", output: "text",
			wantData: `{"text":"{\"items\": [1, 2.50, 12345678901234567890], \"name\": \"a<b\"}"}`},
		{name: "wrap of text", path: "/text", output: "wrap",
			wantErr: `GET ` + srv.URL + `/text: the response is not JSON: invalid character 'h' looking for beginning of value; got "hello\nworld\n" (use output: text for other bodies)`},
		{name: "wrap of empty", path: "/empty", output: "wrap",
			wantErr: `GET ` + srv.URL + `/empty: the response is empty; output: wrap needs one JSON value (output: auto takes an empty body)`},
		{name: "broken json", path: "/not-json",
			wantErr: `GET ` + srv.URL + `/not-json: the response (application/json) is not JSON: unexpected EOF; got "{\"a\": " (use output: text for other bodies)`},
		{name: "two values", path: "/two",
			wantErr: `GET ` + srv.URL + `/two: the response (application/json) is not JSON: more than one JSON value; got "{\"a\": 1} {\"b\": 2}" (use output: text for other bodies)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			with := map[string]any{"url": srv.URL + tt.path}
			if tt.output != "" {
				with["output"] = tt.output
			}
			res, err := runHTTPNode(t, t.Context(), &Call{With: with})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v\nwant  %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := decodeOutput(t, res.Output)
			if got := jsonText(t, out["data"]); got != tt.wantData {
				t.Errorf("data = %s\nwant   %s", got, tt.wantData)
			}
			if tt.wantSummary != "" && out["summary"] != tt.wantSummary {
				t.Errorf("summary = %q\nwant      %q", out["summary"], tt.wantSummary)
			}
			resp := out["response"].(map[string]any)
			if resp["url"] != srv.URL+tt.path {
				t.Errorf("response.url = %v", resp["url"])
			}
		})
	}
}

func TestHTTPResponseMeta(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Page", "1")
		w.Header().Add("X-Page", "2")
		w.Header().Set("Set-Cookie", "session=s3cr3t")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{}`)
	})
	res, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	resp := decodeOutput(t, res.Output)["response"].(map[string]any)
	headers := resp["headers"].(map[string]any)
	if resp["status_code"] != json.Number("202") || headers["x-page"] != "1, 2" || headers["content-type"] != "application/json" {
		t.Errorf("response = %v", resp)
	}
	if _, ok := headers["set-cookie"]; ok {
		t.Error("Set-Cookie is in the output")
	}
	if want := "GET " + srv.URL + "\n202 Accepted after"; !strings.HasPrefix(res.Log, want) {
		t.Errorf("log = %q, want it to start with %q", res.Log, want)
	}
}

// TestHTTPOutputJSON: with output: json the body is the output as is, for the engine to judge.
func TestHTTPOutputJSON(t *testing.T) {
	const body = `{"status": "warn", "summary": "from the service"}`
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) })
	res, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": srv.URL, "output": "json"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Output) != body {
		t.Errorf("output = %s, want %s", res.Output, body)
	}
}

// received is what a server saw of a request.
type received struct {
	Method, Path, RawQuery, ContentType, Body, Host string
	Header                                          http.Header
}

func recorder(t *testing.T) (*httptest.Server, chan received) {
	got := make(chan received, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), string(b), r.Host, r.Header}
		io.WriteString(w, "ok")
	})
	return srv, got
}

func TestHTTPRequests(t *testing.T) {
	srv, got := recorder(t)
	tests := []struct {
		name string
		with map[string]any
		want received
	}{
		{"get", map[string]any{"url": srv.URL + "/a"}, received{Method: "GET", Path: "/a"}},
		{"query merged", map[string]any{
			"url":   srv.URL + "/q?keep=1",
			"query": map[string]any{"limit": json.Number("50"), "tag": []any{"x y", true}, "f": 1.5}},
			received{Method: "GET", Path: "/q", RawQuery: "f=1.5&keep=1&limit=50&tag=x+y&tag=true"}},
		{"json body means POST", map[string]any{
			"url":  srv.URL,
			"body": map[string]any{"title": "a <b>", "n": json.Number("3")}},
			received{Method: "POST", Path: "/", ContentType: "application/json", Body: `{"n":3,"title":"a <b>"}`}},
		{"text body", map[string]any{"url": srv.URL, "method": "PUT", "body": "plain words"},
			received{Method: "PUT", Path: "/", ContentType: "text/plain; charset=utf-8", Body: "plain words"}},
		{"content type kept", map[string]any{
			"url": srv.URL, "method": "PATCH", "body": "<a/>",
			"headers": map[string]any{"content-type": "application/xml"}},
			received{Method: "PATCH", Path: "/", ContentType: "application/xml", Body: "<a/>"}},
		{"null body", map[string]any{"url": srv.URL, "method": "POST", "body": nil},
			received{Method: "POST", Path: "/", ContentType: "application/json", Body: "null"}},
		{"form", map[string]any{"url": srv.URL, "form": map[string]any{"grant_type": "client_credentials", "scope": []any{"a", "b"}}},
			received{Method: "POST", Path: "/", ContentType: "application/x-www-form-urlencoded", Body: "grant_type=client_credentials&scope=a&scope=b"}},
		{"delete", map[string]any{"url": srv.URL + "/items/7", "method": "DELETE"}, received{Method: "DELETE", Path: "/items/7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := runHTTPNode(t, t.Context(), &Call{With: tt.with}); err != nil {
				t.Fatal(err)
			}
			r := <-got
			r.Header, r.Host = nil, ""
			if fmt.Sprint(r) != fmt.Sprint(tt.want) {
				t.Errorf("server got %+v\nwant           %+v", r, tt.want)
			}
		})
	}
}

func TestHTTPHeaders(t *testing.T) {
	srv, got := recorder(t)
	with := map[string]any{"url": srv.URL, "headers": map[string]any{
		"Authorization": "Bearer t0ken", "X-Count": json.Number("5"), "x-flag": true,
		"Accept": "text/csv", "Host": "api.example.com",
	}}
	if _, err := runHTTPNode(t, t.Context(), &Call{With: with}); err != nil {
		t.Fatal(err)
	}
	r := <-got
	for name, want := range map[string]string{
		"Authorization": "Bearer t0ken", "X-Count": "5", "X-Flag": "true", "Accept": "text/csv", "User-Agent": "seam",
	} {
		if v := r.Header.Get(name); v != want {
			t.Errorf("%s: %q, want %q", name, v, want)
		}
	}
	if r.Host != "api.example.com" {
		t.Errorf("Host: %q", r.Host)
	}
	if r.Header.Get("Seam-Violations") != "" {
		t.Error("Seam-Violations sent on a first attempt")
	}
}

func TestHTTPStatusFails(t *testing.T) {
	long := strings.Repeat("x", 5000)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error": "no such item"}`+"\n")
		case "/empty":
			w.WriteHeader(http.StatusForbidden)
		default:
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, long)
		}
	})
	tests := []struct{ path, want string }{
		{"/missing?key=v", `GET ` + srv.URL + `/missing: 404 Not Found; response: "{\"error\": \"no such item\"}"`},
		{"/empty", `GET ` + srv.URL + `/empty: 403 Forbidden`},
		{"/long", `GET ` + srv.URL + `/long: 502 Bad Gateway; response: "` + strings.Repeat("x", 299) + `…"`},
	}
	for _, tt := range tests {
		res, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": srv.URL + tt.path}})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: err = %v\nwant %s", tt.path, err, tt.want)
		}
		if res == nil || res.Output != nil {
			t.Errorf("%s: result %+v, want a log and no output", tt.path, res)
		}
	}
}

func TestHTTPRedirects(t *testing.T) {
	// /r/N redirects to /r/N+1 until N reaches the ?to= bound; then it answers.
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		to, err := strconv.Atoi(r.URL.Query().Get("to"))
		if err == nil && n >= to {
			fmt.Fprintf(w, "arrived at %d", n)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/r/%d?%s", n+1, r.URL.RawQuery), http.StatusFound)
	})
	tests := []struct {
		name    string
		with    map[string]any
		wantErr string
		wantURL string
	}{
		{"within the default bound", map[string]any{"url": srv.URL + "/r/0?to=5"}, "", srv.URL + "/r/5?to=5"},
		{"past the default bound", map[string]any{"url": srv.URL + "/r/0"},
			"GET " + srv.URL + "/r/0: stopped after 5 redirects (max_redirects: 5); the next was to " + srv.URL + "/r/6", ""},
		{"past a set bound", map[string]any{"url": srv.URL + "/r/0?to=3", "max_redirects": json.Number("2")},
			"GET " + srv.URL + "/r/0: stopped after 2 redirects (max_redirects: 2); the next was to " + srv.URL + "/r/3", ""},
		{"none allowed", map[string]any{"url": srv.URL + "/r/0?to=1", "max_redirects": json.Number("0")},
			"GET " + srv.URL + "/r/0: redirected to " + srv.URL + "/r/1, and max_redirects is 0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := runHTTPNode(t, t.Context(), &Call{With: tt.with})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v\nwant  %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := decodeOutput(t, res.Output)
			if u := out["response"].(map[string]any)["url"]; u != tt.wantURL {
				t.Errorf("response.url = %v, want %s", u, tt.wantURL)
			}
			if !strings.HasPrefix(out["summary"].(string), "GET "+srv.URL+"/r/5: 200 OK") {
				t.Errorf("summary = %v", out["summary"])
			}
			if n := strings.Count(res.Log, "redirected to"); n != 5 {
				t.Errorf("log has %d redirects:\n%s", n, res.Log)
			}
		})
	}
}

// TestHTTPRedirectKeepsSecrets: a secret header goes to the host the user named, not to
// another one a redirect points at; other headers follow.
func TestHTTPRedirectKeepsSecrets(t *testing.T) {
	other, got := recorder(t)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/landed", http.StatusTemporaryRedirect)
	})
	with := map[string]any{"url": srv.URL, "headers": map[string]any{"X-Api-Key": "k-123", "X-Trace": "t"}}
	res, err := runHTTPNode(t, t.Context(), &Call{With: with, Secrets: []string{"k-123"}})
	if err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.Header.Get("X-Api-Key") != "" || r.Header.Get("X-Trace") != "t" {
		t.Errorf("the other host got %v", r.Header)
	}
	if !strings.Contains(res.Log, "header X-Api-Key not sent to "+strings.TrimPrefix(other.URL, "http://")+": it holds a secret") {
		t.Errorf("log = %s", res.Log)
	}
}

func TestHTTPTimeouts(t *testing.T) {
	never := serve(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers; returns once the client gives up
	})
	slowBody := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"a": `)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})

	t.Run("with.timeout", func(t *testing.T) {
		_, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": never.URL, "timeout": "100ms"}})
		want := "GET " + never.URL + ": no complete response within 100ms (with.timeout): context deadline exceeded"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant  %s", err, want)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Error("err is not a deadline")
		}
	})
	t.Run("while reading the body", func(t *testing.T) {
		_, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": slowBody.URL, "timeout": "200ms"}})
		want := "GET " + slowBody.URL + ": no complete response within 200ms (with.timeout): context deadline exceeded"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant  %s", err, want)
		}
	})
	t.Run("the node's context", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_, err := runHTTPNode(t, ctx, &Call{With: map[string]any{"url": never.URL}})
		want := "GET " + never.URL + ": context deadline exceeded"
		if err == nil || err.Error() != want || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v\nwant  %s", err, want)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := runHTTPNode(t, ctx, &Call{With: map[string]any{"url": never.URL}})
		if err == nil || err.Error() != "GET "+never.URL+": context canceled" || !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestHTTPTLSVerified(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "should not be read")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": srv.URL + "/x"}})
	want := "GET " + srv.URL + "/x: tls: failed to verify certificate: x509: certificate signed by unknown authority (seam always verifies TLS certificates: give the server a certificate the system trusts, or add its CA to the system store or SSL_CERT_FILE)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
}

// TestHTTPJapanese: a request that gets no response says why in the call's language.
func TestHTTPJapanese(t *testing.T) {
	redirect := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/next", http.StatusFound)
	})
	never := serve(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0)
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	tests := []struct {
		name string
		with map[string]any
		want string
	}{
		{"no redirect allowed", map[string]any{"url": redirect.URL, "max_redirects": json.Number("0")},
			"GET " + redirect.URL + ": " + redirect.URL + "/next にリダイレクトされましたが、max_redirects は 0 です"},
		{"past the bound", map[string]any{"url": redirect.URL, "max_redirects": json.Number("1")},
			"GET " + redirect.URL + ": 1 回リダイレクトしたところで止めました（max_redirects：1）。次のリダイレクト先は " + redirect.URL + "/next でした"},
		{"with.timeout", map[string]any{"url": never.URL, "timeout": "100ms"},
			"GET " + never.URL + "：100ms 以内に応答が完了しませんでした（with.timeout）：context deadline exceeded"},
		{"TLS", map[string]any{"url": tlsSrv.URL},
			"GET " + tlsSrv.URL + "：tls: failed to verify certificate: x509: certificate signed by unknown authority（seam は TLS 証明書を必ず検証します：システムが信頼する証明書をサーバーに設定するか、その CA をシステムの証明書ストアか SSL_CERT_FILE に追加してください）"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runHTTPNode(t, t.Context(), &Call{With: tt.with, Lang: i18n.Japanese})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
}

func TestHTTPOutputLimit(t *testing.T) {
	const limit = 1 << 10
	chunk := strings.Repeat("y", 256)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sized" {
			w.Header().Set("Content-Length", strconv.Itoa(100<<20))
		}
		// Writes until the client hangs up: a response without end.
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	})
	for _, path := range []string{"/sized", "/streamed"} {
		_, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": srv.URL + path}, OutputLimit: limit})
		var le *OutputLimitError
		want := "GET " + srv.URL + path + ": read response: output exceeds the 1 KiB limit"
		if !errors.As(err, &le) || err.Error() != want {
			t.Errorf("%s: err = %v\nwant %s", path, err, want)
		}
	}
	// Exactly at the limit is fine.
	exact := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, strings.Repeat("z", limit)) })
	if _, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": exact.URL}, OutputLimit: limit}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

func TestHTTPConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close() // nothing listens there now
	_, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": u + "/x?token=abc"}})
	if err == nil || !strings.HasPrefix(err.Error(), "GET "+u+"/x: dial tcp ") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v", err)
	}
}

// TestHTTPSecretsMasked: a service that echoes what it got, everywhere it can, never gets the
// secret into the output, the log or the error.
func TestHTTPSecretsMasked(t *testing.T) {
	const secret = `s3cr3t/"tok<en>`
	echo := func(w http.ResponseWriter, r *http.Request) string {
		b, _ := json.Marshal(map[string]any{
			"auth": r.Header.Get("Authorization"), "query": r.URL.RawQuery, "path": r.URL.Path,
			r.Header.Get("X-Key"): json.Number("1"),
		})
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		return string(b)
	}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body := echo(w, r)
		switch {
		case strings.HasPrefix(r.URL.Path, "/fail"):
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, body)
		case strings.HasPrefix(r.URL.Path, "/text"):
			io.WriteString(w, "you sent "+r.Header.Get("Authorization"))
		case strings.HasPrefix(r.URL.Path, "/number"):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"pin": 4242}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		}
	})
	headers := map[string]any{"Authorization": "Bearer " + secret, "X-Key": secret}
	tests := []struct {
		name    string
		with    map[string]any
		secrets []string
		wantErr bool
	}{
		{"json", map[string]any{"url": srv.URL + "/json/" + url.PathEscape(secret), "headers": headers,
			"query": map[string]any{"key": secret}}, []string{secret}, false},
		{"text", map[string]any{"url": srv.URL + "/text", "headers": headers}, []string{secret}, false},
		{"json as is", map[string]any{"url": srv.URL + "/json", "headers": headers, "output": "json"}, []string{secret}, false},
		{"error", map[string]any{"url": srv.URL + "/fail/" + url.PathEscape(secret), "headers": headers}, []string{secret}, true},
		{"number", map[string]any{"url": srv.URL + "/number"}, []string{"4242"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := runHTTPNode(t, t.Context(), &Call{With: tt.with, Secrets: append(tt.secrets, "")})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			var shown []string
			if err != nil {
				shown = append(shown, err.Error())
			}
			if res != nil {
				shown = append(shown, string(res.Output), res.Log)
			}
			all := strings.Join(shown, "\n")
			for _, form := range secretForms(tt.secrets) {
				if strings.Contains(all, form) {
					t.Errorf("%q shown:\n%s", form, all)
				}
			}
			if !strings.Contains(all, Masked) {
				t.Errorf("nothing masked:\n%s", all)
			}
		})
	}
}

func TestHTTPViolationsOnRepair(t *testing.T) {
	srv, got := recorder(t)
	call := &Call{With: map[string]any{"url": srv.URL}, Attempt: 2}
	if err := json.Unmarshal([]byte(`[{"message": "missing required field: status"}]`), &call.Violations); err != nil {
		t.Fatal(err)
	}
	if _, err := runHTTPNode(t, t.Context(), call); err != nil {
		t.Fatal(err)
	}
	if h := (<-got).Header.Get("Seam-Violations"); !strings.Contains(h, "missing required field: status") {
		t.Errorf("Seam-Violations = %q", h)
	}
}

func TestHTTPConfigErrors(t *testing.T) {
	tests := []struct {
		with map[string]any
		want string
	}{
		{map[string]any{}, "with/url: required"},
		{map[string]any{"url": 3}, "with/url: must be a string, got number"},
		{map[string]any{"url": "ftp://example.com/x"}, "with/url: must start with http:// or https://"},
		{map[string]any{"url": "example.com/x"}, "with/url: must start with http:// or https://"},
		{map[string]any{"url": "https://"}, "with/url: has no host"},
		{map[string]any{"url": "https://u:p@example.com"}, "with/url: must not hold credentials; send them in headers (Authorization) from env"},
		{map[string]any{"url": "http://a b"}, `with/url: invalid URL: invalid character " " in host name`},
		{map[string]any{"url": "http://x", "method": "get"}, `with/method: write "get" in capitals: GET`},
		{map[string]any{"url": "http://x", "method": "FETCH"}, `with/method: must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS; got "FETCH"`},
		{map[string]any{"url": "http://x", "headers": []any{}}, "with/headers: must be a mapping of header names to values, got array"},
		{map[string]any{"url": "http://x", "headers": map[string]any{"Bad Name": "v"}}, `with/headers/Bad Name: invalid header name "Bad Name"`},
		{map[string]any{"url": "http://x", "headers": map[string]any{"X": map[string]any{}}}, "with/headers/X: must be a string, number or boolean, got object"},
		{map[string]any{"url": "http://x", "headers": map[string]any{"X": "a\r\nEvil: 1"}}, "with/headers/X: a header value must not contain a line break or NUL"},
		{map[string]any{"url": "http://x", "query": "a=1"}, "with/query: must be a mapping of names to values, got string"},
		{map[string]any{"url": "http://x", "query": map[string]any{"a": nil}}, "with/query/a: must be a string, number, boolean or a list of them, got null"},
		{map[string]any{"url": "http://x", "query": map[string]any{"a": []any{"1", []any{}}}}, "with/query/a/1: must be a string, number or boolean, got array"},
		{map[string]any{"url": "http://x", "form": map[string]any{"a/b": map[string]any{}}}, "with/form/a~1b: must be a string, number, boolean or a list of them, got object"},
		{map[string]any{"url": "http://x", "form": map[string]any{}, "body": "x"}, "with/form: give body or form, not both"},
		{map[string]any{"url": "http://x", "timeout": "soon"}, `with/timeout: must be a positive duration such as 10s or 1m30s, got "soon"`},
		{map[string]any{"url": "http://x", "timeout": "0s"}, `with/timeout: must be a positive duration such as 10s or 1m30s, got "0s"`},
		{map[string]any{"url": "http://x", "timeout": 5}, `with/timeout: must be a positive duration such as 10s or 1m30s, got 5`},
		{map[string]any{"url": "http://x", "max_redirects": 21}, "with/max_redirects: must be an integer from 0 to 20, got 21"},
		{map[string]any{"url": "http://x", "max_redirects": -1}, "with/max_redirects: must be an integer from 0 to 20, got -1"},
		{map[string]any{"url": "http://x", "output": "xml"}, `with/output: must be one of auto, wrap, text, json; got "xml"`},
		{map[string]any{"url": "http://x", "ouput": "text"}, `with/ouput: unknown key "ouput" (did you mean "output"?)`},
	}
	for _, tt := range tests {
		err := httpType{}.Check(tt.with)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Check(%v) = %v\nwant %s", tt.with, err, tt.want)
		}
		// Run refuses the same configuration with the same message, before any request.
		_, err = runHTTPNode(t, t.Context(), &Call{With: tt.with})
		if err == nil || err.Error() != tt.want {
			t.Errorf("Run(%v) = %v\nwant %s", tt.with, err, tt.want)
		}
	}
}

// TestHTTPCheckLeavesReferences: values still holding references are checked at run time.
func TestHTTPCheckLeavesReferences(t *testing.T) {
	with := map[string]any{
		"url":           "${{ params.base }}/items",
		"method":        "${{ params.method }}",
		"headers":       map[string]any{"Authorization": "Bearer ${{ env.TOKEN }}"},
		"query":         map[string]any{"q": []any{"${{ params.q }}"}},
		"timeout":       "${{ params.timeout }}",
		"max_redirects": "${{ params.n }}",
		"output":        "${{ params.output }}",
	}
	if err := (httpType{}).Check(with); err != nil {
		t.Fatal(err)
	}
}

// TestHTTPConfigSchemaAgreesWithCheck: the config schema and Check accept the same
// configurations, but for the few that only Check refuses (looser): the linter's subset
// checker reads the schema, and does not model not, propertyNames or pattern on a reference,
// so those would make every http node's edges unknown.
func TestHTTPConfigSchemaAgreesWithCheck(t *testing.T) {
	tests := []struct {
		with   string
		valid  bool
		looser bool // the schema accepts it, Check does not
	}{
		{`{"url": "https://example.com/x"}`, true, false},
		{`{"url": "HTTP://example.com"}`, false, true},
		{`{"url": "https://example.com", "method": "POST", "headers": {"A": "1", "B": 2, "C": true}, "query": {"a": [1, "x"], "b": false}, "body": {"k": [1]}, "timeout": "1m30s", "max_redirects": 0, "output": "json"}`, true, false},
		{`{"url": "https://example.com", "form": {"a": "1"}}`, true, false},
		{`{"url": "https://example.com", "body": "text"}`, true, false},
		{`{}`, false, false},
		{`{"url": "ftp://example.com"}`, false, true},
		{`{"url": "https://"}`, false, true},
		{`{"url": "https://example.com", "method": "get"}`, false, false},
		{`{"url": "https://example.com", "headers": {"A B": "1"}}`, false, true},
		{`{"url": "https://example.com", "headers": {"A": null}}`, false, false},
		{`{"url": "https://example.com", "query": {"a": {}}}`, false, false},
		{`{"url": "https://example.com", "query": {"a": [[1]]}}`, false, false},
		{`{"url": "https://example.com", "form": {"a": "1"}, "body": "x"}`, false, true},
		{`{"url": "https://example.com", "timeout": "soon"}`, false, false},
		{`{"url": "https://example.com", "max_redirects": 21}`, false, false},
		{`{"url": "https://example.com", "max_redirects": 1.5}`, false, false},
		{`{"url": "https://example.com", "output": "xml"}`, false, false},
		{`{"url": "https://example.com", "urls": "x"}`, false, false},
	}
	schema := compileConfig(t, httpType{}.ConfigSchema())
	for _, tt := range tests {
		var with map[string]any
		if err := json.Unmarshal([]byte(tt.with), &with); err != nil {
			t.Fatal(err)
		}
		schemaErr := valid(schema, []byte(tt.with))
		checkErr := httpType{}.Check(with)
		if (schemaErr == nil) != (tt.valid || tt.looser) {
			t.Errorf("%s: schema valid = %v, want %v (%v)", tt.with, schemaErr == nil, tt.valid || tt.looser, schemaErr)
		}
		if (checkErr == nil) != tt.valid {
			t.Errorf("%s: Check valid = %v, want %v (%v)", tt.with, checkErr == nil, tt.valid, checkErr)
		}
	}
}

// TestHTTPOutputsMeetSchemas validates outputs against the schema each mode promises.
func TestHTTPOutputsMeetSchemas(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `[1]`)
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		default:
			io.WriteString(w, "text")
		}
	})
	tests := []struct{ path, output string }{
		{"/json", ""}, {"/json", "wrap"}, {"/json", "text"}, {"/text", ""}, {"/text", "text"}, {"/empty", ""}, {"/empty", "text"},
		{"/json", "${{ params.output }}"},
	}
	for _, tt := range tests {
		with := map[string]any{"url": srv.URL + tt.path}
		if tt.output != "" {
			with["output"] = tt.output
		}
		promised := httpType{}.OutputSchemaFor(with)
		if isRef(tt.output) {
			with["output"] = "auto"
		}
		res, err := runHTTPNode(t, t.Context(), &Call{With: with})
		if err != nil {
			t.Fatal(err)
		}
		if err := valid(compileOutput(t, promised), res.Output); err != nil {
			t.Errorf("%s %q: output %s: %v", tt.path, tt.output, res.Output, err)
		}
	}
}

func TestMask(t *testing.T) {
	secrets := []string{"abcde", "abcdefg", `q"x y`, "", "ab"}
	tests := []struct{ in, want string }{
		{"xx abcdefg abcde ab yy", "xx *** *** ab yy"},
		{`{"status":"ab"}`, `{"status":"ab"}`}, // too short to mask
		{`{"v":"q\"x y"}`, `{"v":"***"}`},
		{"u?k=q%22x+y", "u?k=***"},
		{"/p/q%22x%20y", "/p/***"},
		{"nothing here", "nothing here"},
	}
	for _, tt := range tests {
		if got := MaskString(tt.in, secrets); got != tt.want {
			t.Errorf("MaskString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	v := map[string]any{"abcde": []any{"x abcde", json.Number("12"), true, nil}, "n": json.Number("1234567")}
	got := jsonText(t, MaskValue(v, []string{"abcde", "23456"}))
	if want := `{"***":["x ***",12,true,null],"n":"1***7"}`; got != want {
		t.Errorf("MaskValue = %s, want %s", got, want)
	}
	if jsonText(t, v) != `{"abcde":["x abcde",12,true,null],"n":1234567}` {
		t.Error("MaskValue changed its argument")
	}
	if MaskValue(v, nil) == nil || MaskString("ab", nil) != "ab" {
		t.Error("no secrets should change nothing")
	}
}

func TestMaskError(t *testing.T) {
	inner := &url.Error{Op: "Get", URL: "http://x/?k=t0k3n", Err: context.DeadlineExceeded}
	err := MaskError(fmt.Errorf("fetch: %w", inner), []string{"t0k3n"})
	if err.Error() != `fetch: Get "http://x/?k=***": context deadline exceeded` {
		t.Errorf("message = %s", err)
	}
	var ue *url.Error
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ue) {
		t.Error("want the deadline kept and the URL error dropped")
	}
	limit := MaskError(fmt.Errorf("t0k3n: %w", &OutputLimitError{Limit: 1}), []string{"t0k3n"})
	var le *OutputLimitError
	if !errors.As(limit, &le) || limit.Error() != "***: output exceeds the 1 bytes limit" {
		t.Errorf("limit = %v", limit)
	}
	canceled := MaskError(fmt.Errorf("t0k3n: %w", context.Canceled), []string{"t0k3n"})
	if !errors.Is(canceled, context.Canceled) {
		t.Error("cancel lost")
	}
	plain := errors.New("no secret here")
	if MaskError(plain, []string{"t0k3n"}) != plain || MaskError(nil, []string{"t0k3n"}) != nil {
		t.Error("an error without secrets should be returned as is")
	}
}

func TestExecMasksSecrets(t *testing.T) {
	const secret = "hunter2"
	call := &Call{
		With:    map[string]any{"command": "echo \"token is $TOKEN\" >&2; exit 3", "shell": true},
		Env:     []string{"TOKEN=" + secret},
		Secrets: []string{secret},
	}
	res, err := execType{}.Run(t.Context(), call)
	want := "exec sh -c: exit status 3; stderr:\ntoken is ***"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
	if res == nil || res.Log != "token is ***\n" {
		t.Errorf("log = %+v", res)
	}
}

func TestHTTPViolationsHeaderBounded(t *testing.T) {
	var vs []contract.Violation
	for i := range 100 {
		vs = append(vs, contract.Violation{Pointer: fmt.Sprintf("/items/%d", i), Message: strings.Repeat("m", 100)})
	}
	h := violationsHeader(&Call{Violations: vs})
	var got []contract.Violation
	if err := json.Unmarshal([]byte(h), &got); err != nil {
		t.Fatal(err)
	}
	if len(h) > violationsHeaderMax || len(got) == 0 || len(got) == len(vs) || got[0].Pointer != "/items/0" {
		t.Errorf("header of %d bytes with %d violations", len(h), len(got))
	}
	if violationsHeader(&Call{}) != "" {
		t.Error("a header without violations")
	}
	huge := []contract.Violation{{Message: strings.Repeat("m", violationsHeaderMax)}}
	if violationsHeader(&Call{Violations: huge}) != "" {
		t.Error("a violation that cannot fit should be left out")
	}
}

// TestHTTPHead: a HEAD response declares the GET's length but has no body, whatever the limit.
func TestHTTPHead(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(100<<20))
		w.Header().Set("Content-Type", "application/json")
	})
	res, err := runHTTPNode(t, t.Context(), &Call{With: map[string]any{"url": srv.URL, "method": "HEAD"}, OutputLimit: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if out := decodeOutput(t, res.Output); jsonText(t, out["data"]) != "{}" {
		t.Errorf("output = %s", res.Output)
	}
}
