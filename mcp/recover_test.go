package mcp

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
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

func (panicky) Event(e engine.Event) {
	if e.Kind == engine.NodeFinished {
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
		Lang:  i18n.Lang(lang),
		Log:   slog.New(slog.NewTextHandler(log, nil)),
		Instrument: func(o *engine.RunOptions, d *dag.DAG) {
			if d.Name == "crash" {
				o.Observer = panicky{}
			}
		},
		testAdd: func(srv *sdk.Server) {
			type in struct{ Common }
			err := addTool(srv, i18n.Lang(lang), &sdk.Tool{Name: "boom", Description: "panics"}, func(context.Context, *sdk.CallToolRequest, in) (message, any, error) {
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

// TestMCPPanicRecovered checks that a panic in a tool handler or a resource handler fails
// that request (the envelope with code internal, or a JSON-RPC error for the resource) with
// the stack in the log, that a run's panicking observer does not fail the run, and that the
// server goes on serving the same client.
func TestMCPPanicRecovered(t *testing.T) {
	tests := []struct {
		lang           string
		tool, resource string
	}{
		{"en", "internal error in tool boom: kaboom (the server logged the stack and goes on serving)",
			"internal error in resources/read: assignment to entry in nil map"},
		{"ja", "tool boom で内部エラーが発生しました：kaboom（サーバーはスタックをログに記録し、処理を続けています）",
			"resources/read で内部エラーが発生しました：assignment to entry in nil map"},
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

			// The engine recovers a panicking observer itself: the run goes on, the event is
			// lost, and the log says so.
			crash := "version: 1\nname: crash\nnodes:\n  a:\n    type: const\n    with: {value: {status: pass, summary: a}}\n"
			r = call(t, cs, "run_dag", map[string]any{"yaml": crash, "wait": true})
			if r.env["success"] != true || r.data()["status"] != "success" {
				t.Errorf("run_dag crash: %v; want the run to succeed without its observer", r.env)
			}
			if l := log.String(); !strings.Contains(l, "internal error in observer: observer broke on a") {
				t.Errorf("the log lacks the observer's panic:\n%s", l)
			}

			// The same session goes on.
			r = call(t, cs, "run_dag", map[string]any{"path": "greet.yaml", "params": map[string]any{"who": "x"}, "wait": true})
			if r.env["success"] != true || r.data()["status"] != "success" {
				t.Errorf("run_dag after the panics: %v", r.env)
			}
		})
	}
}
