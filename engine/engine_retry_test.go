package engine

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
)

// TestRunRetry checks which failures are retried, how many times, and what the node's result
// says afterwards.
func TestRunRetry(t *testing.T) {
	tests := []struct {
		name     string
		node     string
		status   dag.NodeStatus
		attempts int
		reason   string // substring; "" means none
	}{{
		name:     "a flaky node passes on its third attempt",
		node:     `{type: probe, retry: {attempts: 3}, with: {fail_attempts: 2}}`,
		status:   dag.NodePassed,
		attempts: 3,
	}, {
		name:     "attempts are bounded",
		node:     `{type: probe, retry: {attempts: 2}, with: {fail_attempts: 5}}`,
		status:   dag.NodeFailed,
		attempts: 2,
		reason:   "flaky attempt 2",
	}, {
		name:     "an error is not retried when on leaves it out",
		node:     `{type: probe, retry: {attempts: 3, on: [timeout]}, with: {fail_attempts: 1}}`,
		status:   dag.NodeFailed,
		attempts: 1,
		reason:   "flaky attempt 1",
	}, {
		name:     "a timeout is retried",
		node:     `{type: probe, timeout: 20ms, retry: {attempts: 2, on: [timeout]}, with: {block_attempts: 1}}`,
		status:   dag.NodePassed,
		attempts: 2,
	}, {
		name:     "a broken contract is not retried by default",
		node:     `{type: probe, retry: {attempts: 3}, with: {broken_attempts: 1}}`,
		status:   dag.NodeFailed,
		attempts: 1,
		reason:   "output breaks its contract",
	}, {
		name:     "a broken contract is retried when on names it",
		node:     `{type: probe, retry: {attempts: 3, on: [contract]}, with: {broken_attempts: 1}}`,
		status:   dag.NodePassed,
		attempts: 2,
	}, {
		name:     "a node's own fail status is not retried",
		node:     `{type: probe, retry: {attempts: 3}, with: {out: {status: fail, summary: nope}}}`,
		status:   dag.NodeFailed,
		attempts: 1,
		reason:   "nope",
	}, {
		name:     "defaults.retry applies",
		node:     `{type: probe, with: {fail_attempts: 1}}`,
		status:   dag.NodePassed,
		attempts: 2,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			rec := newRecorder()
			src := "version: 1\nname: t\nnodes:\n  a: " + tt.node + "\n  b: {type: probe, needs: [a]}\n"
			if tt.name == "defaults.retry applies" {
				src = "version: 1\nname: t\ndefaults: {retry: {attempts: 2}}\nnodes:\n  a: " + tt.node + "\n"
			}
			res := mustRun(t, load(t, rec, src), RunOptions{})
			a := node(t, res, "a")
			if a.Status != tt.status || a.Attempts != tt.attempts {
				t.Errorf("a: %s after %d attempts, want %s after %d (reason %q)", a.Status, a.Attempts, tt.status, tt.attempts, a.Reason)
			}
			if got := len(rec.calls["a"]); got != tt.attempts {
				t.Errorf("the type ran %d times, want %d", got, tt.attempts)
			}
			for k, c := range rec.calls["a"] {
				if c.Attempt != k+1 || !slices.Contains(c.Env, "SEAM_ATTEMPT="+itoa(k+1)) {
					t.Errorf("call %d: Attempt %d, env %q", k, c.Attempt, c.Env)
				}
			}
			if tt.reason == "" && a.Reason != "" || !strings.Contains(a.Reason, tt.reason) {
				t.Errorf("a: reason %q, want %q", a.Reason, tt.reason)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestRunRepair checks that a node whose output breaks its contract is run again with the
// violations, and that the run says it was repaired.
func TestRunRepair(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, `version: 1
name: repair
nodes:
  fixed: {type: probe, on_invalid: {repair: 2}, with: {broken_attempts: 1}}
  hopeless: {type: probe, on_invalid: {repair: 1}, with: {broken_attempts: 5}}
  after: {type: probe, needs: [fixed]}
`)
	res := mustRun(t, d, RunOptions{})
	fixed := node(t, res, "fixed")
	if fixed.Status != dag.NodePassed || !fixed.Repaired || fixed.Attempts != 2 || len(fixed.Violations) != 0 {
		t.Errorf("fixed: %+v", fixed)
	}
	calls := rec.calls["fixed"]
	if len(calls) != 2 || len(calls[0].Violations) != 0 {
		t.Fatalf("fixed ran %d times, first with violations %v", len(calls), calls[0].Violations)
	}
	vs := calls[1].Violations
	if len(vs) != 1 || vs[0].Keyword != "/required" || !strings.Contains(vs[0].Message, "summary") {
		t.Errorf("second attempt's violations = %+v", vs)
	}
	var env string
	for _, e := range calls[1].Env {
		if v, ok := strings.CutPrefix(e, "SEAM_VIOLATIONS="); ok {
			env = v
		}
	}
	var fromEnv []map[string]string
	if err := json.Unmarshal([]byte(env), &fromEnv); err != nil || len(fromEnv) != 1 || fromEnv[0]["keyword"] != "/required" {
		t.Errorf("SEAM_VIOLATIONS = %q (%v)", env, err)
	}
	hopeless := node(t, res, "hopeless")
	if hopeless.Status != dag.NodeFailed || hopeless.Repaired || hopeless.Attempts != 2 ||
		hopeless.Reason != "output breaks its contract" || len(hopeless.Violations) != 1 {
		t.Errorf("hopeless: %+v", hopeless)
	}
	if node(t, res, "after").Status != dag.NodePassed {
		t.Errorf("after did not run on the repaired output")
	}
}

func TestBackoff(t *testing.T) {
	p := dag.Retry{Backoff: 100 * time.Millisecond, Factor: 2, MaxBackoff: 300 * time.Millisecond}
	tests := []struct {
		n      int
		lo, hi time.Duration
	}{
		{1, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 100 * time.Millisecond, 200 * time.Millisecond},
		{3, 150 * time.Millisecond, 300 * time.Millisecond}, // 400 ms capped
		{10, 150 * time.Millisecond, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		for range 100 {
			if d := backoff(p, tt.n, rand.Float64()); d < tt.lo || d >= tt.hi {
				t.Fatalf("backoff(%d) = %s, want in [%s, %s)", tt.n, d, tt.lo, tt.hi)
			}
		}
	}
	if d := backoff(dag.Retry{Factor: 2}, 3, 0.5); d != 0 {
		t.Errorf("no backoff configured: %s", d)
	}
}

// TestRunRetryWaits checks that a retry waits for its backoff without holding up other
// nodes, and that cancelling the run during a backoff cancels the node at once.
func TestRunRetryWaits(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, `version: 1
name: wait
concurrency: 1
nodes:
  slow: {type: probe, retry: {attempts: 2, backoff: 60ms}, with: {fail_attempts: 1}}
  other: {type: probe}
`)
	res := mustRun(t, d, RunOptions{})
	slow := node(t, res, "slow")
	// A lower bound only: 30ms is the floor of a 60ms backoff with its jitter (backoff waits
	// between d/2 and d), and a timer never fires early, so load cannot make this fail.
	if slow.Status != dag.NodePassed || slow.Elapsed < 30*time.Millisecond {
		t.Errorf("slow: %s in %s, want passed after at least 30ms", slow.Status, slow.Elapsed)
	}
	// With one worker, other ran while slow waited.
	if rec.started["other"] > rec.seq || node(t, res, "other").Ended.After(slow.Ended) == true {
		t.Errorf("other did not run during slow's backoff")
	}

	ctx, cancel := context.WithCancel(context.Background())
	obs := &cancelOnRetry{cancel: cancel}
	d = load(t, newRecorder(), `version: 1
name: cancel
nodes:
  a: {type: probe, retry: {attempts: 2, backoff: 1h}, with: {fail_attempts: 1}}
`)
	start := time.Now()
	res, err := Run(ctx, d, RunOptions{Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	// A liveness bound: the backoff is an hour; 10s only tells "canceled at once" from "waited".
	if res.Status != dag.RunCanceled || node(t, res, "a").Status != dag.NodeCanceled || time.Since(start) > 10*time.Second {
		t.Errorf("run %s, a %s after %s", res.Status, node(t, res, "a").Status, time.Since(start))
	}
	if !obs.retried {
		t.Errorf("no node_retrying event")
	}
}

type cancelOnRetry struct {
	cancel  context.CancelFunc
	retried bool
}

func (c *cancelOnRetry) Event(ev Event) {
	if ev.Kind == NodeRetrying {
		c.retried = true
		if !strings.Contains(ev.Node.Reason, "attempt 1 failed: flaky attempt 1") {
			panic("retry reason: " + ev.Node.Reason)
		}
		c.cancel()
	}
}

// TestRunForeach checks items in input order, item and index in scope, the worst status,
// per-item failures keeping the other results, the concurrency bound and max_items.
func TestRunForeach(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, `version: 1
name: foreach
params:
  type: object
  properties:
    list: {type: array}
nodes:
  each:
    type: probe
    foreach: "${{ params.list }}"
    concurrency: 2
    with:
      sleep: 5ms
      error: "${{ item.e }}"
      out: {status: "${{ item.s }}", summary: "item ${{ index }}", data: {n: "${{ item.n }}"}}
  sum:
    type: probe
    input: "${{ nodes.each.output.data.items }}"
`)
	list := []any{
		map[string]any{"n": 1, "e": "", "s": "pass"},
		map[string]any{"n": 2, "e": "", "s": "warn"},
		map[string]any{"n": 3, "e": "", "s": "pass"},
		map[string]any{"n": 4, "e": "", "s": "pass"},
	}
	res := mustRun(t, d, RunOptions{Params: map[string]any{"list": list}})
	each := node(t, res, "each")
	if each.Status != dag.NodeWarned || each.Summary != "4 items: 3 passed, 1 warned" || each.Attempts != 1 {
		t.Errorf("each: %s %q after %d attempts", each.Status, each.Summary, each.Attempts)
	}
	if rec.maxRunning > 2 {
		t.Errorf("%d items ran at once, want at most 2", rec.maxRunning)
	}
	items, _ := rec.inputs["sum"].([]any)
	if len(items) != 4 {
		t.Fatalf("sum's input = %v", rec.inputs["sum"])
	}
	for k, it := range items {
		o := it.(map[string]any)
		if o["summary"] != "item "+itoa(k) || o["data"].(map[string]any)["n"] != json.Number(itoa(k+1)) && o["data"].(map[string]any)["n"] != int64(k+1) {
			t.Errorf("items[%d] = %v", k, o)
		}
	}

	// One item failing: the others' results stay, the node fails with the item's reason.
	list[1] = map[string]any{"n": 2, "e": "boom", "s": "pass"}
	res = mustRun(t, d, RunOptions{Params: map[string]any{"list": list}})
	each = node(t, res, "each")
	if each.Status != dag.NodeFailed || each.Reason != "item 1 failed after 1 attempt: boom" || each.Summary != "4 items: 3 passed, 1 failed" {
		t.Errorf("each: %s, reason %q, summary %q", each.Status, each.Reason, each.Summary)
	}
	got := each.Output.(map[string]any)["data"].(map[string]any)["items"].([]any)
	if got[1].(map[string]any)["summary"] != "boom" || got[2].(map[string]any)["summary"] != "item 2" {
		t.Errorf("items = %v", got)
	}
	if s := node(t, res, "sum"); s.Status != dag.NodeSkipped {
		t.Errorf("sum: %s", s.Status)
	}

	for _, tt := range []struct {
		name, foreach, reason string
		status                dag.NodeStatus
		summary               string
	}{
		{"empty list", `[]`, "", dag.NodePassed, "0 items"},
		{"not a list", `"${{ params.obj }}"`, "foreach resolved to an object, not a list", dag.NodeFailed, ""},
		{"past max_items", `[1, 2, 3]`, "foreach has 3 items, more than max_items (2); raise max_items or split the list", dag.NodeFailed, ""},
		{"a bad item", `[1, "x"]`, "item 1: with could not be resolved", dag.NodeFailed, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := load(t, newRecorder(), `version: 1
name: foreach
nodes:
  each: {type: probe, foreach: `+tt.foreach+`, max_items: 2, with: {sleep: "${{ string(item + 1) + 'ms' }}"}}
`)
			res := mustRun(t, d, RunOptions{Params: map[string]any{"obj": map[string]any{}}})
			each := node(t, res, "each")
			if each.Status != tt.status || !strings.Contains(each.Reason, tt.reason) || each.Summary != tt.summary {
				t.Errorf("each: %s, reason %q, summary %q", each.Status, each.Reason, each.Summary)
			}
		})
	}
}

// TestRunForeachRetriesItems checks that items are retried one by one.
func TestRunForeachRetriesItems(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, `version: 1
name: foreach
nodes:
  each: {type: probe, foreach: [0, 2], retry: {attempts: 3}, with: {fail_attempts: "${{ item }}"}}
`)
	res := mustRun(t, d, RunOptions{})
	if each := node(t, res, "each"); each.Status != dag.NodePassed || each.Attempts != 3 {
		t.Errorf("each: %s after %d attempts (%s)", each.Status, each.Attempts, each.Reason)
	}
}

// TestRunForeachLarge runs 10,000 items.
func TestRunForeachLarge(t *testing.T) {
	const n = 10_000
	list := make([]any, n)
	for i := range list {
		list[i] = i
	}
	d := load(t, newRecorder(), `version: 1
name: large
params: {type: object}
nodes:
  each: {type: const, foreach: "${{ params.list }}", max_items: 10000, with: {value: {status: pass, summary: "${{ 'n' + string(item) }}"}}}
`)
	obs := &progress{}
	res := mustRun(t, d, RunOptions{Params: map[string]any{"list": list}, Observer: obs})
	each := node(t, res, "each")
	items := each.Output.(map[string]any)["data"].(map[string]any)["items"].([]any)
	if each.Status != dag.NodePassed || len(items) != n || items[n-1].(map[string]any)["summary"] != "n9999" {
		t.Errorf("each: %s, %d items", each.Status, len(items))
	}
	// Progress after every item but the last, which finishes the node.
	if obs.events != n-1 || obs.last != n-1 || each.Items != n || each.ItemsDone != n {
		t.Errorf("%d progress events, the last at %d; items %d/%d", obs.events, obs.last, each.ItemsDone, each.Items)
	}
}

type progress struct{ events, last int }

func (p *progress) Event(ev Event) {
	if ev.Kind == NodeProgress {
		p.events++
		p.last = ev.Node.ItemsDone
	}
}

// memRecorder keeps what the engine records, checking as it goes that no output is seen
// downstream before it is recorded.
type memRecorder struct {
	rec     *recorder
	d       *dag.DAG
	begun   []dag.RunRecord
	records []dag.AttemptRecord
	batches int
	fail    error
	done    *dag.RunResult
}

func (m *memRecorder) BeginRun(_ context.Context, r dag.RunRecord) error {
	m.begun = append(m.begun, r)
	return nil
}

func (m *memRecorder) RecordAttempts(_ context.Context, batch []dag.AttemptRecord) error {
	m.batches++
	if m.fail != nil {
		return m.fail
	}
	m.rec.mu.Lock()
	defer m.rec.mu.Unlock()
	for _, a := range batch {
		// Pure and reused outputs are handed on before their commit, by design: they are
		// computed again, or stored already.
		_, pure := m.d.ByID[a.Node].Type.(nodes.Pure)
		for _, n := range m.d.Nodes {
			if _, started := m.rec.started[n.ID]; started && slices.Contains(n.Deps, a.Node) && a.Final && !pure && !a.Reused {
				panic(n.ID + " started before " + a.Node + "'s output was recorded")
			}
		}
		m.records = append(m.records, a)
	}
	return nil
}

func (m *memRecorder) FinishRun(_ context.Context, res *dag.RunResult) error {
	m.done = res
	return nil
}

// TestRunRecorder checks what reaches the recorder, and when.
func TestRunRecorder(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, `version: 1
name: recorded
nodes:
  flaky: {type: probe, retry: {attempts: 2}, with: {fail_attempts: 1}}
  each: {type: probe, foreach: [1, 2], needs: [flaky]}
  bad: {type: probe, input: {x: 1}, contract: {input: {type: object, required: [y]}}}
  last: {type: probe, needs: [each]}
`)
	m := &memRecorder{rec: rec, d: d}
	res := mustRun(t, d, RunOptions{Recorder: m, RunID: "r1"})
	if res.Status != dag.RunFailed || m.done != res || len(m.begun) != 1 || m.begun[0].FileHash != d.Hash || m.begun[0].ID != "r1" {
		t.Fatalf("run %s, begun %+v", res.Status, m.begun)
	}
	var got []string
	for _, a := range m.records {
		got = append(got, strings.Join([]string{a.Node, itoa(a.Attempt), itoa(a.Item), string(a.Status), map[bool]string{true: "final"}[a.Final]}, " "))
		if a.Key == "" {
			t.Errorf("%s has no key", a.Node)
		}
	}
	want := map[string]bool{
		"flaky 1 -1 failed ": true, "flaky 2 -1 passed final": true,
		"each 1 0 passed ": true, "each 1 1 passed ": true, "each 1 -1 passed final": true,
		"bad 1 -1 failed final": true, "last 1 -1 passed final": true,
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("unexpected record %q", g)
		}
		delete(want, g)
	}
	for w := range want {
		t.Errorf("missing record %q (got %q)", w, got)
	}
	for _, a := range m.records {
		if a.Node == "bad" && (len(a.Violations) != 1 || a.Reason != "input breaks its contract") {
			t.Errorf("bad's record: %+v", a)
		}
	}

	// A recorder that fails stops the run: nothing is handed on unrecorded.
	rec = newRecorder()
	d = load(t, rec, `version: 1
name: recorded
nodes:
  a: {type: probe}
  b: {type: probe, needs: [a]}
`)
	m = &memRecorder{rec: rec, d: d, fail: errors.New("disk full")}
	res = mustRun(t, d, RunOptions{Recorder: m})
	if res.Status != dag.RunFailed || res.Error != "run store: disk full" {
		t.Errorf("run %s, error %q", res.Status, res.Error)
	}
	if a := node(t, res, "a"); a.Status != dag.NodeFailed || a.Reason != "the attempt could not be recorded: disk full" {
		t.Errorf("a: %s %q", a.Status, a.Reason)
	}
	if _, ran := rec.started["b"]; ran {
		t.Errorf("b ran on an unrecorded output")
	}
}

