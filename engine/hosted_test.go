package engine

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
)

// TestAttempt checks one attempt of a hosted run where it runs: the node it names, the env
// placeholders replaced by the worker's values and masked in what it returns, and how it
// ended.
func TestAttempt(t *testing.T) {
	const token = "s3cret-token"
	rec := newRecorder()
	d := load(t, rec, `version: 1
name: t
env: [SEAM_TEST_TOKEN]
nodes:
  a: {type: probe}
  b: {type: probe, contract: {output: {type: object, required: [data]}}}
`)
	placeholder := EnvValue("SEAM_TEST_TOKEN")
	with := func(v map[string]any) json.RawMessage { b, _ := json.Marshal(v); return b }
	set := func(name string) string {
		if name == "SEAM_TEST_TOKEN" {
			return token
		}
		return ""
	}
	unset := func(string) string { return "" }
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	big := `{"data":"` + strings.Repeat("x", 1000) + `","status":"pass","summary":"big"}` // keys in the order they encode
	stub := string(RefStub([]byte(big), "h1"))
	stored := func(_ context.Context, hash string) ([]byte, error) {
		switch hash {
		case "h1":
			return []byte(big), nil
		case "broken":
			return []byte(`{"status":`), nil
		}
		return nil, errors.New("output " + hash + ": not found")
	}
	tests := []struct {
		name   string
		ctx    context.Context
		req    AttemptRequest
		getenv func(string) string
		fetch  Fetch
		check  func(t *testing.T, o AttemptOutcome)
	}{{
		name: "the placeholder is the value on the node, masked in its output",
		req:  req(AttemptRequest{ID: 7, Node: "a", Index: 0, Item: -1, Attempt: 1, With: with(map[string]any{"out": map[string]any{"status": "pass", "summary": "got " + placeholder}}), Input: []byte(`{"t": "` + placeholder + `"}`)}),
		check: func(t *testing.T, o AttemptOutcome) {
			if o.ID != 7 || !o.Valid || string(o.Output) != `{"status":"pass","summary":"got ***"}` || o.Err != "" {
				t.Errorf("outcome %+v, output %s", o, o.Output)
			}
			c := rec.calls["a"][len(rec.calls["a"])-1]
			if c.With["out"].(map[string]any)["summary"] != "got "+token || c.Input.(map[string]any)["t"] != token {
				t.Errorf("the node got with %v, input %v", c.With, c.Input)
			}
		},
	}, {
		name: "an error is masked",
		req:  req(AttemptRequest{Node: "a", Index: 0, Item: -1, Attempt: 1, With: with(map[string]any{"error": "refused " + placeholder})}),
		check: func(t *testing.T, o AttemptOutcome) {
			if o.Valid || o.Err != "refused ***" || o.Reason != "refused ***" {
				t.Errorf("err %q, reason %q", o.Err, o.Reason)
			}
		},
	}, {
		name: "an output breaking the node's contract",
		req:  req(AttemptRequest{Node: "b", Index: 1, Item: -1, Attempt: 1, With: []byte(`{}`)}),
		check: func(t *testing.T, o AttemptOutcome) {
			if o.Valid || o.Reason != "" || len(o.Violations) != 1 || o.Violations[0].Pointer != "/data" {
				t.Errorf("valid %t, reason %q, violations %+v", o.Valid, o.Reason, o.Violations)
			}
		},
	}, {
		name: "the node's timeout",
		req:  req(AttemptRequest{Node: "a", Index: 0, Item: -1, Attempt: 1, With: with(map[string]any{"block": true}), Timeout: 20 * time.Millisecond}),
		check: func(t *testing.T, o AttemptOutcome) {
			if !o.TimedOut || o.Reason != "timed out after 20ms" {
				t.Errorf("timed out %t, reason %q", o.TimedOut, o.Reason)
			}
		},
	}, {
		name: "a canceled attempt",
		ctx:  canceled,
		req:  req(AttemptRequest{Node: "a", Index: 0, Item: -1, Attempt: 1, With: with(map[string]any{"block": true})}),
		check: func(t *testing.T, o AttemptOutcome) {
			if !o.Canceled || o.Valid {
				t.Errorf("canceled %t, valid %t", o.Canceled, o.Valid)
			}
		},
	}, {
		name:  "an index past the nodes",
		req:   req(AttemptRequest{ID: 3, Node: "a", Index: 2, Item: -1, With: []byte(`{}`)}),
		check: failed(3, "no node a in DAG t"),
	}, {
		name:  "a node that is not at its index",
		req:   req(AttemptRequest{Node: "b", Index: 0, Item: -1, With: []byte(`{}`)}),
		check: failed(0, "no node b in DAG t"),
	}, {
		name:  "in Japanese",
		req:   req(AttemptRequest{Node: "c", Index: -1, Item: -1, With: []byte(`{}`), Lang: i18n.Japanese}),
		check: failed(0, "DAG t にノード c はありません"),
	}, {
		name:   "a variable the worker does not have",
		req:    req(AttemptRequest{Node: "a", Index: 0, Item: -1, With: []byte(`{}`)}),
		getenv: unset,
		check:  failed(0, "environment variable SEAM_TEST_TOKEN (listed at test.yaml:3:7) is not set; the DAG reads it through env"),
	}, {
		name:  "with that is not JSON",
		req:   req(AttemptRequest{Node: "a", Index: 0, Item: -1, With: []byte(`{`)}),
		check: failed(0, "with: "),
	}, {
		name:  "outputs by reference, in with and input, are read whole",
		req:   req(AttemptRequest{Node: "a", Index: 0, Item: -1, Attempt: 1, With: []byte(`{"x": [` + stub + `]}`), Input: []byte(stub)}),
		fetch: stored,
		check: func(t *testing.T, o AttemptOutcome) {
			c := rec.calls["a"][len(rec.calls["a"])-1]
			if jsonText(c.With["x"]) != "["+big+"]" || jsonText(c.Input) != big {
				t.Errorf("the node got with %.80s, input %.80s", jsonText(c.With), jsonText(c.Input))
			}
		},
	}, {
		name:  "an output by reference without a store",
		req:   req(AttemptRequest{Node: "a", Index: 0, Item: -1, With: []byte(`{}`), Input: []byte(stub)}),
		check: failed(0, "a gets output h1 by reference, and this worker has no run store to read it from"),
	}, {
		name:  "an output by reference the store does not have",
		req:   req(AttemptRequest{Node: "a", Index: 0, Item: -1, With: []byte(`{}`), Input: []byte(`{"$seam_output": "h2"}`)}),
		fetch: stored,
		check: failed(0, "a gets output h2 by reference, which could not be read: output h2: not found"),
	}, {
		name:  "an output by reference the store holds broken",
		req:   req(AttemptRequest{Node: "a", Index: 0, Item: -1, With: []byte(`{}`), Input: []byte(`{"$seam_output": "broken"}`)}),
		fetch: stored,
		check: failed(0, "a gets output broken by reference, which is not JSON: "),
	}, {
		name: "outputs by reference over the limit together",
		req: func() AttemptRequest {
			r := req(AttemptRequest{Node: "a", Index: 0, Item: -1, With: []byte(`{}`), Input: []byte("[" + strings.Repeat(stub+",", 3) + stub + "]")})
			r.OutputLimit = 1000 // 4000 bytes in all: four outputs of 1045 are over
			return r
		}(),
		fetch: stored,
		check: failed(0, "a gets outputs by reference over 4000 bytes in all (docs/limits.md)"),
	}, {
		name:  "input that is not JSON",
		req:   req(AttemptRequest{Node: "a", Index: 0, Item: -1, With: []byte(`{}`), Input: []byte(`nul`)}),
		check: failed(0, "input: "),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, getenv := tt.ctx, tt.getenv
			if ctx == nil {
				ctx = context.Background()
			}
			if getenv == nil {
				getenv = set
			}
			tt.check(t, Attempt(ctx, d, tt.req, getenv, tt.fetch, nil))
		})
	}
}

