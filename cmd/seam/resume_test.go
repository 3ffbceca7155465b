package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/runs"
)

// crashDAG: a feeds b, p1..p4 run beside it, hang needs all of them and waits for a file
// named release, d follows hang. Every node saves the input it was handed (ID.in), counts
// its runs (ID.count) and puts its shell's pid in its output, so an output produced again
// would differ from the one handed on.
func crashDAG() string {
	node := func(id string, needs ...string) string {
		s := fmt.Sprintf("  %s:\n    type: exec\n    with:\n      shell: true\n", id)
		wait := ""
		if id == "hang" {
			wait = "touch hang.started; while [ ! -f release ]; do sleep 0.05; done; "
		}
		s += fmt.Sprintf("      command: 'cat > %[1]s.in; echo ran >> %[1]s.count; %[2]sprintf \"{\\\"status\\\":\\\"pass\\\",\\\"summary\\\":\\\"%[1]s\\\",\\\"data\\\":{\\\"pid\\\":\\\"%%s\\\"}}\" $$'\n", id, wait)
		if len(needs) > 0 {
			s += "    needs: [" + strings.Join(needs, ", ") + "]\n"
		}
		return s
	}
	return "version: 1\nname: crash\nconcurrency: 4\nnodes:\n" +
		node("a") + node("b", "a") + node("p1") + node("p2") + node("p3") + node("p4") +
		node("hang", "b", "p1", "p2", "p3", "p4") + node("d", "hang")
}

// TestKillResume kills `seam run` with SIGKILL while a node runs, checks that every output
// handed downstream before the kill is in the store, then resumes the run to success
// without running again any node whose output was handed on.
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	seam, err := exec.LookPath("seam") // testscript.Main put the test binary on PATH as seam
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "store", "seam.db")
	if err := os.WriteFile(filepath.Join(dir, "crash.yaml"), []byte(crashDAG()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Whatever happens, let the orphaned hang node end.
	t.Cleanup(func() { os.WriteFile(filepath.Join(dir, "release"), nil, 0o644) })

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	seamCmd := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, seam, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SEAM_LANG=en", "SEAM_STORE="+store)
		return cmd
	}

	var out bytes.Buffer
	first := seamCmd("run", "--no-lint", "crash.yaml")
	first.Stdout, first.Stderr = &out, &out
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- first.Wait() }()
	// Generous: under -race on a loaded 2-core machine a process start takes seconds.
	deadline := time.After(3 * time.Minute)
	for !exists(filepath.Join(dir, "hang.started")) {
		select {
		case err := <-exited:
			t.Fatalf("seam run exited (%v) before hang started:\n%s", err, &out)
		case <-deadline:
			t.Fatalf("hang did not start:\n%s", &out)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	hangIn := readFile(t, dir, "hang.in")

	s, err := runs.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, _, err := s.ListRuns(ctx, runs.Filter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("runs after the kill: %v, %v; want one", list, err)
	}
	id := list[0].ID
	if list[0].Status != "running" {
		t.Errorf("run %s after kill -9: %s, want running", id, list[0].Status)
	}
	// Every input a node was handed (ID.in: upstream outputs by id) must be in the store
	// as its producer's passed output.
	stored := finalOutputs(t, s, id)
	handed := 0
	for _, node := range []string{"b", "hang"} {
		var in map[string]any
		if err := json.Unmarshal([]byte(readFile(t, dir, node+".in")), &in); err != nil {
			t.Fatalf("%s.in: %v", node, err)
		}
		for dep, v := range in {
			handed++
			if got, ok := stored[dep]; !ok || !reflect.DeepEqual(got, v) {
				t.Errorf("%s was handed %s's output %v; the store has %v (found %t)", node, dep, v, got, ok)
			}
		}
	}
	if handed != 6 {
		t.Errorf("%d outputs handed on before the kill, want 6 (a; b, p1..p4)", handed)
	}

	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	resume := seamCmd("run", "--no-lint", "--resume", id)
	res, err := resume.CombinedOutput()
	if err != nil {
		t.Fatalf("seam run --resume %s: %v\n%s", id, err, res)
	}
	if !strings.Contains(string(res), "run "+id+" success in ") {
		t.Errorf("resume output:\n%s", res)
	}
	// The nodes whose outputs were handed on ran once; hang ran again and was handed the
	// same outputs; d ran after it.
	for node, want := range map[string]int{"a": 1, "b": 1, "p1": 1, "p2": 1, "p3": 1, "p4": 1, "hang": 2, "d": 1} {
		if n := strings.Count(readFile(t, dir, node+".count"), "ran"); n != want {
			t.Errorf("%s ran %d times, want %d", node, n, want)
		}
	}
	if got := readFile(t, dir, "hang.in"); got != hangIn {
		t.Errorf("hang's input after the resume:\n%s\nbefore the kill:\n%s", got, hangIn)
	}
	r, _, err := s.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "success" || r.Resumes != 1 {
		t.Errorf("run after resume: %s, %d resumes; want success, 1", r.Status, r.Resumes)
	}
	after := finalOutputs(t, s, id)
	for node, v := range stored {
		if !reflect.DeepEqual(after[node], v) {
			t.Errorf("%s's output changed by the resume: %v, was %v", node, after[node], v)
		}
	}
}

// finalOutputs returns the decoded output of every node whose latest deciding attempt passed.
func finalOutputs(t *testing.T, s runs.Store, id string) map[string]any {
	t.Helper()
	_, as, err := s.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for _, a := range as {
		if !a.Final || a.Item >= 0 {
			continue
		}
		delete(out, a.Node)
		if a.Status != "passed" {
			continue
		}
		b, err := s.Output(context.Background(), a.OutputHash)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		out[a.Node] = v
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
