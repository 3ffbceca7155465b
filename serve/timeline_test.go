package serve

import (
	"fmt"
	"strings"
	"testing"
	"time"

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
