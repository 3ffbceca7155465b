package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes/internal/proc"
)

func runExec(t *testing.T, ctx context.Context, call *Call) (*Result, error) {
	t.Helper()
	return execType{}.Run(ctx, call)
}

func sh(script string) map[string]any {
	return map[string]any{"command": script, "shell": true}
}

func TestExecOutputModes(t *testing.T) {
	tests := []struct {
		name  string
		with  map[string]any
		input any
		want  string
	}{
		// json: stdout is handed on byte for byte; parsing it is the engine's job.
		{"json as is", map[string]any{"command": []any{"printf", ` {"status": "pass"}` + "\n"}},
			nil, ` {"status": "pass"}` + "\n"},
		{"json not JSON", map[string]any{"command": []any{"echo", "not json"}}, nil, "not json\n"},
		{"input on stdin", map[string]any{"command": []any{"cat"}},
			map[string]any{"items": []any{"a", 1.5}}, `{"items":["a",1.5]}`},
		{"null input", map[string]any{"command": []any{"cat"}}, nil, `null`},
		// Inputs on either side of proc.PipeMin: written ahead, or fed as the process reads.
		{"input of proc.PipeMin", map[string]any{"command": []any{"cat"}},
			strings.Repeat("x", proc.PipeMin-2), `"` + strings.Repeat("x", proc.PipeMin-2) + `"`},
		{"input above proc.PipeMin", map[string]any{"command": []any{"cat"}},
			strings.Repeat("x", 300_000), `"` + strings.Repeat("x", 300_000) + `"`},
		{"wrap object", map[string]any{"command": []any{"echo", `{"n": 1}`}, "output": "wrap"},
			nil, `{"status":"pass","summary":"exited 0","data":{"n":1}}`},
		{"wrap array", map[string]any{"command": []any{"echo", `[1, "x"]`}, "output": "wrap"},
			nil, `{"status":"pass","summary":"exited 0","data":{"value":[1,"x"]}}`},
		{"wrap number", map[string]any{"command": []any{"echo", `12345678901234567890`}, "output": "wrap"},
			nil, `{"status":"pass","summary":"exited 0","data":{"value":12345678901234567890}}`},
		{"text", map[string]any{"command": "printf '\\n  \\n  first line  \\nsecond\\n'", "shell": true, "output": "text"},
			nil, `{"status":"pass","summary":"first line","data":{"text":"\n  \n  first line  \nsecond"}}`},
		{"text trims one trailing newline", map[string]any{"command": "printf 'a\\n\\n'", "shell": true, "output": "text"},
			nil, `{"status":"pass","summary":"a","data":{"text":"a\n"}}`},
		{"text without a trailing newline", map[string]any{"command": []any{"printf", "a"}, "output": "text"},
			nil, `{"status":"pass","summary":"a","data":{"text":"a"}}`},
		{"text empty", map[string]any{"command": []any{"true"}, "output": "text"},
			nil, `{"status":"pass","summary":"exited 0 with no output","data":{"text":""}}`},
		{"text long line", map[string]any{"command": "printf '%0250d' 0", "shell": true, "output": "text"},
			nil, `{"status":"pass","summary":"` + strings.Repeat("0", 199) + `…","data":{"text":"` + strings.Repeat("0", 250) + `"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := runExec(t, t.Context(), &Call{With: tt.with, Input: tt.input})
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Output) != tt.want {
				t.Errorf("output = %s\nwant     %s", res.Output, tt.want)
			}
		})
	}
}

func TestExecWrapRefusesNonJSON(t *testing.T) {
	tests := []struct{ stdout, want string }{
		{"hello", `exec sh -c: output: wrap needs one JSON value on stdout, got "hello" (use output: text for plain text)`},
		{"", "exec sh -c: output: wrap needs one JSON value on stdout, got nothing"},
		{`{"a":1}{"b":2}`, `exec sh -c: output: wrap needs one JSON value on stdout, got "{\"a\":1}{\"b\":2}" (use output: text for plain text)`},
	}
	for _, tt := range tests {
		with := sh("printf '%s' '" + tt.stdout + "'")
		with["output"] = "wrap"
		_, err := runExec(t, t.Context(), &Call{With: with})
		if err == nil || err.Error() != tt.want {
			t.Errorf("stdout %q: err = %v\nwant %s", tt.stdout, err, tt.want)
		}
	}
}

func TestExecEnv(t *testing.T) {
	t.Setenv("SEAM_B", "outer")
	with := sh(`printf '%s|%s|%s' "$SEAM_A" "$SEAM_B" "$SEAM_C"`)
	with["env"] = map[string]any{"SEAM_B": "from with", "SEAM_C": "c"}
	res, err := runExec(t, t.Context(), &Call{
		With: with,
		Env:  []string{"SEAM_A=from call", "SEAM_B=from call"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// with.env comes last, so it wins over the engine's Call.Env, which wins over seam's own.
	if got, want := string(res.Output), "from call|from with|c"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

// TestExecEnvBase: a node's process gets a small base of seam's environment and what the
// DAG gives it, never the rest, seam's own credentials first.
func TestExecEnvBase(t *testing.T) {
	for k, v := range map[string]string{
		"SEAM_STORE":       "postgres://seam:db-password@127.0.0.1/seam",
		"SEAM_SERVE_TOKEN": "serve-token",
		"SEAM_MCP_TOKEN":   "mcp-token",
		"N8N_API_KEY":      "n8n-key",
		"SEAM_TEST_OUTER":  "outer",
		"HOME":             "/home/someone",
		"LC_TIME":          "C.UTF-8",
		"TZ":               "Asia/Tokyo",
		"TERM":             "xterm",
	} {
		t.Setenv(k, v)
	}
	with := sh(`env; env >&2`)
	with["output"] = "text"
	with["env"] = map[string]any{"OPTED_IN": "yes"}
	res, err := runExec(t, t.Context(), &Call{With: with, Env: []string{"SEAM_ATTEMPT=1"}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Data struct{ Text string } }
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"stdout": out.Data.Text, "stderr": res.Log} {
		vars := map[string]string{}
		for line := range strings.Lines(got) {
			k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
			vars[k] = v
		}
		for _, k := range []string{"SEAM_STORE", "SEAM_SERVE_TOKEN", "SEAM_MCP_TOKEN", "N8N_API_KEY", "SEAM_TEST_OUTER", "TERM"} {
			if v, ok := vars[k]; ok {
				t.Errorf("%s: the node got %s=%s from seam's environment", name, k, v)
			}
		}
		for k, want := range map[string]string{
			"PATH": os.Getenv("PATH"), "HOME": "/home/someone", "LC_TIME": "C.UTF-8", "TZ": "Asia/Tokyo",
			"OPTED_IN": "yes", "SEAM_ATTEMPT": "1",
		} {
			if vars[k] != want {
				t.Errorf("%s: the node got %s=%q, want %q", name, k, vars[k], want)
			}
		}
	}
}

func TestExecDir(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$(pwd) $0\"\n"
	if err := os.WriteFile(filepath.Join(sub, "where.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		with map[string]any
		want string
	}{
		{"default is Call.Dir", map[string]any{"command": []any{"pwd"}}, root + "\n"},
		{"PWD follows", map[string]any{"command": "echo $PWD", "shell": true, "dir": "sub"}, sub + "\n"},
		{"relative dir", map[string]any{"command": []any{"pwd"}, "dir": "sub"}, sub + "\n"},
		{"absolute dir", map[string]any{"command": []any{"pwd"}, "dir": sub}, sub + "\n"},
		{"relative command resolves against dir", map[string]any{"command": []any{"./where.sh"}, "dir": "sub"},
			sub + " " + filepath.Join(sub, "where.sh") + "\n"},
		{"path with a directory resolves against dir", map[string]any{"command": []any{"sub/where.sh"}},
			root + " " + filepath.Join(root, "sub/where.sh") + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Somewhere else entirely, so that relative paths cannot resolve by accident.
			t.Chdir(os.TempDir())
			res, err := runExec(t, t.Context(), &Call{With: tt.with, Dir: root})
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Output) != tt.want {
				t.Errorf("output = %q, want %q", res.Output, tt.want)
			}
		})
	}
}

func TestExecFailures(t *testing.T) {
	tests := []struct {
		name     string
		with     map[string]any
		wantErr  string // the whole message
		wantCode int    // exit code, when the process ran
		wantLog  string
	}{
		{"exit status", sh("echo working; echo 'boom: no such thing' >&2; exit 3"),
			"exec sh -c: exit status 3; stderr:\nboom: no such thing", 3, "boom: no such thing\nstdout:\nworking"},
		{"errors on stdout", sh("echo 'Error: quota exceeded'; exit 2"),
			"exec sh -c: exit status 2; stdout:\nError: quota exceeded", 2, "stdout:\nError: quota exceeded"},
		{"stdout tail", withLimit(sh(`i=0; while [ $i -lt 200 ]; do echo "line $i"; i=$((i+1)); done; exit 1`), 30),
			"exec sh -c: exit status 1; stdout:\nline 197\nline 198\nline 199", 1, "stdout: [1.6 KiB dropped]\nline 197\nline 198\nline 199"},
		{"exit without stderr", map[string]any{"command": []any{"false"}}, "exec false: exit status 1", 1, ""},
		{"not found", map[string]any{"command": []any{"seam-no-such-program"}},
			`exec seam-no-such-program: exec: "seam-no-such-program": executable file not found in $PATH`, 0, ""},
		{"missing relative", map[string]any{"command": []any{"./missing.sh"}, "dir": "/"},
			"exec ./missing.sh: fork/exec /missing.sh: no such file or directory", 0, ""},
		{"missing dir", map[string]any{"command": []any{"true"}, "dir": "/nonexistent/sub"},
			"exec: dir /nonexistent/sub: no such directory", 0, ""},
		{"dir is a file", map[string]any{"command": []any{"true"}, "dir": "/etc/passwd"},
			"exec: dir /etc/passwd: not a directory", 0, ""},
		{"dir name too long", map[string]any{"command": []any{"true"}, "dir": "/" + strings.Repeat("d", 300)},
			"exec: dir /" + strings.Repeat("d", 300) + ": file name too long", 0, ""},
		{"bad config", map[string]any{"command": "ls"},
			"with/command: must be an array of strings (argv); set shell: true to run a string with /bin/sh -c", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := runExec(t, t.Context(), &Call{With: tt.with})
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("err = %v\nwant %s", err, tt.wantErr)
			}
			var exit *exec.ExitError
			if errors.As(err, &exit) != (tt.wantCode != 0) || tt.wantCode != 0 && exit.ExitCode() != tt.wantCode {
				t.Errorf("exit error %v, want code %d", exit, tt.wantCode)
			}
			if res != nil && res.Log != tt.wantLog {
				t.Errorf("log = %q, want %q", res.Log, tt.wantLog)
			}
		})
	}
}

func withLimit(with map[string]any, stderrLimit int) map[string]any {
	with["stderr_limit"] = stderrLimit
	return with
}

func TestExecOutputLimit(t *testing.T) {
	// yes writes for ever: only the limit stops it.
	_, err := runExec(t, t.Context(), &Call{With: map[string]any{"command": []any{"yes"}}, OutputLimit: 4 << 10})
	var limit *OutputLimitError
	if !errors.As(err, &limit) || err.Error() != "exec yes: output exceeds the 4 KiB limit" {
		t.Fatalf("err = %v, want the output limit", err)
	}
	// Exactly at the limit is fine.
	res, err := runExec(t, t.Context(), &Call{With: sh("printf '%04096d' 0"), OutputLimit: 4 << 10})
	if err != nil || len(res.Output) != 4096 {
		t.Fatalf("output at the limit: %d bytes, %v", len(res.Output), err)
	}
}

func TestExecStderrTail(t *testing.T) {
	with := sh(`i=0; while [ $i -lt 200 ]; do echo "line $i" >&2; i=$((i+1)); done`)
	with["stderr_limit"] = 30
	res, err := runExec(t, t.Context(), &Call{With: with})
	if err != nil {
		t.Fatal(err)
	}
	// 1690 bytes written; 30 kept reach back into "line 196", whose remains are dropped too.
	want := "[1.6 KiB of stderr dropped]\nline 197\nline 198\nline 199\n"
	if res.Log != want {
		t.Errorf("log = %q, want %q", res.Log, want)
	}
}

// alive reports whether pid is a process that has not yet died (a zombie has).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

// waitGone waits a little for pid to die: killing is asynchronous.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d outlived its node", pid)
}

// readPid waits for a script to write a pid to file.
func readPid(t *testing.T, file string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		if s, ok := strings.CutSuffix(string(b), "\n"); ok {
			pid, err := strconv.Atoi(s)
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// TestExecKillsGroup cancels a command whose grandchild also hangs: both must die, and Run
// must return at once rather than wait for the grandchild's hold on stdout.
func TestExecKillsGroup(t *testing.T) {
	tests := []struct {
		name   string
		script string
		within time.Duration
	}{
		// Bounds far below the 60 s sleeps (so the kill shows) and far above any load.
		{"cancel", `sh -c 'sleep 60 & echo $! > gc.pid; wait' & sleep 60`, 20 * time.Second},
		// The leader ignores SIGTERM (and so does sleep, which inherits that): SIGKILL follows.
		{"SIGTERM ignored", `trap '' TERM; sh -c 'sleep 60 & echo $! > gc.pid; wait' & sleep 60`, proc.KillGrace + 20*time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(t.Context())
			type outcome struct {
				res *Result
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				res, err := runExec(t, ctx, &Call{With: sh(tt.script), Dir: dir})
				done <- outcome{res, err}
			}()
			grandchild := readPid(t, filepath.Join(dir, "gc.pid"))
			start := time.Now()
			cancel()
			var o outcome
			select {
			case o = <-done:
			case <-time.After(55 * time.Second):
				t.Fatal("Run did not return after cancel")
			}
			if d := time.Since(start); d > tt.within {
				t.Errorf("Run returned %v after cancel, want < %v", d, tt.within)
			}
			if !errors.Is(o.err, context.Canceled) || !strings.HasPrefix(o.err.Error(), "exec sh -c: killed: context canceled") {
				t.Errorf("err = %v, want context canceled", o.err)
			}
			waitGone(t, grandchild)
		})
	}
}

func TestExecTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	// A sleep that ran its course would return no error.
	_, err := runExec(t, ctx, &Call{With: map[string]any{"command": []any{"sleep", "60"}}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

// TestExecReapsLeftovers: a command that exits leaving a background process holding stdout
// completes at once, and the background process goes with it.
func TestExecReapsLeftovers(t *testing.T) {
	start := time.Now()
	res, err := runExec(t, t.Context(), &Call{With: sh(`sleep 600 & echo $!`)})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Minute { // a liveness bound, far below the sleep: it did not wait
		t.Errorf("took %v", d)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(res.Output)))
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

// TestExecKillsLeftovers: what a command leaves behind outside its process group (setsid),
// down to a child that dropped its environment, is killed when the node ends, however it
// ends, and reaped: no process carries the node's mark after, no zombie is left, and the
// node does not wait for the pipes the leftovers held.
func TestExecKillsLeftovers(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	// The escapee starts a child without the environment, then notes its pids and the mark;
	// it keeps stdout open.
	const escape = `setsid sh -c 'env -i sleep 300 & echo $! > gc.pid; echo "$SEAM_EXEC_ID" > mark; echo $$ > esc.pid; exec sleep 300' &
while [ ! -s esc.pid ]; do sleep 0.01; done
`
	tests := []struct {
		name    string
		script  string
		timeout bool
		wantErr string
	}{
		{"passed", escape + `echo '{"status": "pass", "summary": "left a daemon"}'`, false, ""},
		{"failed", escape + "exit 3", false, "exec sh -c: exit status 3"},
		{"timed out", escape + "sleep 300", true, "exec sh -c: killed: context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx := t.Context()
			if tt.timeout {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 3*time.Second)
				defer cancel()
			}
			_, err := runExec(t, ctx, &Call{Dir: dir, With: sh(tt.script)})
			if (err == nil) != (tt.wantErr == "") || err != nil && err.Error() != tt.wantErr {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			mark, err := os.ReadFile(filepath.Join(dir, "mark"))
			if err != nil || len(mark) < 2 {
				t.Fatalf("no mark: %q %v", mark, err)
			}
			want := "\x00" + proc.MarkVar + "=" + strings.TrimSpace(string(mark)) + "\x00"
			for _, pid := range allPids(t) {
				env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
				if strings.Contains("\x00"+string(env), want) {
					t.Errorf("process %d still carries the node's mark", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			for _, f := range []string{"esc.pid", "gc.pid"} {
				pid := readPid(t, filepath.Join(dir, f))
				// Not even a zombie: reaped, since it came to this process when orphaned.
				if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: process %d is still there (alive: %t)", f, pid, alive(pid))
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// allPids lists the processes in /proc.
func allPids(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestExecCheck(t *testing.T) {
	tests := []struct {
		name     string
		with     map[string]any
		wantPath string // "" for no error
		wantMsg  string
	}{
		{"argv", map[string]any{"command": []any{"./x.py", "--flag"}}, "", ""},
		{"argv with references", map[string]any{"command": []any{"${{ params.tool }}", "${{ params.arg }}"}}, "", ""},
		{"command by reference", map[string]any{"command": "${{ params.argv }}"}, "", ""},
		{"shell by reference, string", map[string]any{"command": "ls", "shell": "${{ params.sh }}"}, "", ""},
		{"shell by reference, argv", map[string]any{"command": []any{"ls"}, "shell": "${{ params.sh }}"}, "", ""},
		{"shell by reference, bad", map[string]any{"command": []any{1}, "shell": "${{ params.sh }}"}, "/command/0", "must be a string, got number"},
		{"output by reference", map[string]any{"command": []any{"ls"}, "output": "${{ params.mode }}"}, "", ""},
		{"dir by reference", map[string]any{"command": []any{"ls"}, "dir": "${{ params.dir }}"}, "", ""},
		{"missing", map[string]any{}, "/command", "required"},
		{"string without shell", map[string]any{"command": "ls -l"}, "/command", "must be an array of strings (argv); set shell: true to run a string with /bin/sh -c"},
		{"argv with shell", map[string]any{"command": []any{"ls"}, "shell": true}, "/command", "must be a script string with shell: true, got array"},
		{"empty argv", map[string]any{"command": []any{}}, "/command", "must name a program"},
		{"empty program", map[string]any{"command": []any{""}}, "/command", "must name a program"},
		{"empty script", map[string]any{"command": " ", "shell": true}, "/command", "must not be empty"},
		{"number in argv", map[string]any{"command": []any{"ls", 3}}, "/command/1", "must be a string, got number"},
		{"shell not bool", map[string]any{"command": "ls", "shell": "true"}, "/shell", "must be a boolean, got string"},
		{"dir not string", map[string]any{"command": []any{"ls"}, "dir": []any{}}, "/dir", "must be a string, got array"},
		{"bad output", map[string]any{"command": []any{"ls"}, "output": "yaml"}, "/output", `must be one of json, wrap, text; got "yaml"`},
		{"bad stdin", map[string]any{"command": []any{"ls"}, "stdin": "both"}, "/stdin", `must be input or envelope; got "both"`},
		{"env not map", map[string]any{"command": []any{"ls"}, "env": "A=1"}, "/env", "must be a mapping of names to strings, got string"},
		{"env number", map[string]any{"command": []any{"ls"}, "env": map[string]any{"N": 3}}, "/env/N", "must be a string, got number (quote it)"},
		{"env bad name", map[string]any{"command": []any{"ls"}, "env": map[string]any{"A=B": "1"}}, "/env/A=B", `invalid variable name "A=B"`},
		{"stderr_limit", map[string]any{"command": []any{"ls"}, "stderr_limit": "big"}, "/stderr_limit", `must be an integer number of bytes from 0 to 1 GiB, got "big"`},
		{"typo", map[string]any{"command": []any{"ls"}, "outptu": "text"}, "/outptu", `unknown key "outptu" (did you mean "output"?)`},
		{"unknown", map[string]any{"command": []any{"ls"}, "timeout": "1s"}, "/timeout", `unknown key "timeout" (known: command, shell, env, dir, output, stdin, stderr_limit)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := execType{}.Check(tt.with)
			if tt.wantPath == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a ConfigError", err)
			}
			if ce.Path != tt.wantPath || ce.Err.Error() != tt.wantMsg || ce.Offset != -1 {
				t.Errorf("err = {%s %d %v}, want {%s -1 %s}", ce.Path, ce.Offset, ce.Err, tt.wantPath, tt.wantMsg)
			}
		})
	}
}

