package mcp

import (
	"fmt"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/n8ntest"
)

// triggerMany calls the production webhook at path n times, a few calls at a time, and waits
// until the n executions have finished.
func triggerMany(tb testing.TB, c *n8n.Client, id n8n.ID, path, body string, n int) {
	tb.Helper()
	n8ntest.TriggerMany(tb, path, body, n)
	n8ntest.WaitFinished(tb, c, id, n)
}

// greetFixture is an active greeting workflow with n finished executions.
func greetFixture(tb testing.TB, n int) (*n8n.Client, *n8n.Workflow) {
	tb.Helper()
	c := n8ntest.Client(tb)
	path := n8ntest.Unique("mcp-size")
	w := n8ntest.Create(tb, c, n8ntest.GreetWorkflow(path, path), true)
	triggerMany(tb, c, w.ID, path, `{"name": "ada"}`, n)
	return c, w
}

// TestN8NMinimalIsSmaller measures, on a real workflow and its executions, how much smaller
// the minimal answers of the n8n tools are than the raw ones, and requires at least 60 % of
// the workflow and execution answers.
func TestN8NMinimalIsSmaller(t *testing.T) {
	c, w := greetFixture(t, 5)
	cs := connectN8N(t, c, false)
	id := string(w.ID)
	execs := call(t, cs, "list_executions", map[string]any{"workflow_id": id}).data()["executions"].([]any)
	if len(execs) != 5 {
		t.Fatalf("%d executions, want 5", len(execs))
	}
	exec := execs[0].(map[string]any)["id"]
	tests := []struct {
		tool string
		args map[string]any
		want float64 // the least reduction, in %
	}{
		{"list_workflows", map[string]any{"name": w.Name}, 60},
		{"get_workflow", map[string]any{"id": id}, 60},
		// A minimal validation keeps the first 3 errors whole, so how much it saves grows with
		// the number of errors: it is measured, not held to 60 %.
		{"validate_workflow", map[string]any{"workflow": manyErrors(6)}, 0},
		// Each execution keeps its start and duration, so on a page this short the workflow's
		// id, name and the counts weigh: TestN8NListExecutions100 holds a full page to 60 %.
		{"list_executions", map[string]any{"workflow_id": id}, 50},
		{"get_execution", map[string]any{"id": exec, "include_data": true}, 60},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			min := call(t, cs, tc.tool, tc.args)
			args := map[string]any{"raw": true}
			for k, v := range tc.args {
				args[k] = v
			}
			raw := call(t, cs, tc.tool, args)
			if errCode(min) != "" || errCode(raw) != "" {
				t.Fatalf("failed: %v / %v", min.env, raw.env)
			}
			r := reduction(min.size, raw.size)
			t.Logf("%-17s %5d → %4d bytes (%.0f %% smaller)", tc.tool, raw.size, min.size, r)
			if r < tc.want {
				t.Errorf("minimal %s is %.1f %% smaller than raw, want at least %.0f %%", tc.tool, r, tc.want)
			}
		})
	}
}

// TestN8NListExecutions100 measures list_executions' answer for a page of 100 executions,
// minimal and raw, and requires the minimal one to be at least 60 % smaller. Making the 100
// executions takes about 5 s; -short skips it.
func TestN8NListExecutions100(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 100 n8n executions")
	}
	start := time.Now()
	c, w := greetFixture(t, 100)
	t.Logf("100 executions made in %v", time.Since(start).Round(time.Millisecond))
	cs := connectN8N(t, c, false)
	args := map[string]any{"workflow_id": string(w.ID), "limit": 100}
	min := call(t, cs, "list_executions", args)
	args["raw"] = true
	raw := call(t, cs, "list_executions", args)
	if n := num(min.data(), "count"); n != 100 || errCode(raw) != "" {
		t.Fatalf("%d executions listed, want 100: %v", n, raw.env["message"])
	}
	r := reduction(min.size, raw.size)
	t.Logf("list_executions of 100: %d → %d bytes (%.1f %% smaller)", raw.size, min.size, r)
	if r < 60 {
		t.Errorf("minimal list_executions is %.1f %% smaller than raw, want at least 60 %%", r)
	}
}

// BenchmarkN8NResponseBytes reports the bytes of list_executions' answer for a page of 100
// executions, minimal and raw, and the time of the two calls:
//
//	go test ./mcp/ -run '^$' -bench N8NResponseBytes -benchtime 20x
func BenchmarkN8NResponseBytes(b *testing.B) {
	start := time.Now()
	c, w := greetFixture(b, 100)
	b.Logf("100 executions made in %v", time.Since(start).Round(time.Millisecond))
	cs := connectBench(b, c)
	args := func(raw bool) map[string]any {
		return map[string]any{"workflow_id": string(w.ID), "limit": 100, "raw": raw}
	}
	var minSize, rawSize int
	for b.Loop() {
		minSize = benchCall(b, cs, "list_executions", args(false))
		rawSize = benchCall(b, cs, "list_executions", args(true))
	}
	b.ReportMetric(float64(minSize), "minimal-bytes")
	b.ReportMetric(float64(rawSize), "raw-bytes")
	b.ReportMetric(reduction(minSize, rawSize), "%-smaller")
}

// connectBench is connectWith for a benchmark, whose testing.B connectWith does not take.
func connectBench(b *testing.B, c *n8n.Client) *sdk.ClientSession {
	b.Helper()
	srv, err := NewServer(Options{Root: b.TempDir(), Types: builtinTypes, Lang: "en", N8N: c})
	if err != nil {
		b.Fatalf("NewServer: %v", err)
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(b.Context(), st, nil)
	if err != nil {
		b.Fatalf("server connect: %v", err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(), ct, nil)
	if err != nil {
		b.Fatalf("client connect: %v", err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// benchCall calls a tool and returns the size of its text answer.
func benchCall(b *testing.B, cs *sdk.ClientSession, name string, args map[string]any) int {
	b.Helper()
	res, err := cs.CallTool(b.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if res.IsError {
		b.Fatalf("%s: %s", name, text)
	}
	return len(text)
}

// manyErrors is a workflow with n nodes of a type n8n does not know: n errors.
func manyErrors(n int) map[string]any {
	w := badWorkflow("many errors")
	nodes := w["nodes"].([]any)[:1]
	conns := []any{}
	for i := range n {
		name := fmt.Sprintf("Mystery %d", i)
		nodes = append(nodes, map[string]any{"id": fmt.Sprint(i + 2), "name": name, "type": "n8n-nodes-base.doesNotExist",
			"typeVersion": 1, "position": []any{200, i * 100}, "parameters": map[string]any{}})
		conns = append(conns, map[string]any{"node": name, "type": "main", "index": 0})
	}
	w["nodes"] = nodes
	w["connections"] = map[string]any{"Start": map[string]any{"main": []any{conns}}}
	return w
}
