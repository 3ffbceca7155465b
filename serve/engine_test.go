package serve

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/temporaltest"
	"github.com/seam-dag/seam/temporal"
)

// TestServeRunFormEngine: with Temporal offered, the run form lets one choose the engine; a run
// started on it is recorded by the worker in the server's store, and an unknown engine is
// refused, naming those offered.
func TestServeRunFormEngine(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	eng := &temporal.Engine{Client: c}
	f := newFixture(t, Options{Engines: map[string]engine.Engine{"temporal": eng}})
	eng.Load = dag.LoadOptions{Types: f.types}
	eng.TaskQueue = temporaltest.Worker(t, c, worker.Options{}, func(w worker.Worker) {
		temporal.NewWorker(temporal.WorkerOptions{Client: c, Store: f.st, Types: f.types, Dir: t.TempDir()}).Register(w)
	})

	hc := jarClient(t, f)
	_, page := f.get(hc, "/dags/greet.yaml")
	if !strings.Contains(page, `<select name="engine" id="run-engine"><option>embedded</option><option>temporal</option></select>`) {
		t.Fatalf("the run form offers no engine choice:\n%s", page)
	}
	token := csrfOf(t, page)
	resp, body := post(t, hc, f.http.URL+"/dags/greet.yaml", url.Values{"csrf": {token}, "p.name": {"Ada"}, "engine": {"nosuch"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "unknown engine &#34;nosuch&#34;: this server offers embedded, temporal") {
		t.Errorf("unknown engine: status %d:\n%s", resp.StatusCode, body)
	}
	resp, _ = post(t, hc, f.http.URL+"/dags/greet.yaml", url.Values{"csrf": {token}, "p.name": {"Ada"}, "engine": {"temporal"}})
	id, ok := strings.CutPrefix(resp.Header.Get("Location"), "/runs/")
	if !ok {
		t.Fatalf("started on temporal: status %d, redirected to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, _, err := f.st.GetRun(t.Context(), id)
		if err == nil && r.Status == dag.RunSuccess {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s on temporal did not succeed: %v %v", id, r, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
