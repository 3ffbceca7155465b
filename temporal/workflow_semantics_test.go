package temporal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
)

// pass is the with of an exec node printing a passing output with summary s.
func pass(s string) string {
	return `{command: [echo, '{"status": "pass", "summary": "` + s + `", "data": {"by": "` + s + `"}}']}`
}

// TestWorkflowFlow checks fan-in with the default input keyed by id, run_if always and
// failure, when false, and skips cascading, against the embedded engine.
func TestWorkflowFlow(t *testing.T) {
	path := writeDAG(t, `version: 1
name: flow
nodes:
  a: {type: exec, with: `+pass("a")+`}
  b: {type: exec, with: `+pass("b")+`}
  c: {type: exec, with: {shell: true, command: 'echo c broke >&2; exit 3'}}
  join:
    type: exec
    needs: [a, b, c]
    run_if: always
    with: {shell: true, command: 'cat > join.json; echo "{\"status\": \"pass\", \"summary\": \"joined\", \"data\": $(cat join.json)}"'}
  rescue: {type: exec, needs: [c], run_if: failure, with: `+pass("rescue")+`}
  after: {type: exec, needs: [c], with: `+pass("after")+`}
  later: {type: exec, needs: [after], with: `+pass("later")+`}
  never: {type: exec, when: "${{ nodes.a.output.data.by == 'z' }}", with: `+pass("never")+`}
  below: {type: exec, needs: [never], with: `+pass("below")+`}
  fanin:
    type: exec
    needs: [a, b, rescue]
    with: {shell: true, command: 'cat > fanin.json; echo "{\"status\": \"pass\", \"summary\": \"fan-in\", \"data\": $(cat fanin.json)}"'}
`)
	p := runPair(t, path, pairOptions{})
	p.same(t)
	res := p.hosted
	if res.Status != dag.RunFailed {
		t.Errorf("run %s, want failed", res.Status)
	}
	for id, want := range map[string]dag.NodeStatus{
		"a": dag.NodePassed, "c": dag.NodeFailed, "join": dag.NodePassed, "rescue": dag.NodePassed,
		"after": dag.NodeSkipped, "later": dag.NodeSkipped, "never": dag.NodeSkipped, "below": dag.NodeSkipped,
		"fanin": dag.NodePassed,
	} {
		if n := node(t, res, id); n.Status != want {
			t.Errorf("%s: %s (%q), want %s", id, n.Status, n.Reason, want)
		}
	}
	if r := node(t, res, "c").Reason; !strings.Contains(r, "c broke") {
		t.Errorf("c: reason %q does not show its stderr", r)
	}
	// The default input: upstream outputs by node id; a failed one hands nothing on.
	data, _ := node(t, res, "fanin").Output.(map[string]any)["data"].(map[string]any)
	for _, id := range []string{"a", "b", "rescue"} {
		o, _ := data[id].(map[string]any)
		if o["summary"] != id {
			t.Errorf("fanin's input[%s] = %v", id, data[id])
		}
	}
	join, _ := node(t, res, "join").Output.(map[string]any)["data"].(map[string]any)
	if _, ok := join["a"]; !ok || join["c"] != nil {
		t.Errorf("join's input = %v, want a's output and nothing of c's", join)
	}
}

