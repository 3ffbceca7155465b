// Package httpserve serves HTTP until a context ends, then shuts down gracefully: the event
// streams clients hold open end at once, other requests get a grace period.
package httpserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Serve serves h on ln until ctx is cancelled, then shuts down: the event streams clients
// hold open (GET requests, which never become idle) end at once, and requests in flight get
// at most grace to finish before their connections are closed.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	streams, endStreams := context.WithCancel(context.WithoutCancel(ctx))
	defer endStreams()
	hs := &http.Server{
		Handler:           endOnShutdown(streams, h),
		ReadHeaderTimeout: 10 * time.Second,
	}
	hs.RegisterOnShutdown(endStreams)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
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
