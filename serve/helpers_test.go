package serve

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
	"github.com/seam-dag/seam/workspace"
)

// fixture is a web view over a fresh SQLite store, with testdata's DAG files under its root.
type fixture struct {
	t     *testing.T
	root  string
	types *nodes.Registry
	st    runs.Store
	svc   *service.Service
	srv   *Server
	http  *httptest.Server
}

// dagTypes are the built-in node types and dag, which loads through w.
func dagTypes(w *workspace.Workspace) *nodes.Registry {
	reg := nodes.Builtin()
	engine.AddDAGType(reg, nil, w)
	return reg
}

// builtinTypes are the built-in node types alone.
func builtinTypes(*workspace.Workspace) *nodes.Registry { return nodes.Builtin() }

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	root := t.TempDir()
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := runs.Open(context.Background(), filepath.Join(t.TempDir(), "seam.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := service.New(service.Options{Store: st, Logger: log})
	opts.Service, opts.Root, opts.Types, opts.Logger = svc, root, dagTypes, log
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	types := srv.files.Types()
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		svc.Close()
		st.Close()
	})
	return &fixture{t: t, root: root, types: types, st: st, svc: svc, srv: srv, http: hs}
}

// start starts the DAG file name of testdata through the service and waits until it is
// recorded (and, when wait, finished).
func (f *fixture) start(name string, params map[string]any, wait bool) string {
	f.t.Helper()
	ctx := context.Background()
	d, err := f.srv.files.Load(ctx, filepath.Join(f.root, name))
	if err != nil {
		f.t.Fatal(err)
	}
	run, err := f.svc.Start(ctx, d, service.Request{Params: params, NoLint: true})
	if err != nil {
		f.t.Fatal(err)
	}
	<-run.Recorded()
	if wait {
		if _, err := run.Wait(); err != nil {
			f.t.Fatal(err)
		}
	}
	return run.ID
}

// get fetches path with c (a plain client when nil) and returns the answer and its body.
func (f *fixture) get(c *http.Client, path string) (*http.Response, string) {
	f.t.Helper()
	if c == nil {
		c = f.http.Client()
	}
	resp, err := c.Get(f.http.URL + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp, string(b)
}

func runsFilter() runs.Filter { return runs.Filter{} }
