package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/httpserve"
)

// TestServeSlowLogin: a client that sends half a login form and then nothing, before any
// login, has its connection closed, as does one that leaves its connection idle.
func TestServeSlowLogin(t *testing.T) {
	f := newFixture(t, Options{Token: "s3cret-token-value"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	lim := httpserve.Limits{Body: 200 * time.Millisecond, Idle: 200 * time.Millisecond}
	go func() { done <- httpserve.Serve(ctx, ln, f.srv, time.Second, lim) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	for name, send := range map[string]string{
		"half a form": "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\ncsrf=00&token=",
		"idle":        "GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, send); err != nil {
				t.Fatal(err)
			}
			// The deadline only keeps a server that never closes from hanging the test.
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			b, err := io.ReadAll(c)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("the server kept the connection open (read %q)", b)
			}
			if name == "half a form" && (!strings.Contains(string(b), "400 Bad Request") || !strings.Contains(string(b), "the form could not be read: ")) {
				t.Errorf("answer %q, want 400 saying the form could not be read", b)
			}
		})
	}
}
