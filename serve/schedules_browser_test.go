package serve

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestServeBrowserSchedules, in a real browser: the navigation leads to the schedules, a
// trigger's link to its page, where its pause (with a note) and its resume take effect.
func TestServeBrowserSchedules(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	f.writeRoot("hooked.yaml", hookDAG)
	p.do(
		chromedp.Navigate(f.http.URL+"/runs"),
		chromedp.Click(css(`#nav-schedules`)),
		chromedp.Click(css(`a[href="/schedules/hooked/nightly"]`)),
		chromedp.WaitVisible(css(`#pause`)),
		chromedp.SendKeys(css(`input[name="note"]`), "warehouse migration"),
		chromedp.Click(css(`#pause`)),
		chromedp.WaitVisible(css(`#paused`)),
	)
	if note := p.text(`#note`); note != "warehouse migration" {
		t.Errorf("paused with note %q", note)
	}
	p.do(
		chromedp.Click(css(`#resume`)),
		chromedp.WaitVisible(css(`#pause`)),
	)
	if n := p.eval(`document.querySelectorAll("#paused").length`); n != 0 {
		t.Errorf("still paused after resume")
	}
}
