package nodes

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// LiveLog keeps the end of what an attempt prints while it runs (exec: its stderr), so that
// a watcher of the run sees it before the attempt ends. It keeps at most twice its limit,
// however much is written. The node writes it on its goroutines, the engine reads it on
// another: it is safe for concurrent use.
type LiveLog struct {
	limit int

	mu    sync.Mutex
	buf   []byte
	total int64
	// stdout is set once stdout is written too (Stdout): what was dropped is said of both.
	stdout bool
}

// NewLiveLog returns a LiveLog that keeps the last limit bytes (at least 1).
func NewLiveLog(limit int) *LiveLog { return &LiveLog{limit: max(limit, 1)} }

// Write keeps the end of p; it never fails, and never blocks for long.
func (l *LiveLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total += int64(len(p))
	if len(p) >= l.limit {
		l.buf = append(l.buf[:0], p[len(p)-l.limit-min(1, len(p)-l.limit):]...)
		return len(p), nil
	}
	if len(l.buf)+len(p) > 2*l.limit {
		// Keep the byte before the tail too: it tells whether the tail starts a line.
		keep := min(len(l.buf), l.limit+1)
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-keep:]...)
	}
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// Stdout returns the writer a node gives its stdout to, when stdout is a log too (exec's
// output: text): the same log, interleaved with stderr as the two are written.
func (l *LiveLog) Stdout() io.Writer {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stdout = true
	return l
}

// String returns what was written, or its end as the attempt's log says it (a count of
// what was dropped, then the tail from the start of a line): the same text a finished
// exec attempt keeps, so that the panel does not change its form when the attempt ends.
func (l *LiveLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	tail := l.buf[max(0, len(l.buf)-l.limit):]
	if int64(len(tail)) == l.total {
		return string(tail)
	}
	if startsLine := len(tail) < len(l.buf) && l.buf[len(l.buf)-len(tail)-1] == '\n'; !startsLine {
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
			tail = tail[i+1:]
		}
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	what := "stderr"
	if l.stdout {
		what = "stdout and stderr"
	}
	return fmt.Sprintf("[%s of %s dropped]\n%s", formatSize(l.total-int64(len(tail))), what, tail)
}