// TestRunReuse checks that a resume reuses outputs whose node and inputs are unchanged and
// re-runs the rest.
func TestRunReuse(t *testing.T) {
	noLeaks(t)
	src := `version: 1
name: resume
params:
  type: object
  properties:
    x: {type: string}
nodes:
  a: {type: probe}
  b: {type: probe, with: {out: {status: pass, summary: "${{ params.x }}"}}}
  c: {type: probe, needs: [a]}
  d: {type: probe, needs: [b]}
  e: {type: probe, needs: [a], with: {error: boom}}
`
	rec := newRecorder()
	d := load(t, rec, src)
	m := &memRecorder{rec: rec, d: d}
	first := mustRun(t, d, RunOptions{Recorder: m, Params: map[string]any{"x": "one"}})
	if first.Status != dag.RunFailed {
		t.Fatalf("first run %s", first.Status)
	}
	reuse := map[string]dag.Reused{}
	for _, a := range m.records {
		if a.Final && (a.Status == dag.NodePassed || a.Status == dag.NodeWarned) {
			reuse[a.Node] = dag.Reused{Key: a.Key, Output: a.Output}
		}
	}
	// b's param changed: b and d re-run; a and c are reused; e failed, so it runs again.
	rec = newRecorder()
	d = load(t, rec, src)
	m = &memRecorder{rec: rec, d: d}
	second := mustRun(t, d, RunOptions{Recorder: m, Reuse: reuse, Params: map[string]any{"x": "two"}})
	for id, reused := range map[string]bool{"a": true, "b": false, "c": true, "d": false, "e": false} {
		n := node(t, second, id)
		_, ran := rec.started[id]
		if n.Reused != reused || ran == reused {
			t.Errorf("%s: reused %v, ran %v; want reused %v", id, n.Reused, ran, reused)
		}
	}
	if node(t, second, "c").Output == nil || node(t, second, "b").Summary != "two" || !m.begun[0].Resumed {
		t.Errorf("c output %v, b summary %q", node(t, second, "c").Output, node(t, second, "b").Summary)
	}
}

