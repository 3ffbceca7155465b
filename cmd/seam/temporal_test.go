package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/temporaltest"
	"github.com/seam-dag/seam/runs"
)

// temporalEnv returns the environment of seam processes that talk to the test's Temporal
// server on a task queue of their own (so that the workers of one test never take another's
// runs), or skips the test when there is no server.
func temporalEnv(t *testing.T) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	addr := temporaltest.Server(t)
	plainSeam(t)
	return []string{"TEMPORAL_ADDRESS=" + addr, "SEAM_TASK_QUEUE=" + temporaltest.Queue()}
}

// workerWith writes the DAG file name from dagFmt (its %[1]s is the test's folder) into a
// folder of the test's own, and starts a seam worker recording into a store there.
func workerWith(t *testing.T, name, dagFmt string) (env []string, dir, store string) {
	t.Helper()
	env = temporalEnv(t)
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), fmt.Appendf(nil, dagFmt, dir), 0o644); err != nil {
		t.Fatal(err)
	}
	store = filepath.Join(dir, "s.db")
	startWorker(t, dir, env, store)
	return env, dir, store
}

// startWorker starts `seam worker` recording into store, and returns it; the test kills it
// at its end and shows what it said when the test failed.
func startWorker(t *testing.T, dir string, env []string, store string) *exec.Cmd {
	t.Helper()
	cmd, out := startSeam(t, dir, env, "worker", "--store", store)
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("seam worker %d said:\n%s", cmd.Process.Pid, out)
		}
	})
	return cmd
}

