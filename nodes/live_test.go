package nodes

import (
	"fmt"
	"strings"
	"testing"
)

func TestLiveLog(t *testing.T) {
	var all strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&all, "line %d\n", i)
	}
	text := all.String() // 28890 bytes
	tests := []struct {
		name  string
		limit int
		chunk int // bytes a write
		want  string
	}{
		{"all kept", len(text), 100, text},
		{"tail of whole lines", 20, 7, "[28.2 KiB of stderr dropped]\nline 2998\nline 2999\n"},
		{"partial line dropped", 25, 13, "[28.2 KiB of stderr dropped]\nline 2998\nline 2999\n"},
		{"one byte at a time", 25, 1, "[28.2 KiB of stderr dropped]\nline 2998\nline 2999\n"},
		{"one write larger than the limit", 25, len(text), "[28.2 KiB of stderr dropped]\nline 2998\nline 2999\n"},
		{"only part of a line", 4, 50, "[28.2 KiB of stderr dropped]\n999\n"},
		{"nothing written", 10, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLiveLog(tt.limit)
			for s := text; tt.chunk > 0 && s != ""; {
				n := min(tt.chunk, len(s))
				if _, err := l.Write([]byte(s[:n])); err != nil {
					t.Fatal(err)
				}
				s = s[n:]
				if cap(l.buf) > 4*tt.limit+2*tt.chunk+64 {
					t.Fatalf("buffer grew to %d bytes for a limit of %d", cap(l.buf), tt.limit)
				}
			}
			if got := l.String(); got != tt.want {
				t.Errorf("String() = %.120q; want %.120q", got, tt.want)
			}
		})
	}
}
