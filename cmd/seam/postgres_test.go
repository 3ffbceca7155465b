package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/seam-dag/seam/internal/pgtest"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// stepsDAG runs three exec nodes one after the other; each leaves a file behind, so that a
// test can tell which ran, and takes a moment, so that a test can act while it runs.
const stepsDAG = `version: 1
name: steps
nodes:
  one:
    type: exec
    with: {command: 'touch one.ran; sleep 0.3; echo "{\"status\":\"pass\",\"summary\":\"one\",\"data\":{\"n\":1}}"', shell: true}
  two:
    type: exec
    input: {n: "${{ nodes.one.output.data.n }}"}
    with: {command: 'touch two.ran; sleep 0.3; echo "{\"status\":\"pass\",\"summary\":\"two\",\"data\":{\"n\":2}}"', shell: true}
  three:
    type: exec
    input: {n: "${{ nodes.two.output.data.n }}"}
    with: {command: 'touch three.ran; sleep 0.3; echo "{\"status\":\"pass\",\"summary\":\"three\",\"data\":{\"n\":3}}"', shell: true}
outputs:
  n: "${{ nodes.three.output.data.n }}"
`

// seamEnv runs the seam executable in dir with extra environment and returns its stdout,
// its stderr and its exit code.
func seamEnv(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	seam, err := exec.LookPath("seam") // testscript.Main put the test binary on PATH as seam
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(seam, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "SEAM_LANG=en"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// writeDAGs writes files (name → content) into a new temp dir and returns it.
func writeDAGs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPostgresStoreCLI runs, lists, shows, explains, watches and migrates with a PostgreSQL
// store, by --store and by $SEAM_STORE; the DSN's password appears in none of the output,
// the trace or the store, nor in the error for a wrong password.
func TestPostgresStoreCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dsn := pgtest.Database(t)
	pw := pgtest.Password(dsn)
	dir := writeDAGs(t, map[string]string{"steps.yaml": stepsDAG})
	var all strings.Builder
	check := func(args []string, env []string, wantCode int, want string) string {
		t.Helper()
		out, errOut, code := seamEnv(t, dir, env, args...)
		all.WriteString(out + errOut)
		if code != wantCode || !strings.Contains(out+errOut, want) {
			t.Errorf("seam %s: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, want, out, errOut)
		}
		return out
	}
	check([]string{"store", "migrate", "--store", dsn}, nil, 0, "store "+runs.Redact(dsn)+": schema version 0 → 8")
	check([]string{"store", "migrate", "--store", dsn}, nil, 0, "is up to date (schema version 8)")
	check([]string{"run", "--store", dsn, "--trace", "trace.jsonl", "steps.yaml"}, nil, 0, "success")
	env := []string{"SEAM_STORE=" + dsn}
	check([]string{"run", "--no-migrate", "steps.yaml"}, env, 0, "success")
	list := check([]string{"runs", "list", "--json"}, env, 0, `"status": "success"`)
	var listed []struct{ ID string }
	if err := json.Unmarshal([]byte(list), &listed); err != nil || len(listed) != 2 {
		t.Fatalf("runs list --json: %v, %d runs\n%s", err, len(listed), list)
	}
	check([]string{"runs", "show", "latest", "--json"}, env, 0, `"id": "three"`)
	check([]string{"runs", "show", listed[1].ID}, env, 0, "✓ three")
	check([]string{"explain", "latest", "two"}, env, 0, "two")
	check([]string{"runs", "watch", "latest"}, env, 0, "run "+listed[0].ID+": success")

	// A wrong password: refused before anything runs, without the password it was given.
	bad := strings.Replace(dsn, ":"+pw+"@", ":wrong"+pw+"@", 1)
	check([]string{"run", "--store", bad, "steps.yaml"}, nil, 2, "fix: check the server is up and the URL, user and password are right")
	check([]string{"runs", "list", "--store", bad}, nil, 2, "password authentication failed")

	trace, err := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	all.Write(trace)
	s, err := runs.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range listed {
		run, as, err := s.GetRun(t.Context(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(struct {
			R  *runs.Run
			As []runs.Attempt
		}{run, as})
		all.Write(b)
	}
	if strings.Contains(all.String(), pw) {
		t.Errorf("the DSN's password appears in seam's output, trace or store")
	}
	if !strings.Contains(all.String(), "xxxxx") {
		t.Errorf("no message named the store (redacted): the check above proves little")
	}
}

// runIDs matches run ids (engine.NewRunID), which differ between two runs of one DAG, and
// durations, said in logs.
var (
	runIDs    = regexp.MustCompile(`\d{8}T\d{6}\.\d{3}-[0-9a-f]{8}`)
	durations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s)\b`)
)

// normalRun is what two stores must agree on about a run (runs show --json): not its ids,
// times and durations, which depend on when it ran.
func normalRun(t *testing.T, show string) string {
	t.Helper()
	var doc map[string]any
	show = durations.ReplaceAllString(runIDs.ReplaceAllString(show, "RUN"), "TIME")
	if err := json.Unmarshal([]byte(show), &doc); err != nil {
		t.Fatalf("runs show --json: %v\n%s", err, show)
	}
	var strip func(v any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			// Times: an approval's opening, deadline and answer, and a resume's, as well as the run's.
			for _, k := range []string{"started", "ended", "duration_ms", "opened", "deadline", "at", "resumed_at"} {
				delete(v, k)
			}
			for _, x := range v {
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
			// Nodes that run at once finish in any order: compare them sorted.
			slices.SortFunc(v, func(a, b any) int {
				ja, _ := json.Marshal(a)
				jb, _ := json.Marshal(b)
				return strings.Compare(string(ja), string(jb))
			})
		}
	}
	strip(doc)
	b, _ := json.MarshalIndent(doc, "", " ")
	return string(b)
}

// TestTwoStoresSameAnswers runs the same DAGs, each in a process of its own, on an SQLite
// and a PostgreSQL store: seam runs show answers the same on both.
func TestTwoStoresSameAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dsn := pgtest.Database(t)
	examples, err := filepath.Abs("../../dags")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, file := range []string{"hello.yaml", "fan-in.yaml", "foreach.yaml", "broken-contract.yaml", "transform.yaml", "sub-dag.yaml"} {
		t.Run(file, func(t *testing.T) {
			var shows []string
			for _, store := range []string{filepath.Join(dir, "s.db"), dsn} {
				_, errOut, code := seamEnv(t, examples, nil, "run", "--store", store, file)
				if code > 1 {
					t.Fatalf("seam run %s on %s: exit %d\n%s", file, runs.Redact(store), code, errOut)
				}
				show, errOut, code := seamEnv(t, examples, nil, "runs", "show", "latest", "--json", "--store", store)
				if code != 0 {
					t.Fatalf("runs show on %s: exit %d\n%s", runs.Redact(store), code, errOut)
				}
				shows = append(shows, normalRun(t, show))
			}
			if shows[0] != shows[1] {
				t.Errorf("SQLite and PostgreSQL disagree on %s:\nSQLite:\n%s\nPostgreSQL:\n%s", file, shows[0], shows[1])
			}
		})
	}
}

// TestConcurrentRunsPostgres starts 10 `seam run` at once on one new PostgreSQL store: the
// first ones race to create its schema, and every run is recorded whole.
func TestConcurrentRunsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dsn := pgtest.Database(t)
	examples, err := filepath.Abs("../../dags")
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	var wg sync.WaitGroup
	outs := make([]string, n)
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() {
			var errOut string
			_, errOut, codes[i] = seamEnv(t, examples, []string{"SEAM_STORE=" + dsn}, "run", "fan-in.yaml")
			outs[i] = errOut
		})
	}
	wg.Wait()
	for i := range n {
		if codes[i] != 0 {
			t.Errorf("run %d: exit %d\n%s", i, codes[i], outs[i])
		}
	}
	s, err := runs.OpenReadOnly(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, _, err := s.ListRuns(t.Context(), runs.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Fatalf("%d runs recorded, want %d", len(list), n)
	}
	for _, r := range list {
		_, as, err := s.GetRun(t.Context(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "warn" || len(runs.Summarize(as)) != 4 {
			t.Errorf("run %s: %s with %d nodes, want warn with 4", r.ID, r.Status, len(runs.Summarize(as)))
		}
	}
}

// startSeam starts seam with args in dir in the background and returns its command and its
// output, which the test may read while seam writes it.
func startSeam(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	seam, err := exec.LookPath("seam")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(seam, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "SEAM_LANG=en"), env...)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, out
}

// onEachStore runs test as a subtest on an SQLite store and on a PostgreSQL one, each in a
// folder of its own holding text as the DAG file name.
func onEachStore(t *testing.T, name, text string, test func(t *testing.T, dir, store string)) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			dir := writeDAGs(t, map[string]string{name: text})
			store := filepath.Join(dir, "s.db")
			if kind == "postgres" {
				store = pgtest.Database(t)
			}
			test(t, dir, store)
		})
	}
}

// latestRun returns the newest run in the store, or nil when there is none yet.
func latestRun(t *testing.T, store string) (*runs.Run, []runs.Attempt) {
	t.Helper()
	s, err := runs.OpenReadOnly(t.Context(), store)
	if err != nil {
		return nil, nil // not created yet
	}
	defer s.Close()
	list, _, err := s.ListRuns(t.Context(), runs.Filter{Limit: 1})
	if err != nil || len(list) == 0 {
		return nil, nil
	}
	r, as, err := s.GetRun(t.Context(), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return r, as
}

// TestKillAndResume kills `seam run` (SIGKILL) once its first node is recorded, on either
// store: the run shows as interrupted, and --resume finishes it, reusing the node that passed.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	onEachStore(t, "steps.yaml", stepsDAG, func(t *testing.T, dir, store string) {
		cmd, out := startSeam(t, dir, nil, "run", "--store", store, "steps.yaml")
		var id string
		waitFor(t, "node one to be recorded", func() bool {
			r, as := latestRun(t, store)
			// Its end, not its start (recorded while it runs).
			if r != nil && len(as) > 0 && as[0].Node == "one" && as[0].Status == "passed" {
				id = r.ID
			}
			return id != ""
		})
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		show, _, _ := seamEnv(t, dir, nil, "runs", "show", id, "--store", store)
		if !strings.Contains(show, "interrupted") {
			t.Errorf("runs show after kill -9:\n%s\n(seam run said: %s)", show, out)
		}
		for _, f := range []string{"one.ran", "two.ran", "three.ran"} {
			os.Remove(filepath.Join(dir, f))
		}
		stdout, errOut, code := seamEnv(t, dir, nil, "run", "--resume", id, "--store", store)
		if code != 0 {
			t.Fatalf("resume: exit %d\n%s%s", code, stdout, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "one.ran")); err == nil {
			t.Errorf("the resume ran node one again instead of reusing its output")
		}
		if _, err := os.Stat(filepath.Join(dir, "three.ran")); err != nil {
			t.Errorf("the resume did not run node three")
		}
		r, _ := latestRun(t, store)
		if r.Status != "success" || r.Resumes != 1 {
			t.Errorf("run after resume: %s, %d resumes", r.Status, r.Resumes)
		}
	})
}

// TestPostgresRestartMidRun restarts the server (pg_ctl restart) while `seam run` runs: the
// run goes on and is recorded whole. Then, with the server down for longer than
// $SEAM_STORE_RETRY, a run stops at its next write, saying why, and runs nothing after it.
func TestPostgresRestartMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server of its own")
	}
	dsn, ctl := pgtest.Cluster(t)
	pw := pgtest.Password(dsn)
	dir := writeDAGs(t, map[string]string{"steps.yaml": stepsDAG})
	cmd, out := startSeam(t, dir, nil, "run", "--store", dsn, "steps.yaml")
	waitFor(t, "node one to start", func() bool {
		_, err := os.Stat(filepath.Join(dir, "one.ran"))
		return err == nil
	})
	if err := ctl("restart"); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("seam run across a restart: %v\n%s", err, out)
	}
	r, as := latestRun(t, dsn)
	if r == nil || r.Status != "success" || len(runs.Summarize(as)) != 3 || len(as) != 3 {
		t.Errorf("run across a restart: %+v, %d attempts; want success with 3", r, len(as))
	}

	for _, f := range []string{"one.ran", "two.ran", "three.ran"} {
		os.Remove(filepath.Join(dir, f))
	}
	cmd, out = startSeam(t, dir, []string{"SEAM_STORE_RETRY=2s"}, "run", "--store", dsn, "steps.yaml")
	waitFor(t, "node one to start", func() bool {
		_, err := os.Stat(filepath.Join(dir, "one.ran"))
		return err == nil
	})
	if err := ctl("down"); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if err := ctl("up"); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("seam run with its store down: %v, want exit 1\n%s", err, out)
	}
	// Which write meets the server down depends on how fast pg_ctl stops it: node one's, or
	// (when one committed first) node two's. Either way the node after it never runs.
	msg := regexp.MustCompile(`record attempt \S+/(one|two|three) #1 in ` + regexp.QuoteMeta(runs.Redact(dsn)) + `: unreachable for 2s \(`)
	m := msg.FindStringSubmatch(out.String())
	if m == nil {
		t.Errorf("seam run with its store down does not say why it stopped:\n%s", out)
	} else if next := map[string]string{"one": "two", "two": "three"}[m[1]]; next != "" {
		if _, err := os.Stat(filepath.Join(dir, next+".ran")); err == nil {
			t.Errorf("node %s ran after node %s's output could not be recorded", next, m[1])
		}
	}
	if strings.Contains(out.String(), pw) {
		t.Errorf("the password appears in seam run's output")
	}
}

// TestRunsWatchFollows follows, with seam runs watch, a run that another process is
// writing, on either store: a line per node as it is recorded, then how the run ended.
func TestRunsWatchFollows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	onEachStore(t, "steps.yaml", stepsDAG, func(t *testing.T, dir, store string) {
		cmd, out := startSeam(t, dir, nil, "run", "--store", store, "steps.yaml")
		var id string
		waitFor(t, "the run to be recorded", func() bool {
			if r, _ := latestRun(t, store); r != nil {
				id = r.ID
			}
			return id != ""
		})
		watch, errOut, code := seamEnv(t, dir, nil, "runs", "watch", id, "--store", store)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("seam run: %v\n%s", err, out)
		}
		want := regexp.MustCompile(`(?s)^run ` + id + `  steps\n.*  one  passed\n.*  two  passed\n.*  three  passed\nrun ` + id + `: success \(\S+\)\n$`)
		if code != 0 || !want.MatchString(watch) {
			t.Errorf("seam runs watch: exit %d\n%s%s", code, watch, errOut)
		}
	})
}

// flakyDAG fails at node two until the file ok exists.
const flakyDAG = `version: 1
name: flaky
nodes:
  one:
    type: exec
    with: {command: 'echo "{\"status\":\"pass\",\"summary\":\"one\"}"', shell: true}
  two:
    type: exec
    needs: [one]
    with: {command: 'test -f ok && sleep 1 && echo "{\"status\":\"pass\",\"summary\":\"two\"}"', shell: true}
`

// TestResumeRace resumes one failed run from two processes at once, on either store:
// exactly one resumes it, and the other says why not.
func TestResumeRace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	onEachStore(t, "flaky.yaml", flakyDAG, func(t *testing.T, dir, store string) {
		if _, errOut, code := seamEnv(t, dir, nil, "run", "--store", store, "flaky.yaml"); code != 1 {
			t.Fatalf("first run: exit %d, want 1 (failed)\n%s", code, errOut)
		}
		r, _ := latestRun(t, store)
		if err := os.WriteFile(filepath.Join(dir, "ok"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		outs, codes := make([]string, 2), make([]int, 2)
		for i := range 2 {
			wg.Go(func() {
				var out string
				out, outs[i], codes[i] = seamEnv(t, dir, nil, "run", "--resume", r.ID, "--store", store)
				outs[i] += out
			})
		}
		wg.Wait()
		slices.Sort(codes)
		if codes[0] != 0 || codes[1] != 2 {
			t.Fatalf("two resumes: exit codes %v, want one 0 and one 2\n%s\n%s", codes, outs[0], outs[1])
		}
		// Which reason depends on when the second read the run: while the first was
		// resuming it, running it, or (on a slow machine) after it had ended.
		refused := outs[0] + outs[1]
		if !strings.Contains(refused, "resumed by another process meanwhile") && !strings.Contains(refused, "is still running (process ") &&
			!strings.Contains(refused, "there is nothing to resume") {
			t.Errorf("the refused resume does not say why:\n%s", refused)
		}
		if r, _ := latestRun(t, store); r.Resumes != 1 || r.Status != "success" {
			t.Errorf("run after two resumes: %s, %d resumes; want success, 1", r.Status, r.Resumes)
		}
	})
}

// TestStoreFlagPasswordMasked: a password given in --store is one seam holds, masked like
// $SEAM_STORE's, so a node that reads seam's command line (/proc/$PPID/cmdline) does not put
// it in the run store.
func TestStoreFlagPasswordMasked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dsn := pgtest.Database(t)
	pw := pgtest.Password(dsn)
	dir := writeDAGs(t, map[string]string{"argv.yaml": `version: 1
name: argv
nodes:
  a:
    type: exec
    with:
      shell: true
      command: 'printf "{\"status\":\"pass\",\"summary\":\"argv\",\"data\":{\"argv\":\"%s\"}}" "$(tr "\0" " " < /proc/$PPID/cmdline)"'
`})
	if out, errOut, code := seamEnv(t, dir, nil, "run", "--store", dsn, "argv.yaml"); code != 0 {
		t.Fatalf("seam run: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := seamEnv(t, dir, nil, "runs", "output", "latest", "a", "--store", dsn)
	if code != 0 || !strings.Contains(out, "--store") {
		t.Fatalf("seam runs output: exit %d, want the node's copy of seam's command line\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, pw) || !strings.Contains(out, nodes.Masked) {
		t.Errorf("the stored output holds --store's password unmasked:\n%s", out)
	}
}
