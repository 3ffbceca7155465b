package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/nodes"
)

var t0 = time.Date(2026, 3, 9, 10, 0, 0, 0, time.UTC)

// progressDAG is a DAG model with just what the displays read: ids and types.
func progressDAG(t *testing.T, ids ...string) *dag.DAG {
	t.Helper()
	typ, ok := nodes.Builtin().Lookup("const")
	if !ok {
		t.Fatal("no const type")
	}
	d := &dag.DAG{Name: "p"}
	for _, id := range ids {
		d.Nodes = append(d.Nodes, &dag.Node{ID: id, Type: typ})
	}
	return d
}

func finished(id string, status dag.NodeStatus, took time.Duration, reason, summary string, vs ...contract.Violation) dag.NodeResult {
	n := dag.NodeResult{ID: id, Type: "const", Status: status, Reason: reason, Summary: summary, Violations: vs}
	if took > 0 {
		n.Started, n.Ended, n.Elapsed = t0, t0.Add(took), took
	}
	return n
}

// progressRun is a run with a node of every final status.
func progressRun() *dag.RunResult {
	return &dag.RunResult{
		ID: "20260309T100000.000-0a0b0c0d", DAG: "p", Status: dag.RunFailed, Elapsed: 1234 * time.Millisecond,
		Nodes: []dag.NodeResult{
			finished("greet", dag.NodePassed, 3*time.Millisecond, "", "said hello"),
			finished("check", dag.NodeWarned, 1500*time.Millisecond, "", "disk is 91% full"),
			finished("judge", dag.NodeFailed, 2*time.Millisecond, "output breaks its contract", "",
				contract.Violation{Pointer: "/status", Message: "field 'status' must be one of: pass, warn, fail", Value: `"maybe"`},
				contract.Violation{Pointer: "", Message: "missing required field: summary"}),
			finished("publish", dag.NodeSkipped, 0, "upstream judge failed", ""),
			finished("slow", dag.NodeCanceled, 2*time.Minute+5*time.Second, "the run was canceled", ""),
		},
	}
}

