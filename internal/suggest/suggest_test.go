package suggest

import "testing"

func TestClosest(t *testing.T) {
	candidates := []string{"needs", "const", "exec", "transform", "on", "timeout"}
	tests := []struct{ word, want string }{
		{"neds", "needs"},          // a deletion
		{"cosnt", "const"},         // a swap counts as one edit
		{"exce", "exec"},           // a swap
		{"transfrom", "transform"}, // a swap in a long word
		{"timout", "timeout"},
		{"a", ""},          // too short to guess
		{"shell", ""},      // nothing near
		{"ñeeds", "needs"}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := Closest(tt.word, candidates); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