// TestEnginesSameResults runs every example in dags/ on the embedded engine and on Temporal
// (a seam worker sharing its SQLite store with seam run): the exit codes, node statuses and
// outputs agree, and the store shows the Temporal run as it shows the embedded one. Left out:
// http.yaml, which calls a tracker over the network (params.tracker), and n8n-triage.yaml,
// which needs a running n8n (N8N_URL); their node types run in the same activity as exec's.
func TestEnginesSameResults(t *testing.T) {
	env := temporalEnv(t)
	examples, err := filepath.Abs("../../dags")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	estore, tstore := filepath.Join(dir, "embedded.db"), filepath.Join(dir, "temporal.db")
	startWorker(t, dir, env, tstore)
	files, err := filepath.Glob(filepath.Join(examples, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(examples, "*", "*.yaml"))
	files = append(files, more...)
	needs := map[string]string{"http.yaml": "the network", "n8n-triage.yaml": "n8n"}
	// approval.yaml waits for a person's answer: given by seam approve to both runs (on
	// Temporal through the workflow's Update), after which the stores are compared.
	answers := map[string][]string{"approval.yaml": {"review", "--set", "reply=Sent, thanks.", "--comment", "ok"},
		"approval-rewind.yaml": {"review"}}
	// lib/score.yaml is a sub-DAG with required params: given here, so that it runs;
	// github-pull-request.yaml's params are a webhook's body: GitHub's example payload.
	params := map[string][]string{"lib/score.yaml": {"-p", "title=app crashes on login", "-p", "customers=12"},
		"github-pull-request.yaml":      {"--params-file", "github/pull_request.closed.json"},
		"lint-github-pull-request.yaml": {"--params-file", "github/pull_request.closed.json"}}
	ran := 0
	for _, file := range files {
		file, _ = filepath.Rel(examples, file)
		if needs[file] != "" {
			continue
		}
		ran++
		t.Run(file, func(t *testing.T) {
			args := append([]string{"run", "--json", file}, params[file]...)
			eout, eerr, ecode := seamEnv(t, examples, nil, append(args, "--store", estore)...)
			tout, terr, tcode := seamEnv(t, examples, env, append(args, "--store", tstore, "--engine", "temporal")...)
			if ecode != tcode {
				t.Fatalf("exit %d embedded, %d on Temporal\nembedded:\n%s%s\nTemporal:\n%s%s", ecode, tcode, eout, eerr, tout, terr)
			}
			if ecode == 2 { // refused before it ran, on both: by the same words
				if e, tm := normalText(eerr), normalText(terr); e != tm || tout != "" {
					t.Errorf("refused differently:\nembedded:\n%s\nTemporal:\n%s%s", e, tout, tm)
				}
				return
			}
			if e, tm := normalRun(t, eout), normalRun(t, tout); e != tm {
				t.Errorf("seam run --json differs:\nembedded:\n%s\nTemporal:\n%s\n(stderr on Temporal: %s)", e, tm, terr)
			}
			var shows []string
			for _, r := range []struct {
				out, store string
				env        []string
			}{{eout, estore, nil}, {tout, tstore, env}} {
				var res struct{ ID string }
				if err := json.Unmarshal([]byte(r.out), &res); err != nil || res.ID == "" {
					t.Fatalf("seam run --json: %v\n%s", err, r.out)
				}
				if answer := answers[file]; answer != nil {
					out, errOut, code := seamEnv(t, examples, r.env, append([]string{"approve", "--store", r.store, res.ID}, answer...)...)
					if code != 0 {
						t.Fatalf("seam approve %s: exit %d\n%s%s", res.ID, code, out, errOut)
					}
					waitFor(t, "run "+res.ID+" to end", func() bool {
						show, _, _ := seamEnv(t, examples, nil, "runs", "show", "--json", "--store", r.store, res.ID)
						var run struct{ Status string }
						_ = json.Unmarshal([]byte(show), &run)
						return run.Status != "" && run.Status != "waiting" && run.Status != "running"
					})
				}
				show, errOut, code := seamEnv(t, examples, nil, "runs", "show", "--json", "--store", r.store, res.ID)
				if code != 0 {
					t.Fatalf("seam runs show --json %s: exit %d\n%s", res.ID, code, errOut)
				}
				shows = append(shows, normalRun(t, show))
			}
			if shows[0] != shows[1] {
				t.Errorf("the stores disagree:\nembedded:\n%s\nTemporal:\n%s", shows[0], shows[1])
			}
		})
	}
	if ran < 10 {
		t.Errorf("%d examples ran: dags/ moved?", ran)
	}
}

// normalText is a message with its run ids and durations left out.
func normalText(s string) string {
	return durations.ReplaceAllString(runIDs.ReplaceAllString(s, "RUN"), "TIME")
}

// killedDAG's node two takes a while (its shell becomes the sleep, so that the node's
// process is the one that sleeps) and says, each time it starts, its pid and its worker's;
// every node appends a line to a file in %[1]s each time it runs.
const killedDAG = `version: 1
name: killed
nodes:
  one:
    type: exec
    with: {command: 'echo "$$" >> %[1]s/one.ran; echo "{\"status\":\"pass\",\"summary\":\"one\"}"', shell: true}
  two:
    type: exec
    needs: [one]
    with: {command: 'echo "$$ $PPID" >> %[1]s/two.ran; echo "{\"status\":\"pass\",\"summary\":\"two\"}"; exec sleep 3', shell: true}
  three:
    type: exec
    needs: [two]
    with: {command: 'echo "$$" >> %[1]s/three.ran; echo "{\"status\":\"pass\",\"summary\":\"three\"}"', shell: true}
`

// lines returns the lines of file, none when it is not there.
func lines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' })
}