// TestWorkflowRetries checks retries with backoff on timers: the attempts the command really
// ran, the reason of the last one, and the stored attempts, against the embedded engine.
func TestWorkflowRetries(t *testing.T) {
	path := writeDAG(t, `version: 1
name: retries
nodes:
  flaky:
    type: exec
    retry: {attempts: 4, backoff: 50ms}
    with:
      shell: true
      command: |
        echo x >> flaky.count
        if [ $(wc -l < flaky.count) -lt 3 ]; then echo "busy" >&2; exit 75; fi
        echo '{"status": "pass", "summary": "flaky"}'
  hopeless:
    type: exec
    retry: {attempts: 2, backoff: 50ms, on: [error]}
    with: {shell: true, command: 'echo x >> hopeless.count; echo "down for good" >&2; exit 1'}
  once:
    type: exec
    retry: {attempts: 3, on: [timeout]}
    with: {shell: true, command: 'echo x >> once.count; echo "not retried" >&2; exit 1'}
  next: {type: exec, needs: [flaky], with: `+pass("next")+`}
`)
	p := runPair(t, path, pairOptions{})
	p.same(t)
	for _, tt := range []struct {
		node     string
		status   dag.NodeStatus
		attempts int
		reason   string
	}{
		{"flaky", dag.NodePassed, 3, ""},
		{"hopeless", dag.NodeFailed, 2, "down for good"},
		{"once", dag.NodeFailed, 1, "not retried"},
		{"next", dag.NodePassed, 1, ""},
	} {
		n := node(t, p.hosted, tt.node)
		if n.Status != tt.status || n.Attempts != tt.attempts || tt.reason == "" && n.Reason != "" || !strings.Contains(n.Reason, tt.reason) {
			t.Errorf("%s: %s after %d attempts (%q), want %s after %d (%q)", tt.node, n.Status, n.Attempts, n.Reason, tt.status, tt.attempts, tt.reason)
		}
		if tt.node == "next" {
			continue
		}
		// The command ran once per attempt, in the worker's copy of the bundle.
		if got := countLines(t, filepath.Join(p.workerDir, p.bundle.Hash, tt.node+".count")); got != tt.attempts {
			t.Errorf("%s ran %d times on the worker, want %d", tt.node, got, tt.attempts)
		}
	}
	_, as := stored(t, p.hostedStore)
	var flaky []string
	for _, a := range as {
		if a.Node == "flaky" {
			flaky = append(flaky, jsonOf([]any{a.Attempt, a.Status, a.Final}))
		}
	}
	if got := strings.Join(flaky, " "); got != `[1,"failed",false] [2,"failed",false] [3,"passed",true]` {
		t.Errorf("flaky's stored attempts: %s", got)
	}
}