// req is r as a hosted run sends it: with the default output limit, and an input.
func req(r AttemptRequest) AttemptRequest {
	r.OutputLimit = nodes.DefaultOutputLimit
	if r.Input == nil {
		r.Input = []byte(`null`)
	}
	return r
}

// failed checks an attempt that failed before its node ran, saying why.
func failed(id int, reason string) func(*testing.T, AttemptOutcome) {
	return func(t *testing.T, o AttemptOutcome) {
		t.Helper()
		if o.ID != id || !strings.HasPrefix(o.Reason, reason) || o.Err != o.Reason || o.Output != nil || o.Valid {
			t.Errorf("outcome %+v, want id %d failed with %q", o, id, reason)
		}
	}
}

func TestRunHostedNeedsID(t *testing.T) {
	d := load(t, newRecorder(), "version: 1\nname: t\nnodes:\n  a: {type: probe}\n")
	if _, err := RunHosted(context.Background(), d, RunOptions{}, nil); err == nil || err.Error() != "run t: a hosted run needs its id" {
		t.Errorf("err = %v", err)
	}
}

// stackHost is a Host that runs each attempt at once where it is started and hands the
// outcomes back last first, on a clock of its own that moves only to fire a timer: a run on it
// must mean what it means on Run whatever order attempts end in.
type stackHost struct {
	t       *testing.T
	d       *dag.DAG
	now     time.Time
	events  []HostEvent // a stack
	timers  map[int]time.Time
	started []AttemptRequest
	after   map[int]time.Duration // the delays asked for, by timer id
	stops   int
	cancel  bool // the next Wait says the run is canceled
	// splitAfter, when not 0, makes Split say yes once that many attempts have started.
	splitAfter int
}