// TestTemporalWorkerKilled kills (kill -9) the worker that runs node two, mid-node, with a
// second worker on the task queue: the node's process dies with its worker, Temporal gives
// the attempt to the other worker once the heartbeats stop, and the run completes without
// running node one again.
func TestTemporalWorkerKilled(t *testing.T) {
	env := temporalEnv(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "killed.yaml"), fmt.Appendf(nil, killedDAG, dir), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "s.db")
	workers := map[int]*exec.Cmd{}
	for range 2 {
		w := startWorker(t, dir, env, store)
		workers[w.Process.Pid] = w
	}
	run, out := startSeam(t, dir, env, "run", "--engine", "temporal", "--store", store, "killed.yaml")
	var node, worker int
	waitFor(t, "node two to start", func() bool {
		l := lines(t, filepath.Join(dir, "two.ran"))
		if len(l) == 0 {
			return false
		}
		if _, err := fmt.Sscanf(l[0], "%d %d", &node, &worker); err != nil {
			t.Fatalf("two.ran: %q: %v", l[0], err)
		}
		return true
	})
	w := workers[worker]
	if w == nil {
		t.Fatalf("node two's process %d is a child of %d, not of a worker (%v)", node, worker, slices.Collect(maps.Keys(workers)))
	}
	if err := w.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w.Wait()
	waitFor(t, "node two's process to die with its worker", func() bool { return processGone(node) })
	if err := run.Wait(); err != nil {
		t.Fatalf("seam run with a worker killed: %v\n%s", err, out)
	}
	if l := lines(t, filepath.Join(dir, "one.ran")); len(l) != 1 {
		t.Errorf("node one ran %d times, want once", len(l))
	}
	two := lines(t, filepath.Join(dir, "two.ran"))
	if len(two) > 2 {
		t.Errorf("node two ran %d times, want twice at most: %q", len(two), two)
	}
	for _, l := range two[1:] {
		if strings.HasSuffix(l, " "+strconv.Itoa(worker)) {
			t.Errorf("node two ran again on the killed worker %d: %q", worker, two)
		}
	}
	if l := lines(t, filepath.Join(dir, "three.ran")); len(l) != 1 {
		t.Errorf("node three ran %d times, want once", len(l))
	}
	r, as := latestRun(t, store)
	if r == nil || r.Status != "success" {
		t.Fatalf("the store's run: %+v, want success", r)
	}
	// Temporal's retry of the lost attempt is not one of seam's: one attempt per node.
	for _, n := range runs.Summarize(as) {
		if n.Attempts != 1 || n.Status() != "passed" {
			t.Errorf("node %s: %s after %d attempts, want passed after 1", n.ID, n.Status(), n.Attempts)
		}
	}
}

// smallDAG is a small DAG of exec nodes: one, then two and three at once.
const smallDAG = `version: 1
name: small
nodes:
  one:
    type: exec
    with: {command: [echo, '{"status":"pass","summary":"one","data":{"n":1}}']}
  two:
    type: exec
    input: {n: "${{ nodes.one.output.data.n }}"}
    with: {command: [echo, '{"status":"pass","summary":"two"}']}
  three:
    type: exec
    input: {n: "${{ nodes.one.output.data.n }}"}
    with: {command: [echo, '{"status":"pass","summary":"three"}']}
`

