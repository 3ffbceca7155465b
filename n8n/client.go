package n8n

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// Config configures a Client.
type Config struct {
	// URL is the n8n instance's base URL, e.g. http://127.0.0.1:5678; a trailing /api/v1 is
	// accepted and dropped.
	URL string
	// APIKey is sent as X-N8N-API-KEY. It never appears in errors (see Mask).
	APIKey string
	// Insecure allows plain http:// to a host that is not loopback.
	Insecure bool
	// Timeout bounds one HTTP request (each retry gets its own); 0 means 30s.
	Timeout time.Duration
	// Retries is how many times an idempotent call is retried after a 429, 502, 503, 504 or
	// a connection reset; 0 means 3, a negative value none.
	Retries int
	// Backoff is the wait before the first retry, doubled (with jitter) for each next one
	// up to MaxBackoff; 0 means 250ms and 5s.
	Backoff, MaxBackoff time.Duration
	// HTTPClient sends the requests; nil means a client of its own. Share one between
	// Clients so that they share connections.
	HTTPClient *http.Client
	// Lang is the language of the client's errors; "" means English. In gives a client
	// that speaks another.
	Lang i18n.Lang
	// URLFrom says where URL came from, so that an error says how to fix it there.
	URLFrom URLSource
}

// URLSource is where a Client's URL and its insecure setting come from.
type URLSource int

// The sources of the URL: plain http:// to a host that is not loopback is allowed by
// insecure: true in a DAG (the default), by --insecure on the command line, or not at all
// for $N8N_URL alone (seam mcp, seam serve).
const (
	FromDAG URLSource = iota
	FromFlag
	FromEnv
)

// Defaults of Config.
const (
	defaultTimeout    = 30 * time.Second
	defaultRetries    = 3
	defaultBackoff    = 250 * time.Millisecond
	defaultMaxBackoff = 5 * time.Second
	// maxResponse bounds a response body: an execution with data can be large, but not
	// without end.
	maxResponse = 64 << 20
)

// Client calls the public REST API v1 of one n8n instance. It is safe for concurrent use.
type Client struct {
	base   *url.URL // scheme and host, with any path prefix, without /api/v1
	key    string
	cfg    Config
	http   *http.Client
	jitter func() float64 // in [0, 1); replaceable so that tests are exact
}

// New checks cfg and returns a client. Plain http:// is refused for a host that is not
// loopback unless cfg.Insecure: the API key would cross the network in clear.
func New(cfg Config) (*Client, error) {
	if cfg.Lang == "" {
		cfg.Lang = i18n.English
	}
	u, err := baseURL(cfg.Lang, cfg.URL, cfg.Insecure, cfg.URLFrom)
	if err != nil {
		return nil, err
	}
	if cfg.APIKey == "" {
		return nil, i18n.Errorf(cfg.Lang, "n8n: no API key (set N8N_API_KEY, or api_key_env to the variable that holds it)")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.Retries == 0 {
		cfg.Retries = defaultRetries
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = defaultBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = defaultMaxBackoff
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: NewTransport()}
	}
	return &Client{base: u, key: cfg.APIKey, cfg: cfg, http: hc, jitter: rand.Float64}, nil
}

// In returns a client like c whose errors are said in lang. It shares c's connections: a
// server that answers each request in its own language calls it per request.
func (c *Client) In(lang i18n.Lang) *Client {
	if lang == "" {
		lang = i18n.English
	}
	if lang == c.cfg.Lang {
		return c
	}
	cc := *c
	cc.cfg.Lang = lang
	return &cc
}

// Lang is the language of c's errors.
func (c *Client) Lang() i18n.Lang { return c.cfg.Lang }

// idleTimeout closes our idle connections before n8n does: Node.js servers close a
// keep-alive connection idle for 5 s, and a request sent on it at that moment is reset —
// which no retry may repair for a POST.
const idleTimeout = 4 * time.Second

// NewTransport is the transport to reach n8n with: the default one, closing idle
// connections before n8n does, and keeping more of them per host than the default 2, so
// that concurrent nodes do not dial anew each call.
func NewTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.IdleConnTimeout = idleTimeout
	tr.MaxIdleConnsPerHost = 16
	return tr
}

