//go:build unix

package proc

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWatchdog closes seam's end of the watchdog's pipe, as the kernel does when seam dies:
// the shell kills the groups it was told of, down to their leaders' children, and not those
// it was told to forget.
func TestWatchdog(t *testing.T) {
	g := &Watchdog{}
	forgotten, forgottenChild := startGroup(t)
	kept, keptChild := startGroup(t)
	g.add(forgotten)
	g.add(kept)
	g.remove(forgotten)
	if g.w == nil {
		t.Fatal("the watchdog did not start")
	}
	g.w.Close()
	// The shell kills in the order it was told; a forgotten group it had kept would go first.
	for deadline := time.Now().Add(time.Minute); alive(keptChild); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the watchdog did not kill group %d", kept)
		}
	}
	if !alive(forgottenChild) {
		t.Errorf("the watchdog killed group %d, which it was told to forget", forgotten)
	}
}

// startGroup starts a shell leading a process group of its own, whose child sleeps; the test
// kills both at its end.
func startGroup(t *testing.T) (leader, child int) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", "sleep 300 & echo $! > pid; wait")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child = readPid(t, filepath.Join(dir, "pid"))
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	return cmd.Process.Pid, child
}