// TestExecLocalFiles: exec names the folder it runs in and the files of its command by
// paths relative to the DAG file's folder, and nothing it cannot know before the run.
func TestExecLocalFiles(t *testing.T) {
	dir := func(p, written string) LocalFile { return LocalFile{Path: p, Written: written, Dir: true} }
	file := func(p, written string) LocalFile { return LocalFile{Path: p, Written: written} }
	tests := []struct {
		name string
		with map[string]any
		want []LocalFile
	}{
		{"a program with a slash", map[string]any{"command": []any{"./x.sh", "-v"}}, []LocalFile{file("x.sh", "./x.sh"), file("-v", "-v")}},
		{"a program on the PATH, its argument", map[string]any{"command": []any{"python3", "x.py"}}, []LocalFile{file("x.py", "x.py")}},
		{"in a dir", map[string]any{"command": []any{"./count.sh", "words.txt"}, "dir": "tools/"}, []LocalFile{dir("tools", "tools/"), file("tools/count.sh", "./count.sh"), file("tools/words.txt", "words.txt")}},
		{"leading out", map[string]any{"command": []any{"../tools/x.sh"}, "dir": "sub"}, []LocalFile{dir("sub", "sub"), file("tools/x.sh", "../tools/x.sh")}},
		{"a dir outside", map[string]any{"command": []any{"ls"}, "dir": "../tools"}, []LocalFile{dir("../tools", "../tools")}},
		{"absolute paths", map[string]any{"command": []any{"/bin/cat", "/etc/hosts"}}, nil},
		{"an absolute dir", map[string]any{"command": []any{"./x.sh"}, "dir": "/srv"}, nil},
		{"a dir by reference", map[string]any{"command": []any{"./x.sh"}, "dir": "${{ params.dir }}"}, nil},
		{"arguments by reference", map[string]any{"command": []any{"${{ params.tool }}", "a-${{ params.arg }}", 3}}, nil},
		{"a command by reference", map[string]any{"command": "${{ params.argv }}"}, nil},
		{"a shell script", map[string]any{"command": "./x.sh", "shell": true, "dir": "tools"}, []LocalFile{dir("tools", "tools")}},
		{"shell by reference reads as argv", map[string]any{"command": []any{"./x.sh"}, "shell": "${{ params.sh }}"}, []LocalFile{file("x.sh", "./x.sh")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LocalFiles(execType{}).LocalFiles(tt.with); !slices.Equal(got, tt.want) {
				t.Errorf("LocalFiles = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestExecEnvelope checks what a node with stdin: envelope reads: its input, and the attempt
// with the violations seam asks it to repair.
func TestExecEnvelope(t *testing.T) {
	with := map[string]any{"command": []any{"cat"}, "stdin": "envelope"}
	tests := []struct {
		name string
		call Call
		want string
	}{
		{"first attempt", Call{Node: "draft", Attempt: 1, Input: map[string]any{"n": 1}},
			`{"input":{"n":1},"seam":{"node":"draft","attempt":1,"violations":[]}}`},
		{"repair", Call{Node: "draft", Attempt: 2, Input: "x", Violations: []contract.Violation{
			{Pointer: "/data", Keyword: "/required", Message: "missing required field: data"}}},
			`{"input":"x","seam":{"node":"draft","attempt":2,"violations":[{"pointer":"/data","keyword":"/required","message":"missing required field: data"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := tt.call
			call.With = with
			res, err := runExec(t, t.Context(), &call)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Output) != tt.want {
				t.Errorf("stdin = %s\nwant    %s", res.Output, tt.want)
			}
		})
	}
}

// TestExecSaysErrorsInCallLang: exec says its own errors and hints in the run's language
// (Call.Lang); what it quotes (stderr, the program's name) stays as it is.
func TestExecSaysErrorsInCallLang(t *testing.T) {
	tests := []struct {
		name, lang string
		call       Call
		wantErr    string
		wantHint   string
	}{
		{"exit en", "en", Call{With: sh("exit 3")}, "exec sh -c: exit status 3", ""},
		{"exit ja", "ja", Call{With: sh("exit 3")}, "exec sh -c: 終了コード 3", ""},
		{"missing dir ja", "ja", Call{Dir: "/nonexistent-seam-dir", With: sh("true")}, "exec: dir /nonexistent-seam-dir：そのようなディレクトリはありません", ""},
		{"limit ja", "ja", Call{OutputLimit: 4, With: sh("echo 0123456789")}, "exec sh -c: 出力が上限 4 bytes を超えています", ""},
		{"wrap ja", "ja", Call{With: map[string]any{"command": []any{"true"}, "output": "wrap"}}, "exec true: output: wrap には標準出力に JSON の値が 1 つ必要ですが、何も出力されていません", ""},
		{"hint ja", "ja", Call{With: sh("echo hello")}, "", "exec は標準出力を JSON として読みます：ログは標準エラー出力に書くか、プレーンテキストには output: text を使ってください"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := tt.call
			call.Lang = i18n.Lang(tt.lang)
			if call.Dir == "" {
				call.Dir = t.TempDir()
			}
			res, err := runExec(t, t.Context(), &call)
			if got := fmt.Sprint(err); tt.wantErr != "" && got != tt.wantErr || tt.wantErr == "" && err != nil {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if tt.wantHint != "" && (res == nil || res.NotJSONHint != tt.wantHint) {
				t.Errorf("hint = %+v, want %q", res, tt.wantHint)
			}
		})
	}
}
