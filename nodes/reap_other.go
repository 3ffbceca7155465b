//go:build unix && !linux

package nodes

// enableSubreaper does nothing: only Linux has child subreapers. A node's process group is
// still killed when it ends; a process that left the group (setsid) survives it.
func enableSubreaper() {}

// killLeftovers does nothing without a subreaper: see enableSubreaper.
func killLeftovers(string) {}
