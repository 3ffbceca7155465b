package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
)

// The MCP benchmarks: get_run and list_runs latency (p50, p99) over the in-memory and the
// streamable HTTP transport at 1 and 10 concurrent clients, each beside the same work done
// by calling the run store directly; and the size of get_run's minimal answer against the
// raw one for a 20-node run. docs/performance.md ("MCP") has the results. Run with:
//
//	go test -run '^$' -bench '^Benchmark(GetRun|ListRuns|ResponseBytes)$' -benchtime 2000x -count 3 ./mcp/

// benchRuns is how many runs the benchmark store holds: a store in use for a while.
const benchRuns = 200

// wideDAG is a DAG of 20 const nodes in 4 layers of 5, each node after the first layer
// needing the whole layer before, one node warning. With data, every output carries what a
// node typically hands on (a count, a source, three items); without, only status and
// summary (the least a raw answer can hold, so the worst case for the minimal one).
func wideDAG(name string, data bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "version: 1\nname: %s\nconcurrency: 5\nnodes:\n", name)
	layers := []string{"fetch", "parse", "score", "report"}
	for l, layer := range layers {
		for i := 1; i <= 5; i++ {
			id := fmt.Sprintf("%s_%d", layer, i)
			fmt.Fprintf(&b, "  %s:\n    type: const\n", id)
			if l > 0 {
				var needs []string
				for j := 1; j <= 5; j++ {
					needs = append(needs, fmt.Sprintf("%s_%d", layers[l-1], j))
				}
				fmt.Fprintf(&b, "    needs: [%s]\n", strings.Join(needs, ", "))
			}
			status, summary := "pass", fmt.Sprintf("%s: 3 tickets from queue %d, highest priority high", id, i)
			if id == "score_3" {
				status, summary = "warn", "score_3: 3 tickets scored; 1 has no owner"
			}
			fmt.Fprintf(&b, "    with:\n      value:\n        status: %s\n        summary: %q\n", status, summary)
			if data {
				fmt.Fprintf(&b, "        data:\n          count: 3\n          source: https://tickets.example.com/api/v2/queues/%d?state=open\n          items:\n", i)
				for k := 1; k <= 3; k++ {
					fmt.Fprintf(&b, "            - {id: T-%d%d%02d, title: \"Login page times out after the 2.4 upgrade (%s)\", priority: high, score: 0.%d}\n", l, i, k, id, 90-k)
				}
			}
		}
	}
	// Bare outputs have no data: the count then defaults to 0 (an output that cannot be
	// resolved fails the run).
	b.WriteString("outputs:\n  tickets: \"${{ has(nodes.report_1.output.data) ? nodes.report_1.output.data.count : 0 }}\"\n  summary: \"${{ nodes.report_5.output.summary }}\"\n")
	return b.String()
}

// smallDAG is a 3-node chain, the bulk of the runs in the store.
func smallDAG(name string) string {
	return fmt.Sprintf(`version: 1
name: %s
nodes:
  a:
    type: const
    with: {value: {status: pass, summary: "fetched 12 rows", data: {rows: 12}}}
  b:
    type: const
    needs: [a]
    with: {value: {status: pass, summary: "12 rows valid", data: {valid: 12}}}
  c:
    type: const
    needs: [b]
    with: {value: {status: pass, summary: "report written", data: {path: out/report.md}}}
outputs:
  rows: "${{ nodes.a.output.data.rows }}"
`, name)
}

// runFixture is a run store filled by the engine, as `seam run` and run_dag fill it.
type runFixture struct {
	store runs.Store
	// wide is the id of a 20-node run with data (wideDAG), in the middle of the store.
	wide string
	// bare is the id of a 20-node run without data.
	bare string
}

