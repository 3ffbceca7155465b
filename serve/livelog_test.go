package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// logsDAG has an exec node that prints two lines, a foreach node whose items print a line
// each, and a node that prints nothing.
const logsDAG = `version: 1
name: logs
nodes:
  one:
    type: exec
    with: {command: 'echo first >&2; echo hello >&2; echo "{}"', shell: true, output: wrap}
  many:
    type: exec
    foreach: [a, b]
    with: {command: 'echo "item ${{ item }}" >&2; echo "{}"', shell: true, output: wrap}
  quiet:
    type: const
    with: {value: {status: pass, summary: q}}
`

// TestServeNodeLog: a node's whole log downloads as text, as the store keeps it (masked by
// the engine before: engine.TestRunRecordsLiveLogs, nodes' exec tests), its foreach items'
// each under a line naming it; a node without a log, or a run that does not exist, is a 404
// that says so.
func TestServeNodeLog(t *testing.T) {
	f := newFixture(t, Options{})
	f.writeRoot("logs.yaml", logsDAG)
	id := f.start("logs.yaml", nil, true)
	tests := []struct {
		name string
		path string
		code int
		want string
	}{
		{"one attempt", "/runs/" + id + "/nodes/one/log", http.StatusOK, "first\nhello\n"},
		{"foreach items", "/runs/" + id + "/nodes/many/log", http.StatusOK,
			"── item 0 · attempt 1 · session 0 ──\nitem a\n── item 1 · attempt 1 · session 0 ──\nitem b\n"},
		{"no log", "/runs/" + id + "/nodes/quiet/log", http.StatusNotFound, "node quiet of run " + id + " has no log"},
		{"no run", "/runs/nope/nodes/one/log", http.StatusNotFound, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := f.get(nil, tt.path)
			if resp.StatusCode != tt.code {
				t.Fatalf("%s: %d, want %d: %s", tt.path, resp.StatusCode, tt.code, body)
			}
			if tt.code == http.StatusOK {
				if body != tt.want {
					t.Errorf("log %q, want %q", body, tt.want)
				}
				if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") {
					t.Errorf("Content-Disposition %q: not a download", cd)
				}
				return
			}
			if !strings.Contains(body, tt.want) {
				t.Errorf("the 404 does not say %q:\n%s", tt.want, body)
			}
		})
	}
	if _, page := f.get(nil, "/runs/"+id+"?node=one"); !strings.Contains(page, `<a href="/runs/`+id+`/nodes/one/log" download id="log-download">download the whole log</a>`) {
		t.Errorf("the panel of one has no link to its whole log:\n%s", page)
	}
}

// TestRunningLog: what the panel and the event stream show of a node's running attempts.
func TestRunningLog(t *testing.T) {
	start := func(node string, item int, log string) runs.Attempt {
		return runs.Attempt{Node: node, Item: item, Attempt: 1, Status: dag.NodeRunning, Log: log}
	}
	ended := runs.Attempt{Node: "n", Item: -1, Attempt: 1, Status: dag.NodePassed, Final: true, Log: "done\n"}
	tests := []struct {
		name string
		as   []runs.Attempt
		want string
		live bool
	}{
		{"its own attempt", []runs.Attempt{start("m", -1, "other\n"), start("n", -1, "line 1\n")}, "line 1\n", true},
		{"started, nothing printed", []runs.Attempt{start("n", -1, "")}, "", true},
		{"running items, each named", []runs.Attempt{start("n", 0, "a\n"), start("n", 1, ""), start("n", 2, "c\n")},
			"── item 0 ──\na\n── item 2 ──\nc\n", true},
		{"ended", []runs.Attempt{ended}, "", false},
		{"settled by the page (interrupted)", []runs.Attempt{{Node: "n", Item: -1, Status: runs.AttemptInterrupted, Log: "x"}}, "", false},
		{"bounded", []runs.Attempt{start("n", -1, strings.Repeat("x", 3*MaxLogTail))}, "…" + strings.Repeat("x", MaxLogTail), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, live := runningLog(tt.as, "n", "en")
			if got != tt.want || live != tt.live {
				t.Errorf("runningLog = %.80q, %v; want %.80q, %v", got, live, tt.want, tt.live)
			}
		})
	}
}

// TestServeTimelineNeedsCache: the timeline, which a live page fetches every second, loads
// its run's DAG file once per content (by digest), not once per fetch; a file that changed is
// loaded again, and one that cannot be read is drawn without its needs (nothing kept).
func TestServeTimelineNeedsCache(t *testing.T) {
	f := newFixture(t, Options{})
	f.writeRoot("chain.yaml", chainDAG)
	id := f.start("chain.yaml", nil, true)
	tests := []struct {
		name  string
		write string // the DAG file's new content, if any
		kept  int    // files whose needs the cache holds after the fetch
	}{
		{"first fetch loads", "", 1},
		{"second fetch reads the cache", "", 1},
		{"a changed file is loaded again", strings.Replace(chainDAG, "A chain with a branch.", "A chain.", 1), 2},
		{"a file that is no DAG is not loaded", "just: text\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.write != "" {
				f.writeRoot("chain.yaml", tt.write)
			}
			resp, body := f.get(nil, "/runs/"+id+"/timeline")
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<g class="tl-row" data-node="a">`) {
				t.Fatalf("timeline: %d\n%s", resp.StatusCode, body)
			}
			if n := len(f.srv.needs.byID); n != tt.kept {
				t.Errorf("the cache holds %d files' needs, want %d", n, tt.kept)
			}
		})
	}
}
