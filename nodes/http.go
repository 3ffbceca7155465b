package nodes

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// httpType makes one HTTP request and turns the response into the node's output.
type httpType struct {
	// wrap, when not nil, wraps each request's transport: with tracing on (otelhttp), every
	// request is a client span and carries the traceparent header.
	wrap func(http.RoundTripper) http.RoundTripper
}

// BuiltinWithHTTPTransport is Builtin with the http type's transport wrapped by wrap; nil
// wrap gives Builtin.
func BuiltinWithHTTPTransport(wrap func(http.RoundTripper) http.RoundTripper) *Registry {
	r := Builtin()
	r.types[httpType{}.Name()] = httpType{wrap: wrap}
	return r
}

const (
	defaultHTTPTimeout  = 30 * time.Second
	defaultMaxRedirects = 5
	maxMaxRedirects     = 20
	// errBodyMax bounds the response excerpt put in the error of a failed request.
	errBodyMax = 300
	// errBodyRead is how much of a failed response is read for that excerpt.
	errBodyRead = 4 << 10
)

// Output modes of http; json, wrap and text mean what they mean for exec.
const outputAuto = "auto"

var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

func (httpType) Name() string { return "http" }
func (httpType) Doc() string {
	return "Makes an HTTP request; a JSON response is parsed into data, a status of 400 or more fails the node."
}

func (httpType) ConfigSchema() []byte { return schema("http.config.json") }
func (httpType) OutputSchema() []byte { return schema("http.output.json") }

// OutputSchemaFor narrows the output schema by mode: every mode but json builds the output
// itself.
func (t httpType) OutputSchemaFor(with map[string]any) []byte {
	switch out, ok := with["output"]; {
	case !ok || out == outputAuto:
		return schema("http.output.auto.json")
	case out == outputWrap:
		return schema("http.output.wrap.json")
	case out == outputText:
		return schema("http.output.text.json")
	}
	return t.OutputSchema()
}

// Check checks the configuration's shape at load time; references are unknown and pass.
func (httpType) Check(with map[string]any) error {
	_, err := parseHTTPConfig(with, true)
	return err
}

// httpConfig is a parsed `with` of an http node.
type httpConfig struct {
	method       string // "" until known: GET, or POST with a body
	url          *url.URL
	headers      http.Header
	query        url.Values
	body         any
	hasBody      bool
	form         url.Values
	timeout      time.Duration
	maxRedirects int
	output       string
}

