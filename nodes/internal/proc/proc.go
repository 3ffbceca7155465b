//go:build unix

// Package proc runs a node's command under supervision: in a process group of its own, with
// stdout bounded and the tail of stderr kept, and killed with everything it started when the
// node ends, is cancelled, or seam dies.
package proc

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/seam-dag/seam/internal/i18n"
)

// KillGrace is how long a cancelled process group has between SIGTERM and SIGKILL, and how
// long pipes still held by processes that left the group are read after the command ends.
const KillGrace = 500 * time.Millisecond

// Command is one command to run.
type Command struct {
	Argv        []string // Argv[0] is a path, or a name looked up in $PATH
	Dir         string
	Env         []string
	Stdin       []byte
	OutputLimit int64     // stdout bytes
	StderrLimit int       // stderr bytes kept, the tail
	Lang        i18n.Lang // the language of its errors
	Guard       *Watchdog // kills its group if seam dies; nil for none
	// Live, when set, is given stderr as the command writes it, for a watcher to see before
	// the command ends; it must not block.
	Live io.Writer
	// LiveStdout, when set, is given stdout so too (exec's output: text, whose stdout is
	// a log people watch); it must not block, and must not fail.
	LiveStdout io.Writer
}

// Result is what a command left behind; it is filled as far as it got on error.
type Result struct {
	Stdout []byte
	// Stderr is the last StderrLimit bytes of stderr; when StderrDropped bytes before them
	// were dropped, it starts at a line (unless that would leave nothing) and at a character.
	Stderr        []byte
	StderrDropped int64
}

// ErrOutputLimit is Run's error when stdout passes Command.OutputLimit.
var ErrOutputLimit = errors.New("output limit exceeded")

// MarkVar names the environment variable that marks every process a node starts, and what
// those start in turn (they inherit it): its value, unique to one command run, tells what the
// node left behind. It is not a secret.
const MarkVar = "SEAM_EXEC_ID"

// PipeMin is the least a pipe buffers on Linux (one page, even when the user's pipe quota
// is spent), so that writing that much never waits for a reader: Run writes a stdin that
// small before the command starts, and feeds a larger one as the command reads.
const PipeMin = 4096

// Run runs p in its own process group. The group is killed when ctx is done, when stdout
// passes its limit, and once the leader has exited; on Linux, so is every process carrying
// the run's mark (MarkVar), which catches those that left the group (setsid): a node's
// processes do not outlive it. If seam dies first, the kernel kills the leader
// (dieWithParent) and p.Guard the group. An error is ctx's, ErrOutputLimit, one wrapping an
// *exec.ExitError, or a failure to start.
func Run(ctx context.Context, p Command) (Result, error) {
	var res Result
	runCtx, stop := context.WithCancel(ctx) // stop also ends the process on overflow
	defer stop()

	var id [8]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails
	mark := hex.EncodeToString(id[:])
	cmd := exec.CommandContext(runCtx, p.Argv[0], p.Argv[1:]...)
	// Last, so that neither seam's environment nor the node's env can replace it.
	cmd.Dir, cmd.Env = p.Dir, append(slices.Clip(p.Env), MarkVar+"="+mark)
	if len(p.Stdin) > PipeMin {
		cmd.Stdin = bytes.NewReader(p.Stdin) // os/exec feeds it as the process reads
	} else {
		// Small enough for any pipe's buffer: written before the process starts, it needs
		// no goroutine to feed it (most inputs; a node's start is on every chain's path).
		inR, inW, err := os.Pipe()
		if err != nil {
			return res, fmt.Errorf("stdin pipe: %w", err)
		}
		defer inR.Close()
		_, err = inW.Write(p.Stdin)
		inW.Close()
		if err != nil {
			return res, fmt.Errorf("stdin pipe: %w", err)
		}
		cmd.Stdin = inR
	}
	// Its own group, so that killing it reaches everything it started, not just the leader.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	// SIGTERM lets scripts clean up; after WaitDelay exec sends SIGKILL to the leader, and
	// the group gets one below once the leader is gone.
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = KillGrace

	// Pipes as *os.File: the child writes to them directly, so Wait returns when the leader
	// exits rather than when the last process holding them does.
	outR, outW, err := os.Pipe()
	if err != nil {
		return res, fmt.Errorf("stdout pipe: %w", err)
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return res, fmt.Errorf("stderr pipe: %w", err)
	}
	defer errR.Close()
	cmd.Stdout, cmd.Stderr = outW, errW
	enableSubreaper()
	err = cmd.Start()
	// The child has its own copies; ours would keep the readers from ever seeing EOF.
	outW.Close()
	errW.Close()
	if err != nil {
		return res, err
	}
	p.Guard.add(cmd.Process.Pid)

	var (
		wg             sync.WaitGroup
		stdout         bytes.Buffer
		stderr         = tailBuffer{limit: p.StderrLimit, live: p.Live}
		overflow       bool
		outErr, errErr error
	)
	wg.Go(func() {
		var r io.Reader = io.LimitReader(outR, p.OutputLimit+1)
		if p.LiveStdout != nil {
			r = io.TeeReader(r, p.LiveStdout)
		}
		_, outErr = stdout.ReadFrom(r)
		if int64(stdout.Len()) > p.OutputLimit {
			overflow = true
			stop()
		}
	})
	wg.Go(func() { errErr = stderr.readFrom(errR) })

	waitErr := cmd.Wait()
	// The leader is reaped but its group id stays in use, and so cannot be reused, while any
	// member lives: killing the group now reaches only what the command left behind.
	_ = signalGroup(cmd.Process.Pid, syscall.SIGKILL)
	killLeftovers(mark)
	p.Guard.remove(cmd.Process.Pid)
	// A process that left the group and escaped the mark may hold a pipe open for ever; stop
	// reading then.
	deadline := time.Now().Add(KillGrace)
	_ = outR.SetReadDeadline(deadline)
	_ = errR.SetReadDeadline(deadline)
	wg.Wait()

	res.Stdout = stdout.Bytes()
	res.Stderr, res.StderrDropped = stderr.tail()
	switch {
	case overflow:
		return res, ErrOutputLimit
	case ctx.Err() != nil:
		return res, i18n.Errorf(p.Lang, "killed: %w", ctx.Err())
	case waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay):
		// ErrWaitDelay means the command succeeded but something it started kept stdin open.
		var exit *exec.ExitError
		if errors.As(waitErr, &exit) && exit.Exited() {
			return res, &exitError{msg: i18n.Sprintf(p.Lang, "exit status %d", exit.ExitCode()), err: waitErr}
		}
		return res, waitErr
	}
	return res, errors.Join(readErr("stdout", outErr), readErr("stderr", errErr))
}