func TestPlainDisplay(t *testing.T) {
	res := progressRun()
	var out bytes.Buffer
	p := &plainDisplay{w: &out, width: idWidth(progressDAG(t, "greet", "check", "judge", "publish", "slow"))}
	for _, n := range res.Nodes {
		p.Event(engine.Event{Kind: engine.NodeStarted, Node: dag.NodeResult{ID: n.ID, Status: dag.NodeRunning}})
		p.Event(engine.Event{Kind: engine.NodeFinished, Node: n})
	}
	p.finish(res)
	want := `✓ greet    passed       3ms  said hello
! check    warned      1.5s  disk is 91% full
✗ judge    failed       2ms  output breaks its contract
    /status: field 'status' must be one of: pass, warn, fail (value "maybe")
    /: missing required field: summary
- publish  skipped           upstream judge failed
⊘ slow     canceled   2m05s  the run was canceled
run 20260309T100000.000-0a0b0c0d failed in 1.2s
`
	if out.String() != want {
		t.Errorf("plain display:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestPlainDisplayOutputs(t *testing.T) {
	res := &dag.RunResult{
		ID: "r", Status: dag.RunSuccess, Elapsed: 40 * time.Millisecond,
		Outputs:      map[string]any{"greeting": "hello", "count": 3, "list": []any{"a"}},
		OutputErrors: map[string]string{"missing": "no such key: x"},
	}
	var out bytes.Buffer
	(&plainDisplay{w: &out}).finish(res)
	want := `run r success in 40ms
outputs:
  count: 3
  greeting: "hello"
  list: ["a"]
  missing: (not evaluated: no such key: x)
`
	if out.String() != want {
		t.Errorf("outputs:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestLiveDisplay(t *testing.T) {
	tests := []struct {
		name  string
		rows  int
		nodes []string
		want  []string // the frame's lines, without colour
	}{{
		name:  "a line per node",
		rows:  24,
		nodes: []string{"greet", "check", "judge"},
		want: []string{
			"✓ greet  passed       3ms  said hello",
			"⠋ check  running     1.5s",
			"· judge  pending",
		},
	}, {
		name:  "a foreach node's items, a node being retried",
		rows:  24,
		nodes: []string{"greet", "check", "each", "flaky"},
		want: []string{
			"✓ greet  passed       3ms  said hello",
			"⠋ check  running     1.5s",
			"⠋ each   running     1.5s  12/40 items",
			"⠋ flaky  running     1.5s  attempt 1 failed: timed out after 1s",
		},
	}, {
		name:  "counts and running nodes when they do not fit",
		rows:  4,
		nodes: []string{"greet", "check", "judge", "more"},
		want: []string{
			"1 passed · 1 running · 2 pending",
			"⠋ check  running     1.5s",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			l := newLive(&out, progressDAG(t, tt.nodes...), 80, tt.rows, time.Hour)
			l.Event(engine.Event{Kind: engine.NodeFinished, Node: finished("greet", dag.NodePassed, 3*time.Millisecond, "", "said hello")})
			l.Event(engine.Event{Kind: engine.NodeStarted, Node: dag.NodeResult{ID: "check", Status: dag.NodeRunning, Started: t0}})
			l.Event(engine.Event{Kind: engine.NodeProgress, Node: dag.NodeResult{ID: "each", Status: dag.NodeRunning, Started: t0, Items: 40, ItemsDone: 12}})
			l.Event(engine.Event{Kind: engine.NodeRetrying, Node: dag.NodeResult{ID: "flaky", Status: dag.NodeRunning, Started: t0,
				Attempts: 1, Reason: "attempt 1 failed: timed out after 1s"}})
			l.mu.Lock()
			l.frame = 0
			lines := l.lines(t0.Add(1500 * time.Millisecond))
			l.mu.Unlock()
			for i := range lines {
				lines[i] = stripANSI(lines[i])
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("frame:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
			l.finish(&dag.RunResult{ID: "r", Status: dag.RunSuccess, Nodes: []dag.NodeResult{
				finished("greet", dag.NodePassed, 3*time.Millisecond, "", "said hello"),
			}})
			// The last frame replaces the live one: cursor up over it, then the final lines.
			s := out.String()
			last := s[strings.LastIndex(s, "\x1b[J")+len("\x1b[J"):]
			if !strings.Contains(s, "\x1b[") || stripANSI(last) != "✓ greet  passed       3ms  said hello\nrun r success in 0µs\n" {
				t.Errorf("final frame = %q", last)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello world", 5, "hello\x1b[0m"},
		{"\x1b[32m✓\x1b[0m ok fine", 4, "\x1b[32m✓\x1b[0m ok\x1b[0m"},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{420 * time.Microsecond, "420µs"},
		{3 * time.Millisecond, "3ms"},
		{1500 * time.Millisecond, "1.5s"},
		{61 * time.Second, "1m01s"},
	}
	for _, tt := range tests {
		if got := duration(tt.d); got != tt.want {
			t.Errorf("duration(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// stripANSI removes colour and cursor sequences.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\x1b' {
			b.WriteByte(s[i])
			continue
		}
		for i++; i < len(s) && !(s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 'a' && s[i] <= 'z'); i++ {
		}
	}
	return b.String()
}

// TestLiveNoColour checks that the live display leaves colours out when asked (NO_COLOR).
func TestLiveNoColour(t *testing.T) {
	for _, on := range []bool{true, false} {
		var out bytes.Buffer
		l := newLive(&out, progressDAG(t, "greet"), 80, 24, time.Hour)
		l.colour = on
		l.Event(engine.Event{Kind: engine.NodeFinished, Node: finished("greet", dag.NodePassed, 3*time.Millisecond, "", "said hello")})
		l.mu.Lock()
		lines := l.lines(t0)
		l.mu.Unlock()
		if got := strings.Contains(lines[0], "\x1b[32m"); got != on {
			t.Errorf("colour %v: line %q", on, lines[0])
		}
		l.finish(&dag.RunResult{ID: "r", Status: dag.RunSuccess})
	}
}

// TestNodeLineAttempts checks where a node's line puts its count of attempts: after a summary,
// but before a reason, whose first line may end where more starts ("…; stderr:").
func TestNodeLineAttempts(t *testing.T) {
	tests := []struct {
		name string
		n    dag.NodeResult
		want string
	}{
		{"summary", dag.NodeResult{ID: "a", Status: dag.NodePassed, Summary: "fetched 2", Attempts: 2},
			"✓ a  passed            fetched 2 (2 attempts)"},
		{"reason", dag.NodeResult{ID: "a", Status: dag.NodeFailed, Attempts: 3,
			Reason: "exec a: exit status 1; stderr:\nTraceback (most recent call last):"},
			"✗ a  failed            after 3 attempts: exec a: exit status 1; stderr:"},
		{"one attempt", dag.NodeResult{ID: "a", Status: dag.NodeFailed, Attempts: 1, Reason: "exec a: exit status 1"},
			"✗ a  failed            exec a: exit status 1"},
		{"repaired", dag.NodeResult{ID: "a", Status: dag.NodePassed, Summary: "ok", Attempts: 2, Repaired: true},
			"✓ a  passed            ok (repaired, 2 attempts)"},
	}
	for _, tc := range tests {
		if got := nodeLine(tc.n, 1, false, "en"); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestViolationValue checks that a violation's value is labelled so that a message saying
// "got" already does not say it twice.
func TestViolationValue(t *testing.T) {
	var b bytes.Buffer
	writeNode(&b, dag.NodeResult{ID: "a", Status: dag.NodeFailed, Reason: "output breaks its contract",
		Violations: []contract.Violation{{Pointer: "/data", Message: "field 'data' must be an object, got array", Value: "[1,2]"}}}, 1, false, "en")
	want := "    /data: field 'data' must be an object, got array (value [1,2])\n"
	if _, line, _ := strings.Cut(b.String(), "\n"); line != want {
		t.Errorf("%q, want %q", line, want)
	}
}

// TestLiveUnknownWidth checks that a terminal reporting 0 columns (a pty nobody sized) gets
// whole lines, not empty ones: its width is unknown.
func TestLiveUnknownWidth(t *testing.T) {
	for _, cols := range []int{0, -1} {
		var out bytes.Buffer
		l := newLive(&out, progressDAG(t, "greet"), cols, 24, time.Hour)
		l.Event(engine.Event{Kind: engine.NodeFinished, Node: finished("greet", dag.NodePassed, 3*time.Millisecond, "", "said hello")})
		l.draw(t0)
		l.finish(&dag.RunResult{ID: "r", Status: dag.RunSuccess})
		if s := stripANSI(out.String()); !strings.Contains(s, "✓ greet  passed       3ms  said hello\n") {
			t.Errorf("%d columns: frame %q, want the node's whole line", cols, s)
		}
	}
}
