//go:build linux

package proc

import "testing"

// BenchmarkLeftovers measures the look for leftovers that follows every process a node
// starts, when there are none (the usual case).
func BenchmarkLeftovers(b *testing.B) {
	for b.Loop() {
		if pids := leftovers("none"); len(pids) > 0 {
			b.Fatalf("leftovers %v", pids)
		}
	}
}
