//go:build unix

package proc

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// watchdogScript keeps the process groups seam tells it of on stdin ("+PGID", "-PGID", one a
// line) and kills those it still has once stdin ends: when seam exits, or dies however it
// dies (kill -9 included), since the kernel then closes seam's end of the pipe. -9 rather than
// -s KILL, and no "--": dash, Debian's sh, takes only that form for a group.
const watchdogScript = `g=' '
while read -r l; do
	p=${l#?}
	case $l in
	+*) g="$g$p " ;;
	-*) case $g in *" $p "*) g="${g%% $p *} ${g#* $p }" ;; esac ;;
	esac
done
for p in $g; do kill -9 -$p 2>/dev/null; done
`

// Watchdog kills the process groups of the nodes still running when seam dies. The kernel
// kills a node's own process then (Pdeathsig, on Linux), but not what that process started,
// and nothing in seam runs after a SIGKILL: so a shell does it, started once (at the first
// node's process) and outliving seam by the moment it takes to read the end of its stdin.
// What left its node's group (setsid) escapes it (docs/dag-file.md). The zero value is ready;
// one serves every command of a process (Command.Guard).
type Watchdog struct {
	once sync.Once
	w    *os.File // seam's end of the pipe; nil when the shell could not start
}

// start starts the shell, in a process group of its own so that a terminal's Ctrl-C, which
// seam turns into a cancellation that kills the nodes' groups itself, does not end it first.
// It holds neither seam's stdout nor its stderr: a reader of seam's output sees their end
// when seam ends.
func (g *Watchdog) start() {
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", watchdogScript)
	// Not an empty environment: killLeftovers, which looks at seam's children after every
	// node, waits on an empty one for a process in the middle of execve to show its own.
	cmd.Stdin, cmd.Env, cmd.Dir = r, []string{"PATH=/usr/bin:/bin"}, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return
	}
	// Never waited for: it exits with seam, or when this watchdog is collected, when the
	// pipe's finalizer closes w. Release drops the pidfd Go holds for it.
	_ = cmd.Process.Release()
	g.w = w
}

// add tells the shell of the group led by pid; remove, once the group is gone, lets it forget
// the group, so that it never kills a group that later reuses the id. Both give up after
// KillGrace rather than hold a node up: a node then runs unguarded against seam's SIGKILL.
func (g *Watchdog) add(pid int) {
	if g == nil {
		return
	}
	g.once.Do(g.start)
	g.send('+', pid)
}

func (g *Watchdog) remove(pid int) {
	if g == nil {
		return
	}
	g.send('-', pid)
}

func (g *Watchdog) send(op byte, pid int) {
	if g.w == nil {
		return
	}
	line := strconv.AppendInt([]byte{op}, int64(pid), 10)
	_ = g.w.SetWriteDeadline(time.Now().Add(KillGrace))
	_, _ = g.w.Write(append(line, '\n'))
}