// parseHTTPConfig reads with. When checking (load time), values holding references are
// unknown and skipped; otherwise every value must be final.
func parseHTTPConfig(with map[string]any, checking bool) (httpConfig, error) {
	cfg := httpConfig{
		headers: http.Header{}, timeout: defaultHTTPTimeout,
		maxRedirects: defaultMaxRedirects, output: outputAuto,
	}
	if err := checkKeys(with, "method", "url", "headers", "query", "body", "form", "timeout", "max_redirects", "output"); err != nil {
		return cfg, err
	}
	unknown := func(v any) bool { return checking && isRef(v) }

	if v, ok := with["method"]; ok && !unknown(v) {
		s, _ := v.(string)
		if !slices.Contains(httpMethods, s) {
			if up := strings.ToUpper(s); slices.Contains(httpMethods, up) {
				return cfg, configErr("/method", i18n.M("write %q in capitals: %s", s, up))
			}
			return cfg, configErr("/method", i18n.M("must be one of %s; got %s", strings.Join(httpMethods, ", "), jsonValue(v)))
		}
		cfg.method = s
	}

	switch v, ok := with["url"]; {
	case !ok:
		return cfg, configErr("/url", i18n.M("required"))
	case unknown(v):
		// An interpolated URL's scheme and host are checked when they are known.
	default:
		s, isString := v.(string)
		if !isString {
			return cfg, configErr("/url", i18n.M("must be a string, got %s", jsonType(v)))
		}
		u, err := parseHTTPURL(s)
		if err != nil {
			return cfg, err
		}
		cfg.url = u
	}

	if v, ok := with["headers"]; ok && !unknown(v) {
		m, isObject := v.(map[string]any)
		if !isObject {
			return cfg, configErr("/headers", i18n.M("must be a mapping of header names to values, got %s", jsonType(v)))
		}
		for _, k := range sortedKeys(m) {
			at := "/headers/" + pointerEscape(k)
			if !validToken(k) {
				return cfg, configErr(at, i18n.M("invalid header name %q", k))
			}
			if unknown(m[k]) {
				continue
			}
			s, err := scalarString(m[k])
			if err != nil {
				return cfg, &ConfigError{Path: at, Offset: -1, Err: err}
			}
			if strings.ContainsAny(s, "\r\n\x00") {
				return cfg, configErr(at, i18n.M("a header value must not contain a line break or NUL"))
			}
			cfg.headers.Add(k, s)
		}
	}

	var err error
	if v, ok := with["query"]; ok && !unknown(v) {
		if cfg.query, err = valuesOf("/query", v, unknown); err != nil {
			return cfg, err
		}
	}
	if v, ok := with["form"]; ok && !unknown(v) {
		if cfg.form, err = valuesOf("/form", v, unknown); err != nil {
			return cfg, err
		}
	}
	cfg.body, cfg.hasBody = with["body"]
	if _, hasForm := with["form"]; hasForm && cfg.hasBody {
		return cfg, configErr("/form", i18n.M("give body or form, not both"))
	}

	if v, ok := with["timeout"]; ok && !unknown(v) {
		s, _ := v.(string)
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 || strings.HasPrefix(s, "+") {
			return cfg, configErr("/timeout", i18n.M("must be a positive duration such as 10s or 1m30s, got %s", jsonValue(v)))
		}
		cfg.timeout = d
	}

	if v, ok := with["max_redirects"]; ok && !unknown(v) {
		n, isInt := intValue(v)
		if !isInt || n < 0 || n > maxMaxRedirects {
			return cfg, configErr("/max_redirects", i18n.M("must be an integer from 0 to %d, got %s", maxMaxRedirects, jsonValue(v)))
		}
		cfg.maxRedirects = int(n)
	}

	if v, ok := with["output"]; ok && !unknown(v) {
		s, _ := v.(string)
		if s != outputAuto && s != outputWrap && s != outputText && s != outputJSON {
			return cfg, configErr("/output", i18n.M("must be one of auto, wrap, text, json; got %s", jsonValue(v)))
		}
		cfg.output = s
	}
	return cfg, nil
}

// parseHTTPURL accepts absolute http and https URLs only: a node never reads files or talks
// other protocols through this type.
func parseHTTPURL(s string) (*url.URL, error) {
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return nil, configErr("/url", i18n.M("must start with http:// or https://"))
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL
		}
		return nil, configErr("/url", i18n.M("invalid URL: %v", err))
	}
	switch {
	case u.Host == "":
		return nil, configErr("/url", i18n.M("has no host"))
	case u.User != nil:
		return nil, configErr("/url", i18n.M("must not hold credentials; send them in headers (Authorization) from env"))
	}
	return u, nil
}

// valuesOf reads query or form parameters: a mapping of names to scalars or lists of them.
func valuesOf(at string, v any, unknown func(any) bool) (url.Values, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, configErr(at, i18n.M("must be a mapping of names to values, got %s", jsonType(v)))
	}
	vals := url.Values{}
	for _, k := range sortedKeys(m) {
		p := at + "/" + pointerEscape(k)
		switch x := m[k].(type) {
		case []any:
			for i, item := range x {
				if unknown(item) {
					continue
				}
				s, err := scalarString(item)
				if err != nil {
					return nil, &ConfigError{Path: p + "/" + strconv.Itoa(i), Offset: -1, Err: err}
				}
				vals.Add(k, s)
			}
		default:
			if unknown(x) {
				continue
			}
			s, err := scalarString(x)
			if err != nil {
				return nil, configErr(p, i18n.M("must be a string, number, boolean or a list of them, got %s", jsonType(x)))
			}
			vals.Add(k, s)
		}
	}
	return vals, nil
}

