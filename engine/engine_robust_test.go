package engine

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

// TestRunHugeOutput checks that a node printing 100 MB fails on the output limit without the
// run holding the whole output.
func TestRunHugeOutput(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), `version: 1
name: huge
nodes:
  flood: {type: exec, with: {command: [sh, -c, "head -c 100000000 /dev/zero"]}}
`)
	res := mustRun(t, d, RunOptions{})
	if n := node(t, res, "flood"); n.Status != dag.NodeFailed || n.Reason != "exec sh: output exceeds the 16 MiB limit" {
		t.Errorf("flood: %s %q", n.Status, n.Reason)
	}
}

// TestRunRetryStorm checks that many nodes failing at once retry a bounded number of times
// each, and that the run ends.
func TestRunRetryStorm(t *testing.T) {
	noLeaks(t)
	const n = 200
	var b strings.Builder
	b.WriteString("version: 1\nname: storm\nconcurrency: 16\nnodes:\n")
	for i := range n {
		fmt.Fprintf(&b, "  n%d: {type: probe, retry: {attempts: 5, backoff: 1ms, max_backoff: 4ms}, with: {fail_attempts: 100}}\n", i)
	}
	rec := newRecorder()
	// Only a guard against a hang (the run would end canceled): the counts below are the test.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, load(t, rec, b.String()), RunOptions{})
	if err != nil || res.Status != dag.RunFailed {
		t.Errorf("run %v, %v; want failed", res.Status, err)
	}
	total := 0
	for id, calls := range rec.calls {
		if len(calls) != 5 {
			t.Errorf("%s ran %d times, want 5", id, len(calls))
		}
		total += len(calls)
	}
	if total != 5*n {
		t.Errorf("%d attempts in all, want %d", total, 5*n)
	}
}

// TestRunMasksSecrets checks that env values never come out of a node, however its output
// escapes them.
func TestRunMasksSecrets(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), `version: 1
name: secrets
env: [TOKEN]
nodes:
  echo: {type: const, with: {value: {status: pass, summary: "token ${{ env.TOKEN }}"}}}
  escaped: {type: exec, with: {command: [printf, '{"status": "pass", "summary": "s3cr\\/et-t0k3n"}']}}
`)
	res := mustRun(t, d, RunOptions{Getenv: func(k string) string {
		if k == "TOKEN" {
			return "s3cr/et-t0k3n"
		}
		return ""
	}})
	for _, id := range []string{"echo", "escaped"} {
		n := node(t, res, id)
		if n.Status != dag.NodePassed || strings.Contains(n.Summary, "t0k3n") || !strings.Contains(n.Summary, "***") {
			t.Errorf("%s: %s %q", id, n.Status, n.Summary)
		}
	}
}

// TestRunWarnsShortSecret checks that an env value too short to be masked is run with, and
// warned about in the log, naming the variable and where the file lists it.
func TestRunWarnsShortSecret(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), `version: 1
name: short
env: [TOKEN, LONG]
nodes:
  echo: {type: const, with: {value: {status: pass, summary: "${{ env.TOKEN }} ${{ env.LONG }}"}}}
`)
	var log bytes.Buffer
	env := map[string]string{"TOKEN": "abc", "LONG": "long-t0ken"}
	res := mustRun(t, d, RunOptions{Getenv: func(k string) string { return env[k] },
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if n := node(t, res, "echo"); n.Status != dag.NodePassed || n.Summary != "abc ***" {
		t.Errorf("echo: %s %q", n.Status, n.Summary)
	}
	want := "level=WARN msg=\"env TOKEN (listed at test.yaml:3:7) holds 3 bytes, fewer than the 4 a secret needs to be masked: its value will show in outputs, logs and the run store\""
	if got := log.String(); !strings.Contains(got, want) || strings.Contains(got, "LONG") {
		t.Errorf("log:\n%s\nwant a line with\n%s", got, want)
	}
}

// TestRunRecoversTemplatePanics checks that a panic while evaluating a node's when, input or
// foreach, or the DAG's outputs, fails that node (or output) and nothing else. The panics come
// from expressions never compiled, as a bug in an expression library would.
func TestRunRecoversTemplatePanics(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), `version: 1
name: templates
nodes:
  when: {type: const, when: "${{ true }}", with: {value: {status: pass, summary: w}}}
  input: {type: const, input: "${{ 1 }}", with: {value: {status: pass, summary: i}}}
  each: {type: const, foreach: "${{ [1] }}", with: {value: {status: pass, summary: e}}}
  ok: {type: const, with: {value: {status: pass, summary: fine}}}
outputs:
  out: "${{ nodes.ok.output.summary }}"
`)
	broken := func() *dag.Template { return dag.ExprTemplate(&dag.Expr{}) }
	for _, n := range d.Nodes {
		switch n.ID {
		case "when":
			n.When = &dag.Expr{}
		case "input":
			n.Input = broken()
		case "each":
			n.Foreach = broken()
		}
	}
	var log bytes.Buffer
	res := mustRun(t, d, RunOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	const nilCall = ": runtime error: invalid memory address or nil pointer dereference"
	for id, want := range map[string]string{
		"when":  "internal error in when" + nilCall,
		"input": "internal error in with or input" + nilCall,
		"each":  "internal error in foreach" + nilCall,
		"ok":    "",
	} {
		n := node(t, res, id)
		if wantStatus := map[bool]dag.NodeStatus{true: dag.NodePassed, false: dag.NodeFailed}[want == ""]; n.Status != wantStatus || n.Reason != want {
			t.Errorf("%s: %s %q, want %s %q", id, n.Status, n.Reason, wantStatus, want)
		}
	}
	if res.Status != dag.RunFailed || !strings.Contains(log.String(), "stack=") {
		t.Errorf("run %s, log:\n%s", res.Status, log.String())
	}

	// Outputs are evaluated once the run succeeded.
	d = load(t, newRecorder(), `version: 1
name: outputs
nodes:
  ok: {type: const, with: {value: {status: pass, summary: fine}}}
outputs:
  out: "${{ nodes.ok.output.summary }}"
  good: "${{ nodes.ok.output.summary }}"
`)
	d.Outputs[0].Value = broken()
	res = mustRun(t, d, RunOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if res.Status != dag.RunFailed || res.OutputErrors["out"] != "internal error in output out"+nilCall || res.Outputs["good"] != "fine" {
		t.Errorf("run %s, outputs %v, errors %q", res.Status, res.Outputs, res.OutputErrors)
	}
}

// TestRunPanicValueBounded checks that a huge panic value is cut in the node's reason, and
// kept whole in the log.
func TestRunPanicValueBounded(t *testing.T) {
	noLeaks(t)
	huge := strings.Repeat("é", 1000)
	d := load(t, newRecorder(), "version: 1\nname: huge\nnodes:\n  p: {type: probe, with: {panic: "+huge+"}}\n")
	var log bytes.Buffer
	res := mustRun(t, d, RunOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	want := "internal error in node type probe: " + strings.Repeat("é", 250) + "…"
	if n := node(t, res, "p"); n.Reason != want {
		t.Errorf("reason %q", n.Reason)
	}
	if !strings.Contains(log.String(), huge) {
		t.Error("the log lacks the whole value")
	}
}