// TestTemporalConcurrentRuns starts 100 `seam run --engine temporal` at once, run by two
// workers: every one exits 0, and the store holds 100 successful runs. It logs how long
// they took, and asserts nothing about it.
func TestTemporalConcurrentRuns(t *testing.T) {
	env := temporalEnv(t)
	dir := writeDAGs(t, map[string]string{"small.yaml": smallDAG})
	store := filepath.Join(dir, "s.db")
	for range 2 {
		startWorker(t, dir, env, store)
	}
	const n = 100
	var wg sync.WaitGroup
	outs, codes := make([]string, n), make([]int, n)
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			var out string
			out, outs[i], codes[i] = seamEnv(t, dir, env, "run", "--engine", "temporal", "--store", store, "small.yaml")
			outs[i] += out
		})
	}
	wg.Wait()
	t.Logf("%d runs of 3 exec nodes on two workers: %v", n, time.Since(start).Round(time.Millisecond))
	failed := 0
	for i := range n {
		if codes[i] != 0 {
			if failed++; failed <= 3 {
				t.Errorf("run %d: exit %d\n%s", i, codes[i], outs[i])
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d runs failed", failed, n)
	}
	s, err := runs.OpenReadOnly(t.Context(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, _, err := s.ListRuns(t.Context(), runs.Filter{Limit: 2 * n})
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, r := range list {
		if r.Status == "success" {
			ok++
		}
	}
	if len(list) != n || ok != n {
		t.Errorf("the store holds %d runs, %d successful; want %d successful", len(list), ok, n)
	}
}

// plainSeam puts a seam built without the race detector first on PATH when the tests run
// with it: the Temporal tests start many seam processes (a hundred at once in one), which
// race-instrumented would swamp a small machine. It is built once per test binary, into the
// user's cache folder, where the next run overwrites it.
func plainSeam(t *testing.T) {
	t.Helper()
	if !raceEnabled {
		return
	}
	bin, err := plainBuild()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// plainBuild builds seam without the race detector, once, and returns its folder.
var plainBuild = sync.OnceValues(func() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(cache, "seam", "test-bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "seam"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// secretDAG reads SEAM_TEST_TOKEN, in an exec node's command and in a const node's value.
const secretDAG = `version: 1
name: secret
env: [SEAM_TEST_TOKEN]
nodes:
  echo:
    type: exec
    with:
      command: [echo, "token is ${{ env.SEAM_TEST_TOKEN }}"]
      output: text
  keep:
    type: const
    with:
      value: {status: pass, summary: "kept ${{ env.SEAM_TEST_TOKEN }}", data: {token: "${{ env.SEAM_TEST_TOKEN }}"}}
outputs:
  said: "${{ nodes.echo.output.data.text }}"
`

// TestTemporalSecretsNeverInHistory runs a DAG that reads a token from the environment of
// the worker (seam run's has none): the run succeeds with the token masked as on the
// embedded engine, and the token is nowhere in the workflow's history, payloads decoded, nor
// in the store's file, nor in what the worker logged.
func TestTemporalSecretsNeverInHistory(t *testing.T) {
	env := temporalEnv(t)
	cli := temporaltest.CLI(t)
	var b [16]byte
	rand.Read(b[:])
	token := "tok-" + hex.EncodeToString(b[:])
	secret := "SEAM_TEST_TOKEN=" + token
	dir := writeDAGs(t, map[string]string{"secret.yaml": secretDAG})
	store := filepath.Join(dir, "s.db")
	w, wout := startSeam(t, dir, append(slices.Clip(env), secret), "worker", "--store", store)

	eout, eerr, code := seamEnv(t, dir, []string{secret}, "run", "--json", "--no-store", "secret.yaml")
	if code != 0 {
		t.Fatalf("embedded run: exit %d\n%s", code, eerr)
	}
	tout, terr, code := seamEnv(t, dir, env, "run", "--json", "--engine", "temporal", "--store", store, "secret.yaml")
	if code != 0 {
		t.Fatalf("run on Temporal: exit %d\n%s%s", code, tout, terr)
	}
	if e, tm := normalRun(t, eout), normalRun(t, tout); e != tm {
		t.Errorf("seam run --json differs:\nembedded:\n%s\nTemporal:\n%s", e, tm)
	}
	if !strings.Contains(tout, `"token is ***"`) {
		t.Errorf("the token is not masked in the run's output:\n%s", tout)
	}
	var res struct{ ID string }
	if err := json.Unmarshal([]byte(tout), &res); err != nil {
		t.Fatal(err)
	}
	history, errOut, code := runProgram(t, cli, "workflow", "show", "--workflow-id", "seam-"+res.ID, "--address", strings.TrimPrefix(env[0], "TEMPORAL_ADDRESS="), "--output", "json")
	if code != 0 {
		t.Fatalf("temporal workflow show: exit %d\n%s", code, errOut)
	}
	decoded := decodeAll(history)
	// The check below proves something only if the payloads were read: the bundle's DAG
	// names the variable, and the echo's result says what it was given, masked.
	for _, want := range []string{"env: [SEAM_TEST_TOKEN]", "token is ***"} {
		if !strings.Contains(decoded, want) {
			t.Errorf("the history, decoded, lacks %q: the check for the token proves little", want)
		}
	}
	if strings.Contains(decoded, token) {
		t.Errorf("the token is in the workflow's history")
	}
	w.Process.Kill()
	w.Wait()
	if strings.Contains(wout.String(), token) {
		t.Errorf("the worker logged the token:\n%s", wout)
	}
	files, _ := filepath.Glob(store + "*") // the database and its WAL
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(token)) {
			t.Errorf("the token is in the store's file %s", filepath.Base(f))
		}
	}
	if len(files) == 0 {
		t.Errorf("no store file %s*", store)
	}
}

// runProgram runs a program and returns its stdout, its stderr and its exit code.
func runProgram(t *testing.T, name string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// base64s matches what may be base64 in a history: payloads' data, and the []byte inside
// them (the bundle's files).
var base64s = regexp.MustCompile(`[A-Za-z0-9+/]{12,}={0,2}`)

// decodeAll returns s followed by whatever decodes as base64 in it, again and again: a
// workflow history in JSON keeps its payloads in base64, and the bundle in a payload keeps
// its files in base64 too.
func decodeAll(s string) string {
	var all strings.Builder
	for level := s; level != ""; {
		all.WriteString(level)
		var next strings.Builder
		for _, m := range base64s.FindAllString(level, -1) {
			if b, err := base64.StdEncoding.DecodeString(m); err == nil {
				next.Write(b)
				next.WriteByte('\n')
			}
		}
		level = next.String()
	}
	return all.String()
}

// closedAddr returns a loopback address where nothing listens: a server that does not answer.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestTemporalEngineErrors checks the usage errors of the Temporal engine's flags, in
// English and Japanese: an unknown engine, a server that does not answer, --detach on the
// embedded engine and a worker's --concurrency out of range.
func TestTemporalEngineErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dir := writeDAGs(t, map[string]string{"small.yaml": smallDAG})
	closed := closedAddr(t)
	badConfig := filepath.Join(dir, "temporal.toml")
	if err := os.WriteFile(badConfig, []byte("[profile.default\naddress = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"run", "--engine", "nosuch", "small.yaml"}, `seam: unknown engine "nosuch": embedded or temporal`},
		{nil, []string{"--lang", "ja", "run", "--engine", "nosuch", "small.yaml"}, `seam: 不明なエンジン "nosuch": embedded か temporal を指定してください`},
		{[]string{"SEAM_ENGINE=nosuch"}, []string{"run", "small.yaml"}, `seam: unknown engine "nosuch": embedded or temporal`},
		{[]string{"TEMPORAL_ADDRESS=" + closed}, []string{"run", "--engine", "temporal", "small.yaml"}, "seam: connect to Temporal at " + closed + " (TEMPORAL_ADDRESS): "},
		{[]string{"TEMPORAL_ADDRESS=" + closed}, []string{"worker"}, "seam: connect to Temporal at " + closed + " (TEMPORAL_ADDRESS): "},
		{[]string{"TEMPORAL_ADDRESS=" + closed}, []string{"--lang", "ja", "worker"}, "seam: Temporal（" + closed + "、TEMPORAL_ADDRESS）に接続できません: "},
		{nil, []string{"run", "--detach", "small.yaml"}, "seam: --detach needs --engine temporal: the embedded engine runs the nodes in this process"},
		{nil, []string{"--lang", "ja", "run", "--detach", "small.yaml"}, "seam: --detach には --engine temporal が必要です: 組み込みエンジンはこのプロセスでノードを実行します"},
		{[]string{"TEMPORAL_CONFIG_FILE=" + badConfig}, []string{"run", "--engine", "temporal", "small.yaml"}, "seam: Temporal's settings: "},
		{[]string{"TEMPORAL_CONFIG_FILE=" + badConfig}, []string{"--lang", "ja", "worker"}, "seam: Temporal の設定: "},
		{nil, []string{"worker", "--concurrency", "0"}, "seam: --concurrency 0: want 1 to 1024"},
		{nil, []string{"--lang", "ja", "worker", "--concurrency", "1025"}, "seam: --concurrency 1025: 1 から 1024 を指定してください"},
	} {
		out, errOut, code := seamEnv(t, dir, c.env, c.args...)
		if code != 2 || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("seam %s (%s): exit %d, want 2 with %q\nstdout:\n%s\nstderr:\n%s", strings.Join(c.args, " "), strings.Join(c.env, " "), code, c.want, out, errOut)
		}
	}
}

// canceledDAG's node slow runs until it is canceled, and says its pid in %[1]s/slow.pid.
const canceledDAG = `version: 1
name: canceled
nodes:
  quick:
    type: exec
    with: {command: [echo, '{"status":"pass","summary":"quick"}']}
  slow:
    type: exec
    needs: [quick]
    with: {command: 'echo "$$" > %[1]s/slow.pid; exec sleep 60', shell: true, output: text}
  after:
    type: exec
    needs: [slow]
    with: {command: 'touch %[1]s/after.ran; echo "{\"status\":\"pass\",\"summary\":\"after\"}"', shell: true}
`

// TestTemporalCancel interrupts (SIGINT) `seam run --engine temporal` mid-node, as the
// embedded engine's tests do: seam exits 130 once the node's process is gone, the node after
// it never runs, and the store's run is canceled.
func TestTemporalCancel(t *testing.T) {
	env, dir, store := workerWith(t, "canceled.yaml", canceledDAG)
	run, out := startSeam(t, dir, env, "run", "--engine", "temporal", "--store", store, "canceled.yaml")
	var pid int
	waitFor(t, "node slow to start", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "slow.pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	if err := run.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	run.Wait()
	if code := run.ProcessState.ExitCode(); code != 130 {
		t.Errorf("seam run interrupted: exit %d, want 130\n%s", code, out)
	}
	if !processGone(pid) {
		t.Errorf("node slow's process %d outlived its canceled run", pid)
	}
	if _, err := os.Stat(filepath.Join(dir, "after.ran")); err == nil {
		t.Errorf("node after ran after the run was canceled")
	}
	if r, _ := latestRun(t, store); r == nil || r.Status != "canceled" {
		t.Errorf("the store's run: %+v, want canceled", r)
	}
}

// resumableDAG's node b fails until %[1]s/fixed exists; a counts its runs in %[1]s/a.
const resumableDAG = `version: 1
name: flaky
nodes:
  a:
    type: exec
    with: {command: 'echo a >> %[1]s/a; echo "{\"status\":\"pass\",\"summary\":\"a\"}"', shell: true}
  b:
    type: exec
    needs: [a]
    with: {command: 'test -f %[1]s/fixed || exit 3; echo "{\"status\":\"pass\",\"summary\":\"b\"}"', shell: true}
`

// TestTemporalDetachResume starts a run with --detach (its id alone on stdout), follows it
// with runs watch until it fails, then resumes it on Temporal: a is reused, b runs again.
func TestTemporalDetachResume(t *testing.T) {
	env, dir, store := workerWith(t, "flaky.yaml", resumableDAG)
	out, errOut, code := seamEnv(t, dir, env, "run", "--engine", "temporal", "--detach", "--store", store, "flaky.yaml")
	id := strings.TrimSpace(out)
	if code != 0 || strings.Contains(id, " ") || !strings.Contains(errOut, "seam runs watch "+id+" follows it") {
		t.Fatalf("run --detach: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if out, errOut, code := seamEnv(t, dir, env, "runs", "watch", "--store", store, id); code != 1 {
		t.Fatalf("runs watch %s: exit %d, want 1 (the run fails)\n%s%s", id, code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := seamEnv(t, dir, env, "run", "--engine", "temporal", "--store", store, "--resume", id); code != 0 || !strings.Contains(out, "(reused)") {
		t.Fatalf("resume on temporal: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); strings.Count(string(b), "a") != 1 {
		t.Errorf("a ran %d times, want once", strings.Count(string(b), "a"))
	}
	r, _ := latestRun(t, store)
	if r.ID != id || r.Status != dag.RunSuccess || r.Resumes != 1 {
		t.Errorf("stored run %s %s, resumed %d times; want %s success, once", r.ID, r.Status, r.Resumes, id)
	}
}

// TestTemporalRunsCancel cancels a detached run on Temporal from another process: the worker
// records it canceled and the node after the slow one never runs; a run that has ended, or
// that is not in the store, is refused.
func TestTemporalRunsCancel(t *testing.T) {
	env, dir, store := workerWith(t, "canceled.yaml", canceledDAG)
	out, errOut, code := seamEnv(t, dir, env, "run", "--engine", "temporal", "--detach", "--store", store, "canceled.yaml")
	id := strings.TrimSpace(out)
	if code != 0 {
		t.Fatalf("run --detach: exit %d\n%s%s", code, out, errOut)
	}
	deadline := time.Now().Add(30 * time.Second)
	for { // until slow runs
		if _, err := os.Stat(filepath.Join(dir, "slow.pid")); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatal("slow never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, errOut, code = seamEnv(t, dir, env, "runs", "cancel", "--store", store, id)
	if want := "run " + id + ": Temporal has the cancel; seam runs watch " + id + " follows it to its end\n"; code != 0 || out != want {
		t.Fatalf("runs cancel: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if out, errOut, code := seamEnv(t, dir, env, "runs", "watch", "--store", store, id); code != 1 {
		t.Fatalf("runs watch: exit %d, want 1 (canceled)\n%s%s", code, out, errOut)
	}
	r, _ := latestRun(t, store)
	if r.Status != dag.RunCanceled {
		t.Errorf("stored run %s, want canceled", r.Status)
	}
	if _, err := os.Stat(filepath.Join(dir, "after.ran")); err == nil {
		t.Error("after ran")
	}
	_, errOut, code = seamEnv(t, dir, env, "runs", "cancel", "--store", store, id)
	if want := "seam: run " + id + " has already finished: canceled"; code != 1 || !strings.HasPrefix(errOut, want) {
		t.Errorf("runs cancel of an ended run: exit %d, want 1 with %q:\n%s", code, want, errOut)
	}
	if _, errOut, code = seamEnv(t, dir, env, "runs", "cancel", "--store", store, "nosuch"); code != 2 {
		t.Errorf("runs cancel nosuch: exit %d, want 2:\n%s", code, errOut)
	}
}

// TestTemporalRunsCancelUntaken cancels a run that no worker has taken (none polls its task
// queue), so not in the store: Temporal ends it, and the store records it canceled.
func TestTemporalRunsCancelUntaken(t *testing.T) {
	env := temporalEnv(t)
	dir := writeDAGs(t, map[string]string{"small.yaml": smallDAG})
	store := filepath.Join(dir, "s.db")
	// --detach waits for a worker (30 s), says none took the run, and prints its id.
	out, errOut, code := seamEnv(t, dir, env, "run", "--engine", "temporal", "--detach", "--store", store, "small.yaml")
	id := strings.TrimSpace(out)
	if code != 0 || !strings.Contains(errOut, "no worker has taken run "+id) {
		t.Fatalf("run --detach: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if out, errOut, code = seamEnv(t, dir, env, "runs", "cancel", "--store", store, id); code != 0 {
		t.Fatalf("runs cancel: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	r, _ := latestRun(t, store)
	if r == nil || r.ID != id || r.Status != dag.RunCanceled || r.DAG != "small" || r.Host != runs.HostTemporal {
		t.Errorf("stored run %+v, want %s canceled", r, id)
	}
}

// TestTemporalAPIKeyNeverShown: the API key in TEMPORAL_API_KEY appears in no message when the
// server cannot be reached, from seam run or seam worker.
func TestTemporalAPIKeyNeverShown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dir := writeDAGs(t, map[string]string{"small.yaml": smallDAG})
	closed := closedAddr(t)
	const key = "tmprl-api-key-4f8a9c2e1d7b"
	env := []string{"TEMPORAL_ADDRESS=" + closed, "TEMPORAL_API_KEY=" + key}
	for _, args := range [][]string{{"run", "--engine", "temporal", "small.yaml"}, {"worker"}} {
		out, errOut, code := seamEnv(t, dir, env, args...)
		if code != 2 || !strings.Contains(errOut, "connect to Temporal at "+closed) {
			t.Errorf("seam %s: exit %d, want 2 saying it cannot connect:\n%s", strings.Join(args, " "), code, errOut)
		}
		if strings.Contains(out+errOut, key) {
			t.Errorf("seam %s shows the API key:\n%s%s", strings.Join(args, " "), out, errOut)
		}
	}
	// Refused before anything ran: no store was made for the run.
	if _, err := os.Stat(filepath.Join(dir, ".seam")); !os.IsNotExist(err) {
		t.Errorf("a run that could not reach Temporal left a store behind (%v)", err)
	}
}