// scalarString renders a string, number or boolean as it is sent.
func scalarString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case json.Number:
		return x.String(), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int, int64, uint64:
		return fmt.Sprint(x), nil
	}
	return "", i18n.M("must be a string, number or boolean, got %s", jsonType(v))
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// validToken reports whether s is an HTTP token (RFC 9110), as header names must be.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// Run makes the request once. Everything it returns — output, log, error — has the call's
// secrets masked.
func (t httpType) Run(ctx context.Context, call *Call) (*Result, error) {
	res, err := t.runHTTP(ctx, call)
	if res != nil {
		res.Log = MaskString(res.Log, call.Secrets)
	}
	return res, MaskError(err, call.Secrets)
}

func (t httpType) runHTTP(ctx context.Context, call *Call) (*Result, error) {
	cfg, err := parseHTTPConfig(call.With, false)
	if err != nil {
		return nil, err
	}
	req, err := newHTTPRequest(ctx, cfg, call)
	if err != nil {
		return nil, err
	}
	// What messages show of the request: no query, which is where keys tend to go.
	shown := req.Method + " " + displayURL(req.URL)

	reqCtx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	req = req.WithContext(reqCtx)

	// A transport per call: nothing outlives the node (no idle connections or their
	// goroutines), at the cost of a new connection per request.
	tr := newHTTPTransport()
	defer tr.CloseIdleConnections()
	var log strings.Builder
	var rt http.RoundTripper = tr
	if t.wrap != nil {
		rt = t.wrap(tr)
	}
	client := &http.Client{
		Transport:     rt,
		CheckRedirect: checkRedirect(cfg.maxRedirects, call.Secrets, &log, call.Lang),
	}
	fmt.Fprintf(&log, "%s\n", shown)

	started := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return &Result{Log: log.String()}, requestError(ctx, reqCtx, shown, cfg, err, call.Lang)
	}
	defer resp.Body.Close()
	fmt.Fprintf(&log, "%s after %s\n", resp.Status, time.Since(started).Round(time.Millisecond))
	final := displayURL(resp.Request.URL)
	if final != displayURL(req.URL) {
		shown = req.Method + " " + final
	}

	if resp.StatusCode >= 400 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, errBodyRead))
		fmt.Fprintf(&log, "%s\n", b)
		err := fmt.Errorf("%s: %s", shown, resp.Status)
		if b = bytes.TrimSpace(b); len(b) > 0 {
			err = fmt.Errorf("%w; response: %s", err, excerpt([]byte(MaskString(string(b), call.Secrets)), errBodyMax))
		}
		return &Result{Log: log.String()}, err
	}

	body, err := readBody(resp, req.Method == http.MethodHead, call.outputLimit(), call.Lang)
	if err != nil {
		return &Result{Log: log.String()}, timeoutError(ctx, reqCtx, shown, cfg, fmt.Errorf("%s: read response: %w", shown, err), call.Lang)
	}
	out, err := httpOutput(cfg.output, shown, resp, body, call.Secrets)
	if err != nil {
		return &Result{Log: log.String()}, fmt.Errorf("%s: %w", shown, err)
	}
	return &Result{Output: out, Log: log.String()}, nil
}

