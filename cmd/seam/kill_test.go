package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dag/seam/runs"
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

// leaseDAG's node runs until killed, once it has said it started.
const leaseDAG = `version: 1
name: leased
nodes:
  slow:
    type: exec
    with: {command: 'touch started; exec sleep 300', shell: true}
`

// TestKilledRunLease kills `seam run` with SIGKILL on each store: the lease its process held
// expires within runs.LeaseFor of its death, so that a reader on any host, where its process
// cannot be checked, reads it interrupted then; `seam runs release` refuses the run while it
// lives and releases it once it is gone.
func TestKilledRunLease(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	onEachStore(t, "leased.yaml", leaseDAG, func(t *testing.T, dir, store string) {
		cmd, out := startSeam(t, dir, nil, "run", "--store", store, "leased.yaml")
		waitFor(t, "the node to start", func() bool { _, err := os.Stat(filepath.Join(dir, "started")); return err == nil })
		r, _ := latestRun(t, store)
		if r == nil || r.LeaseOwner == "" || !r.LeaseUntil.After(time.Now()) {
			t.Fatalf("the run of a live seam holds no live lease: %+v\n%s", r, out)
		}
		_, errOut, code := seamEnv(t, dir, nil, "runs", "release", r.ID, "--store", store)
		if want := "seam: run " + r.ID + " is still running: its owner " + r.LeaseOwner + " renewed its lease"; code != 1 || !strings.HasPrefix(errOut, want) {
			t.Errorf("runs release of a live run: exit %d, %s\nwant exit 1, %s…", code, errOut, want)
		}

		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		cmd.Wait()
		r, _ = latestRun(t, store)
		if r.Status != "running" || r.LeaseUntil.After(killed.Add(runs.LeaseFor)) {
			t.Fatalf("after kill -9: %s, lease until %v; want running, until %v at the latest", r.Status, r.LeaseUntil, killed.Add(runs.LeaseFor))
		}
		// Read where its process cannot be checked (another host; a pid reused), at its death
		// and once the lease has run out: a clock moved, not a wait.
		elsewhere := *r
		elsewhere.Host = "another-host"
		if elsewhere.InterruptedAt(killed) || !elsewhere.InterruptedAt(killed.Add(runs.LeaseFor+time.Nanosecond)) {
			t.Errorf("read from another host: interrupted at the kill %t, %s later %t; want false, true",
				elsewhere.InterruptedAt(killed), runs.LeaseFor, elsewhere.InterruptedAt(killed.Add(runs.LeaseFor+time.Nanosecond)))
		}

		show, _, _ := seamEnv(t, dir, nil, "runs", "show", r.ID, "--json", "--store", store)
		if !strings.Contains(show, `"status": "interrupted"`) {
			t.Errorf("runs show --json after kill -9:\n%s", show)
		}
		stdout, errOut, code := seamEnv(t, dir, nil, "runs", "release", r.ID, "--store", store)
		if code != 0 || !strings.Contains(stdout, "run "+r.ID+": released, recorded canceled") {
			t.Errorf("runs release of a dead run: exit %d\n%s%s", code, stdout, errOut)
		}
		if r, _ = latestRun(t, store); r.Status != "canceled" {
			t.Errorf("released run: %s, want canceled", r.Status)
		}
		_, errOut, code = seamEnv(t, dir, nil, "runs", "release", r.ID, "--store", store)
		if want := "seam: run " + r.ID + " has already finished: canceled\n"; code != 1 || errOut != want {
			t.Errorf("runs release of a released run: exit %d, %q; want exit 1, %q", code, errOut, want)
		}
	})
}

// TestKilledWorkerLease kills the `seam worker` hosting a run on Temporal with SIGKILL: the
// run, recorded with no process of its own, held its lease through that worker, which
// expires within runs.LeaseFor of the worker's death; the run then reads interrupted.
func TestKilledWorkerLease(t *testing.T) {
	env := temporalEnv(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "leased.yaml"), []byte(leaseDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "s.db")
	w := startWorker(t, dir, env, store)
	_, out := startSeam(t, dir, env, "run", "--engine", "temporal", "--store", store, "leased.yaml")
	var r *runs.Run
	// The node runs in the worker's folder: its start record says it runs.
	waitFor(t, "the node to start on the worker", func() bool {
		var as []runs.Attempt
		r, as = latestRun(t, store)
		return len(as) > 0 && as[0].IsStart()
	})
	if r.Host != runs.HostTemporal || !strings.Contains(r.LeaseOwner, fmt.Sprintf("/%d/", w.Process.Pid)) || r.InterruptedAt(time.Now()) {
		t.Fatalf("a run on a live worker: host %s, lease %q until %v; want the worker's (%d), live\n%s", r.Host, r.LeaseOwner, r.LeaseUntil, w.Process.Pid, out)
	}
	if err := w.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	w.Wait()
	r, _ = latestRun(t, store)
	if r.Status != "running" || r.LeaseUntil.After(killed.Add(runs.LeaseFor)) || !r.InterruptedAt(killed.Add(runs.LeaseFor+time.Nanosecond)) {
		t.Errorf("after the worker's kill -9: %s, lease until %v; want running, interrupted from %v at the latest", r.Status, r.LeaseUntil, killed.Add(runs.LeaseFor))
	}
}