// TestRunTimeoutWholeRun checks the DAG's timeout: running nodes are stopped, the rest
// canceled, and the run fails saying why.
func TestRunTimeoutWholeRun(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, `version: 1
name: slow
timeout: 50ms
nodes:
  a: {type: probe, with: {block: true}}
  b: {type: probe, needs: [a]}
`)
	res := mustRun(t, d, RunOptions{})
	if res.Status != dag.RunFailed || res.Error != "the run timed out after 50ms" {
		t.Errorf("run %s, error %q", res.Status, res.Error)
	}
	for _, id := range []string{"a", "b"} {
		if n := node(t, res, id); n.Status != dag.NodeCanceled || n.Reason != "the run timed out after 50ms" {
			t.Errorf("%s: %s %q", id, n.Status, n.Reason)
		}
	}
}

// TestRunRecorderPure checks that pure nodes hand their outputs on without waiting for a
// commit, and that their attempts are recorded all the same.
func TestRunRecorderPure(t *testing.T) {
	noLeaks(t)
	tests := []struct {
		name    string
		nodes   string
		batches int
	}{
		{"const chain, then a probe", `
  a: {type: const, with: {value: {status: pass, summary: a}}}
  b: {type: const, needs: [a], with: {value: {status: pass, summary: b}}}
  c: {type: transform, needs: [b], with: {program: '{status: "pass", summary: "c"}'}}
  d: {type: probe, needs: [c]}`, 1},
		{"probe chain", `
  a: {type: probe}
  b: {type: probe, needs: [a]}
  c: {type: probe, needs: [b]}`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecorder()
			d := load(t, rec, "version: 1\nname: pure\nnodes:"+tt.nodes+"\n")
			m := &memRecorder{rec: rec, d: d}
			res := mustRun(t, d, RunOptions{Recorder: m})
			if res.Status != dag.RunSuccess || m.batches != tt.batches || len(m.records) != len(d.Nodes) {
				t.Errorf("run %s: %d batches, %d records; want %d batches, %d records",
					res.Status, m.batches, len(m.records), tt.batches, len(d.Nodes))
			}
		})
	}
}