func newStackHost(t *testing.T, d *dag.DAG) *stackHost {
	return &stackHost{t: t, d: d, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), timers: map[int]time.Time{}, after: map[int]time.Duration{}}
}

func (h *stackHost) Now() time.Time  { return h.now }
func (h *stackHost) Jitter() float64 { return 0.5 }

func (h *stackHost) Start(req AttemptRequest) {
	h.started = append(h.started, req)
	o := Attempt(context.Background(), h.d, req, func(string) string { return "" }, nil, nil)
	o.Started, o.Ended = h.now, h.now
	h.events = append(h.events, HostEvent{Outcome: &o})
}

func (h *stackHost) After(id int, d time.Duration) {
	h.timers[id] = h.now.Add(d)
	h.after[id] = d
}

func (h *stackHost) Wait() HostEvent {
	if h.cancel {
		h.cancel = false
		return HostEvent{Canceled: true}
	}
	if n := len(h.events); n > 0 {
		ev := h.events[n-1]
		h.events = h.events[:n-1]
		return ev
	}
	first, at := 0, time.Time{}
	for id, t := range h.timers {
		if at.IsZero() || t.Before(at) || t.Equal(at) && id < first {
			first, at = id, t
		}
	}
	if at.IsZero() {
		h.t.Fatal("the run waits for nothing")
	}
	delete(h.timers, first)
	h.now = at
	return HostEvent{Timer: first}
}

func (h *stackHost) Split() bool { return h.splitAfter > 0 && len(h.started) >= h.splitAfter }

func (h *stackHost) Stop() {
	h.stops++
	clear(h.timers)
}

