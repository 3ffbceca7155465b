package mcp

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/n8ntest"
)

// n8nBench is what the n8n execution benchmarks work on: the four-node pipeline workflow
// with 100 executions (90 through, 10 failing in its middle node) in the real n8n, and 10
// client sessions of one MCP server whose n8n tools use it.
type n8nBench struct {
	c                *n8n.Client
	wf               *n8n.Workflow
	okExec, failExec string
	sessions         []*sdk.ClientSession
}

func newN8NBench(b *testing.B) *n8nBench {
	b.Helper()
	if os.Getenv(n8n.EnvURL) == "" {
		b.Skip("needs a real n8n: scripts/n8n-server.sh start --env /tmp/n8n.env, then export N8N_URL and N8N_API_KEY from it")
	}
	c := n8ntest.Client(b)
	path := n8ntest.Unique("mcp-bench")
	wf := n8ntest.Create(b, c, n8ntest.PipelineWorkflow(path, path, "bench failure"), true)
	triggerMany(b, c, wf.ID, path, `{}`, 90)
	triggerMany(b, c, wf.ID, path, `{"fail": true}`, 10)
	nb := &n8nBench{c: c, wf: wf}
	for _, e := range n8ntest.WaitFinished(b, c, wf.ID, 100) {
		switch {
		case e.Status == "error" && nb.failExec == "":
			nb.failExec = string(e.ID)
		case e.Status == "success" && nb.okExec == "":
			nb.okExec = string(e.ID)
		}
	}
	srv, err := NewServer(Options{Root: b.TempDir(), Types: builtinTypes, Lang: "en", N8N: c, ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	var closeAll func()
	nb.sessions, closeAll = clientSessions(b, srv, "inmemory", 10)
	b.Cleanup(closeAll)
	return nb
}

// BenchmarkN8NExecutionTools measures list_executions and get_execution against the real
// n8n, through an MCP session as an agent calls them: a page of 100 executions (minimal and
// raw, one workflow's and across workflows), one execution without and with its data, and 10
// calls at once from 10 sessions. Each call is paired with its baseline, the bare n8n request
// it rests on (GET /executions of 100, GET /executions/ID with the data), made side by side
// so that both see the same load. It reports the median and p95 of one call, the median of
// the baseline, their ratio, and the size of the answer:
//
//	go test ./mcp -run '^$' -bench N8NExecutionTools -benchtime 50x
func BenchmarkN8NExecutionTools(b *testing.B) {
	nb := newN8NBench(b)
	id := string(nb.wf.ID)
	list := func(wf n8n.ID) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			_, err := nb.c.ListExecutions(ctx, n8n.ExecutionFilter{WorkflowID: wf, Limit: 100})
			return err
		}
	}
	get := func(id string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			_, err := nb.c.GetExecution(ctx, n8n.ID(id), true)
			return err
		}
	}
	cases := []struct {
		name       string
		tool       string
		args       map[string]any
		direct     func(ctx context.Context) error
		concurrent int
	}{
		{"list-100", "list_executions", map[string]any{"workflow_id": id, "limit": 100}, list(nb.wf.ID), 1},
		{"list-100-raw", "list_executions", map[string]any{"workflow_id": id, "limit": 100, "raw": true}, list(nb.wf.ID), 1},
		{"list-100-all-workflows", "list_executions", map[string]any{"limit": 100}, list(""), 1},
		{"get", "get_execution", map[string]any{"id": nb.failExec}, get(nb.failExec), 1},
		{"get-raw", "get_execution", map[string]any{"id": nb.failExec, "raw": true}, get(nb.failExec), 1},
		{"get-data", "get_execution", map[string]any{"id": nb.okExec, "raw": true, "include_data": true}, get(nb.okExec), 1},
		{"get-10-concurrent", "get_execution", map[string]any{"id": nb.failExec}, get(nb.failExec), 10},
		{"get-data-10-concurrent", "get_execution", map[string]any{"id": nb.okExec, "raw": true, "include_data": true}, get(nb.okExec), 10},
		{"list-100-10-concurrent", "list_executions", map[string]any{"workflow_id": id, "limit": 100}, list(nb.wf.ID), 10},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			var (
				mu          sync.Mutex
				lat, direct []time.Duration
				size        int
			)
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range bc.concurrent {
					cs := nb.sessions[i]
					wg.Go(func() {
						start := time.Now()
						res, err := callOK(context.Background(), cs, bc.tool, bc.args)
						d := time.Since(start)
						if err != nil {
							b.Error(err)
							return
						}
						mu.Lock()
						lat = append(lat, d)
						size = len(res.Content[0].(*sdk.TextContent).Text)
						mu.Unlock()
					})
				}
				wg.Wait()
				for range bc.concurrent {
					wg.Go(func() {
						start := time.Now()
						err := bc.direct(context.Background())
						d := time.Since(start)
						if err != nil {
							b.Error(err)
							return
						}
						mu.Lock()
						direct = append(direct, d)
						mu.Unlock()
					})
				}
				wg.Wait()
			}
			p50, base := latencyPercentile(lat, 50), latencyPercentile(direct, 50)
			b.ReportMetric(millis(p50), "p50-ms")
			b.ReportMetric(millis(latencyPercentile(lat, 95)), "p95-ms")
			b.ReportMetric(millis(base), "n8n-p50-ms")
			b.ReportMetric(float64(p50)/float64(base), "p50-ratio")
			b.ReportMetric(float64(size), "bytes")
		})
	}
}

