// Package temporaltest gives tests the Temporal dev server that scripts/test.sh starts
// (scripts/temporal-server.sh), named by $SEAM_TEST_TEMPORAL, and the Temporal CLI it was
// built with, named by $SEAM_TEMPORAL_CLI.
package temporaltest

import (
	"os"
	"testing"
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