// newRunFixture records n runs: every tenth a 20-node run, the others 3-node runs of three
// DAGs; and one 20-node run without data.
func newRunFixture(tb testing.TB, n int) runFixture {
	tb.Helper()
	ctx := context.Background()
	st, err := runs.Open(ctx, filepath.Join(tb.TempDir(), "seam.db"))
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	reg := nodes.Builtin()
	load := func(src string) *dag.DAG {
		d, err := dag.LoadBytes(ctx, "bench.yaml", []byte(src), dag.LoadOptions{Types: reg})
		if err != nil {
			tb.Fatalf("load: %v\n%s", err, src)
		}
		return d
	}
	wide, bare := load(wideDAG("triage", true)), load(wideDAG("triage-bare", false))
	small := []*dag.DAG{load(smallDAG("ingest")), load(smallDAG("report")), load(smallDAG("notify"))}
	record := func(d *dag.DAG) string {
		res, err := engine.Run(ctx, d, engine.RunOptions{Lang: "en", Recorder: runs.NewRecorder(st, d, runs.RecorderOptions{})})
		if err != nil {
			tb.Fatalf("run %s: %v", d.Name, err)
		}
		if res.Status != dag.RunSuccess && res.Status != dag.RunWarn {
			tb.Fatalf("run %s: %s %s", d.Name, res.Status, res.Error)
		}
		return res.ID
	}
	f := runFixture{store: st}
	for i := range n {
		switch {
		case i == n/2:
			f.wide = record(wide)
		case i == n/2+1:
			f.bare = record(bare)
		case i%10 == 0:
			record(wide)
		default:
			record(small[i%len(small)])
		}
	}
	if f.wide == "" || f.bare == "" {
		tb.Fatalf("fixture of %d runs is too small", n)
	}
	return f
}

// newFixtureServer is the MCP server over the fixture's store, with the built-in types.
func newFixtureServer(tb testing.TB, st runs.Store) *Server {
	tb.Helper()
	srv, err := NewServer(Options{Root: tb.TempDir(), Types: testTypes, Store: st, Lang: "en"})
	if err != nil {
		tb.Fatalf("NewServer: %v", err)
	}
	tb.Cleanup(srv.Close)
	return srv
}

// clientSessions connects n client sessions to srv over transport ("inmemory" or "http").
// Over HTTP each client has its own http.Transport, as separate agents would. The returned
// function closes the sessions and whatever serves them, and waits for it.
func clientSessions(tb testing.TB, srv *Server, transport string, n int) ([]*sdk.ClientSession, func()) {
	tb.Helper()
	ctx := context.Background()
	var (
		sessions []*sdk.ClientSession
		closers  []func()
	)
	closeAll := func() {
		for _, cs := range sessions {
			cs.Close()
		}
		for _, c := range slices.Backward(closers) {
			c()
		}
	}
	var ts *httptest.Server
	if transport == "http" {
		ts = httptest.NewServer(HTTPHandler(srv, HTTPOptions{}))
		closers = append(closers, ts.Close)
	}
	for range n {
		client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
		var ct sdk.Transport
		switch transport {
		case "inmemory":
			c, s := sdk.NewInMemoryTransports()
			ss, err := srv.Connect(ctx, s, nil)
			if err != nil {
				closeAll()
				tb.Fatalf("server connect: %v", err)
			}
			closers = append(closers, func() { ss.Close(); ss.Wait() })
			ct = c
		case "http":
			tr := http.DefaultTransport.(*http.Transport).Clone()
			closers = append(closers, tr.CloseIdleConnections)
			ct = &sdk.StreamableClientTransport{Endpoint: ts.URL + HTTPPath, HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}
		default:
			tb.Fatalf("transport %q", transport)
		}
		cs, err := client.Connect(ctx, ct, nil)
		if err != nil {
			closeAll()
			tb.Fatalf("client connect over %s: %v", transport, err)
		}
		sessions = append(sessions, cs)
	}
	return sessions, closeAll
}

// callOK calls a tool and returns an error unless it succeeded with the envelope; it may be
// called from any goroutine.
func callOK(ctx context.Context, cs *sdk.ClientSession, name string, args map[string]any) (*sdk.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w", name, args, err)
	}
	text, ok := &sdk.TextContent{}, len(res.Content) == 1
	if ok {
		text, ok = res.Content[0].(*sdk.TextContent)
	}
	if res.IsError || !ok {
		return nil, fmt.Errorf("%s %v: isError %v, %d content blocks: %+v", name, args, res.IsError, len(res.Content), text)
	}
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
	}
	if !ok || json.Unmarshal([]byte(text.Text), &env) != nil || !env.Success || len(env.Data) == 0 {
		return nil, fmt.Errorf("%s %v: %v", name, args, res.Content[0])
	}
	return res, nil
}