// BenchmarkN8NSustained calls the n8n execution tools 10 times a second for 60 s (a list of
// 100, a get, a get with data, in turn, from 10 sessions) and fails on any error. It reports
// the calls made, the errors, the median, p95 and slowest call, and the most calls in flight
// at once. Each iteration takes the whole minute, so run it once:
//
//	go test ./mcp -run '^$' -bench N8NSustained -benchtime 1x -timeout 5m
func BenchmarkN8NSustained(b *testing.B) {
	nb := newN8NBench(b)
	const (
		rate = 10
		span = 60 * time.Second
	)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"list_executions", map[string]any{"workflow_id": string(nb.wf.ID), "limit": 100}},
		{"get_execution", map[string]any{"id": nb.failExec}},
		{"get_execution", map[string]any{"id": nb.okExec, "raw": true, "include_data": true}},
	}
	for b.Loop() {
		var (
			mu               sync.Mutex
			lat              []time.Duration
			errs             int
			inFlight, maxFly atomic.Int64
			wg               sync.WaitGroup
		)
		tick := time.NewTicker(time.Second / rate)
		deadline := time.Now().Add(span)
		for i := 0; time.Now().Before(deadline); i++ {
			<-tick.C
			c, cs := calls[i%len(calls)], nb.sessions[i%len(nb.sessions)]
			wg.Go(func() {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for {
					m := maxFly.Load()
					if n <= m || maxFly.CompareAndSwap(m, n) {
						break
					}
				}
				start := time.Now()
				_, err := callOK(context.Background(), cs, c.tool, c.args)
				d := time.Since(start)
				mu.Lock()
				defer mu.Unlock()
				lat = append(lat, d)
				if err != nil {
					errs++
					b.Error(err)
				}
			})
		}
		tick.Stop()
		wg.Wait()
		b.ReportMetric(float64(len(lat)), "calls")
		b.ReportMetric(float64(errs), "errors")
		b.ReportMetric(millis(latencyPercentile(lat, 50)), "p50-ms")
		b.ReportMetric(millis(latencyPercentile(lat, 95)), "p95-ms")
		b.ReportMetric(millis(latencyPercentile(lat, 100)), "max-ms")
		b.ReportMetric(float64(maxFly.Load()), "max-in-flight")
	}
}
