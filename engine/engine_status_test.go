package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
)

// TestRunStatusConditions checks nodes whose when reads an upstream's status
// (nodes.<id>.status): such a node is decided after that upstream ended, however it ended,
// as Argo's depends: "a.Failed" is; reading the output of an upstream that handed none on
// skips it with that reason instead of failing it.
func TestRunStatusConditions(t *testing.T) {
	type want struct {
		status dag.NodeStatus
		reason string // exact; "" means no reason
	}
	tests := []struct {
		name  string
		nodes string
		run   dag.RunStatus
		want  map[string]want
		input map[string]string // node id → its input as seen by the type, in Go syntax
	}{{
		name: "continue on failure (Argo's B.Failed)",
		nodes: `
  a: {type: probe, with: {error: boom}}
  b: {type: probe, when: "${{ nodes.a.status == 'failed' }}"}
  c: {type: probe, needs: [a]}
  d: {type: probe, when: "${{ nodes.a.status == 'passed' }}"}`,
		run: dag.RunFailed,
		want: map[string]want{
			"a": {dag.NodeFailed, "boom"},
			"b": {dag.NodePassed, ""},
			"c": {dag.NodeSkipped, "upstream a failed"},
			"d": {dag.NodeSkipped, "when was false"},
		},
		input: map[string]string{"b": "map[]"},
	}, {
		name: "after a skipped upstream",
		nodes: `
  a: {type: probe, when: "${{ false }}"}
  b: {type: probe, when: "${{ nodes.a.status == 'skipped' }}"}
  c: {type: probe, when: "${{ nodes.a.status in ['failed', 'canceled'] }}"}`,
		run: dag.RunSuccess,
		want: map[string]want{
			"a": {dag.NodeSkipped, "when was false"},
			"b": {dag.NodePassed, ""},
			"c": {dag.NodeSkipped, "when was false"},
		},
	}, {
		name: "after a passed upstream, with its output",
		nodes: `
  a: {type: probe, with: {out: {status: warn, summary: careful}}}
  b: {type: probe, when: "${{ nodes.a.status != 'failed' }}"}`,
		run: dag.RunWarn,
		want: map[string]want{
			"a": {dag.NodeWarned, ""},
			"b": {dag.NodePassed, ""},
		},
		input: map[string]string{"b": "map[a:map[status:warn summary:careful]]"},
	}, {
		name: "a failed upstream's own output is read",
		nodes: `
  a: {type: probe, with: {out: {status: fail, summary: red}}}
  b:
    type: probe
    when: "${{ nodes.a.status == 'failed' && nodes.a.output.summary == 'red' }}"
    input: "${{ nodes.a.output.summary }}"`,
		run: dag.RunFailed,
		want: map[string]want{
			"a": {dag.NodeFailed, "red"},
			"b": {dag.NodePassed, ""},
		},
		input: map[string]string{"b": "red"},
	}, {
		name: "reading the output of a failed upstream that has none skips",
		nodes: `
  a: {type: probe, with: {error: boom}}
  b:
    type: probe
    when: "${{ nodes.a.status != 'passed' }}"
    with: {out: "${{ nodes.a.output }}"}
  c:
    type: probe
    when: "${{ nodes.a.status == 'failed' && nodes.a.output.summary == 'x' }}"
  d:
    type: probe
    when: "${{ nodes.a.status == 'failed' || nodes.a.output.summary == 'x' }}"
  e:
    type: probe
    when: "${{ nodes.a.status == 'failed' }}"
    foreach: "${{ nodes.a.output.data.items }}"
  f:
    type: probe
    when: "${{ nodes.a.status == 'failed' }}"
    input: "x ${{ nodes.a.output.summary }}"`,
		run: dag.RunFailed,
		want: map[string]want{
			"b": {dag.NodeSkipped, "upstream a failed: its output is not there"},
			"c": {dag.NodeSkipped, "upstream a failed: its output is not there"},
			"d": {dag.NodePassed, ""}, // the status decided: the output was not read
			"e": {dag.NodeSkipped, "upstream a failed: its output is not there"},
			"f": {dag.NodeSkipped, "upstream a failed: its output is not there"},
		},
	}, {
		name: "reading the output of a skipped upstream skips",
		nodes: `
  a: {type: probe, when: "${{ false }}"}
  b:
    type: probe
    when: "${{ nodes.a.status == 'skipped' }}"
    input: "${{ nodes.a.output.summary }}"`,
		run: dag.RunSuccess,
		want: map[string]want{
			"b": {dag.NodeSkipped, "upstream a skipped: its output is not there"},
		},
	}, {
		name: "only the upstreams whose status the when reads may have failed",
		nodes: `
  a: {type: probe, with: {error: boom}}
  x: {type: probe, with: {error: bang}}
  b: {type: probe, needs: [x], when: "${{ nodes.a.status == 'failed' }}"}`,
		run: dag.RunFailed,
		want: map[string]want{
			"b": {dag.NodeSkipped, "upstream x failed"},
		},
	}, {
		name: "a status read outside when does not change run_if",
		nodes: `
  a: {type: probe, with: {error: boom}}
  b: {type: probe, with: {out: {status: pass, summary: "${{ nodes.a.status }}"}}}`,
		run: dag.RunFailed,
		want: map[string]want{
			"b": {dag.NodeSkipped, "upstream a failed"},
		},
	}, {
		name: "a status read in with, beside the when's",
		nodes: `
  a: {type: probe, with: {error: boom}}
  b:
    type: probe
    when: "${{ nodes.a.status != 'passed' }}"
    with: {out: {status: pass, summary: "a ${{ nodes.a.status }}"}}
  c: {type: probe, input: "${{ nodes.b.output.summary }}"}`,
		run: dag.RunFailed,
		want: map[string]want{
			"b": {dag.NodePassed, ""},
			"c": {dag.NodePassed, ""},
		},
		input: map[string]string{"c": "a failed"},
	}, {
		name: "run_if failure with a status condition",
		nodes: `
  a: {type: probe, with: {error: boom}}
  ok: {type: probe}
  b: {type: probe, needs: [ok], run_if: failure, when: "${{ nodes.a.status == 'failed' }}"}
  c: {type: probe, needs: [a], run_if: failure, when: "${{ nodes.ok.status == 'failed' }}"}`,
		run: dag.RunFailed,
		want: map[string]want{
			"b": {dag.NodePassed, ""},
			"c": {dag.NodeSkipped, "when was false"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			rec := newRecorder()
			d := load(t, rec, "version: 1\nname: t\nnodes:"+tt.nodes+"\n")
			res := mustRun(t, d, RunOptions{})
			if res.Status != tt.run {
				t.Errorf("run status = %s, want %s", res.Status, tt.run)
			}
			for id, w := range tt.want {
				n := node(t, res, id)
				if n.Status != w.status || n.Reason != w.reason {
					t.Errorf("%s: %s (%q), want %s (%q)", id, n.Status, n.Reason, w.status, w.reason)
				}
				if _, ran := rec.started[id]; ran != (w.status != dag.NodeSkipped) {
					t.Errorf("%s: type ran %t, status %s", id, ran, n.Status)
				}
				if strings.Contains(n.Error, "no such key") {
					t.Errorf("%s: error %q", id, n.Error)
				}
			}
			for id, want := range tt.input {
				if got := fmt.Sprint(rec.inputs[id]); got != want {
					t.Errorf("%s: input %s, want %s", id, got, want)
				}
			}
		})
	}
}

// TestRunReuseStatus: a resume reuses the output of a node that reads an upstream's status
// only if that status is the same: a skipped and a failed upstream both hand nothing on.
func TestRunReuseStatus(t *testing.T) {
	noLeaks(t)
	src := `version: 1
name: resume
params:
  type: object
  properties:
    fail: {type: boolean}
nodes:
  a: {type: probe, when: "${{ params.fail }}", with: {error: boom}}
  b:
    type: probe
    when: "${{ nodes.a.status != 'passed' }}"
    with: {out: {status: pass, summary: "a ${{ nodes.a.status }}"}}
  c: {type: probe, when: "${{ true }}"}
`
	rec := newRecorder()
	d := load(t, rec, src)
	m := &memRecorder{rec: rec, d: d}
	first := mustRun(t, d, RunOptions{Recorder: m, Params: map[string]any{"fail": false}})
	if got := node(t, first, "b").Summary; got != "a skipped" {
		t.Fatalf("first run: b says %q", got)
	}
	reuse := map[string]dag.Reused{}
	for _, a := range m.records {
		if a.Final && a.Status == dag.NodePassed {
			reuse[a.Node] = dag.Reused{Key: a.Key, Output: a.Output}
		}
	}
	rec = newRecorder()
	d = load(t, rec, src)
	m = &memRecorder{rec: rec, d: d}
	second := mustRun(t, d, RunOptions{Recorder: m, Reuse: reuse, Params: map[string]any{"fail": true}})
	if b := node(t, second, "b"); b.Reused || b.Summary != "a failed" {
		t.Errorf("b: reused %t, says %q; want it run again and say a failed", b.Reused, b.Summary)
	}
	if !node(t, second, "c").Reused {
		t.Errorf("c was not reused")
	}
}
