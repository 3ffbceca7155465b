// Package temporaltest gives tests the Temporal dev server that scripts/test.sh starts
// (scripts/temporal-server.sh), named by $SEAM_TEST_TEMPORAL, and the Temporal CLI it was
// built with, named by $SEAM_TEMPORAL_CLI.
package temporaltest

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// Env names the variable that gives the tests a server: the host:port of its frontend, whose
// namespace "default" exists.
const Env = "SEAM_TEST_TEMPORAL"

// CLIEnv names the variable that gives the tests the path of the Temporal CLI binary.
const CLIEnv = "SEAM_TEMPORAL_CLI"

// Server returns the host:port in Env, or skips the test, saying why, when it is not set.
func Server(t testing.TB) string {
	t.Helper()
	return lookup(t, Env, "the Temporal tests need a server")
}

// CLI returns the path of the Temporal CLI in CLIEnv, or skips the test, saying why, when it
// is not set.
func CLI(t testing.TB) string {
	t.Helper()
	return lookup(t, CLIEnv, "the test needs the Temporal CLI")
}

func lookup(t testing.TB, name, need string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Skip(name + " is not set: " + need + " (set by scripts/test.sh; SEAM_SKIP_TEMPORAL=1 skips)")
	}
	return v
}

// Client dials the server in Env with opts, the SDK's log discarded unless opts has one, and
// closes it when the test ends; it skips the test when Env is not set.
func Client(t testing.TB, opts client.Options) client.Client {
	t.Helper()
	opts.HostPort = Server(t)
	if opts.Logger == nil {
		opts.Logger = log.NewStructuredLogger(slog.New(slog.DiscardHandler))
	}
	c, err := client.Dial(opts)
	if err != nil {
		t.Fatalf("dial Temporal at %s: %v", opts.HostPort, err)
	}
	t.Cleanup(c.Close)
	return c
}

// Queue returns a task queue name of its own, so that the workers of one test never take
// another's runs.
func Queue() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "test-" + hex.EncodeToString(b[:])
}

// Worker starts an SDK worker of c on a task queue of its own, with what register registers,
// stops it when the test ends, and returns the queue.
func Worker(t testing.TB, c client.Client, opts worker.Options, register func(worker.Worker)) string {
	t.Helper()
	queue := Queue()
	w := worker.New(c, queue, opts)
	register(w)
	if err := w.Start(); err != nil {
		t.Fatalf("start worker on %s: %v", queue, err)
	}
	t.Cleanup(w.Stop)
	return queue
}