// TestRunReuseItems checks that a resume of a foreach node that failed runs only the items
// that did not pass (within the node's concurrency), hands on the stored outputs of the others
// in their places, and runs an item whose stored key no longer matches.
func TestRunReuseItems(t *testing.T) {
	noLeaks(t)
	src := `version: 1
name: resume
params:
  type: object
  properties:
    list: {type: array}
nodes:
  each:
    type: probe
    foreach: "${{ params.list }}"
    concurrency: 2
    with:
      error: "${{ item.e }}"
      out: {status: pass, summary: "item ${{ index }}"}
`
	list := []any{
		map[string]any{"e": ""}, map[string]any{"e": "boom"}, map[string]any{"e": ""},
		map[string]any{"e": "boom"}, map[string]any{"e": ""},
	}
	params := map[string]any{"list": list}
	rec := newRecorder()
	d := load(t, rec, src)
	m := &memRecorder{rec: rec, d: d}
	first := mustRun(t, d, RunOptions{Recorder: m, Params: params})
	if n := node(t, first, "each"); n.Status != dag.NodeFailed || n.Reason != "item 1 failed after 1 attempt: boom" {
		t.Fatalf("first run: each %s, %q", n.Status, n.Reason)
	}
	prev := dag.Reused{Items: map[int]dag.Reused{}}
	for _, a := range m.records {
		if a.Node == "each" && a.Item >= 0 && a.Status == dag.NodePassed {
			prev.Items[a.Item] = dag.Reused{Key: a.Key, Output: a.Output}
		}
	}
	if len(prev.Items) != 3 {
		t.Fatalf("items passed: %v", prev.Items)
	}
	stale := prev.Items[4]
	stale.Key = "another"
	prev.Items[4] = stale

	rec = newRecorder()
	d = load(t, rec, src)
	m = &memRecorder{rec: rec, d: d}
	second := mustRun(t, d, RunOptions{Recorder: m, Reuse: map[string]dag.Reused{"each": prev}, Params: params})
	var ran []string
	for _, c := range rec.calls["each"] {
		ran = append(ran, c.With["out"].(map[string]any)["summary"].(string))
	}
	slices.Sort(ran)
	if want := []string{"item 1", "item 3", "item 4"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	if rec.maxRunning > 2 {
		t.Errorf("%d items ran at once, want at most 2", rec.maxRunning)
	}
	each := node(t, second, "each")
	items := each.Output.(map[string]any)["data"].(map[string]any)["items"].([]any)
	for k, want := range []string{"item 0", "boom", "item 2", "boom", "item 4"} {
		if got := items[k].(map[string]any)["summary"]; got != want {
			t.Errorf("items[%d] summary %v, want %q", k, got, want)
		}
	}
	reused := 0
	for _, a := range m.records {
		if a.Node == "each" && a.Reused {
			reused++
			if a.Item != 0 && a.Item != 2 || a.Attempt != 1 || a.Status != dag.NodePassed {
				t.Errorf("reused record %+v", a)
			}
		}
	}
	if reused != 2 || each.ItemsDone != 5 || each.Reason != "item 1 failed after 1 attempt: boom" {
		t.Errorf("%d items reused, %d done, reason %q", reused, each.ItemsDone, each.Reason)
	}

	// Every item reused (the node itself did not pass, e.g. its run was canceled): nothing runs.
	key := prev.Items[0].Key
	for k := range list {
		prev.Items[k] = dag.Reused{Key: key, Output: []byte(`{"status":"pass","summary":"stored ` + itoa(k) + `"}`)}
	}
	rec = newRecorder()
	d = load(t, rec, src)
	third := mustRun(t, d, RunOptions{Recorder: &memRecorder{rec: rec, d: d}, Reuse: map[string]dag.Reused{"each": prev}, Params: params})
	if n := node(t, third, "each"); n.Status != dag.NodePassed || n.Summary != "5 items: 5 passed" || len(rec.calls["each"]) != 0 {
		t.Errorf("all reused: each %s %q, %d items ran", n.Status, n.Summary, len(rec.calls["each"]))
	}
}