// TestRunHostedOrder checks a hosted run whose attempts end last first: foreach items keep
// their input order, retries wait on the host's timers for the backoff its jitter gives, and
// the run's times are the host's clock.
func TestRunHostedOrder(t *testing.T) {
	src := `version: 1
name: hosted
timeout: 1h
nodes:
  each: {type: probe, foreach: [0, 1, 2, 3], concurrency: 4, with: {out: {status: pass, summary: "item ${{ item }}"}}}
  flaky: {type: probe, retry: {attempts: 3, backoff: 20ms, factor: 2}, with: {fail_attempts: 2}}
  sum: {type: probe, input: "${{ nodes.each.output.data.items }}"}
`
	want := mustRun(t, load(t, newRecorder(), src), RunOptions{})
	d := load(t, newRecorder(), src)
	h := newStackHost(t, d)
	start := h.now
	got, err := RunHosted(context.Background(), d, RunOptions{RunID: "r1"}, h)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != want.Status || jsonText(got.Outputs) != jsonText(want.Outputs) {
		t.Errorf("run %s, embedded %s", got.Status, want.Status)
	}
	for i, n := range got.Nodes {
		w := want.Nodes[i]
		if n.Status != w.Status || n.Attempts != w.Attempts || jsonText(n.Output) != jsonText(w.Output) {
			t.Errorf("%s: %s after %d, output %s; embedded %s after %d, output %s", n.ID, n.Status, n.Attempts, jsonText(n.Output), w.Status, w.Attempts, jsonText(w.Output))
		}
	}
	if !got.Started.Equal(start) {
		t.Errorf("the run started at %s, the host's clock said %s", got.Started, start)
	}
	// Two backoffs of flaky, 1s and 2s with jitter 0.5, and the run's timeout.
	p := d.ByID["flaky"].Retry
	wantAfter := []time.Duration{backoff(p, 1, 0.5), backoff(p, 2, 0.5)}
	var after []time.Duration
	for id, dur := range h.after {
		if id == timeoutTimer {
			if dur != time.Hour {
				t.Errorf("the run's timeout timer: %s", dur)
			}
			continue
		}
		after = append(after, dur)
	}
	slices.Sort(after)
	if !slices.Equal(after, wantAfter) {
		t.Errorf("backoffs %v, want %v", after, wantAfter)
	}
	if !got.Ended.Equal(start.Add(wantAfter[0] + wantAfter[1])) {
		t.Errorf("the run ended at %s, want the host's clock after both backoffs", got.Ended)
	}
	if n := len(h.started); n != 4+3+1 {
		t.Errorf("%d attempts went to the host, want 8", n)
	}
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestRunHostedCancel checks a hosted run canceled while an attempt is out: the host is
// stopped once, the attempt's outcome is still taken, and what had not started is canceled.
func TestRunHostedCancel(t *testing.T) {
	d := load(t, newRecorder(), `version: 1
name: hosted
nodes:
  a: {type: probe}
  b: {type: probe, needs: [a], retry: {attempts: 2}}
`)
	h := newStackHost(t, d)
	h.cancel = true
	res, err := RunHosted(context.Background(), d, RunOptions{RunID: "r1"}, h)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != dag.RunCanceled || h.stops != 1 || len(h.started) != 1 {
		t.Errorf("run %s, host stopped %d times, %d attempts started", res.Status, h.stops, len(h.started))
	}
	if a, b := res.Nodes[0], res.Nodes[1]; a.Status != dag.NodePassed || b.Status != dag.NodeCanceled {
		t.Errorf("a %s, b %s", a.Status, b.Status)
	}
}

// TestRefStub: a stub holds the hash, and the output's status and summary when it has them,
// a long summary cut so that the stub stays small.
func TestRefStub(t *testing.T) {
	long := strings.Repeat("é", MaxStubSummary) // two bytes each: cut on a boundary
	tests := []struct{ output, want string }{
		{`{"status":"warn","summary":"s","data":{"n":1}}`, `{"$seam_output":"h","status":"warn","summary":"s"}`},
		{`{"data":[1,2]}`, `{"$seam_output":"h"}`},
		{`[1,2]`, `{"$seam_output":"h"}`},
		{`not json`, `{"$seam_output":"h"}`},
		{`{"status":"pass","summary":"` + long + `"}`, `{"$seam_output":"h","status":"pass","summary":"` + long[:MaxStubSummary] + `…"}`},
	}
	for _, tt := range tests {
		if got := string(RefStub([]byte(tt.output), "h")); got != tt.want {
			t.Errorf("RefStub(%.40s) = %.80s, want %.80s", tt.output, got, tt.want)
		}
	}
}

// TestRunHostedSplit checks a hosted run that goes on from a checkpoint, split after each
// number of attempts in turn, again and again: it ends as the run that never split (statuses,
// attempts, reasons, the DAG's outputs), each attempt runs once, the run is begun with the
// recorder once and each node's final attempt recorded once, and a checkpoint holds the
// outputs still read only.
func TestRunHostedSplit(t *testing.T) {
	src := `version: 1
name: split
outputs:
  first: "${{ nodes.a.output.data.n }}"
  each: "${{ nodes.each.output.summary }}"
nodes:
  a: {type: probe, with: {out: {status: pass, summary: "from a", data: {n: 1}}}}
  b: {type: probe, needs: [a]}
  skip: {type: probe, needs: [a], when: "${{ false }}"}
  c: {type: probe, needs: [b], retry: {attempts: 2}, with: {fail_attempts: 1}}
  d: {type: probe, needs: [c], with: {out: {status: warn, summary: "n is ${{ nodes.a.output.data.n }}"}}}
  each: {type: probe, needs: [d], foreach: [1, 2]}
  e: {type: probe, needs: [each]}
  f: {type: probe, needs: [e]}
`
	whole := load(t, newRecorder(), src)
	want, err := RunHosted(context.Background(), whole, RunOptions{RunID: "r1"}, newStackHost(t, whole))
	if err != nil {
		t.Fatal(err)
	}
	const attempts = 9 // a, b, c twice, d, two items, e, f
	for after := 1; after < attempts; after++ {
		rec := newRecorder()
		d := load(t, rec, src)
		store := &memRecorder{rec: rec, d: d}
		opts := RunOptions{RunID: "r1", Recorder: store}
		var got *dag.RunResult
		splits := 0
		for got == nil {
			h := newStackHost(t, d)
			h.splitAfter = after
			res, err := RunHosted(context.Background(), d, opts, h)
			var split *SplitError
			switch {
			case errors.As(err, &split):
				splits++
				b, _ := json.Marshal(split.Checkpoint)
				var cp Checkpoint
				if err := json.Unmarshal(b, &cp); err != nil {
					t.Fatal(err)
				}
				opts.Checkpoint = &cp
				if after == 5 && splits == 1 {
					// a, b, skip, c, d settled: each reads d, the DAG's outputs read a.
					var kept []string
					for _, o := range cp.Outputs {
						kept = append(kept, d.Nodes[o.Node].ID)
					}
					if !slices.Equal(kept, []string{"a", "d"}) || cp.States != "pspww..." && cp.States != "ppspw..." {
						t.Errorf("checkpoint after 5 attempts: states %s, outputs of %v", cp.States, kept)
					}
				}
			case err != nil:
				t.Fatal(err)
			default:
				got = res
			}
			if splits > attempts {
				t.Fatalf("split %d times", splits)
			}
		}
		if splits == 0 {
			t.Errorf("after %d: never split", after)
		}
		if got.Status != want.Status || jsonText(got.Outputs) != jsonText(want.Outputs) || !got.Started.Equal(want.Started) {
			t.Errorf("after %d: run %s, outputs %s; whole %s, %s", after, got.Status, jsonText(got.Outputs), want.Status, jsonText(want.Outputs))
		}
		for i, n := range got.Nodes {
			w := want.Nodes[i]
			if n.Status != w.Status || n.Attempts != w.Attempts || n.Reason != w.Reason || n.Summary != w.Summary || n.ItemsDone != w.ItemsDone {
				t.Errorf("after %d: %s: %s after %d (%q %q); whole %s after %d (%q %q)", after, n.ID, n.Status, n.Attempts, n.Reason, n.Summary, w.Status, w.Attempts, w.Reason, w.Summary)
			}
		}
		runs := 0
		for _, calls := range rec.calls {
			runs += len(calls)
		}
		final := map[string]int{}
		for _, a := range store.records {
			if a.Final && a.Item < 0 {
				final[a.Node]++
			}
		}
		if runs != attempts || len(store.begun) != 1 || store.done == nil || len(final) != len(d.Nodes)-1 {
			t.Errorf("after %d: %d attempts ran, begun %d times, finished %t, final attempts %v", after, runs, len(store.begun), store.done != nil, final)
		}
		for id, n := range final {
			if n != 1 {
				t.Errorf("after %d: %d final attempts of %s", after, n, id)
			}
		}
	}
}

// TestRunHostedBadCheckpoint refuses a checkpoint that is not of the DAG's run, saying why.
func TestRunHostedBadCheckpoint(t *testing.T) {
	d := load(t, newRecorder(), "version: 1\nname: t\nnodes:\n  a: {type: probe}\n  b: {type: probe, needs: [a]}\n")
	tests := []struct {
		name string
		cp   Checkpoint
		want string
	}{
		{"another DAG's", Checkpoint{States: "p"}, "run t: checkpoint of 1 nodes, DAG t has 2"},
		{"a state without its values", Checkpoint{States: "p."}, `run t: checkpoint: node a: state 'p' without its values`},
		{"an unknown state", Checkpoint{States: "x.", Attempts: []int{1}, Begun: []int64{0}, Took: []int64{0}, Summaries: []string{""}}, `run t: checkpoint: node a: state 'x' without its values`},
		{"an output of a node not settled", Checkpoint{States: "..", Outputs: []CheckpointOutput{{Node: 1, Output: []byte(`{}`)}}}, "run t: checkpoint: an output of node 1, which did not settle"},
		{"a note out of place", Checkpoint{States: "..", Notes: []CheckpointNote{{Node: 0, Reason: "x"}}}, "run t: checkpoint: a note on node 0, which did not settle or is out of order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RunHosted(context.Background(), d, RunOptions{RunID: "r1", Checkpoint: &tt.cp}, newStackHost(t, d))
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
		})
	}
}

