//go:build unix

package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: the pipe readers and waiters included.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRun: what a command leaves behind, and each way it can fail, in the command's language.
func TestRun(t *testing.T) {
	big := strings.Repeat("x", PipeMin+1)
	tests := []struct {
		name       string
		timeout    time.Duration // 0: none
		cmd        Command
		stdout     string // a regular expression
		stderr     string
		wantErr    string
		exitStatus int // when wantErr is an exit status: the *exec.ExitError's code
	}{
		{"stdout and stderr", 0, Command{Argv: []string{"/bin/sh", "-c", "echo out; echo err >&2"}}, "^out\n$", "err\n", "", 0},
		{"stdin written ahead", 0, Command{Argv: []string{"cat"}, Stdin: []byte("in")}, "^in$", "", "", 0},
		{"stdin fed as read", 0, Command{Argv: []string{"cat"}, Stdin: []byte(big)}, "^" + big + "$", "", "", 0},
		{"the mark", 0, Command{Argv: []string{"/bin/sh", "-c", "echo $" + MarkVar}}, "^[0-9a-f]{16}\n$", "", "", 0},
		{"in its folder", 0, Command{Argv: []string{"pwd"}, Dir: "/"}, "^/\n$", "", "", 0},
		{"exit status", 0, Command{Argv: []string{"/bin/sh", "-c", "echo no >&2; exit 3"}}, "^$", "no\n", "exit status 3", 3},
		{"exit status, ja", 0, Command{Argv: []string{"/bin/sh", "-c", "exit 3"}, Lang: "ja"}, "^$", "", "終了コード 3", 3},
		{"killed", 100 * time.Millisecond, Command{Argv: []string{"sleep", "60"}, Lang: "ja"}, "^$", "", "強制終了しました：context deadline exceeded", 0},
		{"no such program", 0, Command{Argv: []string{"./no-such-program"}}, "^$", "", "fork/exec ./no-such-program: no such file or directory", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			tt.cmd.OutputLimit, tt.cmd.StderrLimit = 1<<20, 1<<10
			res, err := Run(ctx, tt.cmd)
			if got := fmt.Sprint(err); (err != nil || tt.wantErr != "") && got != tt.wantErr {
				t.Errorf("err = %s, want %s", got, tt.wantErr)
			}
			var exit *exec.ExitError
			if tt.exitStatus != 0 && (!errors.As(err, &exit) || exit.ExitCode() != tt.exitStatus) {
				t.Errorf("err = %#v, want an *exec.ExitError of %d", err, tt.exitStatus)
			}
			if !regexp.MustCompile(tt.stdout).Match(res.Stdout) {
				t.Errorf("stdout = %.80q, want %.80q", res.Stdout, tt.stdout)
			}
			if string(res.Stderr) != tt.stderr || res.StderrDropped != 0 {
				t.Errorf("stderr = %q (%d dropped), want %q", res.Stderr, res.StderrDropped, tt.stderr)
			}
		})
	}
}

// TestRunLimits: stdout past its limit kills the command; stderr past its limit keeps the
// tail, from a line.
func TestRunLimits(t *testing.T) {
	res, err := Run(t.Context(), Command{Argv: []string{"yes"}, OutputLimit: 10, StderrLimit: 10})
	if !errors.Is(err, ErrOutputLimit) || len(res.Stdout) != 11 {
		t.Errorf("yes: %v with %d bytes, want ErrOutputLimit with 11", err, len(res.Stdout))
	}
	res, err = Run(t.Context(), Command{Argv: []string{"/bin/sh", "-c", "echo first >&2; echo second >&2"}, OutputLimit: 10, StderrLimit: 8})
	if err != nil || string(res.Stderr) != "second\n" || res.StderrDropped != 6 {
		t.Errorf("stderr = %q (%d dropped), %v; want %q (6 dropped)", res.Stderr, res.StderrDropped, err, "second\n")
	}
}

func TestTailBuffer(t *testing.T) {
	var all strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&all, "line %d\n", i)
	}
	text := all.String() // 28890 bytes; "line 1000" starts at 8890
	whole := func(r io.Reader) io.Reader { return r }
	tests := []struct {
		name   string
		limit  int
		reader func(io.Reader) io.Reader
		tail   string // what is kept: the rest of text is dropped
	}{
		{"all kept", len(text), whole, text},
		{"nothing kept", 0, whole, ""},
		{"tail of whole lines", 20, iotest.HalfReader, "line 2998\nline 2999\n"},
		{"partial line dropped", 25, iotest.HalfReader, "line 2998\nline 2999\n"},
		{"one byte at a time", 25, iotest.OneByteReader, "line 2998\nline 2999\n"},
		{"large limit", 20005, iotest.HalfReader, text[8890:]},
		{"only part of a line", 4, whole, "999\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tailBuffer{limit: tt.limit}
			if err := b.readFrom(tt.reader(strings.NewReader(text))); err != nil {
				t.Fatal(err)
			}
			got, dropped := b.tail()
			if want := int64(len(text) - len(tt.tail)); string(got) != tt.tail || dropped != want {
				t.Errorf("tail() = %.80q… (%d bytes), %d dropped; want %.80q… (%d bytes), %d dropped", got, len(got), dropped, tt.tail, len(tt.tail), want)
			}
			if cap(b.buf) > 2*tt.limit+len(text)/2+512 {
				t.Errorf("buffer grew to %d bytes for a limit of %d", cap(b.buf), tt.limit)
			}
		})
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

// liveWriter records what it is given, and tells once it holds want.
type liveWriter struct {
	mu   sync.Mutex
	got  []byte
	want string
	seen chan struct{}
}

func (w *liveWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(string(w.got), w.want)
	w.got = append(w.got, p...)
	if !had && strings.Contains(string(w.got), w.want) {
		close(w.seen)
	}
	return len(p), nil
}

// TestRunLive: Command.Live is given stderr while the command runs, before it ends: the
// command waits for a file that the test writes only once Live has seen the first line.
func TestRunLive(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	w := &liveWriter{want: "first\n", seen: make(chan struct{})}
	go func() {
		select {
		case <-w.seen:
			_ = os.WriteFile(gate, nil, 0o600)
		case <-t.Context().Done():
		}
	}()
	script := `echo first >&2; while [ ! -e "$1" ]; do sleep 0.01; done; echo second >&2`
	res, err := Run(t.Context(), Command{Argv: []string{"/bin/sh", "-c", script, "sh", gate}, OutputLimit: 1 << 10, StderrLimit: 1 << 10, Live: w})
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if string(w.got) != "first\nsecond\n" || string(res.Stderr) != "first\nsecond\n" {
		t.Errorf("Live got %q, stderr %q; want both %q", w.got, res.Stderr, "first\nsecond\n")
	}
}
