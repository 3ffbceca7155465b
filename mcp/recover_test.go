package mcp

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/dag"
)

// syncBuffer is a log the server writes from its handlers' goroutines while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// panicky panics on the first node that finishes: a broken observer on the goroutine that
// drives a run.
type panicky struct{}

func (panicky) Event(e dag.Event) {
	if e.Kind == dag.NodeFinished {
		panic("observer broke on " + e.Node.ID)
	}
}

// panicServer serves seam's tools plus a tool and a resource that panic, and runs whose
// observer panics for the DAG named "crash"; the log goes to the returned buffer.
func panicServer(t *testing.T, lang string) (*sdk.ClientSession, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	opts := Options{
		Root:  testRoot(t),
		Store: tempStore(t),
		Lang:  lang,
		Log:   slog.New(slog.NewTextHandler(log, nil)),
		Instrument: func(o *dag.RunOptions, d *dag.DAG) {
			if d.Name == "crash" {
				o.Observer = panicky{}
			}
		},
		testAdd: func(srv *sdk.Server) {
			type in struct{ Common }
			err := addTool(srv, lang, &sdk.Tool{Name: "boom", Description: "panics"}, func(context.Context, *sdk.CallToolRequest, in) (message, any, error) {
				panic("kaboom")
			})
			if err != nil {
				t.Fatal(err)
			}
			srv.AddResourceTemplate(&sdk.ResourceTemplate{Name: "boom", URITemplate: "seam://boom/{x}"},
				func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
					var m map[string]int
					m["x"]++ // a nil map: a runtime error, not only an explicit panic
					return nil, nil
				})
		},
	}
	_, cs := serve(t, opts, nil)
	return cs, log
}

// TestMCPPanicRecovered checks that a panic in a tool handler, a resource handler or the
// goroutine driving a run fails that request (the envelope with code internal, or a
// JSON-RPC error for the resource) with the stack in the log, the run recorded failed, and
// the server goes on serving the same client.
func TestMCPPanicRecovered(t *testing.T) {
	tests := []struct {
		lang                      string
		tool, resource, runPrefix string
	}{
		{"en", "internal error in tool boom: kaboom (the server logged the stack and goes on serving)",
			"internal error in resources/read: assignment to entry in nil map",
			"internal error in run "},
		{"ja", "tool boom で内部エラーが発生しました：kaboom（サーバーはスタックをログに記録し、処理を続けています）",
			"resources/read で内部エラーが発生しました：assignment to entry in nil map",
			"run "},
	}
	for _, tc := range tests {
		t.Run(tc.lang, func(t *testing.T) {
			cs, log := panicServer(t, tc.lang)

			r := call(t, cs, "boom", nil)
			if msg, _ := r.env["message"].(string); r.env["success"] != false || errCode(r) != CodeInternal || msg != tc.tool {
				t.Errorf("boom: %v; want code internal and %q", r.env, tc.tool)
			}
			if l := log.String(); !strings.Contains(l, "kaboom") || !strings.Contains(l, "recover_test.go") {
				t.Errorf("the log lacks the panic and its stack:\n%s", l)
			}

			_, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "seam://boom/1"})
			if err == nil || !strings.Contains(err.Error(), tc.resource) {
				t.Errorf("read seam://boom/1: %v; want %q", err, tc.resource)
			}

			crash := "version: 1\nname: crash\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: a}}\n"
			r = call(t, cs, "run_dag", map[string]any{"yaml": crash, "wait": true})
			msg, _ := r.env["message"].(string)
			if errCode(r) != CodeInternal || !strings.HasPrefix(msg, tc.runPrefix) || !strings.Contains(msg, "observer broke on a") {
				t.Errorf("run_dag crash: %v; want code internal, %q…observer broke on a", r.env, tc.runPrefix)
			}
			list := call(t, cs, "list_runs", map[string]any{"dag": "crash"})
			rs, _ := list.data()["runs"].([]any)
			if len(rs) != 1 || rs[0].(map[string]any)["status"] != "failed" {
				t.Errorf("list_runs after the crash: %v; want the run, failed", list.data())
			}

			// The same session goes on.
			r = call(t, cs, "run_dag", map[string]any{"path": "greet.yaml", "params": map[string]any{"who": "x"}, "wait": true})
			if r.env["success"] != true || r.data()["status"] != "success" {
				t.Errorf("run_dag after the panics: %v", r.env)
			}
		})
	}
}
