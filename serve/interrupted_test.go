package serve

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// TestServeBrowserInterruptedLive: the page of a running run whose owner dies (on another
// host: its lease is not renewed and expires) says interrupted in place, without a reload:
// the run, its node no longer running, the notice; and no longer says who runs it (this
// server never offered to cancel it: another process runs it).
func TestServeBrowserInterruptedLive(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	run := runs.Run{ID: "20260101T000000.000-1ea5e001", DAG: "broken", File: filepath.Join(f.root, "broken.yaml"),
		Status: dag.RunRunning, Started: time.Now(), PID: 42, Host: "another-host",
		LeaseOwner: "another-host/42/ab", LeaseUntil: time.Now().Add(time.Hour)}
	if err := f.st.CreateRun(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	start := runs.Attempt{RunID: run.ID, Node: "classify", Item: -1, Attempt: 1, Status: dag.NodeRunning, Started: time.Now()}
	if err := f.st.RecordAttempts(t.Context(), []runs.Attempt{start}); err != nil {
		t.Fatal(err)
	}
	p.do(
		chromedp.Navigate(f.http.URL+"/runs/"+run.ID),
		chromedp.WaitVisible(css(`#run[data-live="1"]`)),
		chromedp.WaitVisible(css(`#run-elsewhere`)),
	)
	if p.eval(`(window.seamTestMark = 1)`) != 1 || p.eval(`(n => !n || n.hidden)(document.getElementById("interrupted")) ? 1 : 0`) != 1 {
		t.Fatal("the page of a live run shows the interrupted notice")
	}
	if err := f.st.TakeLease(t.Context(), run.ID, run.LeaseOwner, time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.WaitVisible(css(`#run-status.st-interrupted`)), chromedp.WaitVisible(css(`#interrupted`)))
	for _, tc := range []struct{ what, js string }{
		{"the page was not reloaded", `window.seamTestMark === 1`},
		{"the run says interrupted", `document.getElementById("run-status").textContent === "interrupted"`},
		{"its node no longer runs: unfinished, as the page rendered again says", `document.querySelector('tr[data-node="classify"] [data-status]').classList.contains("st-unfinished")`},
		{"nor in the graph", `document.querySelector('svg g.node[data-node="classify"]').classList.contains("st-unfinished")`},
		{"no cancel was offered", `document.getElementById("cancel") === null`},
		{"who ran it is no longer said", `document.getElementById("run-elsewhere").offsetParent === null`},
	} {
		if p.eval(`(`+tc.js+`) ? 1 : 0`) != 1 {
			t.Errorf("%s: %s is false", tc.what, tc.js)
		}
	}
}
