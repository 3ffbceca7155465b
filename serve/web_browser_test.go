package serve

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestServeBrowserHistoryTimelineRerun, in a real browser: the DAG page lists the DAG's run
// with a link; the run's page has a Timeline with each node of the finished 3-node run in
// start order; "Rerun from here" on the second node reruns it and the third, reusing the
// first.
func TestServeBrowserHistoryTimelineRerun(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	f.writeRoot("exec-chain.yaml", execChain)
	id := f.start("exec-chain.yaml", nil, true)
	p.do(
		chromedp.Navigate(f.http.URL+"/dags"),
		chromedp.Click(css(`a[href="/dags/exec-chain.yaml"]`)),
		chromedp.WaitVisible(css(`#history`)),
		chromedp.Click(css(`#history a[href="/runs/`+id+`"]`)),
		chromedp.WaitVisible(css(`#timeline svg`)),
	)
	order, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](
		`Array.from(document.querySelectorAll("#timeline g.tl-row")).map(g => g.dataset.node).join(",")`))
	if err != nil {
		t.Fatal(err)
	}
	if order != "first,second,third" {
		t.Errorf("the timeline's rows: %q, want first,second,third", order)
	}
	if os.Getenv("SEAM_SCREENSHOTS") == "1" {
		screenshot(t, p.ctx, "serve-timeline.png")
	}
	p.do(
		chromedp.Click(css(`tr[data-node="second"] button.rerun`)),
		chromedp.WaitVisible(css(`#run-status`)),
	)
	reused, ran := f.waitSession(t, id, 1)
	if reused != "first" || ran != "secondthird" {
		t.Errorf("rerun from second: reused %q, ran %q; want first reused, second and third run", reused, ran)
	}
	if url, err := chromedp.Run(p.ctx, chromedp.Location()); err != nil || !strings.HasSuffix(url, "/runs/"+id) {
		t.Errorf("after the rerun the browser shows %q (%v), want the run's page", url, err)
	}
}
