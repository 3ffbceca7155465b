package serve

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/service"
)

// chainDAG is a → b → c and a → d, listed out of order: c, b, a, d.
const chainDAG = `version: 1
name: chain
description: A chain with a branch.
nodes:
  c: {type: const, needs: [b], with: {value: {status: pass, summary: c}}}
  b: {type: const, needs: [a], with: {value: {status: pass, summary: b}}}
  a: {type: const, with: {value: {status: pass, summary: a}}}
  d: {type: const, needs: [a], with: {value: {status: pass, summary: d}}}
`

// writeRoot writes the DAG file name with src under f's root.
func (f *fixture) writeRoot(name, src string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, name), []byte(src), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// waitSession waits until run id has ended its session-th resume, and returns the nodes
// that session reused and those it ran, in the order they were recorded.
func (f *fixture) waitSession(t *testing.T, id string, session int) (reused, ran string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, as, err := f.st.GetRun(t.Context(), id)
		if err == nil && r.Resumes == session && r.Status != dag.RunRunning {
			for _, a := range as {
				if a.Session == session && a.Final && a.Item < 0 {
					if a.Reused {
						reused += a.Node
					} else {
						ran += a.Node
					}
				}
			}
			return reused, ran
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s did not end session %d: %+v %v", id, session, r, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeRerunFrom: a finished run's page offers "Rerun from here" on every node; the
// button reruns that node and its dependents and reuses the rest, as a new session, and a
// node the DAG lacks is refused with the reason.
func TestServeRerunFrom(t *testing.T) {
	f := newFixture(t, Options{})
	f.writeRoot("chain.yaml", chainDAG)
	id := f.start("chain.yaml", nil, true)
	c := jarClient(t, f)
	_, page := f.get(c, "/runs/"+id)
	for _, n := range []string{"a", "b", "c", "d"} {
		if !strings.Contains(page, `<input type="hidden" name="from" value="`+n+`"><button type="submit" class="rerun">Rerun from here</button>`) {
			t.Errorf("no Rerun from here for node %s:\n%s", n, page)
		}
	}
	token := csrfOf(t, page)
	tests := []struct {
		from    string
		code    int
		saying  string
		session int
		reused  string
		ran     string
	}{
		{"b", http.StatusSeeOther, "", 1, "ad", "bc"},
		{"a", http.StatusSeeOther, "", 2, "", "abdc"},
		{"nope", http.StatusConflict, "run " + id + ` of DAG "chain" has no node "nope" to rerun from`, 2, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.from, func(t *testing.T) {
			resp, body := post(t, c, f.http.URL+"/runs/"+id+"/resume", url.Values{"csrf": {token}, "from": {tc.from}})
			if resp.StatusCode != tc.code || !strings.Contains(html.UnescapeString(body), tc.saying) {
				t.Fatalf("rerun from %s: %d, want %d saying %q:\n%s", tc.from, resp.StatusCode, tc.code, tc.saying, body)
			}
			if tc.code != http.StatusSeeOther {
				return
			}
			if loc := resp.Header.Get("Location"); loc != "/runs/"+id {
				t.Errorf("sent to %q, want the run's page", loc)
			}
			reused, ran := f.waitSession(t, id, tc.session)
			if reused != tc.reused || !sameLetters(ran, tc.ran) {
				t.Errorf("rerun from %s: reused %q and ran %q; want reused %q, ran %q", tc.from, reused, ran, tc.reused, tc.ran)
			}
		})
	}
}

// sameLetters is whether a and b hold the same letters, in any order: nodes with no
// dependency between them may be recorded in either order.
func sameLetters(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, r := range a {
		if strings.Count(a, string(r)) != strings.Count(b, string(r)) {
			return false
		}
	}
	return true
}

// TestServeRerunNeedsOperator: a viewer sees no rerun button and may not post one.
func TestServeRerunNeedsOperator(t *testing.T) {
	f, _ := principalsFixture(t)
	f.writeRoot("chain.yaml", chainDAG)
	id := f.start("chain.yaml", nil, true)
	if _, body := bearerDo(t, f, "GET", "/runs/"+id, operatorTok, nil); !strings.Contains(body, "Rerun from here") {
		t.Errorf("an operator sees no rerun button:\n%s", body)
	}
	if _, body := bearerDo(t, f, "GET", "/runs/"+id, viewerTok, nil); strings.Contains(body, "Rerun from here") {
		t.Errorf("a viewer sees a rerun button:\n%s", body)
	}
	resp, body := bearerDo(t, f, "POST", "/runs/"+id+"/resume", viewerTok, url.Values{"from": {"b"}})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "grafana may not do this: it needs the role operator") {
		t.Errorf("a viewer's rerun: %d\n%s", resp.StatusCode, body)
	}
}

// TestServePendingNodes: the node table lists the nodes that have not run yet, as pending.
func TestServePendingNodes(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.start("slow.yaml", nil, false)
	_, page := f.get(nil, "/runs/"+id)
	table := page[strings.Index(page, `<table class="nodes">`):]
	if !strings.Contains(table, `<tr data-node="after"><td><a href="/runs/`+id+`?node=after#panel">after</a></td><td>const</td><td><span class="status st-pending" data-status>pending</span>`) {
		t.Errorf("the node table lacks the pending node after:\n%s", table)
	}
	if strings.Contains(page, "Rerun from here") {
		t.Errorf("a running run offers a rerun:\n%s", page)
	}
}

// execChain is three exec nodes, one after another, listed last first.
const execChain = `version: 1
name: exec-chain
nodes:
  third: {type: exec, needs: [second], with: {command: [echo, '{"status": "pass", "summary": "3"}']}}
  second: {type: exec, needs: [first], with: {command: [echo, '{"status": "pass", "summary": "2"}']}}
  first: {type: exec, with: {command: [echo, '{"status": "pass", "summary": "1"}']}}
`

// timelineRows are the timeline's rows, each its node and its bars' classes, and the
// count of items written beside each bar that has one.
func timelineRows(t *testing.T, page string) []string {
	t.Helper()
	i := strings.Index(page, `<div class="timeline" id="timeline">`)
	if i < 0 || !strings.Contains(page, "<h2>Timeline</h2>") {
		t.Fatalf("no Timeline section:\n%s", page)
	}
	svg := page[i : i+strings.Index(page[i:], "</svg>")]
	var rows []string
	row := regexp.MustCompile(`(?s)<g class="tl-row" data-node="([^"]+)">(.*?)</g>`)
	bar := regexp.MustCompile(`<rect class="tl-bar ([^"]+)"|<text class="tl-count"[^>]*>([^<]+)</text>`)
	for _, m := range row.FindAllStringSubmatch(svg, -1) {
		s := m[1] + ":"
		for _, b := range bar.FindAllStringSubmatch(m[2], -1) {
			s += " " + b[1] + b[2]
		}
		rows = append(rows, s)
	}
	return rows
}

// TestServeTimelineSessions: after a rerun from a node, each node's row holds a bar a
// session, the reused one marked; the critical path is the rerun's, which the reuse starts.
func TestServeTimelineSessions(t *testing.T) {
	f := newFixture(t, Options{})
	f.writeRoot("exec-chain.yaml", execChain)
	id := f.start("exec-chain.yaml", nil, true)
	rs, err := f.svc.Resumable(t.Context(), id, service.ResumeCheck{From: "second"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.srv.files.Load(t.Context(), filepath.Join(f.root, "exec-chain.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := f.svc.Resume(t.Context(), rs, d, service.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Wait(); err != nil {
		t.Fatal(err)
	}
	_, page := f.get(nil, "/runs/"+id)
	want := []string{"first: st-passed st-passed reused", "second: st-passed st-passed critical", "third: st-passed st-passed critical"}
	if got := timelineRows(t, page); !slices.Equal(got, want) {
		t.Errorf("timeline rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestServeTimeline: the run page's Timeline has a row a node in the order the nodes
// started, whatever the file's order; a retry is a bar of its own, marked; a foreach node's
// items are one bar with their count; the chain that decided the run's duration is marked
// critical (each node here waits for the one before it).
func TestServeTimeline(t *testing.T) {
	f := newFixture(t, Options{})
	f.writeRoot("exec-chain.yaml", execChain)
	tests := []struct {
		file string
		want []string
	}{
		{"exec-chain.yaml", []string{"first: st-passed critical", "second: st-passed critical", "third: st-passed critical"}},
		{"repair.yaml", []string{"fetch: st-failed critical st-passed retry critical", "draft: st-failed critical st-passed retry critical"}},
		{"items.yaml", []string{"each: st-passed critical ×5", "check: st-failed critical ×2"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			id := f.start(tc.file, nil, true)
			_, page := f.get(nil, "/runs/"+id)
			if got := timelineRows(t, page); !slices.Equal(got, tc.want) {
				t.Errorf("timeline rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestServeDAGHistory: a DAG's page lists its runs, newest first, with links to them, its
// description, and its success rate over the runs that ended; the DAGs page names each
// DAG's last run and its status; the runs page shows a running run's progress.
func TestServeDAGHistory(t *testing.T) {
	f := newFixture(t, Options{})
	flag := filepath.Join(t.TempDir(), "ok")
	f.writeRoot("flaky.yaml", `version: 1
name: flaky
description: Passes once the flag exists.
nodes:
  check:
    type: exec
    with:
      shell: true
      command: 'test -f `+flag+` && echo "{\"status\":\"pass\",\"summary\":\"ok\"}"'
`)
	_, page := f.get(nil, "/dags/flaky.yaml")
	if !strings.Contains(page, `<h2>Recent runs</h2>`) || !strings.Contains(page, `<td colspan="5">No runs yet.</td>`) || strings.Contains(page, `id="history-stats"`) {
		t.Errorf("a DAG never run: its page does not say so:\n%s", page)
	}
	failed := f.start("flaky.yaml", nil, true)
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	passed := []string{f.start("flaky.yaml", nil, true), f.start("flaky.yaml", nil, true)}
	other := f.start("greet.yaml", map[string]any{"name": "Ada"}, true)

	_, page = f.get(nil, "/dags/flaky.yaml")
	var ids []string
	for _, m := range regexp.MustCompile(`<tr data-run="([^"]+)"><td><a href="/runs/([^"]+)">`).FindAllStringSubmatch(page, -1) {
		if m[1] != m[2] {
			t.Errorf("run %s links to %s", m[1], m[2])
		}
		ids = append(ids, m[1])
	}
	if want := []string{passed[1], passed[0], failed}; !slices.Equal(ids, want) {
		t.Errorf("the DAG page lists runs %v, want %v (newest first, not %s of another DAG)", ids, want, other)
	}
	for _, want := range []string{
		`<p id="description">Passes once the flag exists.</p>`,
		`<span class="status st-failed">failed</span>`,
		`Success rate <strong id="success-rate">67%</strong> · median duration <strong id="median-duration">`,
		`over the last runs that ended: 3</p>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the DAG page lacks %q:\n%s", want, page)
		}
	}

	_, list := f.get(nil, "/dags")
	for file, id := range map[string]string{"flaky.yaml": passed[1], "greet.yaml": other} {
		row := regexp.MustCompile(`(?s)<tr><td><a href="/dags/` + regexp.QuoteMeta(file) + `">.*?</tr>`).FindString(list)
		if !strings.Contains(row, `<a href="/runs/`+id+`" class="last-run">`) || !strings.Contains(row, `<span class="status st-success">success</span>`) {
			t.Errorf("the DAGs page's row of %s does not name its last run %s:\n%s", file, id, row)
		}
	}
	if row := regexp.MustCompile(`(?s)<tr><td><a href="/dags/slow.yaml">.*?</tr>`).FindString(list); strings.Contains(row, "last-run") {
		t.Errorf("a DAG never run has a last run:\n%s", row)
	}

	slow := f.start("slow.yaml", nil, false)
	_, runsPage := f.get(nil, "/runs")
	if !strings.Contains(runsPage, `<tr data-live="`+slow+`">`) || !strings.Contains(runsPage, `<span class="progress" title="nodes settled">0/2</span>`) {
		t.Errorf("the runs page does not show the running run's progress:\n%s", runsPage)
	}
	if strings.Count(runsPage, `class="progress"`) != 1 {
		t.Errorf("runs that ended show a progress:\n%s", runsPage)
	}
}
