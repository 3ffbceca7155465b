package harden

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNotDumpable checks, in a child process so that this one stays as it is, that the
// process is no longer dumpable.
func TestNotDumpable(t *testing.T) {
	if os.Getenv("HARDEN_CHILD") == "1" {
		if err := NotDumpable(); err != nil {
			t.Fatal(err)
		}
		if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
			t.Fatalf("PR_GET_DUMPABLE = %d, %v; want 0", d, err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNotDumpable$")
	cmd.Env = append(os.Environ(), "HARDEN_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
