package serve

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// TestTimelineCriticalPath: the bars marked critical are the chain of attempts that decided
// the run's duration, walked back from the last to end through what each waited for.
func TestTimelineCriticalPath(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	// a is an attempt of node (its try n) from second s to second e; e < 0: still running.
	a := func(node string, n int, s, e float64, st dag.NodeStatus) runs.Attempt {
		r := runs.Attempt{Node: node, Item: -1, Attempt: n, Status: st, Started: at(s)}
		if e >= 0 {
			r.Ended = at(e)
		}
		return r
	}
	chain := map[string][]string{"a": nil, "b": {"a"}, "c": {"b", "d"}, "d": {"a"}}
	for _, tc := range []struct {
		name string
		as   []runs.Attempt
		deps map[string][]string
		want string // the bars marked, node:try, in row order
	}{
		{"the longer branch decides", []runs.Attempt{
			a("a", 1, 0, 1, dag.NodePassed), a("b", 1, 1, 5, dag.NodePassed), a("d", 1, 1, 2, dag.NodePassed), a("c", 1, 5, 6, dag.NodePassed),
		}, chain, "a:1 b:1 c:1"},
		{"a retry waits for the try before it", []runs.Attempt{
			a("a", 1, 0, 1, dag.NodePassed), a("b", 1, 1, 2, dag.NodeFailed), a("d", 1, 1, 3, dag.NodePassed), a("b", 2, 4, 6, dag.NodePassed), a("c", 1, 6, 7, dag.NodePassed),
		}, chain, "a:1 b:1 b:2 c:1"},
		{"a node not needed is not waited for", []runs.Attempt{
			a("a", 1, 0, 1, dag.NodePassed), a("d", 1, 0, 3, dag.NodePassed), a("b", 1, 1, 4, dag.NodePassed),
		}, map[string][]string{"a": nil, "b": {"a"}, "d": nil}, "a:1 b:1"},
		{"without the DAG, any node that started before", []runs.Attempt{
			a("a", 1, 0, 1, dag.NodePassed), a("d", 1, 0, 3, dag.NodePassed), a("b", 1, 3, 4, dag.NodePassed),
		}, nil, "d:1 b:1"},
		{"a running attempt ends now", []runs.Attempt{
			a("a", 1, 0, 1, dag.NodePassed), a("d", 1, 1, 2, dag.NodePassed), a("b", 1, 1, -1, dag.NodeRunning),
		}, chain, "a:1 b:1"},
		{"a reused output took no time", []runs.Attempt{
			{Node: "a", Item: -1, Attempt: 1, Status: dag.NodePassed, Reused: true, Started: at(0), Ended: at(0)},
			a("b", 1, 0, 2, dag.NodePassed),
		}, chain, "b:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := buildTimeline(tc.as, tc.deps, at(10), "en")
			var got []string
			for _, row := range tl.Rows {
				for i, b := range row.Bars {
					if b.Critical {
						got = append(got, fmt.Sprintf("%s:%d", row.Node, i+1))
						if !strings.HasSuffix(b.Title, "(on the critical path)") {
							t.Errorf("bar %s:%d's title %q does not say it is on the critical path", row.Node, i+1, b.Title)
						}
					}
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("critical bars %q, want %q", strings.Join(got, " "), tc.want)
			}
		})
	}
}

// TestServeBrowserTimelineLive: in Chromium, the timeline of a running run grows as its
// nodes start, without a reload, its critical path marked as it goes.
func TestServeBrowserTimelineLive(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	id := f.start("greet.yaml", map[string]any{"name": "Ada"}, false)
	p.do(chromedp.Navigate(f.http.URL+"/runs/"+id), chromedp.WaitVisible(css(`#run[data-live="1"]`)))
	if p.eval(`(window.seamTestMark = 1)`) != 1 {
		t.Fatal("cannot mark the page")
	}
	// first sleeps 1 s, then hello, then last sleeps 4 s: last's bar shows while the run runs.
	p.do(chromedp.WaitVisible(css(`#timeline g.tl-row[data-node="last"] rect.tl-bar.st-running.critical`)))
	for _, tc := range []struct{ what, js string }{
		{"the page was not reloaded", `window.seamTestMark === 1`},
		{"the run still runs", `document.getElementById("run-status").textContent === "running"`},
		{"the rows in start order", `Array.from(document.querySelectorAll("#timeline g.tl-row")).map(g => g.dataset.node).join() === "first,hello,last"`},
	} {
		if p.eval(`(`+tc.js+`) ? 1 : 0`) != 1 {
			t.Errorf("%s: %s is false", tc.what, tc.js)
		}
	}
}

// TestServeRunTimeline: /runs/ID/timeline answers the run page's timeline section alone
// (what a live page fetches again), and says when the run is not there.
func TestServeRunTimeline(t *testing.T) {
	f := newFixture(t, Options{})
	f.writeRoot("exec-chain.yaml", execChain)
	id := f.start("exec-chain.yaml", nil, true)
	for _, tc := range []struct {
		name, path string
		code       int
		want       []string
	}{
		{"a run", "/runs/" + id + "/timeline", 200, []string{"<h2>Timeline</h2>", `data-node="first"`, "tl-bar st-passed critical", "The timeline spans"}},
		{"no such run", "/runs/nope/timeline", 404, []string{"no run nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.get(nil, tc.path)
			if resp.StatusCode != tc.code {
				t.Errorf("status %d, want %d:\n%s", resp.StatusCode, tc.code, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("the answer does not say %q:\n%s", w, body)
				}
			}
			if strings.Contains(body, "<html") {
				t.Errorf("the answer is a whole page, not the section:\n%s", body)
			}
		})
	}
}