// TestWorkflowRetryWaits checks what ends a retry's backoff early: the run's cancellation
// and its timeout, as on the embedded engine; and items of a foreach retried one by one.
func TestWorkflowRetryWaits(t *testing.T) {
	const flaky = `
    retry: {attempts: 3, backoff: 5s}
    with: {shell: true, command: 'echo x >> flaky.count; echo busy >&2; exit 75'}`
	t.Run("cancel", func(t *testing.T) {
		path := writeDAG(t, "version: 1\nname: wait\nnodes:\n  flaky:\n    type: exec"+flaky+"\n  after: {type: exec, needs: [flaky], with: "+pass("after")+"}\n")
		p := runPair(t, path, pairOptions{cancelAfter: 300 * time.Millisecond})
		p.same(t)
		if p.hosted.Status != dag.RunCanceled || node(t, p.hosted, "flaky").Attempts != 1 {
			t.Errorf("run %s, flaky %s after %d attempts", p.hosted.Status, node(t, p.hosted, "flaky").Status, node(t, p.hosted, "flaky").Attempts)
		}
		if n := countLines(t, filepath.Join(p.workerDir, p.bundle.Hash, "flaky.count")); n != 1 {
			t.Errorf("flaky ran %d times", n)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		path := writeDAG(t, "version: 1\nname: wait\ntimeout: 300ms\nnodes:\n  flaky:\n    type: exec"+flaky+"\n  after: {type: exec, needs: [flaky], with: "+pass("after")+"}\n")
		p := runPair(t, path, pairOptions{})
		p.same(t)
		if p.hosted.Status != dag.RunFailed || p.hosted.Error != "the run timed out after 300ms" {
			t.Errorf("run %s (%q)", p.hosted.Status, p.hosted.Error)
		}
	})
	t.Run("foreach items", func(t *testing.T) {
		// Item i fails its first i attempts.
		path := writeDAG(t, `version: 1
name: items
nodes:
  each:
    type: exec
    foreach: [0, 1, 2]
    retry: {attempts: 3, backoff: 20ms}
    with:
      shell: true
      command: |
        echo x >> item${{ item }}.count
        if [ $(wc -l < item${{ item }}.count) -le ${{ item }} ]; then echo "item ${{ item }} busy" >&2; exit 75; fi
        echo '{"status": "pass", "summary": "item ${{ item }}"}'
`)
		var f inFlight
		p := runPair(t, path, pairOptions{setup: f.listen})
		p.same(t)
		if n := node(t, p.hosted, "each"); n.Status != dag.NodePassed || n.Attempts != 3 {
			t.Errorf("each: %s after %d attempts (%q)", n.Status, n.Attempts, n.Reason)
		}
		for i := range 3 {
			if n := countLines(t, filepath.Join(p.workerDir, p.bundle.Hash, "item"+strconv.Itoa(i)+".count")); n != i+1 {
				t.Errorf("item %d ran %d times, want %d", i, n, i+1)
			}
		}
		ids := map[string]bool{}
		for _, a := range f.activities {
			ids[activityID(a.Request)] = true
		}
		if len(ids) != 6 || !ids["each[2]#3"] {
			t.Errorf("activity ids %v, want 6 distinct, each[2]#3 among them", ids)
		}
	})
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestWorkflowRepair checks on_invalid.repair: the violations reach the node's next attempt
// (SEAM_VIOLATIONS) and the node passes repaired; one that stays broken fails with them.
func TestWorkflowRepair(t *testing.T) {
	contract := `
    contract:
      output: {type: object, required: [data], properties: {data: {type: object, required: [reply]}}}`
	path := writeDAG(t, `version: 1
name: repair
nodes:
  draft:
    type: exec
    on_invalid: {repair: 2}
    with:
      shell: true
      command: |
        printf '%s\n' "$SEAM_VIOLATIONS" >> draft.violations
        case "$SEAM_VIOLATIONS" in
        *data*) echo '{"status": "pass", "summary": "fixed", "data": {"reply": "ok"}}' ;;
        *) echo '{"status": "pass", "summary": "no data"}' ;;
        esac`+contract+`
  stubborn:
    type: exec
    on_invalid: {repair: 1}
    with: {shell: true, command: 'echo "{\"status\": \"pass\", \"summary\": \"no data\"}"'}`+contract+`
  send: {type: exec, needs: [draft], with: `+pass("send")+`}
  never: {type: exec, needs: [stubborn], with: `+pass("never")+`}
`)
	p := runPair(t, path, pairOptions{})
	p.same(t)
	res := p.hosted
	draft := node(t, res, "draft")
	if draft.Status != dag.NodePassed || !draft.Repaired || draft.Attempts != 2 || len(draft.Violations) != 0 {
		t.Errorf("draft: %s after %d attempts, repaired %t, violations %v", draft.Status, draft.Attempts, draft.Repaired, draft.Violations)
	}
	b, err := os.ReadFile(filepath.Join(p.workerDir, p.bundle.Hash, "draft.violations"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "" || !strings.Contains(lines[1], `required"`) || !strings.Contains(lines[1], `"pointer":"/data"`) {
		t.Errorf("SEAM_VIOLATIONS of draft's attempts: %q", lines)
	}
	stubborn := node(t, res, "stubborn")
	if stubborn.Status != dag.NodeFailed || stubborn.Repaired || stubborn.Attempts != 2 || stubborn.Reason != "output breaks its contract" || len(stubborn.Violations) != 1 {
		t.Errorf("stubborn: %s after %d attempts (%q), violations %v", stubborn.Status, stubborn.Attempts, stubborn.Reason, stubborn.Violations)
	}
	if s, n := node(t, res, "send").Status, node(t, res, "never").Status; s != dag.NodePassed || n != dag.NodeSkipped {
		t.Errorf("send %s, never %s", s, n)
	}
	_, as := stored(t, p.hostedStore)
	for _, a := range as {
		if a.Node == "draft" && a.Attempt == 2 && (!a.Repaired || !a.Final) {
			t.Errorf("draft's stored attempt 2: repaired %t, final %t", a.Repaired, a.Final)
		}
	}
}

// inFlight counts the attempt activities running at once.
type inFlight struct {
	mu         sync.Mutex
	now, max   int
	started    int
	nodes      map[string]int // attempts started by node
	activities []AttemptInput
}

func (f *inFlight) listen(env *testsuite.TestWorkflowEnvironment) {
	f.nodes = map[string]int{}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		if info.ActivityType.Name != attemptActivity {
			return
		}
		var in AttemptInput
		_ = args.Get(&in)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.now++
		f.started++
		f.max = max(f.max, f.now)
		f.nodes[in.Request.Node]++
		f.activities = append(f.activities, in)
	})
	env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, _ error) {
		if info.ActivityType.Name != attemptActivity {
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.now--
	})
}

// TestWorkflowForeach checks foreach items as activities, the items' concurrency bound,
// failing items keeping the others' results, and max_items refusing a long list.
func TestWorkflowForeach(t *testing.T) {
	path := writeDAG(t, `version: 1
name: foreach
nodes:
  each:
    type: exec
    foreach: [1, 2, 3, 4, 5]
    concurrency: 2
    with:
      shell: true
      command: 'sleep 0.05; if [ ${{ item }} -eq 2 ] || [ ${{ item }} -eq 4 ]; then echo "item ${{ item }} broke" >&2; exit 1; fi; echo "{\"status\": \"pass\", \"summary\": \"item ${{ index }}\"}"'
  long: {type: exec, foreach: [1, 2, 3], max_items: 2, with: `+pass("long")+`}
  after: {type: exec, needs: [each], run_if: always, with: `+pass("after")+`}
`)
	var f inFlight
	p := runPair(t, path, pairOptions{setup: f.listen})
	p.same(t)
	each := node(t, p.hosted, "each")
	if each.Status != dag.NodeFailed || each.Summary != "5 items: 3 passed, 2 failed" || !strings.HasPrefix(each.Reason, "item 1 failed after 1 attempt: ") || !strings.Contains(each.Reason, "item 2 broke") {
		t.Errorf("each: %s %q (%q)", each.Status, each.Summary, each.Reason)
	}
	items, _ := each.Output.(map[string]any)["data"].(map[string]any)["items"].([]any)
	if len(items) != 5 || items[0].(map[string]any)["summary"] != "item 0" || items[1].(map[string]any)["status"] != "fail" || items[4].(map[string]any)["summary"] != "item 4" {
		t.Errorf("items = %v", items)
	}
	if f.max > 2 || f.nodes["each"] != 5 {
		t.Errorf("%d items ran at once (want at most 2), %d attempts of each (want 5)", f.max, f.nodes["each"])
	}
	long := node(t, p.hosted, "long")
	if long.Status != dag.NodeFailed || long.Reason != "foreach has 3 items, more than max_items (2); raise max_items or split the list" {
		t.Errorf("long: %s (%q)", long.Status, long.Reason)
	}
	if f.nodes["long"] != 0 {
		t.Errorf("long ran %d items past max_items", f.nodes["long"])
	}
	for _, a := range f.activities {
		if a.Request.Node == "each" && (a.Request.Item < 0 || a.Request.Item > 4) {
			t.Errorf("an attempt of each went out as item %d", a.Request.Item)
		}
	}
}

// TestWorkflowTimeouts checks a node's timeout, enforced in the activity, and the DAG's,
// a workflow timer that cancels the running attempt and the nodes after it.
func TestWorkflowTimeouts(t *testing.T) {
	t.Run("node", func(t *testing.T) {
		path := writeDAG(t, `version: 1
name: slow
nodes:
  slow: {type: exec, timeout: 200ms, with: {command: [sleep, "5"]}}
  after: {type: exec, needs: [slow], with: `+pass("after")+`}
`)
		p := runPair(t, path, pairOptions{})
		p.same(t)
		if n := node(t, p.hosted, "slow"); n.Status != dag.NodeFailed || n.Reason != "timed out after 200ms" {
			t.Errorf("slow: %s (%q)", n.Status, n.Reason)
		}
		if n := node(t, p.hosted, "after"); n.Status != dag.NodeSkipped {
			t.Errorf("after: %s", n.Status)
		}
	})
	t.Run("dag", func(t *testing.T) {
		path := writeDAG(t, `version: 1
name: slow
timeout: 300ms
nodes:
  slow: {type: exec, with: {command: [sleep, "5"]}}
  after: {type: exec, needs: [slow], with: `+pass("after")+`}
`)
		p := runPair(t, path, pairOptions{})
		p.same(t)
		res := p.hosted
		const why = "the run timed out after 300ms"
		if res.Status != dag.RunFailed || res.Error != why {
			t.Errorf("run %s (%q)", res.Status, res.Error)
		}
		for _, id := range []string{"slow", "after"} {
			if n := node(t, res, id); n.Status != dag.NodeCanceled || n.Reason != why {
				t.Errorf("%s: %s (%q)", id, n.Status, n.Reason)
			}
		}
		if r, _ := stored(t, p.hostedStore); r.Status != dag.RunFailed {
			t.Errorf("stored: %s", r.Status)
		}
	})
}

// TestWorkflowCancel checks that canceling the workflow cancels the running attempt and the
// nodes after it (canceled, not skipped), as canceling an embedded run does.
func TestWorkflowCancel(t *testing.T) {
	path := writeDAG(t, `version: 1
name: cancel
nodes:
  first: {type: exec, with: `+pass("first")+`}
  slow: {type: exec, needs: [first], with: {command: [sleep, "5"]}}
  after: {type: exec, needs: [slow], with: `+pass("after")+`}
`)
	p := runPair(t, path, pairOptions{cancelAfter: 500 * time.Millisecond})
	p.same(t)
	res := p.hosted
	if res.Status != dag.RunCanceled {
		t.Errorf("run %s (%q), want canceled", res.Status, res.Error)
	}
	for id, want := range map[string]dag.NodeStatus{"first": dag.NodePassed, "slow": dag.NodeCanceled, "after": dag.NodeCanceled} {
		if n := node(t, res, id); n.Status != want {
			t.Errorf("%s: %s (%q), want %s", id, n.Status, n.Reason, want)
		}
	}
	r, as := stored(t, p.hostedStore)
	if r.Status != dag.RunCanceled {
		t.Errorf("stored run: %s", r.Status)
	}
	for _, a := range as {
		if a.Node != "first" && (a.Status != dag.NodeCanceled || !a.Final) {
			t.Errorf("stored %s#%d: %s, final %t", a.Node, a.Attempt, a.Status, a.Final)
		}
	}
}

// TestWorkflowContractViolation checks that an output breaking its contract fails the
// activity with a non-retryable seam.ContractViolation carrying the violations, that a node
// that fails to run fails it with seam.NodeFailed, and that neither output is handed on.
func TestWorkflowContractViolation(t *testing.T) {
	path := writeDAG(t, `version: 1
name: broken
nodes:
  classify:
    type: exec
    with: {shell: true, command: 'echo "{\"status\": \"pass\", \"summary\": \"no label\", \"data\": {}}"'}
    contract:
      output: {type: object, required: [data], properties: {data: {type: object, required: [label]}}}
  crash: {type: exec, with: {shell: true, command: 'echo crashed >&2; exit 2'}}
  publish: {type: exec, needs: [classify], with: `+pass("publish")+`}
`)
	var mu sync.Mutex
	errs := map[string]error{}
	setup := func(env *testsuite.TestWorkflowEnvironment) {
		env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, err error) {
			mu.Lock()
			defer mu.Unlock()
			errs[strings.Split(info.ActivityID, "#")[0]] = err
		})
	}
	p := runPair(t, path, pairOptions{setup: setup})
	p.same(t)
	for _, tt := range []struct {
		node, typ, msg string
		violations     int
	}{
		{"classify", errContract, "output of classify breaks its contract", 1},
		{"crash", errNodeFailed, "crashed", 0},
	} {
		var app *temporal.ApplicationError
		if !errors.As(errs[tt.node], &app) {
			t.Errorf("%s: the activity returned %v, not an application error", tt.node, errs[tt.node])
			continue
		}
		if app.Type() != tt.typ || !app.NonRetryable() || !strings.Contains(app.Error(), tt.msg) {
			t.Errorf("%s: %s error %q, non-retryable %t; want %s with %q", tt.node, app.Type(), app.Error(), app.NonRetryable(), tt.typ, tt.msg)
		}
		var o engine.AttemptOutcome
		if err := app.Details(&o); err != nil {
			t.Fatalf("%s: details: %v", tt.node, err)
		}
		if o.Valid || len(o.Violations) != tt.violations {
			t.Errorf("%s: the outcome carried is valid %t with violations %v", tt.node, o.Valid, o.Violations)
		}
	}
	classify := node(t, p.hosted, "classify")
	if classify.Status != dag.NodeFailed || classify.Reason != "output breaks its contract" || len(classify.Violations) != 1 || classify.Violations[0].Pointer != "/data/label" {
		t.Errorf("classify: %s (%q), violations %v", classify.Status, classify.Reason, classify.Violations)
	}
	if n := node(t, p.hosted, "publish"); n.Status != dag.NodeSkipped {
		t.Errorf("publish: %s, want skipped", n.Status)
	}
}