// directGetRun is the run store's part of a minimal get_run: the run, its attempts and the
// outputs of the final ones that did not pass.
func directGetRun(ctx context.Context, st runs.Store, id string) error {
	_, as, err := st.GetRun(ctx, id)
	if err != nil {
		return err
	}
	for _, a := range as {
		if a.OutputHash != "" && a.Final && a.Status != "passed" {
			if _, err := st.Output(ctx, a.OutputHash); err != nil {
				return err
			}
		}
	}
	return nil
}

// latencyPhase is how many calls each client makes before the benchmark switches between
// the direct store calls and the MCP calls.
const latencyPhase = 10

// benchLatency measures b.N calls of viaMCP, made by `clients` goroutines at once (client i
// uses sessions[i]), against the same number of direct calls. The two alternate in phases
// of latencyPhase calls per client, so that load on the machine hits both alike; the timer
// runs during the MCP phases only, so ns/op is the wall time per MCP call (at 10 clients,
// 1/throughput). It reports the percentiles of one call's latency, the MCP ÷ direct ratios,
// and the process's CPU time per call (client and server: both are in this process).
func benchLatency(b *testing.B, clients int, direct func(ctx context.Context) error, viaMCP func(ctx context.Context, cs *sdk.ClientSession) error, sessions []*sdk.ClientSession) {
	// Cancelable, like the context the SDK gives a tool call (and seam's CLI its commands):
	// with one, the SQLite driver watches for cancellation during every query, which costs
	// (ListRuns of 20 runs takes about 1.5× as long as with context.Background()).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	phase := func(calls int, fn func(w int) error) []time.Duration {
		lat := make([][]time.Duration, clients)
		errs := make([]error, clients)
		var wg sync.WaitGroup
		for w := range clients {
			n := calls / clients
			if w < calls%clients {
				n++
			}
			wg.Go(func() {
				for range n {
					start := time.Now()
					if err := fn(w); err != nil {
						errs[w] = err
						return
					}
					lat[w] = append(lat[w], time.Since(start))
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		return slices.Concat(lat...)
	}
	doDirect := func(int) error { return direct(ctx) }
	doMCP := func(w int) error { return viaMCP(ctx, sessions[w]) }
	// Warm up: the first calls compile schemas and open connections.
	phase(2*clients, doDirect)
	phase(2*clients, doMCP)

	var (
		mcpLat, directLat []time.Duration
		mcpCPU, directCPU time.Duration
	)
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(latencyPhase*clients, b.N-done)
		b.StopTimer()
		c := processCPU()
		directLat = append(directLat, phase(n, doDirect)...)
		directCPU += processCPU() - c
		b.StartTimer()
		c = processCPU()
		mcpLat = append(mcpLat, phase(n, doMCP)...)
		mcpCPU += processCPU() - c
		done += n
	}
	b.StopTimer()
	b.ReportMetric(millis(mcpCPU)/float64(b.N), "cpu-ms/call")
	b.ReportMetric(millis(directCPU)/float64(b.N), "direct-cpu-ms/call")
	mp50, mp99 := latencyPercentile(mcpLat, 50), latencyPercentile(mcpLat, 99)
	dp50, dp99 := latencyPercentile(directLat, 50), latencyPercentile(directLat, 99)
	b.ReportMetric(millis(mp50), "p50-ms")
	b.ReportMetric(millis(mp99), "p99-ms")
	b.ReportMetric(millis(dp50), "direct-p50-ms")
	b.ReportMetric(millis(dp99), "direct-p99-ms")
	b.ReportMetric(float64(mp50)/float64(dp50), "p50-ratio")
	b.ReportMetric(float64(mp99)/float64(dp99), "p99-ratio")
}

// latencyPercentile is the p-th percentile of ds (nearest rank).
func latencyPercentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// processCPU is the CPU time (user and system) the process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchTool runs one tool's latency benchmark over every transport and client count.
func benchTool(b *testing.B, direct func(ctx context.Context, st runs.Store, f runFixture) error, tool func(f runFixture) (string, map[string]any)) {
	f := newRunFixture(b, benchRuns)
	srv := newFixtureServer(b, f.store)
	name, args := tool(f)
	for _, transport := range []string{"inmemory", "http"} {
		for _, clients := range []int{1, 10} {
			b.Run(fmt.Sprintf("transport=%s/clients=%d", transport, clients), func(b *testing.B) {
				sessions, closeAll := clientSessions(b, srv, transport, clients)
				defer closeAll()
				benchLatency(b, clients,
					func(ctx context.Context) error { return direct(ctx, f.store, f) },
					func(ctx context.Context, cs *sdk.ClientSession) error {
						_, err := callOK(ctx, cs, name, args)
						return err
					}, sessions)
			})
		}
	}
}

// BenchmarkGetRun: get_run of a 20-node run (minimal answer) in a store of 200 runs.
func BenchmarkGetRun(b *testing.B) {
	benchTool(b, func(ctx context.Context, st runs.Store, f runFixture) error { return directGetRun(ctx, st, f.wide) },
		func(f runFixture) (string, map[string]any) { return "get_run", map[string]any{"id": f.wide} })
}

// BenchmarkListRuns: list_runs' first page (20 runs, minimal answer) of a store of 200 runs.
func BenchmarkListRuns(b *testing.B) {
	benchTool(b, func(ctx context.Context, st runs.Store, _ runFixture) error {
		_, _, err := st.ListRuns(ctx, runs.Filter{Limit: defaultListRuns})
		return err
	}, func(runFixture) (string, map[string]any) { return "list_runs", map[string]any{} })
}

// responseBytes calls get_run on id, minimal and raw, and returns the sizes of the text
// content (what a model reads) and of the whole result (text plus structured content, as
// JSON-RPC carries it).
func responseBytes(tb testing.TB, cs *sdk.ClientSession, id string) (minText, rawText, minResult, rawResult int) {
	tb.Helper()
	size := func(raw bool) (int, int) {
		res, err := callOK(context.Background(), cs, "get_run", map[string]any{"id": id, "raw": raw})
		if err != nil {
			tb.Fatal(err)
		}
		whole, err := json.Marshal(res)
		if err != nil {
			tb.Fatal(err)
		}
		return len(res.Content[0].(*sdk.TextContent).Text), len(whole)
	}
	minText, minResult = size(false)
	rawText, rawResult = size(true)
	return
}

// BenchmarkResponseBytes reports get_run's minimal answer against the raw one for a
// 20-node run, with typical outputs (data) and with bare ones (status and summary only).
// Sizes do not vary, so they are measured once and the loop is empty (ns/op is left out);
// the benchmark form puts them beside the latencies.
func BenchmarkResponseBytes(b *testing.B) {
	f := newRunFixture(b, 20)
	sessions, closeAll := clientSessions(b, newFixtureServer(b, f.store), "inmemory", 1)
	defer closeAll()
	for _, c := range []struct{ name, id string }{{"outputs=data", f.wide}, {"outputs=bare", f.bare}} {
		b.Run(c.name, func(b *testing.B) {
			minText, rawText, minResult, rawResult := responseBytes(b, sessions[0], c.id)
			for b.Loop() {
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(float64(minText), "minimal-bytes")
			b.ReportMetric(float64(rawText), "raw-bytes")
			b.ReportMetric(100*float64(minText)/float64(rawText), "minimal-%-of-raw")
			b.ReportMetric(100*float64(minResult)/float64(rawResult), "result-%-of-raw")
		})
	}
}

// TestMCPResponseBytes holds get_run's minimal answer for a 20-node run to the target: at
// most 40 % of the raw answer's bytes, with typical outputs and with bare ones.
func TestMCPResponseBytes(t *testing.T) {
	f := newRunFixture(t, 20)
	sessions, closeAll := clientSessions(t, newFixtureServer(t, f.store), "inmemory", 1)
	defer closeAll()
	for _, c := range []struct{ name, id string }{{"data", f.wide}, {"bare", f.bare}} {
		minText, rawText, minResult, rawResult := responseBytes(t, sessions[0], c.id)
		pct := 100 * float64(minText) / float64(rawText)
		t.Logf("20-node run, %s outputs: minimal %d bytes, raw %d bytes: %.1f %% (whole results %d/%d bytes)",
			c.name, minText, rawText, pct, minResult, rawResult)
		if pct > 40 {
			t.Errorf("%s: minimal answer is %.1f %% of raw, want at most 40 %%", c.name, pct)
		}
	}
}
