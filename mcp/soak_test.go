package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The soak test's load.
const (
	soakDuration = 60 * time.Second
	soakClients  = 50
	// soakTimeout is the idle timeout of the soak's sessions: short, so that the abandoned
	// ones come and go while it runs.
	soakTimeout = 2 * time.Second
	// soakHeapSlack is how far the live heap may end above where it began: the run store's
	// page cache and the runtime's pools, not a leak per session or call, which would add
	// far more over the calls and sessions the soak makes.
	soakHeapSlack = 32 << 20
)

// heap is the live heap after a collection.
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMCPSoak keeps 50 client sessions over streamable HTTP calling lint_dag, list_runs,
// get_run and run_dag (a small DAG, waited for) for soakDuration, while a vandal opens
// sessions and walks away from them and posts malformed frames (not JSON, batches, deep
// nesting, a wrong version, a body past the cap) to sessions and to none. No well-formed
// call may fail, no malformed frame may get a 5xx or break a connection, and afterwards the sessions, the goroutine
// count and the live heap return to where they were.
func TestMCPSoak(t *testing.T) {
	if testing.Short() {
		t.Skipf("skipped with -short: the soak runs for %v", soakDuration)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "small.yaml"), []byte(smallDAG("small")), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(Options{Root: root, Types: testTypes, Store: tempStore(t), Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(HTTPHandler(srv, HTTPOptions{SessionTimeout: soakTimeout, MaxSessions: 1000}))
	defer ts.Close()
	url := ts.URL + HTTPPath

	// Warm up what lives as long as the server (the store, the schema caches) before the
	// baselines are taken.
	warm, closeWarm := clientSessions(t, srv, "http", 1)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"run_dag", map[string]any{"path": "small.yaml", "wait": true}}, {"lint_dag", map[string]any{"path": "small.yaml"}}, {"list_runs", nil}, {"get_run", map[string]any{"id": "latest"}}} {
		if _, err := callOK(t.Context(), warm[0], c.tool, c.args); err != nil {
			t.Fatal(err)
		}
	}
	closeWarm()
	waitSessions(t, srv, 0)
	baseline := runtime.NumGoroutine()
	heap0 := heap()

	// One call in eight is run_dag: its writes queue for the store's one SQLite writer, and
	// under -race on two shared cores more of them at once can wait past the store's busy
	// timeout (5 s), which fails the call with SQLITE_BUSY.
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"lint_dag", map[string]any{"path": "small.yaml"}},
		{"list_runs", map[string]any{"limit": 5}},
		{"get_run", map[string]any{"id": "latest"}},
		{"run_dag", map[string]any{"path": "small.yaml", "wait": true}},
		{"lint_dag", map[string]any{"path": "small.yaml"}},
		{"list_runs", map[string]any{"limit": 5}},
		{"get_run", map[string]any{"id": "latest"}},
		{"list_runs", map[string]any{"dag": "small", "limit": 1}},
	}
	sessions, closeAll := clientSessions(t, srv, "http", soakClients)
	closed := false
	defer func() {
		if !closed {
			closeAll()
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), soakDuration)
	defer cancel()
	var (
		wg                         sync.WaitGroup
		good, abandoned, malformed atomic.Int64
		mu                         sync.Mutex
		errs                       []error
	)
	report := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if len(errs) < 10 {
			errs = append(errs, err)
		}
	}
	for c, cs := range sessions {
		wg.Go(func() {
			for i := c; ; i++ {
				call := calls[i%len(calls)]
				_, err := callOK(ctx, cs, call.tool, call.args)
				if ctx.Err() != nil {
					return // the soak is over: the call may have been cut short
				}
				if err != nil {
					report(fmt.Errorf("client %d: %w", c, err))
					continue
				}
				good.Add(1)
			}
		})
	}
	// The vandal: sessions abandoned after initialize, and malformed frames.
	wg.Go(func() {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr}
		initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"vandal","version":"1"}}}`
		bad := []string{
			`{"jsonrpc":"2.0","id":1,`,
			"\x00",
			`[]`,
			`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
			`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_runs","arguments":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`,
		}
		huge := `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":"` + strings.Repeat("x", DefaultMaxFrame) + `"}}`
		for i := 0; ctx.Err() == nil; i++ {
			status, id, _, err := rawPost(ctx, hc, url, "", initialize)
			if ctx.Err() != nil {
				return
			}
			if err != nil || status != http.StatusOK || id == "" {
				report(fmt.Errorf("vandal: initialize: status %d, %v", status, err))
				continue
			}
			abandoned.Add(1)
			body := bad[i%len(bad)]
			if i%100 == 99 {
				body = huge
			}
			for _, sid := range []string{id, ""} {
				status, _, _, err := rawPost(ctx, hc, url, sid, body)
				if ctx.Err() != nil {
					return
				}
				// 4xx, or for a batch without a session 200: the SDK serves those to clients
				// of protocol versions before 2025-06-18.
				if err != nil || status >= 500 {
					report(fmt.Errorf("vandal: malformed frame %.40q: status %d, %v; want it refused", body, status, err))
				}
				malformed.Add(1)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	wg.Wait()
	t.Logf("%d clients for %v: %d well-formed calls, %d sessions abandoned, %d malformed frames", soakClients, soakDuration, good.Load(), abandoned.Load(), malformed.Load())
	if len(errs) > 0 {
		t.Errorf("%d+ failures, the first: %v", len(errs), errors.Join(errs...))
	}
	if good.Load() < soakClients || abandoned.Load() == 0 {
		t.Errorf("the soak made too few calls (%d) or sessions (%d) to check anything", good.Load(), abandoned.Load())
	}

	closeAll()
	closed = true
	waitSessions(t, srv, 0)
	if err := waitGoroutines(baseline+goroutineSlack, 30*time.Second); err != nil {
		t.Errorf("after the soak: %v (baseline %d)", err, baseline)
	}
	if h := heap(); h > heap0+soakHeapSlack {
		t.Errorf("live heap %d bytes after the soak, %d before: more than %d above", h, heap0, soakHeapSlack)
	} else {
		t.Logf("live heap: %d bytes before, %d after", heap0, h)
	}
}
