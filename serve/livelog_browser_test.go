package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/temporaltest"
	"github.com/seam-dag/seam/service"
	"github.com/seam-dag/seam/temporal"
)

// TestServeBrowserLiveLogTemporal: on the Temporal engine too, the panel of an exec node
// opened before it starts shows what the node prints while it runs: the worker records the
// attempt's log in the store (engine.AttemptLive) and the page's event stream carries it.
func TestServeBrowserLiveLogTemporal(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	p := tab{t, browser(t)}
	eng := &temporal.Engine{Client: c}
	f := newFixture(t, Options{Engines: map[string]engine.Engine{"temporal": eng}})
	eng.TaskQueue = temporaltest.Worker(t, c, worker.Options{}, func(w worker.Worker) {
		temporal.NewWorker(temporal.WorkerOptions{Client: c, Store: f.st, Types: f.types, Dir: t.TempDir()}).Register(w)
	})
	gate := filepath.Join(t.TempDir(), "gate")
	d, err := f.srv.files.Load(t.Context(), filepath.Join(f.root, "talk.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := f.svc.Start(t.Context(), d, service.Request{Params: map[string]any{"gate": gate}, NoLint: true, Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	<-run.Recorded()
	t.Cleanup(func() {
		// Before the worker stops: it records the canceled end the service waits for.
		if err := f.svc.Cancel(context.Background(), run.ID); err != nil {
			t.Errorf("cancel %s: %v", run.ID, err)
		}
		run.Wait()
	})
	// talk waits for hold, which waits for the gate: the page is loaded before talk runs.
	p.do(chromedp.Navigate(f.http.URL+"/runs/"+run.ID+"?node=talk#panel"), chromedp.WaitVisible(css(`#panel`)))
	if n := p.eval(`document.querySelectorAll("pre#log").length`); n != 0 {
		t.Fatalf("the panel of talk, which has not started, has %d logs", n)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.WaitVisible(css(`pre#log`)))
	for !strings.Contains(p.text(`pre#log`), "line 1") || !strings.Contains(p.text(`pre#log`), "out 1") {
		if p.ctx.Err() != nil {
			t.Fatalf("the log on the panel stayed %q", p.text(`pre#log`))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st := p.text(`#run-status`); st != "running" {
		t.Errorf("run status %q, want running: the node has not ended", st)
	}
}