// TestRunHostedCheckpointTimeout: a run that goes on from a checkpoint has what remains of
// the DAG's timeout, counted from when the run started.
func TestRunHostedCheckpointTimeout(t *testing.T) {
	d := load(t, newRecorder(), "version: 1\nname: t\ntimeout: 1h\nnodes:\n  a: {type: probe}\n  b: {type: probe, needs: [a]}\n")
	h := newStackHost(t, d)
	cp := Checkpoint{Started: h.now.Add(-40 * time.Minute), States: "p.", Attempts: []int{1}, Begun: []int64{0}, Took: []int64{0}, Summaries: []string{"a ran"},
		Outputs: []CheckpointOutput{{Node: 0, Output: []byte(`{"status":"pass","summary":"a ran"}`)}}}
	res, err := RunHosted(context.Background(), d, RunOptions{RunID: "r1", Checkpoint: &cp}, h)
	if err != nil {
		t.Fatal(err)
	}
	if h.after[timeoutTimer] != 20*time.Minute || res.Status != dag.RunSuccess || len(h.started) != 1 || !res.Started.Equal(cp.Started) {
		t.Errorf("timeout timer %s, run %s, %d attempts, started %s", h.after[timeoutTimer], res.Status, len(h.started), res.Started)
	}
	if a := res.Nodes[0]; a.Status != dag.NodePassed || a.Summary != "a ran" || jsonText(a.Output) != `{"status":"pass","summary":"a ran"}` {
		t.Errorf("a restored as %s %q, output %s", a.Status, a.Summary, jsonText(a.Output))
	}
}
