//go:build unix && !linux

package proc

import "syscall"

// enableSubreaper does nothing: only Linux has child subreapers. A node's process group is
// still killed when it ends; a process that left the group (setsid) survives it.
func enableSubreaper() {}

// dieWithParent does nothing: only Linux kills a child when its parent dies.
func dieWithParent(*syscall.SysProcAttr) {}

// killLeftovers does nothing without a subreaper: see enableSubreaper.
func killLeftovers(string) {}
