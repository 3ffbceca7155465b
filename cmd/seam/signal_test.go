package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dag/seam/runs"
)

// hangDAG runs a node that starts a sleep in the background and waits for it, writing the
// sleep's pid to sleep.pid: seam must kill it when stopped.
const hangDAG = `version: 1
name: hang
nodes:
  hang:
    type: exec
    with:
      command: 'sleep 60 & echo $! > sleep.pid; touch started; wait'
      shell: true
`

// waitFor polls until cond holds, failing the test after a generous bound (a loaded 2-core
// machine under -race starts processes slowly); it asserts nothing about how long it took.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processGone reports whether pid has exited: no such process, or a zombie nobody reaped.
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) STATE ...: comm may hold spaces, the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// sleepPID reads the pid the hang node's sleep wrote.
func sleepPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "sleep.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("sleep.pid: %v", err)
	}
	return pid
}

// TestRunStopSignals stops `seam run` with each signal a terminal, systemd, Docker or CI
// sends: seam cancels the run, kills the node's processes, records the run canceled, flushes
// its trace and exits 128+n, as a process killed by the signal would.
func TestRunStopSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	seam, err := exec.LookPath("seam") // testscript.Main put the test binary on PATH as seam
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGTERM, 143},
		{syscall.SIGHUP, 129},
		{syscall.SIGINT, 130},
	} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			store := filepath.Join(dir, "seam.db")
			if err := os.WriteFile(filepath.Join(dir, "hang.yaml"), []byte(hangDAG), 0o644); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			cmd := exec.Command(seam, "run", "--store", store, "--trace", "t.jsonl", "hang.yaml")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "SEAM_LANG=en", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			waitFor(t, "the node to start", func() bool { _, err := os.Stat(filepath.Join(dir, "started")); return err == nil })
			pid := sleepPID(t, dir)
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })

			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var xe *exec.ExitError
			if !errors.As(err, &xe) || xe.ExitCode() != tt.code {
				t.Fatalf("seam run after %v: %v, want exit status %d; output:\n%s", tt.sig, err, tt.code, out.String())
			}
			if !strings.Contains(out.String(), "canceled") {
				t.Errorf("seam run's output does not say canceled:\n%s", out.String())
			}
			// Killed with its group, it may take a moment to be scheduled and die.
			waitFor(t, "the node's sleep to end", func() bool { return processGone(pid) })
			trace, err := os.ReadFile(filepath.Join(dir, "t.jsonl"))
			if err != nil || !regexp.MustCompile(`(?m)^\{"name":"seam.run",.*"seam.status":"canceled"`).Match(trace) {
				t.Errorf("the trace file does not hold the canceled run (%v):\n%s", err, trace)
			}
			show := exec.Command(seam, "runs", "show", "latest", "--store", store)
			show.Dir = dir
			b, err := show.CombinedOutput()
			if err != nil || !regexp.MustCompile(`(?m)^run \S+  hang  canceled$`).Match(b) {
				t.Errorf("seam runs show latest: %v\n%s\nwant the run canceled", err, b)
			}
		})
	}
}

// TestMCPStopSignal stops `seam mcp` with SIGTERM while a run_dag run is going: the server
// cancels it, kills its processes, records it canceled and exits 143.
func TestMCPStopSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "seam.db")
	if err := os.WriteFile(filepath.Join(dir, "hang.yaml"), []byte(hangDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cs, cmd, stderr := startSeamMCP(ctx, t, dir, nil, "--root", dir, "--store", store)
	run := stdioCall(t, ctx, cs, "run_dag", map[string]any{"path": "hang.yaml"})
	id, _ := run.Data["id"].(string)
	if id == "" {
		t.Fatalf("run_dag: %q %v; want a run id", run.Message, run.Data)
	}
	waitFor(t, "the node to start", func() bool { _, err := os.Stat(filepath.Join(dir, "started")); return err == nil })
	pid := sleepPID(t, dir)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	cs.Close() // waits for the process
	if ps := cmd.ProcessState; ps == nil || ps.ExitCode() != 143 {
		t.Fatalf("seam mcp after SIGTERM: %v, want exit status 143; stderr: %s", ps, stderr)
	}
	waitFor(t, "the node's sleep to end", func() bool { return processGone(pid) })
	st, err := runs.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, _, err := st.GetRun(ctx, id)
	if err != nil || r.Status != "canceled" {
		t.Errorf("run %s after SIGTERM: %+v, %v; want canceled", id, r, err)
	}
}
