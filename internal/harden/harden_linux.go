package harden

import "golang.org/x/sys/unix"

// NotDumpable marks the process not dumpable: another process of the same user (a node seam
// runs, reading /proc/$PPID/environ or attaching a debugger) is refused what would show
// seam's memory and environment. Root is not refused, and the command line stays readable
// to everyone: give credentials in the environment or a file, never in a flag. No core dump
// is written either.
func NotDumpable() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
