package contract

import "testing"

// TestViolationAt: where a violation is, for people; the root is "/".
func TestViolationAt(t *testing.T) {
	tests := []struct{ pointer, want string }{{"", "/"}, {"/reply", "/reply"}, {"/items/0", "/items/0"}}
	for _, tt := range tests {
		if got := (Violation{Pointer: tt.pointer}).At(); got != tt.want {
			t.Errorf("At of %q = %q, want %q", tt.pointer, got, tt.want)
		}
	}
}
