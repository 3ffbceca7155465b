package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// orphanDAG's node starts a shell that starts a sleep, and waits: the sleep is a grandchild
// of the node's process, which is all the kernel kills with seam (Pdeathsig). Its pid goes
// to sleep.pid in %[1]s (where a worker runs it may not be the DAG's folder). The sleep
// outlasts the bound waitFor puts on its death.
const orphanDAG = `version: 1
name: orphan
nodes:
  orphan:
    type: exec
    with:
      command: 'cd %[1]s; sh -c ''sleep 300 & echo $! > sleep.pid; wait'' & while [ ! -s sleep.pid ]; do sleep 0.01; done; touch started; wait'
      shell: true
`

// startOrphan writes orphanDAG into a folder of the test's own and starts seam there with
// args, a command that runs it; it returns seam once the node's grandchild is running, and
// the grandchild's pid.
func startOrphan(t *testing.T, env []string, args ...string) (seam int, sleep int, wait func()) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "orphan.yaml"), fmt.Appendf(nil, orphanDAG, dir), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, out := startSeam(t, dir, env, args...)
	waitFor(t, "the node to start", func() bool { _, err := os.Stat(filepath.Join(dir, "started")); return err == nil })
	pid := sleepPID(t, dir)
	t.Cleanup(func() {
		syscall.Kill(pid, syscall.SIGKILL)
		if t.Failed() {
			t.Logf("seam said:\n%s", out)
		}
	})
	return cmd.Process.Pid, pid, func() { cmd.Wait() }
}

// TestKilledRunKillsGrandchildren kills `seam run` with SIGKILL, which it cannot catch: what
// its node started dies with it, the node's process and that one's children alike.
func TestKilledRunKillsGrandchildren(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	seam, sleep, wait := startOrphan(t, nil, "run", "--store", "s.db", "orphan.yaml")
	if err := syscall.Kill(seam, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait()
	waitFor(t, "the node's grandchild to die with seam", func() bool { return processGone(sleep) })
}

// TestKilledWorkerKillsGrandchildren kills `seam worker` with SIGKILL mid-node: what the node
// started dies with it, so that Temporal's retry of the attempt elsewhere does not run beside
// an orphan of the first one.
func TestKilledWorkerKillsGrandchildren(t *testing.T) {
	env := temporalEnv(t)
	dir := t.TempDir()
	w := startWorker(t, dir, env, filepath.Join(dir, "s.db"))
	_, sleep, _ := startOrphan(t, env, "run", "--engine", "temporal", "--store", filepath.Join(dir, "s.db"), "orphan.yaml")
	if err := w.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w.Wait()
	waitFor(t, "the node's grandchild to die with the worker", func() bool { return processGone(sleep) })
}