// TestWorkflowRefused checks the runs the workflow refuses before any node runs: params that
// break the params schema or are no object, and a bundle that is not what it says.
func TestWorkflowRefused(t *testing.T) {
	path := writeDAG(t, `version: 1
name: refused
params:
  type: object
  required: [count]
  properties:
    count: {type: integer}
nodes:
  a: {type: exec, with: `+pass("a")+`}
`)
	tests := []struct {
		name string
		o    pairOptions
		typ  string
		msg  string
	}{
		{"params break the schema", pairOptions{params: map[string]any{"count": "many"}}, errRefused, "/count: field 'count' must be an integer, got string"},
		{"params are no object", pairOptions{rawParams: []byte(`[1]`)}, errRefused, "params are not a JSON object"},
		{"a file changed", pairOptions{bundle: func(b *Bundle) { b.Files[b.Main] = append([]byte("# changed\n"), b.Files[b.Main]...) }}, errBundle, "its files hash to"},
		{"no main file", pairOptions{bundle: func(b *Bundle) { b.Main = "other.yaml" }}, errBundle, "no file other.yaml"},
		{"a path leaving the bundle", pairOptions{bundle: func(b *Bundle) { b.Files["../x.yaml"] = nil }}, errBundle, "path ../x.yaml leaves the bundle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f inFlight
			tt.o.setup = f.listen
			p := runPair(t, path, tt.o)
			var app *temporal.ApplicationError
			if !errors.As(p.hostedErr, &app) {
				t.Fatalf("workflow: %v, want an application error", p.hostedErr)
			}
			if app.Type() != tt.typ || !strings.Contains(app.Error(), tt.msg) || !app.NonRetryable() {
				t.Errorf("workflow: %s error %q, want %s with %q", app.Type(), app.Error(), tt.typ, tt.msg)
			}
			if f.started != 0 {
				t.Errorf("%d attempts started", f.started)
			}
			if tt.typ == errRefused && tt.o.rawParams == nil {
				// The same message as the embedded engine's refusal.
				if p.embeddedErr == nil || app.Message() != p.embeddedErr.Error() {
					t.Errorf("workflow: %q, embedded: %v", app.Message(), p.embeddedErr)
				}
			}
		})
	}
}

