package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

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
	tests := []struct {
		name   string
		ctx    context.Context
		req    AttemptRequest
		getenv func(string) string
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
			tt.check(t, Attempt(ctx, d, tt.req, getenv, nil))
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