// redactUserinfo hides what stands between "://" and the last "@" before the host of a URL
// that does not parse, where a password would be.
func redactUserinfo(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	host := strings.IndexAny(rest, "/?#")
	if host < 0 {
		host = len(rest)
	}
	if at := strings.LastIndex(rest[:host], "@"); at >= 0 {
		return scheme + "://xxxxx@" + rest[at+1:]
	}
	return raw
}

// baseURL checks an instance's URL and returns it without /api/v1. Plain http:// is refused
// for a host that is not loopback unless insecure; the fix it names is the one the URL's
// source (from) offers.
func baseURL(lang i18n.Lang, raw string, insecure bool, from URLSource) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, i18n.Errorf(lang, "n8n: no URL (set N8N_URL, or url in the node or the DAG's n8n block)")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// url's own error quotes the whole URL, a password in it too: give only its reason.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, i18n.Errorf(lang, "n8n: bad URL %s: %w", redactUserinfo(raw), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, i18n.Errorf(lang, "n8n: bad URL %q: want http(s)://host[:port]", u.Redacted())
	}
	if u.User != nil {
		return nil, i18n.Errorf(lang, "n8n: bad URL %s: credentials in the URL are not allowed; use the API key", u.Redacted())
	}
	if u.Scheme == "http" && !insecure && !isLoopback(u.Hostname()) {
		switch from {
		case FromEnv:
			return nil, i18n.Errorf(lang, "n8n: refusing plain http:// to %s, which is not loopback: the API key and the data would travel unencrypted; set N8N_URL to an https:// URL", u.Host)
		case FromFlag:
			return nil, i18n.Errorf(lang, "n8n: refusing plain http:// to %s, which is not loopback: the API key and the data would travel unencrypted; use https:// or pass --insecure", u.Host)
		}
		return nil, i18n.Errorf(lang, "n8n: refusing plain http:// to %s, which is not loopback: the API key and the data would travel unencrypted; use https:// or set insecure: true", u.Host)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v1")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// BaseURL is the instance's URL without /api/v1, e.g. for webhooks.
func (c *Client) BaseURL() string { return c.base.String() }

// MaskedKey is the client's API key masked for display.
func (c *Client) MaskedKey() string { return Mask(c.key) }

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Mask shows an API key as its first and last four characters, "abcd...wxyz"; a key too
// short for that to hide most of it is shown as "****".
func Mask(key string) string {
	if len(key) < 16 {
		return "****"
	}
	return key[:4] + "..." + key[len(key)-4:]
}

// sanitize replaces the API key in s by its mask.
func (c *Client) sanitize(s string) string {
	if len(c.key) < nodes.MinSecret { // as everywhere: masking "k" would garble every message
		return s
	}
	// The key as is shows masked the way the issue asks (abcd...wxyz); escaped forms, as
	// n8n may echo them, are masked by the shared masker.
	return nodes.MaskString(strings.ReplaceAll(s, c.key, Mask(c.key)), []string{c.key})
}

// APIError is an answer of n8n with an HTTP status of 400 or more.
type APIError struct {
	Method string
	Path   string // e.g. /api/v1/workflows/abc
	Status int
	// Message is n8n's message, or the start of the body when it sent none.
	Message string
	// Lang is the language Error says it in; n8n's message stays as n8n wrote it.
	Lang i18n.Lang
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("n8n %s %s: HTTP %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Status == http.StatusUnauthorized {
		msg += i18n.Sprintf(e.Lang, " (check the API key: N8N_API_KEY, or the variable api_key_env names)")
	}
	return msg
}

// StatusCode returns the HTTP status of an *APIError in err's chain, or 0.
func StatusCode(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// requestError is a request that got no HTTP answer. Its message is sanitised; the cause
// stays reachable for errors.Is (context.DeadlineExceeded).
type requestError struct {
	msg   string
	cause error
}

func (e *requestError) Error() string { return e.msg }
func (e *requestError) Unwrap() error { return e.cause }

// call is one API request.
type call struct {
	method string
	path   string // below /api/v1, e.g. /workflows
	query  url.Values
	body   any // encoded as JSON when not nil
	// idempotent calls are retried after a 429, 502, 503, 504 or a connection reset.
	idempotent bool
}

// do sends a call and decodes the JSON answer into out (unless out is nil).
func (c *Client) do(ctx context.Context, cl call, out any) error {
	var body []byte
	if cl.body != nil {
		var err error
		if body, err = json.Marshal(cl.body); err != nil {
			return i18n.Errorf(c.cfg.Lang, "n8n %s %s: encode body: %w", cl.method, cl.path, err)
		}
	}
	u := *c.base
	u.Path += "/api/v1" + cl.path
	if len(cl.query) > 0 {
		u.RawQuery = cl.query.Encode()
	}
	retries := 0
	if cl.idempotent && c.cfg.Retries > 0 {
		retries = c.cfg.Retries
	}
	for attempt := 0; ; attempt++ {
		data, status, retryAfter, err := c.send(ctx, cl.method, u.String(), body)
		retry := attempt < retries && ctx.Err() == nil &&
			(err != nil && isReset(err) || err == nil && retryable(status))
		if !retry {
			if err != nil {
				return &requestError{msg: c.sanitize(fmt.Sprintf("n8n %s %s: %v", cl.method, u.Path, err)), cause: err}
			}
			if status >= 400 {
				return &APIError{Method: cl.method, Path: u.Path, Status: status, Message: c.sanitize(errorMessage(data)), Lang: c.cfg.Lang}
			}
			if out == nil || len(bytes.TrimSpace(data)) == 0 {
				return nil
			}
			if err := json.Unmarshal(data, out); err != nil {
				return i18n.Errorf(c.cfg.Lang, "n8n %s %s: decode answer: %w", cl.method, u.Path, err)
			}
			return nil
		}
		wait := c.backoff(attempt, retryAfter)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return &requestError{msg: i18n.Sprintf(c.cfg.Lang, "n8n %s %s: %v while waiting to retry", cl.method, u.Path, ctx.Err()), cause: ctx.Err()}
		case <-t.C:
		}
	}
}

// send makes one HTTP request, bounded by the client's timeout.
func (c *Client) send(ctx context.Context, method, u string, body []byte) (data []byte, status int, retryAfter time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, 0, 0, err
	}
	req.Header.Set("X-N8N-API-KEY", c.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, 0, timeoutCause(ctx, c.cfg.Lang, err)
	}
	defer resp.Body.Close()
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, 0, 0, timeoutCause(ctx, c.cfg.Lang, i18n.Errorf(c.cfg.Lang, "read answer: %w", err))
	}
	if len(data) > maxResponse {
		return nil, 0, 0, i18n.Errorf(c.cfg.Lang, "answer larger than %d MiB", maxResponse>>20)
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if secs, perr := strconv.Atoi(s); perr == nil && secs >= 0 {
			retryAfter = time.Duration(secs) * time.Second
		}
	}
	return data, resp.StatusCode, retryAfter, nil
}

// timeoutCause names the per-request timeout when it is what stopped the request, since
// the transport only says "context deadline exceeded".
func timeoutCause(ctx context.Context, lang i18n.Lang, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return i18n.Errorf(lang, "%w (request timed out)", err)
	}
	return err
}

func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// isReset reports a connection the server dropped: reset, or closed before it answered.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.EPIPE)
}

// backoff is the wait before retry attempt+1: exponential with jitter, at least what the
// server asked for with Retry-After, at most MaxBackoff (or Retry-After when larger, up to
// a minute, since asking sooner is pointless).
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := c.cfg.Backoff << attempt
	if d <= 0 || d > c.cfg.MaxBackoff {
		d = c.cfg.MaxBackoff
	}
	d = d/2 + time.Duration(c.jitter()*float64(d/2))
	if retryAfter > d {
		d = min(retryAfter, time.Minute)
	}
	return d
}

// errorMessage is n8n's message from an error body, or the body's start.
func errorMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		return e.Message
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
