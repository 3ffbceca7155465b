package serve

import (
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simDAGs are DAG files the Simulate button is pressed on: an exec node that would create a
// file, an enum-driven when (taken both ways), one never true, a contract no value meets,
// params no value meets.
var simDAGs = map[string]string{
	"triage.yaml": `version: 1
name: triage
nodes:
  classify:
    type: exec
    with: {command: [sh, -c, "echo '{}'"]}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data: {type: object, required: [kind], properties: {kind: {enum: [bug, feature]}}}
  create:
    type: exec
    with: {command: [touch, created], output: text}
  notify:
    when: "${{ nodes.classify.output.data.kind == 'bug' }}"
    type: const
    with: {value: {status: pass, summary: notified}}
`,
	"never.yaml": `version: 1
name: never
nodes:
  classify:
    type: exec
    with: {command: [sh, -c, "echo '{}'"]}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data: {type: object, required: [kind], properties: {kind: {enum: [bug, feature]}}}
  notify:
    when: "${{ nodes.classify.output.data.kind == 'question' }}"
    type: const
    with: {value: {status: pass, summary: notified}}
`,
	"empty.yaml": `version: 1
name: empty
nodes:
  fetch:
    type: exec
    with: {command: [sh, -c, "echo '{}'"]}
    contract:
      output: {type: object, required: [data], properties: {data: {type: object, required: [n], properties: {n: {type: integer, minimum: 3, maximum: 2}}}}}
`,
	"noparams.yaml": `version: 1
name: noparams
params: {type: object, required: [x], properties: {x: false}}
nodes:
  a:
    type: const
    with: {value: {status: pass, summary: a}}
`,
}

// TestServeSimulate: the DAG page's Simulate button (GET ?simulate=1) simulates the DAG on
// the server and shows the paths and the branch report, in the page's language; it runs
// nothing with a side effect, records nothing, names files relative to the root, and is
// there for a read-only server too. Without the query the page shows the button only.
func TestServeSimulate(t *testing.T) {
	cases := []struct {
		name, path, lang string
		opts             Options
		has, hasNot      []string
	}{
		{"the button, no simulation", "/dags/triage.yaml", "", Options{},
			[]string{`id="simulate-form"`, `name="simulate" value="1"`, ">Simulate</button>"}, []string{`id="simulate-summary"`}},
		{"both branches of an enum-driven when", "/dags/triage.yaml?simulate=1", "", Options{},
			[]string{
				"simulated triage (triage.yaml): 2 paths, 2 of 2 combinations of outcomes tried, 0 excluded by the contracts; nothing ran with a side effect, nothing was recorded",
				`<tr data-path="1"><td>1</td><td><span class="status st-success">success</span></td><td>notify</td><td>classify, create</td><td>-</td><td>-</td></tr>`,
				`<tr data-path="2"><td>2</td><td><span class="status st-success">success</span></td><td>-</td><td>classify, create</td><td>notify</td><td>-</td></tr>`,
				"<code>notify when ${{ nodes.classify.output.data.kind == 'bug' }} (triage.yaml:17:16)</code>",
				"<li>true in paths 1</li>", "<li>false in paths 2</li>",
			}, nil},
		{"never true, proved", "/dags/never.yaml?simulate=1", "", Options{},
			[]string{`<li>never true, proved by exhaustion of the enum: nodes.classify.output.data.kind is one of "bug", "feature", and none of them meets the condition</li>`, "<li>false in paths 1</li>"},
			[]string{"true in paths", "not proved impossible"}},
		{"in Japanese", "/dags/never.yaml?simulate=1", "ja", Options{},
			[]string{"never（never.yaml）をシミュレーションしました：経路 1 本", "<li>決して真になりません（enum の網羅による証明）", "<li>偽：経路 1</li>", ">シミュレーション実行</button>", "<th>経路</th>"}, nil},
		{"a contract no value meets", "/dags/empty.yaml?simulate=1", "", Options{},
			[]string{`<ul id="simulate-unknown"><li>fetch: its contract accepts no value</li></ul>`, "path 1: fetch failed:", "No when or foreach: one path."}, nil},
		{"params no value meets", "/dags/noparams.yaml?simulate=1", "", Options{},
			[]string{`<p class="error" id="simulate-error">the simulation could not run: simulate noparams: no params could be generated from the params schema; give them with -p</p>`},
			[]string{`id="simulate-summary"`}},
		{"a read-only server simulates", "/dags/triage.yaml?simulate=1", "", Options{ReadOnly: true},
			[]string{`id="simulate-form"`, "<li>true in paths 1</li>"}, []string{`id="run-form"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.opts)
			write(t, f.root, simDAGs)
			req, err := http.NewRequest(http.MethodGet, f.http.URL+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.lang != "" {
				req.Header.Set("Accept-Language", c.lang)
			}
			resp, err := f.http.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			body := string(b)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d, want 200:\n%s", resp.StatusCode, body)
			}
			text := html.UnescapeString(body)
			for _, h := range c.has {
				if !strings.Contains(text, h) {
					t.Errorf("the page lacks %q:\n%s", h, text)
				}
			}
			for _, h := range c.hasNot {
				if strings.Contains(text, h) {
					t.Errorf("the page has %q:\n%s", h, text)
				}
			}
			if strings.Contains(text, f.root) {
				t.Errorf("the page names the root %s", f.root)
			}
			if _, err := os.Stat(filepath.Join(f.root, "created")); err == nil {
				t.Errorf("the exec node that creates a file ran")
			}
			if list, _, err := f.svc.List(t.Context(), runsFilter()); err != nil || len(list) != 0 {
				t.Errorf("runs: %d (%v), want none recorded", len(list), err)
			}
		})
	}
}

// TestServeSimulateViewer: a viewer, who may not start a run, may simulate: it runs
// nothing with a side effect.
func TestServeSimulateViewer(t *testing.T) {
	f, _ := principalsFixture(t)
	write(t, f.root, simDAGs)
	resp, body := bearerDo(t, f, http.MethodGet, "/dags/triage.yaml?simulate=1", viewerTok, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "true in paths 1") {
		t.Fatalf("%d, want 200 with the branch report:\n%s", resp.StatusCode, body)
	}
}
