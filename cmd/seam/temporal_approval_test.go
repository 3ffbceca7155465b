package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// TestTemporalApprovalWorkerKilled runs dags/approval.yaml on Temporal with seam run --wait,
// kills (kill -9) the only worker while the approval waits, starts another, and answers with
// seam approve: the new worker takes the workflow up where it waited, the answer goes
// through its Update, and the run completes, which seam run --wait follows to its end.
func TestTemporalApprovalWorkerKilled(t *testing.T) {
	env := temporalEnv(t)
	src, err := os.ReadFile(filepath.Join("..", "..", "dags", "approval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeDAGs(t, map[string]string{"approval.yaml": string(src)})
	store := filepath.Join(dir, "s.db")
	w := startWorker(t, dir, env, store)
	run, out := startSeam(t, dir, env, "run", "--engine", "temporal", "--wait", "--store", store, "approval.yaml")
	t.Cleanup(func() {
		if run.ProcessState == nil {
			run.Process.Kill()
			run.Wait()
		}
	})
	// seam run --wait says so once the workflow has paused (PausedQuery answers), with the
	// run recorded waiting.
	waitFor(t, "the run to wait for its answer", func() bool { return strings.Contains(out.String(), "waits for approval review") })
	if r, _ := latestRun(t, store); r == nil || r.Status != dag.RunWaiting {
		t.Fatalf("the store's run: %+v, want it waiting", r)
	}
	if err := w.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w.Wait()
	startWorker(t, dir, env, store)
	r, _ := latestRun(t, store)
	if stdout, stderr, code := seamEnv(t, dir, env, "approve", "--store", store, r.ID, "review", "--set", "reply=On its way."); code != 0 {
		t.Fatalf("seam approve: exit %d\n%s%s", code, stdout, stderr)
	} else if want := "approval review of run " + r.ID + " answered; the process running the run continues it"; !strings.Contains(stderr, want) {
		t.Errorf("seam approve said %q, want %q", stderr, want)
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("seam run --wait: %v\n%s", err, out)
	}
	r, as := latestRun(t, store)
	if r.Status != dag.RunSuccess || string(r.Outputs) != `{"sent":"On its way."}` || r.Resumes != 1 || r.Host != runs.HostTemporal {
		t.Fatalf("the store's run: %s %s resumed %d times on %s; want success, sent, once, on Temporal", r.Status, r.Outputs, r.Resumes, r.Host)
	}
	for _, n := range runs.Summarize(as) {
		if n.Status() != dag.NodePassed {
			t.Errorf("node %s: %s, want passed", n.ID, n.Status())
		}
	}
}