// newHTTPRequest builds the request from the configuration, defaulting the method and the
// content type from the body.
func newHTTPRequest(ctx context.Context, cfg httpConfig, call *Call) (*http.Request, error) {
	u := *cfg.url
	if len(cfg.query) > 0 {
		q := u.Query()
		for k, vs := range cfg.query {
			q[k] = append(q[k], vs...)
		}
		u.RawQuery = q.Encode()
	}
	var body io.Reader
	contentType := ""
	switch {
	case cfg.form != nil:
		body, contentType = strings.NewReader(cfg.form.Encode()), "application/x-www-form-urlencoded"
	case cfg.hasBody:
		if s, ok := cfg.body.(string); ok {
			body, contentType = strings.NewReader(s), "text/plain; charset=utf-8"
			break
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // the body is data, not HTML
		if err := enc.Encode(cfg.body); err != nil {
			return nil, configErr("/body", i18n.M("cannot encode as JSON: %v", err))
		}
		body, contentType = bytes.NewReader(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), "application/json"
	}
	method := cfg.method
	if method == "" {
		method = http.MethodGet
		if body != nil {
			method = http.MethodPost
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, displayURL(&u), err)
	}
	req.Header = cfg.headers.Clone()
	if contentType != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", contentType)
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.8")
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "seam")
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h // net/http sends req.Host, not a Host header
	}
	if v := violationsHeader(call); v != "" {
		req.Header.Set("Seam-Violations", v)
	}
	return req, nil
}

// violationsHeaderMax keeps the Seam-Violations header within what servers accept (8 KiB is a
// common bound on a request's headers).
const violationsHeaderMax = 4 << 10

// violationsHeader is, on a repair attempt, the previous output's violations as JSON, so that
// the service can correct itself: as many of the first ones as fit violationsHeaderMax.
func violationsHeader(call *Call) string {
	for n := len(call.Violations); n > 0; n-- {
		v, err := json.Marshal(call.Violations[:n])
		if err != nil {
			return ""
		}
		if len(v) <= violationsHeaderMax {
			return string(v)
		}
	}
	return ""
}

func newHTTPTransport() *http.Transport {
	return &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
		// Verification stays on: there is deliberately no way to turn it off.
		TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12},
	}
}

// tooManyRedirects is what checkRedirect stops a redirect chain with.
type tooManyRedirects struct {
	max  int
	next string
	lang i18n.Lang // the language Error says it in
}

func (e *tooManyRedirects) Error() string {
	if e.max == 0 {
		return i18n.Sprintf(e.lang, "redirected to %s, and max_redirects is 0", e.next)
	}
	return i18n.Sprintf(e.lang, "stopped after %d redirects (max_redirects: %d); the next was to %s", e.max, e.max, e.next)
}

// checkRedirect bounds the redirects followed, logs them, and keeps secrets from hosts the
// user did not name: net/http drops Authorization and cookies on a move to another host but
// forwards every other header, X-Api-Key included. Its errors are said in lang.
func checkRedirect(maxRedirects int, secrets []string, log *strings.Builder, lang i18n.Lang) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return &tooManyRedirects{max: maxRedirects, next: displayURL(req.URL), lang: lang}
		}
		fmt.Fprintf(log, "redirected to %s\n", displayURL(req.URL))
		first := via[0].URL
		if req.URL.Host == first.Host && (req.URL.Scheme == first.Scheme || req.URL.Scheme == "https") {
			return nil
		}
		forms := secretForms(secrets)
		for name, vals := range req.Header {
			if slices.ContainsFunc(vals, func(v string) bool { return maskForms(v, forms) != v }) {
				req.Header.Del(name)
				fmt.Fprintf(log, "header %s not sent to %s: it holds a secret\n", name, req.URL.Host)
			}
		}
		return nil
	}
}

// requestError explains, in lang, a request that got no response.
func requestError(parent, reqCtx context.Context, shown string, cfg httpConfig, err error, lang i18n.Lang) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its message repeats the full URL, query and all
	}
	var tooMany *tooManyRedirects
	if errors.As(err, &tooMany) {
		return fmt.Errorf("%s: %w", shown, tooMany)
	}
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid) {
		return i18n.Errorf(lang, "%s: %w (seam always verifies TLS certificates: give the server a certificate the system trusts, or add its CA to the system store or SSL_CERT_FILE)", shown, err)
	}
	return timeoutError(parent, reqCtx, shown, cfg, fmt.Errorf("%s: %w", shown, err), lang)
}