// TestWorkflowSecrets checks that a DAG's env variables are read by the worker when an
// attempt runs, masked in what it returns as on the embedded engine, and never in an
// activity's input, the workflow's result or the store.
func TestWorkflowSecrets(t *testing.T) {
	const token = "tok-5ecret-value"
	path := writeDAG(t, `version: 1
name: secrets
env: [SEAM_TEST_TOKEN]
nodes:
  echo:
    type: exec
    with:
      command: [echo, '{"status": "pass", "summary": "token ${{ env.SEAM_TEST_TOKEN }}"}']
  shell:
    type: exec
    input: {token: "${{ env.SEAM_TEST_TOKEN }}"}
    with:
      shell: true
      env: {TOKEN: "${{ env.SEAM_TEST_TOKEN }}"}
      command: 'cat > stdin.json; echo "{\"status\": \"pass\", \"summary\": \"env $TOKEN\"}"'
  fail: {type: exec, with: {shell: true, command: 'echo "refused $SEAM_ARG" >&2; exit 1', env: {SEAM_ARG: "${{ env.SEAM_TEST_TOKEN }}"}}}
`)
	getenv := func(name string) string {
		if name == "SEAM_TEST_TOKEN" {
			return token
		}
		return ""
	}
	var mu sync.Mutex
	var inputs []string
	setup := func(env *testsuite.TestWorkflowEnvironment) {
		env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
			var in AttemptInput
			if err := args.Get(&in); err != nil {
				t.Errorf("decode %s's input: %v", info.ActivityID, err)
			}
			mu.Lock()
			defer mu.Unlock()
			inputs = append(inputs, jsonOf(in))
		})
	}
	p := runPair(t, path, pairOptions{getenv: getenv, setup: setup})
	p.same(t)
	if s := node(t, p.hosted, "echo").Summary; s != "token ***" {
		t.Errorf("echo's summary %q", s)
	}
	if s := node(t, p.hosted, "shell").Summary; s != "env ***" {
		t.Errorf("shell's summary %q", s)
	}
	// The node itself got the value, in its input as in its environment.
	if b, err := os.ReadFile(filepath.Join(p.workerDir, p.bundle.Hash, "stdin.json")); err != nil || !strings.Contains(string(b), `"token":"`+token+`"`) {
		t.Errorf("shell's input on the worker: %s (%v)", b, err)
	}
	if r := node(t, p.hosted, "fail").Reason; !strings.Contains(r, "refused ***") {
		t.Errorf("fail's reason %q", r)
	}
	if len(inputs) != 3 {
		t.Fatalf("%d attempts went out, want 3", len(inputs))
	}
	for _, in := range inputs {
		if strings.Contains(in, token) {
			t.Errorf("an activity's input holds the token: %s", in)
		}
		if !strings.Contains(in, engine.EnvValue("SEAM_TEST_TOKEN")) {
			t.Errorf("an activity's input holds no placeholder for the token: %s", in)
		}
	}
	if s := jsonOf(p.hosted); strings.Contains(s, token) {
		t.Errorf("the workflow's result holds the token: %s", s)
	}
	_, as := stored(t, p.hostedStore)
	for _, a := range as {
		out, err := p.hostedStore.Output(context.Background(), a.OutputHash)
		if a.OutputHash != "" && err != nil {
			t.Fatal(err)
		}
		if strings.Contains(jsonOf(a)+string(out), token) {
			t.Errorf("the stored attempt %s#%d holds the token", a.Node, a.Attempt)
		}
	}
}

