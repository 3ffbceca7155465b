package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/runs"
)

// stdioTerminate is how long closing the session waits for `seam mcp` to exit on its own
// once its stdin is closed, before the SDK sends SIGTERM. Generous: under -race on a loaded
// 2-core machine the process is slow, and an exit any later counts as not clean.
const stdioTerminate = 30 * time.Second

// lockedBuffer collects a process's stderr; the test reads it while exec's copier writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stdioEnvelope is a tool result's envelope as a client decodes it from the text content.
type stdioEnvelope struct {
	Success bool           `json:"success"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
	Error   map[string]any `json:"error"`
}

// stdioCall calls a tool and decodes its envelope, failing the test on a protocol error, a
// tool error, or content that is not one JSON text block agreeing with the structured one.
func stdioCall(t *testing.T, ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any) stdioEnvelope {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", tool, res.Content[0])
	}
	var env, structured stdioEnvelope
	if err := json.Unmarshal([]byte(text.Text), &env); err != nil {
		t.Fatalf("%s: text content is not the envelope: %v\n%s", tool, err, text.Text)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &structured); err != nil || structured.Message != env.Message || structured.Success != env.Success {
		t.Fatalf("%s: structured content %s does not match the text %s (%v)", tool, b, text.Text, err)
	}
	if res.IsError || !env.Success {
		t.Fatalf("%s: isError %v: %s", tool, res.IsError, text.Text)
	}
	return env
}

// startSeamMCP starts the seam executable (testscript.Main put the test binary on PATH as
// seam) as `seam mcp ARGS` in dir, with env added to the test's environment, and connects a
// client through the SDK's CommandTransport, as an agent host does. It returns the session,
// the process (to see how it exited) and its stderr.
func startSeamMCP(ctx context.Context, t *testing.T, dir string, env []string, args ...string) (*sdk.ClientSession, *exec.Cmd, *lockedBuffer) {
	t.Helper()
	bin, err := exec.LookPath("seam")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	// A -race binary sleeps 1 s at exit unless told otherwise.
	cmd.Env = append(os.Environ(), "SEAM_LANG=en", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.Env = append(cmd.Env, env...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: stdioTerminate}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr: %s", err, stderr)
	}
	return cs, cmd, stderr
}

// TestMCPStdioSession starts the seam executable as `seam mcp --root DIR --store FILE` with
// the SDK's CommandTransport, as an agent host does, and walks an agent's session with a
// real client: list the tools, lint a DAG from dags/, run it (wait: true), read it back with
// get_run "latest" and list_runs. Closing the session must end the process on its own (by
// closing its stdin, before any signal) with exit status 0, and the run must be in the store.
func TestMCPStdioSession(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.CopyFS(filepath.Join(root, "dags"), os.DirFS("../../dags")); err != nil {
		t.Fatalf("copy dags: %v", err)
	}
	store := filepath.Join(dir, "store", "runs.db")

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cs, cmd, stderr := startSeamMCP(ctx, t, dir, nil, "--root", root, "--store", store)
	closed := false
	defer func() {
		if !closed {
			cs.Close()
		}
	}()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	have := map[string]*sdk.Tool{}
	for _, tool := range tools.Tools {
		have[tool.Name] = tool
	}
	for _, name := range []string{"lint_dag", "list_dags", "run_dag", "get_run", "list_runs", "validate_output", "check_compatibility"} {
		tool := have[name]
		if tool == nil {
			t.Errorf("tool %s missing; have %d tools", name, len(tools.Tools))
			continue
		}
		if tool.Description == "" || tool.InputSchema == nil || tool.Annotations == nil {
			t.Errorf("%s: want a description, an input schema and annotations: %+v", name, tool)
		}
	}

	const path = "dags/fan-in.yaml"
	lint := stdioCall(t, ctx, cs, "lint_dag", map[string]any{"path": path})
	if !strings.Contains(lint.Message, "0 errors") {
		t.Errorf("lint_dag: %q, want 0 errors", lint.Message)
	}

	run := stdioCall(t, ctx, cs, "run_dag", map[string]any{"path": path, "wait": true})
	id, _ := run.Data["id"].(string)
	status, _ := run.Data["status"].(string)
	if id == "" || (status != "success" && status != "warn") || !strings.Contains(run.Message, "of fan-in: "+status) {
		t.Fatalf("run_dag: %q %v; want a finished run of fan-in", run.Message, run.Data)
	}
	if out, _ := run.Data["outputs"].(map[string]any); out["total"] != float64(9) {
		t.Errorf("run_dag outputs %v, want total 9", run.Data["outputs"])
	}

	got := stdioCall(t, ctx, cs, "get_run", map[string]any{"id": "latest"})
	counts, _ := got.Data["nodes"].(map[string]any)
	total := 0
	for _, n := range counts {
		f, _ := n.(float64)
		total += int(f)
	}
	if got.Data["id"] != id || got.Data["status"] != status || total != 4 {
		t.Errorf("get_run latest: %v; want run %s, %s, 4 nodes", got.Data, id, status)
	}

	list := stdioCall(t, ctx, cs, "list_runs", map[string]any{})
	rs, _ := list.Data["runs"].([]any)
	if len(rs) != 1 || list.Data["count"] != float64(1) {
		t.Fatalf("list_runs: %v; want the one run", list.Data)
	}
	if r, _ := rs[0].(map[string]any); r["id"] != id || r["dag"] != "fan-in" || r["status"] != status {
		t.Errorf("list_runs: %v; want %s of fan-in, %s", rs[0], id, status)
	}

	// Close as the spec says a stdio client should: close the server's stdin and wait.
	begin := time.Now()
	closeErr := cs.Close()
	closed = true
	took := time.Since(begin)
	if closeErr != nil {
		t.Errorf("close: %v; stderr: %s", closeErr, stderr)
	}
	if ps := cmd.ProcessState; ps == nil || !ps.Exited() || ps.ExitCode() != 0 {
		t.Errorf("seam mcp did not exit cleanly: %v; stderr: %s", ps, stderr)
	}
	if took >= stdioTerminate {
		t.Errorf("seam mcp took %v to exit after its stdin closed: it was signalled", took)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("seam mcp wrote to stderr: %s", s)
	}
	t.Logf("session closed, process exited in %v", took.Round(time.Millisecond))

	st, err := runs.Open(ctx, store)
	if err != nil {
		t.Fatalf("open the store after exit: %v", err)
	}
	defer st.Close()
	stored, _, err := st.ListRuns(ctx, runs.Filter{})
	if err != nil || len(stored) != 1 || stored[0].ID != id || string(stored[0].Status) != status {
		t.Errorf("store after exit: %v, %v; want run %s, %s", stored, err, id, status)
	}
}