// timeoutError says which end stopped the request when one did: the node's context (the
// engine's timeout or a cancel), passed on as it is, or with.timeout, said in lang.
func timeoutError(parent, reqCtx context.Context, shown string, cfg httpConfig, err error, lang i18n.Lang) error {
	switch {
	case parent.Err() != nil:
		return fmt.Errorf("%s: %w", shown, parent.Err())
	case errors.Is(reqCtx.Err(), context.DeadlineExceeded):
		return i18n.Errorf(lang, "%s: no complete response within %s (with.timeout): %w", shown, cfg.timeout, context.DeadlineExceeded)
	}
	return err
}

// readBody reads the response body up to limit bytes; more is an *OutputLimitError, said in
// lang. A declared length over the limit fails at once, except for HEAD, whose length is the
// GET's.
func readBody(resp *http.Response, head bool, limit int64, lang i18n.Lang) ([]byte, error) {
	if resp.ContentLength > limit && !head {
		return nil, &OutputLimitError{Limit: limit, Lang: lang}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &OutputLimitError{Limit: limit, Lang: lang}
	}
	return b, nil
}

// httpResponse is the response part of the output.
type httpResponse struct {
	StatusCode int               `json:"status_code"`
	Headers    map[string]string `json:"headers"`
	URL        string            `json:"url"`
}

// httpOutput builds the node's output from a response below 400.
func httpOutput(mode, shown string, resp *http.Response, body []byte, secrets []string) ([]byte, error) {
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	isJSON := mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
	if mode == outputJSON {
		// As is, but for the secrets: the engine judges the rest.
		return []byte(MaskString(string(body), secrets)), nil
	}
	var data any
	switch {
	case mode == outputText || mode == outputAuto && !isJSON && len(body) > 0:
		data = map[string]any{"text": strings.ToValidUTF8(string(body), "\uFFFD")}
	case len(bytes.TrimSpace(body)) == 0 && mode == outputAuto:
		data = map[string]any{}
	case len(bytes.TrimSpace(body)) == 0:
		return nil, errors.New("the response is empty; output: wrap needs one JSON value (output: auto takes an empty body)")
	default:
		v, err := decodeJSON(body)
		if err != nil {
			what := "the response"
			if isJSON {
				what = "the response (" + mediaType + ")"
			}
			return nil, fmt.Errorf("%s is not JSON: %v; got %s (use output: text for other bodies)", what, err, excerpt([]byte(MaskString(string(body), secrets)), 80))
		}
		if _, isObject := v.(map[string]any); !isObject {
			v = map[string]any{"value": v}
		}
		data = v
	}

	summary := fmt.Sprintf("%s: %s", shown, resp.Status)
	if len(body) > 0 {
		summary += ", " + formatSize(int64(len(body)))
		if mediaType != "" {
			summary += " " + mediaType
		}
	}
	out := struct {
		Status   string       `json:"status"`
		Summary  string       `json:"summary"`
		Data     any          `json:"data"`
		Response httpResponse `json:"response"`
	}{
		Status:  "pass",
		Summary: truncateRunes(MaskString(summary, secrets), summaryMax),
		Data:    MaskValue(data, secrets),
		Response: httpResponse{
			StatusCode: resp.StatusCode,
			Headers:    responseHeaders(resp.Header, secrets),
			URL:        MaskString(resp.Request.URL.String(), secrets),
		},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("encode output: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// decodeJSON decodes exactly one JSON value, keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// responseHeaders flattens headers for the output. Set-Cookie is left out: cookies are
// credentials, and outputs are stored and handed to other nodes.
func responseHeaders(h http.Header, secrets []string) map[string]string {
	m := make(map[string]string, len(h))
	for k, vs := range h {
		if strings.EqualFold(k, "Set-Cookie") {
			continue
		}
		m[strings.ToLower(k)] = MaskString(strings.Join(vs, ", "), secrets)
	}
	return m
}

// displayURL is how a URL reads in summaries and errors: without its query, fragment and
// user information, where keys tend to go.
func displayURL(u *url.URL) string {
	v := *u
	v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment, v.User = "", false, "", "", nil
	return v.String()
}