// TestWorkflowSecretMissing checks that a worker without a DAG's env variable fails the
// attempts, naming the variable, and holds no placeholder in what it returns.
func TestWorkflowSecretMissing(t *testing.T) {
	path := writeDAG(t, `version: 1
name: secrets
env: [SEAM_TEST_TOKEN]
nodes:
  echo: {type: exec, with: {command: [echo, '{"status": "pass", "summary": "token ${{ env.SEAM_TEST_TOKEN }}"}']}}
`)
	p := runPair(t, path, pairOptions{})
	if p.embeddedErr == nil || !strings.Contains(p.embeddedErr.Error(), "SEAM_TEST_TOKEN") {
		t.Errorf("embedded: %v", p.embeddedErr)
	}
	if p.hostedErr != nil {
		t.Fatal(p.hostedErr)
	}
	n := node(t, p.hosted, "echo")
	if n.Status != dag.NodeFailed || !strings.Contains(n.Reason, "SEAM_TEST_TOKEN (listed at ") {
		t.Errorf("echo: %s (%q)", n.Status, n.Reason)
	}
}

// TestWorkflowJapanese checks that a run in Japanese gives the reasons and violations the
// embedded engine gives, those judged on the worker included.
func TestWorkflowJapanese(t *testing.T) {
	path := writeDAG(t, `version: 1
name: ja
nodes:
  slow: {type: exec, timeout: 100ms, with: {command: [sleep, "5"]}}
  broken:
    type: exec
    with: `+pass("broken")+`
    contract: {output: {type: object, required: [risks]}}
  long: {type: exec, foreach: [1, 2], max_items: 1, with: `+pass("long")+`}
`)
	p := runPair(t, path, pairOptions{lang: i18n.Japanese})
	p.same(t)
	for _, id := range []string{"slow", "broken", "long"} {
		if n := node(t, p.hosted, id); n.Status != dag.NodeFailed || !japanese(n.Reason) {
			t.Errorf("%s: %s (%q), want failed saying why in Japanese", id, n.Status, n.Reason)
		}
	}
	if vs := node(t, p.hosted, "broken").Violations; len(vs) != 1 || !japanese(vs[0].Message) {
		t.Errorf("broken's violations %+v", vs)
	}
}

// japanese reports whether s holds kana or kanji.
func japanese(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0x3040 && r <= 0x9fff })
}
