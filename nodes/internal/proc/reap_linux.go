//go:build linux

package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// dieWithParent has the kernel kill a node's process when seam dies, kill -9 included: a
// Temporal worker that dies must not leave its attempts running while another worker runs
// them again. It reaches that process only; the watchdog kills the rest of its group.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// enableSubreaper makes this process the parent of its orphaned descendants, so that what a
// node's command leaves behind (a daemon, a `setsid` job) stays in reach of killLeftovers
// instead of going to init. Setting it again is harmless, so every process start does it and
// nothing needs to remember whether it was done.
func enableSubreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// killLeftovers kills the processes that carry mark (MarkVar in their environment, inherited
// from the node's command) among this process's descendants, with everything below them, and
// reaps those that came to this process as orphans. It returns once they are gone, or after
// KillGrace: a process stuck in the kernel may outlive the node, but cannot hold it.
//
// Only the pids found are waited for, never "any child": os/exec waits for its own.
func killLeftovers(mark string) {
	pids := leftovers(mark)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	self := os.Getpid()
	for deadline := time.Now().Add(KillGrace); len(pids) > 0 && time.Now().Before(deadline); {
		left := pids[:0]
		for _, pid := range pids {
			ppid, ok := parent(pid)
			if !ok {
				continue // gone, reaped by its parent
			}
			if ppid == self {
				var ws syscall.WaitStatus
				if got, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid {
					continue
				}
			}
			// Still dying, or a zombie whose parent (dying too) hands it to us next.
			left = append(left, pid)
		}
		pids = left
		if len(pids) > 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// leftovers returns the descendants of this process that carry mark, and theirs. A marked
// process can only descend from the node's command, which has exited: what it left is an
// orphan, now a child of this process (enableSubreaper), or below one. So only children of
// this process are checked for the mark, and the children of a marked one are taken whole,
// marked or not.
func leftovers(mark string) []int {
	want := []byte("\x00" + MarkVar + "=" + mark + "\x00")
	var found []int
	stack := children(os.Getpid())
	for _, pid := range stack {
		if marked(pid, want) {
			found = append(found, pid)
		}
	}
	stack = append(stack[:0], found...)
	for len(stack) > 0 {
		pid := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		below := children(pid)
		found = append(found, below...)
		stack = append(stack, below...)
	}
	return found
}

// children lists pid's child processes from /proc/PID/task/*/children (one file per thread:
// an orphan goes to one of the reaper's threads).
func children(pid int) []int {
	task := "/proc/" + strconv.Itoa(pid) + "/task/"
	d, err := os.Open(task)
	if err != nil {
		return nil // gone
	}
	tids, _ := d.Readdirnames(-1)
	d.Close()
	var out []int
	var buf []byte
	for _, tid := range tids {
		if buf, err = readProc(task+tid+"/children", buf[:0]); err != nil {
			continue // the thread ended
		}
		for s := range strings.FieldsSeq(string(buf)) {
			if c, err := strconv.Atoi(s); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// marked reports whether pid's environment holds want ("\x00NAME=VALUE\x00"). A process in
// the middle of execve shows an empty environment for a moment (the new image's is not set
// up yet), as a process that just left a node's command to `exec` a daemon may be: read
// again until it shows one, unless it is a zombie, whose environment stays empty.
func marked(pid int, want []byte) bool {
	for range 50 {
		env, err := readProc("/proc/"+strconv.Itoa(pid)+"/environ", nil)
		if err != nil {
			return false // gone, or not ours to read
		}
		if len(env) > 0 {
			return bytes.HasPrefix(env, want[1:]) || bytes.Contains(env, want)
		}
		if state, ok := procState(pid); !ok || state == 'Z' {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// readProc appends the content of a /proc file to buf. Unlike os.ReadFile it does not stat
// the file first (/proc sizes are 0 anyway): this runs after every process a node starts.
func readProc(path string, buf []byte) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, max(512, cap(buf)))...)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// parent reads pid's parent from /proc/PID/stat; ok is false once pid is gone.
func parent(pid int) (ppid int, ok bool) {
	f, ok := statFields(pid)
	if !ok {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// procState reads pid's state (R, S, Z, …) from /proc/PID/stat; ok is false once pid is gone.
func procState(pid int) (state byte, ok bool) {
	f, ok := statFields(pid)
	if !ok || f[0] == "" {
		return 0, false
	}
	return f[0][0], true
}

// statFields returns the fields of /proc/PID/stat after "pid (comm)", at least two: the
// state, the parent, ….
func statFields(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	// "pid (comm) state ppid …"; comm may hold spaces and parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return f, len(f) >= 2
}
