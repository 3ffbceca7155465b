package main

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPCommand drives `seam mcp` through its stdin and stdout with a real client: the
// tools are listed with their annotations, a DAG under --root runs and is recorded in
// --store, and a path leaving the root is refused.
func TestMCPCommand(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	dagFile := "version: 1\nname: one\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: done}}\n"
	if err := os.WriteFile(filepath.Join(root, "one.yaml"), []byte(dagFile), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "runs.db")

	cs, wait := startMCP(t, "--root", root, "--store", store)
	ctx := t.Context()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	want := map[string]bool{ // tool → read-only
		"lint_dag": true, "list_dags": true, "run_dag": false, "get_run": true,
		"list_runs": true, "validate_output": true, "check_compatibility": true, "cancel_run": false,
		"explain_node": true, "resume_run": false, "lint_against": true,
		"simulate_dag": true, "list_approvals": true, "get_approval": true, "answer_approval": false,
		"list_schedules": true, "next_fires": true, "schedule_history": true, "pause_schedule": false,
		"resume_schedule": false, "trigger_schedule": false, "backfill_schedule": false,
	}
	if len(tools.Tools) != len(want) {
		t.Errorf("%d tools, want %d", len(tools.Tools), len(want))
	}
	for _, tool := range tools.Tools {
		ro, ok := want[tool.Name]
		switch {
		case !ok:
			t.Errorf("unexpected tool %s", tool.Name)
		case tool.Annotations == nil || tool.Annotations.ReadOnlyHint != ro:
			t.Errorf("%s: annotations %+v, want readOnly %v", tool.Name, tool.Annotations, ro)
		case !ro && (tool.Annotations.DestructiveHint == nil || !*tool.Annotations.DestructiveHint):
			t.Errorf("%s: runs commands and HTTP calls, so it must be marked destructive", tool.Name)
		}
		props, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		if _, ok := props["raw"]; !ok {
			t.Errorf("%s takes no raw argument", tool.Name)
		}
	}

	tests := []struct {
		tool    string
		args    map[string]any
		isError bool
		message string
	}{
		{"run_dag", map[string]any{"path": "one.yaml", "wait": true}, false, "of one: success"},
		{"list_runs", map[string]any{}, false, "1 run"},
		{"lint_dag", map[string]any{"path": "../one.yaml"}, true, `path "../one.yaml" is outside the root`},
	}
	for _, tc := range tests {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		var env struct {
			Success bool   `json:"success"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &env); err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if res.IsError != tc.isError || env.Success == tc.isError || !strings.Contains(env.Message, tc.message) {
			t.Errorf("%s: isError %v, %+v; want isError %v and a message containing %q", tc.tool, res.IsError, env, tc.isError, tc.message)
		}
	}

	wait()
	if _, err := os.Stat(store); err != nil {
		t.Errorf("the run store was not created at --store: %v", err)
	}
}

// startMCP runs `seam mcp ARGS` in the test process, its stdin and stdout piped to a real
// client. wait closes the session and checks the command exits 0.
func startMCP(t *testing.T, args ...string) (cs *sdk.ClientSession, wait func()) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	getenv := func(k string) string {
		if k == "SEAM_LANG" {
			return "en"
		}
		return ""
	}
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- run(append([]string{"mcp"}, args...), inR, outW, &stderr, getenv)
		outW.Close()
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs, func() {
		t.Helper()
		cs.Close()
		inW.Close()
		if code := <-done; code != 0 {
			t.Errorf("exit %d, stderr: %s", code, stderr.String())
		}
	}
}

// TestMCPCommandReadOnly checks that --read-only leaves run_dag out and creates no store.
func TestMCPCommandReadOnly(t *testing.T) {
	store := filepath.Join(t.TempDir(), "none.db")
	cs, wait := startMCP(t, "--root", t.TempDir(), "--store", store, "--read-only")
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "run_dag" {
			t.Errorf("read-only server offers run_dag")
		}
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "list_runs", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !res.IsError || !strings.Contains(text, `"code":"no_store"`) {
		t.Errorf("list_runs without a store: %s", text)
	}
	wait()
	if _, err := os.Stat(store); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only server created the store: %v", err)
	}
}

// TestMCPCommandBadRoot checks that the server refuses to start on a root that is not there.
func TestMCPCommandBadRoot(t *testing.T) {
	var stderr strings.Builder
	missing := filepath.Join(t.TempDir(), "missing")
	code := run([]string{"mcp", "--root", missing, "--store", filepath.Join(t.TempDir(), "s.db")}, strings.NewReader(""), io.Discard, &stderr, func(string) string { return "" })
	if code != 2 || !strings.Contains(stderr.String(), "mcp server: root "+missing) {
		t.Errorf("exit %d, stderr %q; want 2 and the root named", code, stderr.String())
	}
}
