package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// loadDuration is how long TestMCPLoad keeps its clients calling.
const loadDuration = 30 * time.Second

const (
	loadClients = 10
	// loadRuns is how many runs the load test's store holds (fewer than the benchmarks':
	// under -race recording them is slow).
	loadRuns = 60
	// goroutineSlack is how far the goroutine count may end above its baseline: the
	// runtime's and the HTTP stack's own, which come and go.
	goroutineSlack = 3
	// growthSlack is how far the lowest goroutine count may rise between the first and the
	// last third of the load; a goroutine leaked per call or per request would add hundreds
	// (under -race) to thousands.
	growthSlack = 40
)

// loadCall is one of the calls the load test's clients cycle through.
type loadCall struct {
	tool  string
	args  map[string]any
	check func(data map[string]any) error
}

// loadCalls are get_run (by id, "latest", raw) and list_runs (first page, filtered, a
// page by cursor) on a store holding the 20-node run wide.
func loadCalls(wide string) []loadCall {
	isRun := func(data map[string]any) error {
		if data["id"] != wide || data["status"] != "warn" || data["nodes"] == nil {
			return fmt.Errorf("want run %s, warn, with node counts: %v", wide, data)
		}
		return nil
	}
	runsPage := func(n int) func(map[string]any) error {
		return func(data map[string]any) error {
			rs, _ := data["runs"].([]any)
			if len(rs) != n || data["count"] != float64(n) {
				return fmt.Errorf("want %d runs: %v", n, data)
			}
			return nil
		}
	}
	return []loadCall{
		{"get_run", map[string]any{"id": wide}, isRun},
		{"list_runs", map[string]any{}, runsPage(defaultListRuns)},
		{"get_run", map[string]any{"id": latest}, func(data map[string]any) error {
			if data["id"] == "" || data["status"] == nil {
				return fmt.Errorf("latest: %v", data)
			}
			return nil
		}},
		{"list_runs", map[string]any{"dag": "triage", "limit": 3}, runsPage(3)},
		{"get_run", map[string]any{"id": wide, "raw": true}, func(data map[string]any) error {
			if as, _ := data["attempts"].([]any); len(as) < 20 {
				return fmt.Errorf("raw: want every attempt of 20 nodes: %d", len(as))
			}
			return nil
		}},
		{"list_runs", map[string]any{"status": "success", "limit": 5, "cursor": wide}, runsPage(5)},
	}
}

// TestMCPLoad keeps 10 client sessions calling get_run and list_runs over streamable HTTP
// (one server, each client with its own HTTP transport, as separate agents) for
// loadDuration. No call may fail, the goroutine count must not grow under the load, and
// once the sessions are closed it must come back to what it was before they opened. It
// logs the calls per second; latency targets are for the benchmarks (bench_test.go), not
// for a test that runs under -race on a shared machine.
func TestMCPLoad(t *testing.T) {
	if testing.Short() {
		t.Skipf("runs for %v", loadDuration)
	}
	f := newRunFixture(t, loadRuns)
	srv := newFixtureServer(t, f.store)
	calls := loadCalls(f.wide)

	runtime.GC()
	baseline := runtime.NumGoroutine()
	sessions, closeAll := clientSessions(t, srv, "http", loadClients)
	closed := false
	defer func() {
		if !closed {
			closeAll()
		}
	}()

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var (
		total    atomic.Int64
		perTool  [2]atomic.Int64 // get_run, list_runs
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	begin := time.Now()
	end := begin.Add(loadDuration)
	for c, cs := range sessions {
		wg.Go(func() {
			for i := c; time.Now().Before(end) && ctx.Err() == nil; i++ {
				lc := calls[i%len(calls)]
				res, err := callOK(ctx, cs, lc.tool, lc.args)
				if ctx.Err() != nil {
					return // another client failed
				}
				if err == nil {
					err = checkData(res, lc.check)
				}
				if err != nil {
					fail(fmt.Errorf("client %d, call %d: %s %v: %w", c, i, lc.tool, lc.args, err))
					return
				}
				total.Add(1)
				perTool[map[string]int{"get_run": 0, "list_runs": 1}[lc.tool]].Add(1)
			}
		})
	}

	// Sample the goroutine count while the clients call.
	var samples []int
	tick := time.NewTicker(time.Second)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
sampling:
	for {
		select {
		case <-tick.C:
			samples = append(samples, runtime.NumGoroutine())
		case <-done:
			break sampling
		}
	}
	tick.Stop()
	elapsed := time.Since(begin)
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	n := total.Load()
	t.Logf("%d clients over HTTP for %v: %d calls (get_run %d, list_runs %d), %.0f calls/s",
		loadClients, elapsed.Round(time.Millisecond), n, perTool[0].Load(), perTool[1].Load(), float64(n)/elapsed.Seconds())
	if n < loadClients {
		t.Errorf("only %d calls in %v", n, elapsed)
	}
	if third := len(samples) / 3; third > 0 {
		// The lowest count of a stretch is the goroutines that stay (the sessions' own);
		// requests in flight add to it and come and go.
		early, late := slices.Min(samples[:third]), slices.Min(samples[len(samples)-third:])
		t.Logf("goroutines: %d before the sessions, %d–%d under load: %v", baseline, slices.Min(samples), slices.Max(samples), samples)
		if late > early+growthSlack {
			t.Errorf("goroutines grew under load: at least %d in the first third, %d in the last (samples %v)", early, late, samples)
		}
	}

	closeAll()
	closed = true
	if err := waitGoroutines(baseline+goroutineSlack, 15*time.Second); err != nil {
		t.Errorf("after closing the sessions: %v (baseline %d)", err, baseline)
	}
}

// checkData decodes a successful result's data and checks it.
func checkData(res *sdk.CallToolResult, check func(map[string]any) error) error {
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &env); err != nil {
		return err
	}
	return check(env.Data)
}

// waitGoroutines waits until at most want goroutines run, up to timeout; on timeout the
// error shows the goroutines still there.
func waitGoroutines(want int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		n := runtime.NumGoroutine()
		if n <= want {
			return nil
		}
		if time.Now().After(deadline) {
			var b bytes.Buffer
			pprof.Lookup("goroutine").WriteTo(&b, 1)
			return fmt.Errorf("%d goroutines after %v, want at most %d:\n%s", n, timeout, want, strings.TrimSpace(b.String()))
		}
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
}
