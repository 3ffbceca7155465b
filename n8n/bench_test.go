package n8n_test

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/n8ntest"
	"github.com/seam-dag/seam/nodes"
)

// BenchmarkExecutions measures the n8n node types against the test server (see
// docs/performance.md): listing 100 executions, and getting one without and with its data,
// alone and 10 at once. Each reports the median and p95 of one call, in milliseconds.
//
//	scripts/n8n-server.sh start --env /tmp/n8n.env && set -a && . /tmp/n8n.env && set +a
//	go test ./n8n -run '^$' -bench Executions -benchtime 50x
func BenchmarkExecutions(b *testing.B) {
	if os.Getenv(n8n.EnvURL) == "" {
		b.Skip("needs a real n8n: scripts/n8n-server.sh start --env /tmp/n8n.env, then export N8N_URL and N8N_API_KEY from it")
	}
	c := n8ntest.Client(b)
	hook := n8ntest.Unique("bench")
	wf := n8ntest.Create(b, c, n8ntest.GreetWorkflow(hook, hook), true)
	const total = 100
	n8ntest.Trigger(b, hook, `{"name":"bench"}`, total)
	execs := n8ntest.WaitFinished(b, c, wf.ID, total)
	id := string(execs[0].ID)

	getenv := n8ntest.Getenv(b)
	types := map[string]nodes.Type{}
	for _, t := range n8n.Types(n8n.Options{Getenv: getenv}) {
		types[t.Name()] = t
	}
	list := &nodes.Call{With: map[string]any{"workflowId": string(wf.ID), "limit": total}}
	get := &nodes.Call{With: map[string]any{"id": id}}
	getData := &nodes.Call{With: map[string]any{"id": id, "includeData": true}}

	cases := []struct {
		name       string
		typ        string
		call       *nodes.Call
		concurrent int
	}{
		{"list-100", "n8n.executions.list", list, 1},
		{"get", "n8n.executions.get", get, 1},
		{"get-data", "n8n.executions.get", getData, 1},
		{"get-10-concurrent", "n8n.executions.get", get, 10},
		{"get-data-10-concurrent", "n8n.executions.get", getData, 10},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			typ := types[bc.typ]
			var mu sync.Mutex
			var lat []time.Duration
			b.ResetTimer()
			for b.Loop() {
				var wg sync.WaitGroup
				for range bc.concurrent {
					wg.Go(func() {
						start := time.Now()
						res, err := typ.Run(context.Background(), bc.call)
						d := time.Since(start)
						if err != nil || len(res.Output) == 0 {
							b.Error(err)
							return
						}
						mu.Lock()
						lat = append(lat, d)
						mu.Unlock()
					})
				}
				wg.Wait()
			}
			b.StopTimer()
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
				b.ReportMetric(ms(lat[(len(lat)*95+99)/100-1]), "p95-ms")
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
