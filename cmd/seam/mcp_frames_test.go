package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/mcp"
)

// rawStdio is `seam mcp` spoken to line by line, as a client that sends what it likes.
type rawStdio struct {
	t   *testing.T
	in  io.WriteCloser
	out chan string
}

// send writes a frame and its newline.
func (r *rawStdio) send(frame string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, frame+"\n"); err != nil {
		r.t.Fatalf("write a frame: %v", err)
	}
}

// reply is the next line the server writes, decoded.
type rawReply struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r *rawStdio) next() rawReply {
	r.t.Helper()
	select {
	case line, ok := <-r.out:
		if !ok {
			r.t.Fatal("seam mcp closed its stdout")
		}
		var rep rawReply
		if err := json.Unmarshal([]byte(line), &rep); err != nil {
			r.t.Fatalf("a line that is not JSON-RPC: %v\n%s", err, line)
		}
		return rep
	case <-time.After(time.Minute):
		r.t.Fatal("no answer in a minute")
	}
	return rawReply{}
}

// call sends a request and returns its answer, failing on an error.
func (r *rawStdio) call(id int, method string, params any) json.RawMessage {
	r.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		r.t.Fatal(err)
	}
	r.send(string(b))
	rep := r.next()
	if rep.Error != nil || rep.ID != float64(id) {
		r.t.Fatalf("%s: id %v, error %+v; want the result of %d", method, rep.ID, rep.Error, id)
	}
	return rep.Result
}

// toolData calls a tool and returns its envelope's data.
func (r *rawStdio) toolData(id int, tool string, args map[string]any) map[string]any {
	r.t.Helper()
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	raw := r.call(id, "tools/call", map[string]any{"name": tool, "arguments": args})
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 {
		r.t.Fatalf("%s: %v: %s", tool, err, raw)
	}
	var env struct {
		Success bool           `json:"success"`
		Data    map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].Text), &env); err != nil || !env.Success {
		r.t.Fatalf("%s: %v: %s", tool, err, res.Content[0].Text)
	}
	return env.Data
}

// TestMCPStdioBadFrames sends `seam mcp` every kind of bad frame while a run is going: each
// gets its JSON-RPC error (-32700 for what is not JSON, -32600 for what is not a JSON-RPC
// 2.0 request, id null unless the frame had a usable one), the next good request is
// answered, the run is still running at the end, and the process exits 0 once its stdin
// closes.
func TestMCPStdioBadFrames(t *testing.T) {
	dir := t.TempDir()
	slow := "version: 1\nname: slow\nnodes:\n  sleep:\n    type: exec\n    with: {command: [sleep, \"60\"], output: text}\n"
	if err := os.WriteFile(filepath.Join(dir, "slow.yaml"), []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := exec.LookPath("seam")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--root", dir, "--store", filepath.Join(dir, "runs.db"))
	cmd.Env = append(os.Environ(), "SEAM_LANG=en", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	defer func() {
		if !waited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	out := make(chan string, 4)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			out <- sc.Text()
		}
	}()
	r := &rawStdio{t: t, in: in, out: out}

	r.call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	run := r.toolData(2, "run_dag", map[string]any{"path": "slow.yaml"})
	runID, _ := run["id"].(string)
	if runID == "" {
		t.Fatalf("run_dag: %v", run)
	}

	deep := `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"list_runs","arguments":` +
		strings.Repeat("[", mcp.MaxFrameDepth) + strings.Repeat("]", mcp.MaxFrameDepth) + "}}"
	long := `{"jsonrpc":"2.0","id":21,"method":"ping","params":{"pad":"` + strings.Repeat("x", mcp.DefaultMaxFrame) + `"}}`
	tests := []struct {
		name, frame string
		code        int
		id          any
		msg         string
	}{
		{"invalid JSON", `{"jsonrpc":"2.0","id":10,`, -32700, nil, "parse error: the frame is not JSON: unexpected end of JSON input"},
		{"NUL line", "\x00", -32700, nil, `parse error: the frame is not JSON: invalid character '\x00' looking for beginning of value`},
		{"batch", `[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, -32600, nil, "invalid request: batches are not supported; send one JSON-RPC request per line"},
		{"empty batch", `[]`, -32600, nil, "invalid request: batches are not supported"},
		{"not an object", `42`, -32600, nil, "invalid request: want a JSON-RPC 2.0 request object"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":12,"method":"ping"}`, -32600, float64(12), `invalid request: "jsonrpc" must be "2.0"`},
		{"no jsonrpc", `{"id":"thirteen","method":"ping"}`, -32600, "thirteen", `invalid request: "jsonrpc" must be "2.0"`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil, "invalid request: id must be a string, an integer or null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil, "invalid request: id must be a string, an integer or null"},
		{"method not a string", `{"jsonrpc":"2.0","id":14,"method":7}`, -32600, float64(14), "invalid request: method must be a string"},
		{"params a number", `{"jsonrpc":"2.0","id":15,"method":"ping","params":3}`, -32600, float64(15), "invalid request: params must be an object or an array"},
		{"nested deeper than 1000", deep, -32600, nil, "invalid request: the frame nests deeper than 1000 levels"},
		{"line over 16 MiB", long, -32600, nil, "invalid request: the frame is longer than 16777216 bytes (seam mcp --max-frame raises the limit)"},
	}
	for i, tc := range tests {
		r.send(tc.frame)
		rep := r.next()
		if rep.Error == nil || rep.Error.Code != tc.code || rep.ID != tc.id || !strings.HasPrefix(rep.Error.Message, tc.msg) {
			t.Errorf("%s: id %v, error %+v; want id %v, code %d, %q", tc.name, rep.ID, rep.Error, tc.id, tc.code, tc.msg)
		}
		// The next good request is answered.
		r.call(100+i, "ping", nil)
	}

	got := r.toolData(3, "get_run", map[string]any{"id": runID})
	if got["status"] != "running" {
		t.Errorf("the run after the bad frames: %v; want it still running", got)
	}

	in.Close()
	err = cmd.Wait()
	waited = true
	if err != nil {
		t.Errorf("seam mcp after its stdin closed: %v; stderr: %s", err, stderr)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("seam mcp wrote to stderr: %s", s)
	}
}

// TestMCPLimitFlagsRefused checks that the limits of `seam mcp` must be positive: exit 2 and
// a message naming the flag.
func TestMCPLimitFlagsRefused(t *testing.T) {
	tests := []struct {
		flag, value, want string
	}{
		{"--max-frame", "0", "seam: mcp --max-frame 0: want a positive number of bytes"},
		{"--session-timeout", "0s", "seam: mcp --session-timeout 0s: want a positive duration, e.g. 10m"},
		{"--max-sessions", "-1", "seam: mcp --max-sessions -1: want a positive number"},
	}
	for _, tc := range tests {
		t.Run(tc.flag, func(t *testing.T) {
			var stdout, stderr strings.Builder
			args := []string{"mcp", tc.flag, tc.value, "--root", t.TempDir(), "--store", filepath.Join(t.TempDir(), "s.db")}
			code := run(args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
			if code != 2 || strings.TrimSpace(stderr.String()) != tc.want {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tc.want)
			}
		})
	}
}