// readErr reports a failed read of a pipe; a deadline is how reading is given up on above.
func readErr(pipe string, err error) error {
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		return nil
	}
	return fmt.Errorf("read %s: %w", pipe, err)
}

// signalGroup signals every process in the group led by pid.
func signalGroup(pid int, sig syscall.Signal) error {
	err := syscall.Kill(-pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// tailBuffer keeps the last limit bytes read into it, and the byte before them, which tells
// whether they start a line.
type tailBuffer struct {
	limit int
	buf   []byte
	total int64
	live  io.Writer // Command.Live
}

// readFrom reads r to its end. It reads into its own buffer, which starts small: most
// commands write little to stderr, and io.Copy would allocate 32 KiB for each.
func (t *tailBuffer) readFrom(r io.Reader) error {
	for {
		if len(t.buf) == cap(t.buf) {
			// Drop the head only when that frees a lot, so that keeping the tail costs O(1)
			// a byte; otherwise grow.
			if keep := t.limit + 1; cap(t.buf)-keep >= max(keep, 512) {
				t.buf = append(t.buf[:0], t.buf[len(t.buf)-keep:]...)
			} else {
				t.buf = slices.Grow(t.buf, max(512, len(t.buf)))
			}
		}
		n, err := r.Read(t.buf[len(t.buf):cap(t.buf)])
		if t.live != nil && n > 0 {
			_, _ = t.live.Write(t.buf[len(t.buf) : len(t.buf)+n]) // a watcher's loss, not the command's
		}
		t.buf = t.buf[:len(t.buf)+n]
		t.total += int64(n)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// tail returns the tail, and how many bytes before it were dropped; when some were, it
// starts at a line.
func (t *tailBuffer) tail() ([]byte, int64) {
	tail := t.buf[max(0, len(t.buf)-t.limit):]
	if int64(len(tail)) == t.total {
		return tail, 0
	}
	if startsLine := len(tail) < len(t.buf) && t.buf[len(t.buf)-len(tail)-1] == '\n'; !startsLine {
		// Unless that would leave nothing: part of a line is better than none.
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
			tail = tail[i+1:]
		}
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return tail, t.total - int64(len(tail))
}

// exitError is a command's exit status said in the run's language; it wraps the
// *exec.ExitError, whose own text is English.
type exitError struct {
	msg string
	err error
}

func (e *exitError) Error() string { return e.msg }
func (e *exitError) Unwrap() error { return e.err }
