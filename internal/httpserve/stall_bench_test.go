package httpserve

import (
	"io"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkStalledStreams measures the memory that clients holding event streams they never
// read keep in the server: stalled clients each ask for an answer of size bytes (a stored
// output, a get_run answer), with Accept: text/event-stream, and read nothing. Once every
// write has had the write limit to finish, it reports the heap still in use (held-MB) and the
// handlers still blocked (stuck). Run it before and after a change side by side
// (docs/limits.md has the figures); nothing is asserted.
func BenchmarkStalledStreams(b *testing.B) {
	const (
		clients = 20
		size    = 16 << 20
	)
	lim := Limits{Write: 500 * time.Millisecond, PerClient: clients + 1}
	var stuck atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stuck.Add(1)
		defer stuck.Add(-1)
		out := make([]byte, size) // what the answer holds while it is written
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(out)
	})
	for range b.N {
		addr := serveTest(b, lim, h)
		var conns []net.Conn
		for range clients {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
			io.WriteString(c, "GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
		}
		time.Sleep(4 * lim.Write)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "held-MB")
		b.ReportMetric(float64(stuck.Load()), "stuck")
		for _, c := range conns {
			c.Close()
		}
	}
}
