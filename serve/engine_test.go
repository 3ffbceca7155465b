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
	f.waitSuccess(t, id, 30*time.Second)
}

// waitSuccess waits until run id has succeeded on Temporal, for at most wait.
func (f *fixture) waitSuccess(t *testing.T, id string, wait time.Duration) {
	t.Helper()
	deadline := time.Now().Add(wait)
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

// TestServeRunFormTemporalRecorded: a run the form starts on Temporal is recorded by a worker,
// maybe after the workflow started; the form's answer waits for it, so that the run's page it
// redirects to shows the run rather than "no run".
func TestServeRunFormTemporalRecorded(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	queue := temporaltest.Queue()
	eng := &temporal.Engine{Client: c, TaskQueue: queue}
	f := newFixture(t, Options{Engines: map[string]engine.Engine{"temporal": eng}})

	hc := jarClient(t, f)
	_, page := f.get(hc, "/dags/greet.yaml")
	token := csrfOf(t, page)
	posted := make(chan *http.Response, 1)
	go func() {
		resp, _ := post(t, hc, f.http.URL+"/dags/greet.yaml", url.Values{"csrf": {token}, "p.name": {"Ada"}, "engine": {"temporal"}})
		posted <- resp
	}()
	// No worker takes the run until now: the workflow has started, the store has no run yet.
	time.Sleep(500 * time.Millisecond)
	w := worker.New(c, queue, worker.Options{})
	temporal.NewWorker(temporal.WorkerOptions{Client: c, Store: f.st, Types: f.types, Dir: t.TempDir()}).Register(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	resp := <-posted
	id, ok := strings.CutPrefix(resp.Header.Get("Location"), "/runs/")
	if !ok {
		t.Fatalf("started on temporal: status %d, redirected to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	got, body := f.get(hc, "/runs/"+id)
	if got.StatusCode != http.StatusOK || !strings.Contains(body, `data-run="`+id+`"`) {
		t.Errorf("the run's page right after the form's answer: status %d:\n%.600s", got.StatusCode, body)
	}
	// The worker stops before the fixture's service, which would wait for the run for ever.
	f.waitSuccess(t, id, 60*time.Second)
}
