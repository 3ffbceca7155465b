package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/lint"
)

// textDAG puts objects and arrays inside text in every place a consumer takes text (exec's
// command and env, a transform's input), as issue 42 §1 does: p1's contract requires data
// with n, s and tags and allows an optional code.
const textDAG = `version: 1
name: text
env: [TOKEN]
nodes:
  p1:
    type: const
    with: {value: {status: pass, summary: ok, data: {n: 2, s: "a<b", tags: [x, y]}}}
    contract:
      output:
        type: object
        required: [data]
        properties:
          data:
            type: object
            required: [n, s, tags]
            properties:
              n: {type: integer}
              s: {type: string}
              tags: {type: array, items: {type: string}}
              code: {type: string}
  c1: {type: exec, with: {command: [echo, "v=${{ nodes.p1.output.data }}"], output: text}}
  c2: {type: transform, input: {t: "tags: ${{ nodes.p1.output.data.tags }}"}, with: {program: '{status: "pass", summary: .t}'}}
  c3: {type: exec, with: {command: [printenv, V], env: {V: "x-${{ nodes.p1.output.data.tags }}"}, output: text}}
  c4: {type: exec, with: {command: [echo, "m=${{ {'k': env.TOKEN, 'n': 1} }}"], output: text}}
`

// TestRunTextAroundObjects: an object or an array inside text is rendered as compact JSON
// (keys sorted, no HTML escapes), so the DAGs of issue 42 §1 that lint passes also run; a
// secret inside the rendered object is masked in what the node returns, escapes and all.
func TestRunTextAroundObjects(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), textDAG)
	if fs := lint.Lint(context.Background(), d, lint.Options{}); len(fs) > 0 {
		t.Errorf("lint findings: %v", fs)
	}
	const token = `s3cr"et\t0k3n`
	res := mustRun(t, d, RunOptions{Getenv: func(k string) string {
		if k == "TOKEN" {
			return token
		}
		return ""
	}})
	if res.Status != dag.RunSuccess {
		t.Errorf("run %s, want success", res.Status)
	}
	text := func(id string) string {
		n := node(t, res, id)
		if n.Status != dag.NodePassed {
			t.Errorf("%s: %s (%s)", id, n.Status, n.Reason)
			return ""
		}
		if id == "c2" {
			return n.Summary
		}
		out, _ := n.Output.(map[string]any)
		data, _ := out["data"].(map[string]any)
		s, _ := data["text"].(string)
		return s
	}
	tests := []struct{ id, want string }{
		{"c1", `v={"n":2,"s":"a<b","tags":["x","y"]}`},
		{"c2", `tags: ["x","y"]`},
		{"c3", `x-["x","y"]`},
		{"c4", `m={"k":"***","n":1}`},
	}
	for _, tt := range tests {
		if got := text(tt.id); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.id, got, tt.want)
		}
	}
	if strings.Contains(text("c4"), "0k3n") {
		t.Errorf("c4 shows the secret: %q", text("c4"))
	}
}

// TestRunWhenTypes: a `when` lint finds never boolean (SEAM-E312) fails its node in the run,
// and the conditions lint passes run.
func TestRunWhenTypes(t *testing.T) {
	tests := []struct {
		when   string
		lint   string // the finding's code, "" for none
		status dag.NodeStatus
	}{
		{"${{ nodes.p1.output.data.n }}", lint.CodeWhenType, dag.NodeFailed},
		{"${{ nodes.p1.output.data.s }}", lint.CodeWhenType, dag.NodeFailed},
		{"${{ nodes.p1.output.data.tags }}", lint.CodeWhenType, dag.NodeFailed},
		{"${{ size(nodes.p1.output.data.tags) > 0 }}", "", dag.NodePassed},
		{"${{ nodes.p1.output.data.n == 2.0 }}", "", dag.NodePassed},
		{"${{ !has(nodes.p1.output.data.code) }}", "", dag.NodePassed},
	}
	for _, tt := range tests {
		t.Run(tt.when, func(t *testing.T) {
			noLeaks(t)
			src := strings.SplitAfter(textDAG, "              code: {type: string}\n")[0] +
				"  c:\n    type: const\n    when: \"" + tt.when + "\"\n    with: {value: {status: pass, summary: ok}}\n"
			d := load(t, newRecorder(), src)
			var codes []string
			for _, f := range lint.Lint(context.Background(), d, lint.Options{}) {
				codes = append(codes, f.Code)
			}
			if got := strings.Join(codes, " "); got != tt.lint {
				t.Errorf("lint findings %q, want %q", got, tt.lint)
			}
			res := mustRun(t, d, RunOptions{Getenv: func(string) string { return "unused-token" }})
			if c := node(t, res, "c"); c.Status != tt.status {
				t.Errorf("c %s (%s), want %s", c.Status, c.Reason, tt.status)
			}
		})
	}
}
