package nodes

import (
	"fmt"
	"io"
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
		chunk int  // bytes a write
		both  bool // stdout is written too (exec's output: text)
		want  string
	}{
		{"all kept", len(text), 100, false, text},
		{"tail of whole lines", 20, 7, false, "[28.2 KiB of stderr dropped]\nline 2998\nline 2999\n"},
		{"partial line dropped", 25, 13, false, "[28.2 KiB of stderr dropped]\nline 2998\nline 2999\n"},
		{"one byte at a time", 25, 1, false, "[28.2 KiB of stderr dropped]\nline 2998\nline 2999\n"},
		{"one write larger than the limit", 25, len(text), false, "[28.2 KiB of stderr dropped]\nline 2998\nline 2999\n"},
		{"only part of a line", 4, 50, false, "[28.2 KiB of stderr dropped]\n999\n"},
		{"nothing written", 10, 0, false, ""},
		{"stdout too", 20, 7, true, "[28.2 KiB of stdout and stderr dropped]\nline 2998\nline 2999\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLiveLog(tt.limit)
			var w io.Writer = l
			if tt.both {
				w = l.Stdout()
			}
			for s := text; tt.chunk > 0 && s != ""; {
				n := min(tt.chunk, len(s))
				if _, err := w.Write([]byte(s[:n])); err != nil {
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
