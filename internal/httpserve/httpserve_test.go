package httpserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// serveTest serves h within lim on a loopback port until the test ends, and returns the
// address.
func serveTest(t testing.TB, lim Limits, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, time.Second, lim) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return ln.Addr().String()
}

// echo answers with the body it read, or 408 when the body could not be read.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "body not read", http.StatusRequestTimeout)
		return
	}
	w.Write(b)
})

// closedByServer reads c until the server closes it. The long deadline only keeps a broken
// server from hanging the test; how soon the server closes is not asserted.
func closedByServer(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.Copy(io.Discard, c); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatal("the server kept the connection open")
		}
		// A reset is the server closing too.
	}
}

// TestSlowClients: a client that trickles its header or its body, or keeps a connection idle,
// has it closed by the server.
func TestSlowClients(t *testing.T) {
	lim := Limits{Header: 200 * time.Millisecond, Body: 200 * time.Millisecond, Idle: 200 * time.Millisecond}
	addr := serveTest(t, lim, echo)
	for _, tc := range []struct {
		name string
		send string // then nothing more
		read bool   // read one answer first
	}{
		{"half a header", "POST /login HTTP/1.1\r\nHost: x\r\n", false},
		{"half a body", "POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntoken=", false},
		{"idle after a request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, tc.send); err != nil {
				t.Fatal(err)
			}
			if tc.read {
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || resp.Close {
					t.Fatalf("answer %d (close %v), want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
				}
			}
			closedByServer(t, c)
		})
	}
}

// TestStreamsOutliveDeadlines: an event stream is answered past the write limit, and a
// request whose body has been read is not cancelled when the body limit passes.
func TestStreamsOutliveDeadlines(t *testing.T) {
	const events = 5
	lim := Limits{Body: 50 * time.Millisecond, Write: 50 * time.Millisecond}
	addr := serveTest(t, lim, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range events {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(4 * lim.Write):
			}
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
		}
	}))
	for _, method := range []string{"GET", "POST"} {
		t.Run(method, func(t *testing.T) {
			var body io.Reader
			if method == "POST" {
				body = strings.NewReader("{}")
			}
			req, _ := http.NewRequest(method, "http://"+addr+"/", body)
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("after %q: %v", b, err)
			}
			if got := strings.Count(string(b), "data: "); got != events {
				t.Errorf("got %d events (%q), want %d", got, b, events)
			}
		})
	}
}

// TestWriteLimit: an answer that is not an event stream is cut off past the write limit.
func TestWriteLimit(t *testing.T) {
	lim := Limits{Write: 50 * time.Millisecond}
	addr := serveTest(t, lim, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; r.Context().Err() == nil && i < 100; i++ {
			fmt.Fprintf(w, "line %d\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(lim.Write / 5)
		}
	}))
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err == nil {
		t.Errorf("the answer was written whole (%d lines) past the write limit", strings.Count(string(b), "\n"))
	}
}

// TestPerClient: a client past its connections is closed at once; once it closes one, it may
// open another.
func TestPerClient(t *testing.T) {
	lim := Limits{PerClient: 2, Header: time.Minute, Idle: time.Minute}
	addr := serveTest(t, lim, echo)
	get := func(c net.Conn) error {
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return err
		}
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	var open []net.Conn
	for range lim.PerClient {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := get(c); err != nil {
			t.Fatalf("connection %d of %d: %v", len(open)+1, lim.PerClient, err)
		}
		open = append(open, c)
	}
	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	if err := get(extra); err == nil {
		t.Fatal("a connection past the cap was served")
	}
	open[0].Close()
	// The server notices the close when it reads the connection: retry until it has.
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		err = get(c)
		c.Close()
		if err == nil {
			break
		}
		if i == 100 {
			t.Fatalf("no connection served after one was closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClientAddr: limits count IPv4 clients by address and IPv6 clients by their /64, so
// that a host cannot take every place by picking new addresses from its own network.
func TestClientAddr(t *testing.T) {
	for _, tt := range []struct{ remote, want string }{
		{"192.0.2.7:4000", "192.0.2.7"},
		{"[::ffff:192.0.2.7]:4000", "192.0.2.7"},
		{"[2001:db8:1:2:aaaa::1]:4000", "2001:db8:1:2::"},
		{"[2001:db8:1:2:bbbb::9]:5000", "2001:db8:1:2::"},
		{"[fe80::1%eth0]:4000", "fe80::"},
		{"[::1]:4000", "::"},
		{"@", "invalid IP"},
	} {
		if got := ClientAddr(tt.remote).String(); got != tt.want {
			t.Errorf("ClientAddr(%q) = %s, want %s", tt.remote, got, tt.want)
		}
	}
}

// TestStalledStreamClosed: an event stream whose client stops reading is ended once a write
// has waited the write limit, so that the handler returns and lets go of what it holds. The
// bound on the wait only keeps a broken server from hanging the test.
func TestStalledStreamClosed(t *testing.T) {
	lim := Limits{Write: 100 * time.Millisecond}
	ended := make(chan error, 1)
	chunk := []byte("data: " + strings.Repeat("x", 64<<10) + "\n\n")
	addr := serveTest(t, lim, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			if _, err := w.Write(chunk); err != nil {
				ended <- err
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Asks, then never reads: the socket buffers fill and the server's writes block.
	if _, err := io.WriteString(c, "GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the stalled stream ended with %v, want its write deadline", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a stream no one reads was still written to")
	}
}

// TestStreamsPerClient: a client address past its event streams is refused with 429 and a
// message; other requests from it are served, and once it closes a stream it may open
// another.
func TestStreamsPerClient(t *testing.T) {
	lim := Limits{Streams: 2}
	addr := serveTest(t, lim, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: open\n\n")
		w.(http.Flusher).Flush()
		if r.Header.Get("Accept") == "text/event-stream" {
			<-r.Context().Done()
		}
	}))
	stream := func() (*http.Response, context.CancelFunc, error) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/events", nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		return resp, cancel, nil
	}
	var open []context.CancelFunc
	for i := range lim.Streams {
		resp, cancel, err := stream()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d of %d: %v %v", i+1, lim.Streams, resp, err)
		}
		defer cancel()
		open = append(open, cancel)
	}
	resp, cancel, err := stream()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	cancel()
	if want := "this client holds 2 event streams open, its limit: close one, or retry once one has ended\n"; resp.StatusCode != http.StatusTooManyRequests || string(b) != want {
		t.Errorf("a stream past the cap: %d %q, want 429 %q", resp.StatusCode, b, want)
	}
	if plain, err := http.Get("http://" + addr + "/"); err != nil || plain.StatusCode != http.StatusOK {
		t.Errorf("a plain request of a client at its stream cap: %v %v", plain, err)
	} else {
		plain.Body.Close()
	}
	open[0]()
	// The server notices the client leaving when it reads the connection: retry until it has.
	for i := 0; ; i++ {
		resp, cancel, err := stream()
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if i == 100 {
			t.Fatalf("no stream served after one was closed: %d", resp.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
