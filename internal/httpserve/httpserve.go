// Package httpserve serves HTTP until a context ends, then shuts down gracefully: the event
// streams clients hold open end at once, other requests get a grace period. While it serves,
// it bounds what one client may hold: time to send a request's header and body, an idle
// keep-alive connection, time to take an answer, and connections open at once.
package httpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/seam-dag/seam/internal/i18n"
)

// Limits bound what one client may hold of a server (docs/limits.md). A zero field is its
// default.
type Limits struct {
	// Header is how long a client may take to send a request's header (default 10 s).
	Header time.Duration
	// Body is how long a client may take to send a request's body once its header is in
	// (default 30 s): a POST trickled a byte at a time is cut off.
	Body time.Duration
	// Idle is how long a keep-alive connection may wait for its next request (default 60 s).
	Idle time.Duration
	// Write is how long an answer may take to be written (default 60 s). An event stream (a
	// request that accepts text/event-stream: SSE, every request of MCP's streamable HTTP)
	// lasts as long as it needs, but each of its writes gets Write from its start: a client
	// that stops reading has its stream closed once a write has waited that long, and what
	// the write held is let go.
	Write time.Duration
	// PerClient caps the connections one client address holds open at once (default 64);
	// one more is closed as soon as it is accepted.
	PerClient int
	// Streams caps the event streams one client address holds open at once (default 16,
	// well under what a browser's tabs hold): one more is refused by TooManyStreams. Without
	// it a few addresses would hold every stream a server allows (seam serve: 200).
	Streams int
	// TooManyStreams answers a stream refused past Streams; nil answers 429 with a message
	// in English.
	TooManyStreams func(w http.ResponseWriter, r *http.Request, max int)
}

// Defaults of Limits.
const (
	DefaultHeader    = 10 * time.Second
	DefaultBody      = 30 * time.Second
	DefaultIdle      = 60 * time.Second
	DefaultWrite     = 60 * time.Second
	DefaultPerClient = 64
	DefaultStreams   = 16
)

func (l Limits) withDefaults() Limits {
	for _, f := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&l.Header, DefaultHeader}, {&l.Body, DefaultBody}, {&l.Idle, DefaultIdle}, {&l.Write, DefaultWrite}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	if l.PerClient <= 0 {
		l.PerClient = DefaultPerClient
	}
	if l.Streams <= 0 {
		l.Streams = DefaultStreams
	}
	if l.TooManyStreams == nil {
		l.TooManyStreams = func(w http.ResponseWriter, r *http.Request, max int) {
			http.Error(w, TooManyStreams(i18n.English, max), http.StatusTooManyRequests)
		}
	}
	return l
}

// TooManyStreams says, in lang, that a client holds max event streams, its limit.
func TooManyStreams(lang i18n.Lang, max int) string {
	return i18n.Sprintf(lang, "this client holds %d event streams open, its limit: close one, or retry once one has ended", max)
}

// Serve serves h on ln within lim until ctx is cancelled, then shuts down: the event streams
// clients hold open (GET requests, which never become idle) end at once, and requests in
// flight get at most grace to finish before their connections are closed.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration, lim Limits) error {
	lim = lim.withDefaults()
	streams, endStreams := context.WithCancel(context.WithoutCancel(ctx))
	defer endStreams()
	// No ReadTimeout or WriteTimeout: they hold for the whole connection, and a deadline
	// passing under an event stream cancels its request. deadlines sets them per request.
	hs := &http.Server{
		Handler:           endOnShutdown(streams, deadlines(lim, &streamCount{open: map[netip.Addr]int{}}, h)),
		ReadHeaderTimeout: lim.Header,
		IdleTimeout:       lim.Idle,
	}
	hs.RegisterOnShutdown(endStreams)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(&perClient{Listener: ln, max: lim.PerClient, open: map[netip.Addr]int{}}) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close() // requests still running after the grace period
	}
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("shut down %s: %w", ln.Addr(), err)
	}
	return nil
}

// endOnShutdown cancels the context of GET requests when streams is done, so that a
// shutdown need not wait for the event streams.
func endOnShutdown(streams context.Context, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			defer context.AfterFunc(streams, cancel)()
			r = r.WithContext(ctx)
		}
		h.ServeHTTP(w, r)
	})
}

// deadlines gives each request lim.Body to send its body and lim.Write to take its answer;
// an event stream gets lim.Write for each write instead, and counts against lim.Streams of
// its client (in open). The read deadline is lifted once the body is read: past it the
// server reads the connection only to notice the client leaving, and a deadline passing
// then would cancel the request.
func deadlines(lim Limits, open *streamCount, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		// Always set: a keep-alive connection keeps the write deadline of its last request.
		wd := time.Now().Add(lim.Write)
		if strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			ip := ClientAddr(r.RemoteAddr)
			if !open.take(ip, lim.Streams) {
				lim.TooManyStreams(w, r, lim.Streams)
				return
			}
			defer open.release(ip)
			w = &streamWriter{ResponseWriter: w, rc: rc, per: lim.Write}
			wd = time.Time{} // a quiet stream is no slow client: each write sets its own
			// What the server writes once the handler returns (a chunked answer's end).
			defer func() { rc.SetWriteDeadline(time.Now().Add(lim.Write)) }()
		}
		rc.SetWriteDeadline(wd) // fails only for a writer that has no deadlines (tests)
		if r.Body != nil && r.Body != http.NoBody {
			rc.SetReadDeadline(time.Now().Add(lim.Body))
			r.Body = &bodyRead{ReadCloser: r.Body, done: func() { rc.SetReadDeadline(time.Time{}) }}
		}
		h.ServeHTTP(w, r)
	})
}

// streamWriter is an event stream's writer: each write and flush must be done within per
// from its start. The deadline is renewed as each one starts, so a stream may stay quiet for
// as long as it likes, but a write that the client does not take fails at its deadline,
// which ends the handler's stream and lets go of what the write held.
type streamWriter struct {
	http.ResponseWriter
	rc  *http.ResponseController
	per time.Duration
}

func (s *streamWriter) Write(p []byte) (int, error) {
	s.rc.SetWriteDeadline(time.Now().Add(s.per))
	return s.ResponseWriter.Write(p)
}

func (s *streamWriter) Flush() { s.FlushError() }

// FlushError flushes as http.ResponseController.Flush does, within the write's deadline.
func (s *streamWriter) FlushError() error {
	s.rc.SetWriteDeadline(time.Now().Add(s.per))
	return s.rc.Flush()
}

// Unwrap lets http.NewResponseController reach the server's writer.
func (s *streamWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// streamCount counts the event streams open by client address.
type streamCount struct {
	mu   sync.Mutex
	open map[netip.Addr]int // absent is 0
}

// take counts one more stream of ip, unless it holds max already.
func (c *streamCount) take(ip netip.Addr, max int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[ip] >= max {
		return false
	}
	c.open[ip]++
	return true
}

func (c *streamCount) release(ip netip.Addr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[ip]--; c.open[ip] <= 0 {
		delete(c.open, ip)
	}
}

// bodyRead calls done once its body has been read to the end.
type bodyRead struct {
	io.ReadCloser
	done func()
	once sync.Once
}

func (b *bodyRead) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.once.Do(b.done)
	}
	return n, err
}

// perClient closes a connection accepted past max open from its client's address.
type perClient struct {
	net.Listener
	max int

	mu   sync.Mutex
	open map[netip.Addr]int // connections open by client address; absent is 0
}

func (l *perClient) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := ClientAddr(c.RemoteAddr().String())
		l.mu.Lock()
		if l.open[ip] >= l.max {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.open[ip]++
		l.mu.Unlock()
		return &counted{Conn: c, release: func() { l.release(ip) }}, nil
	}
}

func (l *perClient) release(ip netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[ip]--; l.open[ip] <= 0 {
		delete(l.open, ip)
	}
}

// ClientAddr is the address per-client limits count a client at remote by (a connection's
// RemoteAddr, a request's): an IPv4 address as it is (IPv4 in IPv6 unmapped), an IPv6 one by
// its /64, since one host is given a whole /64 and may pick any address in it; the zero Addr
// for a listener that has none (all such clients then share one count). Behind a reverse
// proxy it is the proxy's.
func ClientAddr(remote string) netip.Addr {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return netip.Addr{}
	}
	a := ap.Addr().Unmap()
	if a.Is6() {
		p, _ := a.WithZone("").Prefix(64) // an IPv6 address always has a /64
		return p.Addr()
	}
	return a
}

// counted is a connection that gives back its place once closed.
type counted struct {
	net.Conn
	release func()
	once    sync.Once
}

func (c *counted) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// MinToken is the fewest characters a token that guards a server may have: a short one is
// guessed.
const MinToken = 16

// CheckToken refuses a token set in the variable name that is shorter than MinToken; no
// token ("") passes, the caller decides whether one is needed. The error never holds the
// token.
func CheckToken(name, token string, lang i18n.Lang) error {
	if n := utf8.RuneCountInString(token); token != "" && n < MinToken {
		return i18n.Errorf(lang, "%s is %d characters long: a token needs at least %d, e.g. one that openssl rand -hex 24 draws", name, n, MinToken)
	}
	return nil
}
