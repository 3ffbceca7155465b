package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/runs"
)

// slowDAG is a DAG whose second node sleeps for a minute: long enough that a test which sees
// the run end has cancelled it.
const slowDAG = `version: 1
name: slow
nodes:
  first:
    type: const
    with: {value: {status: pass, summary: first}}
  sleep:
    type: exec
    needs: [first]
    with:
      command: [sleep, "60"]
      output: text
`

// storeServer starts a server with a run store on root and returns a client session and the
// store, which the test reads directly.
func storeServer(t *testing.T, root string) (*sdk.ClientSession, *Server, runs.Store) {
	t.Helper()
	st := tempStore(t)
	srv, cs := serve(t, Options{Root: root, Store: st}, nil)
	return cs, srv, st
}

// serve is connectWith returning the server too, with client options; Lang defaults to
// English.
func serve(t *testing.T, opts Options, copts *sdk.ClientOptions) (*Server, *sdk.ClientSession) {
	t.Helper()
	opts.Types = testTypes
	if opts.Lang == "" {
		opts.Lang = "en"
	}
	srv, err := NewServer(opts)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	t.Cleanup(srv.Close)
	ct, stt := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), stt, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return srv, cs
}

// waitStatus polls the store until run id has status want.
func waitStatus(t *testing.T, st runs.Store, id, want string) *runs.Run {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, _, err := st.GetRun(t.Context(), id)
		if err != nil {
			t.Fatalf("get run %s: %v", id, err)
		}
		if string(r.Status) == want {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %s, want %s", id, r.Status, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunDAGReturnsAtOnce(t *testing.T) {
	cs, _, st := storeServer(t, testRoot(t))
	r := call(t, cs, "run_dag", map[string]any{"path": "greet.yaml", "params": map[string]any{"who": "ada"}})
	id, _ := r.data()["id"].(string)
	if errCode(r) != "" || id == "" || r.data()["dag"] != "greet" || num(r.data(), "nodes") != 1 {
		t.Fatalf("want the run's id, dag and node count: %v", r.env)
	}
	if msg := r.env["message"].(string); !strings.Contains(msg, "started: get_run shows how it goes") {
		t.Errorf("message %q", msg)
	}
	// The run is in the store as soon as run_dag has answered.
	if g := call(t, cs, "get_run", map[string]any{"id": id}); errCode(g) != "" {
		t.Fatalf("get_run right after run_dag: %v", g.env)
	}
	waitStatus(t, st, id, "success")
	g := call(t, cs, "get_run", map[string]any{"id": id})
	if out, _ := g.data()["outputs"].(map[string]any); out["greeting"] != "hello ada" {
		t.Errorf("outputs %v", g.data())
	}
}

func TestRunDAGErrors(t *testing.T) {
	root := testRoot(t)
	cs, _, _ := storeServer(t, root)
	noStore := connect(t, root, false)
	tests := []struct {
		name string
		cs   *sdk.ClientSession
		args map[string]any
		code string
		msg  string
	}{
		{"no store without wait", noStore, map[string]any{"path": "greet.yaml", "params": map[string]any{"who": "a"}}, CodeNoStore, "pass wait: true, or start the server with --store"},
		{"bad params without wait", cs, map[string]any{"path": "greet.yaml", "params": map[string]any{"who": 3}}, CodeInvalidParams, "greet.yaml: the params break the DAG's params schema"},
		{"neither path nor yaml", cs, map[string]any{}, CodeInvalidArgument, "give path"},
		{"inline does not load", cs, map[string]any{"yaml": "nodes: ["}, CodeInvalidDAG, "(inline).yaml does not load"},
		{"params not an object", cs, map[string]any{"path": "greet.yaml", "params": "who"}, "", ""}, // refused by the input schema
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.code == "" {
				res, err := tc.cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "run_dag", Arguments: tc.args})
				if err == nil && !res.IsError {
					t.Fatalf("accepted: %v", res.StructuredContent)
				}
				return
			}
			r := call(t, tc.cs, "run_dag", tc.args)
			if errCode(r) != tc.code || !strings.Contains(r.env["message"].(string), tc.msg) {
				t.Errorf("got %v, want code %s and a message with %q", r.env, tc.code, tc.msg)
			}
		})
	}
}

func TestRunDAGInline(t *testing.T) {
	cs := connect(t, testRoot(t), true)
	src, err := os.ReadFile("../dags/fan-in.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := call(t, cs, "run_dag", map[string]any{"yaml": string(src), "wait": true})
	if errCode(r) != "" || r.data()["status"] != "warn" || num(r.data()["nodes"].(map[string]any), "passed") != 3 {
		t.Fatalf("inline fan-in: %v", r.env)
	}
}

// progressLog collects the progress notifications a client receives.
type progressLog struct {
	mu   sync.Mutex
	seen []*sdk.ProgressNotificationParams
}

func (p *progressLog) handle(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, req.Params)
}

func TestRunDAGWaitProgress(t *testing.T) {
	var log progressLog
	_, cs := serve(t, Options{Root: testRoot(t)}, &sdk.ClientOptions{ProgressNotificationHandler: log.handle})
	params := &sdk.CallToolParams{Name: "run_dag", Arguments: map[string]any{"path": "dags/foreach.yaml", "wait": true}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || res.IsError {
		t.Fatalf("run_dag: %v %v", err, res)
	}
	// The server sends every notification before its answer, but the client may handle
	// them after it: wait for the last one.
	waitFor(t, func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		return len(log.seen) > 0 && log.seen[len(log.seen)-1].Progress == log.seen[0].Total
	})
	log.mu.Lock()
	defer log.mu.Unlock()
	var nodes, items int
	last := 0.0
	for _, n := range log.seen {
		if n.ProgressToken != "tok-1" {
			t.Errorf("token %v", n.ProgressToken)
		}
		if n.Progress <= last || n.Total == 0 || n.Progress > n.Total {
			t.Errorf("progress %v of %v after %v: must grow, within the total", n.Progress, n.Total, last)
		}
		last = n.Progress
		switch {
		case strings.Contains(n.Message, "nodes)"):
			nodes++
		case strings.Contains(n.Message, "items"):
			items++
		}
	}
	if int(log.seen[0].Total) != nodes || last != log.seen[0].Total {
		t.Errorf("%d node notifications, last progress %v, want one per node up to %v: %v", nodes, last, log.seen[0].Total, messages(log.seen))
	}
	if items == 0 {
		t.Errorf("no foreach item progress: %v", messages(log.seen))
	}
}

func messages(ns []*sdk.ProgressNotificationParams) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Message)
	}
	return out
}

func TestCancelRun(t *testing.T) {
	cs, _, st := storeServer(t, testRoot(t))
	r := call(t, cs, "run_dag", map[string]any{"yaml": slowDAG})
	id, _ := r.data()["id"].(string)
	if id == "" {
		t.Fatalf("run_dag: %v", r.env)
	}
	waitFor(t, func() bool { // sleep has started
		_, as, err := st.GetRun(t.Context(), id)
		return err == nil && len(as) > 0
	})
	start := time.Now()
	c := call(t, cs, "cancel_run", map[string]any{"id": "latest"}) // the newest run: this one
	if errCode(c) != "" || c.data()["id"] != id {
		t.Fatalf("cancel_run: %v", c.env)
	}
	waitStatus(t, st, id, "canceled")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("canceled after %v", d)
	}
	g := call(t, cs, "get_run", map[string]any{"id": id})
	if g.data()["status"] != "canceled" || num(g.data()["nodes"].(map[string]any), "passed") != 1 {
		t.Errorf("get_run after cancel: %v", g.data())
	}
	tests := []struct {
		name, id, code, msg string
	}{
		{"finished", id, CodeNotRunning, "has already finished: canceled"},
		{"finished latest", "latest", CodeNotRunning, "run " + id + " has already finished: canceled"},
		{"unknown", "nope", CodeRunNotFound, `no run "nope" in the run store`},
		{"empty", "", CodeInvalidArgument, "id is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, "cancel_run", map[string]any{"id": tc.id})
			if errCode(r) != tc.code || !strings.Contains(r.env["message"].(string), tc.msg) {
				t.Errorf("got %v, want %s with %q", r.env, tc.code, tc.msg)
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Cancelling the request of a run the client waits for cancels the run.
func TestRunDAGWaitCancelled(t *testing.T) {
	cs, _, st := storeServer(t, testRoot(t))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_dag", Arguments: map[string]any{"yaml": slowDAG, "wait": true}})
		done <- err
	}()
	var id string
	waitFor(t, func() bool {
		list, _, err := st.ListRuns(t.Context(), runs.Filter{Limit: 1})
		if err != nil || len(list) == 0 {
			return false
		}
		id = list[0].ID
		_, as, err := st.GetRun(t.Context(), id)
		return err == nil && len(as) > 0
	})
	cancel()
	if err := <-done; err == nil {
		t.Fatal("CallTool returned no error after its context was cancelled")
	}
	waitStatus(t, st, id, "canceled")
}

// Closing the server cancels the runs it started and returns once they are recorded.
func TestCloseCancelsRuns(t *testing.T) {
	cs, srv, st := storeServer(t, testRoot(t))
	r := call(t, cs, "run_dag", map[string]any{"yaml": slowDAG})
	id, _ := r.data()["id"].(string)
	start := time.Now()
	srv.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %v", d)
	}
	if got, _, err := st.GetRun(t.Context(), id); err != nil || got.Status != "canceled" {
		t.Errorf("after Close the run is %v (%v), want canceled", got, err)
	}
	r = call(t, cs, "run_dag", map[string]any{"yaml": slowDAG})
	if errCode(r) != CodeUnavailable {
		t.Errorf("run_dag after Close: %v", r.env)
	}
}

func TestRunResource(t *testing.T) {
	cs, _, _ := storeServer(t, testRoot(t))
	tpls, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil || len(tpls.ResourceTemplates) != 1 || tpls.ResourceTemplates[0].URITemplate != "seam://runs/{id}" {
		t.Fatalf("templates %v (%v)", tpls, err)
	}
	r := call(t, cs, "run_dag", map[string]any{"path": "greet.yaml", "params": map[string]any{"who": "ada"}, "wait": true})
	id := r.data()["id"].(string)
	for _, ref := range []string{id, "latest"} {
		res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "seam://runs/" + ref})
		if err != nil {
			t.Fatalf("read %s: %v", ref, err)
		}
		var got struct {
			Run      struct{ ID, Status string }
			Attempts []struct{ Output json.RawMessage }
		}
		c := res.Contents[0]
		if err := json.Unmarshal([]byte(c.Text), &got); err != nil || c.MIMEType != "application/json" {
			t.Fatalf("contents %v: %v", c, err)
		}
		if got.Run.ID != id || got.Run.Status != "success" || len(got.Attempts) != 1 || !strings.Contains(string(got.Attempts[0].Output), "hello ada") {
			t.Errorf("%s: %s", ref, c.Text)
		}
	}
	for _, uri := range []string{"seam://runs/nope", "seam://runs/a/b"} {
		if _, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("read %s: %v, want not found", uri, err)
		}
	}
}

// fixable is a DAG whose node b breaks its contract until the file is fixed.
const fixable = `version: 1
name: fixable
nodes:
  a:
    type: const
    with: {value: {status: pass, summary: a}}
  b:
    type: const
    needs: [a]
    with: {value: {status: pass, summary: b, data: {other: 1}}}
    contract:
      output:
        type: object
        properties:
          data: {type: object, required: [label]}
`

func TestResumeRun(t *testing.T) {
	root := testRoot(t)
	file := filepath.Join(root, "fixable.yaml")
	if err := os.WriteFile(file, []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _, st := storeServer(t, root)
	first := call(t, cs, "run_dag", map[string]any{"path": "fixable.yaml", "wait": true})
	id, _ := first.data()["id"].(string)
	if first.data()["status"] != "failed" {
		t.Fatalf("first run: %v", first.env)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(fixable, "other: 1", "label: bug", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := call(t, cs, "resume_run", map[string]any{"id": "latest", "wait": true})
	if errCode(r) != "" || r.data()["id"] != id || r.data()["status"] != "success" {
		t.Fatalf("resume: %v", r.env)
	}
	run, as, err := st.GetRun(t.Context(), id)
	if err != nil || run.Resumes != 1 {
		t.Fatalf("stored run %+v (%v), want one resume", run, err)
	}
	reused := map[string]bool{}
	for _, a := range as {
		if a.Session == 1 {
			reused[a.Node] = a.Reused
		}
	}
	if !reused["a"] || reused["b"] {
		t.Errorf("resume reused %v, want a reused and b run", reused)
	}

	// A run still going cannot be resumed; one from inline YAML has no file to resume from.
	other := call(t, cs, "run_dag", map[string]any{"yaml": slowDAG})
	slowID := other.data()["id"].(string)
	tests := []struct {
		name, id, code, msg string
	}{
		{"finished with success", id, CodeNotResumable, "finished with success: there is nothing to resume"},
		{"still running", slowID, CodeNotResumable, "is still running"},
		{"unknown", "nope", CodeRunNotFound, `no run "nope"`},
		{"empty", "", CodeInvalidArgument, "id is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, "resume_run", map[string]any{"id": tc.id})
			if errCode(r) != tc.code || !strings.Contains(r.env["message"].(string), tc.msg) {
				t.Errorf("got %v, want %s with %q", r.env, tc.code, tc.msg)
			}
		})
	}
	call(t, cs, "cancel_run", map[string]any{"id": slowID})
	waitStatus(t, st, slowID, "canceled")
	if r := call(t, cs, "resume_run", map[string]any{"id": slowID}); errCode(r) != CodeNotResumable || !strings.Contains(r.env["message"].(string), "an inline DAG") {
		t.Errorf("resume of an inline run: %v", r.env)
	}

	// A file that now defines another DAG is not the run's any more.
	if err := os.WriteFile(file, []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := call(t, cs, "run_dag", map[string]any{"path": "fixable.yaml", "wait": true, "no_lint": true})
	if err := os.WriteFile(file, []byte(strings.Replace(fixable, "name: fixable", "name: renamed", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := call(t, cs, "resume_run", map[string]any{"id": failed.data()["id"]}); errCode(r) != CodeNotResumable ||
		!strings.Contains(r.env["message"].(string), "ran the DAG fixable, but fixable.yaml now defines renamed") {
		t.Errorf("resume of a renamed DAG: %v", r.env)
	}
	// A run recorded as running by another process is not this server's to cancel.
	host, _ := os.Hostname()
	foreign := runs.Run{ID: "20260101T000000.000-00000000", DAG: "fixable", Status: "running", Started: time.Now(), PID: os.Getpid(), Host: host}
	if err := st.CreateRun(t.Context(), foreign); err != nil {
		t.Fatal(err)
	}
	if r := call(t, cs, "cancel_run", map[string]any{"id": foreign.ID}); errCode(r) != CodeNotRunning ||
		!strings.Contains(r.env["message"].(string), "is recorded as running but not by this server") {
		t.Errorf("cancel of another process's run: %v", r.env)
	}
}

func TestResumeRunAtOnce(t *testing.T) {
	root := testRoot(t)
	if err := os.WriteFile(filepath.Join(root, "fixable.yaml"), []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _, st := storeServer(t, root)
	id := call(t, cs, "run_dag", map[string]any{"path": "fixable.yaml", "wait": true}).data()["id"].(string)
	r := call(t, cs, "resume_run", map[string]any{"id": id})
	if errCode(r) != "" || r.data()["id"] != id || !strings.Contains(r.env["message"].(string), "resumed: get_run shows how it goes") {
		t.Fatalf("resume: %v", r.env)
	}
	waitStatus(t, st, id, "failed") // the file is unchanged: b breaks its contract again
}

// A node with several violations shows the first, and how many there are as a number, which
// reads in any language.
func TestRunProblemViolations(t *testing.T) {
	cs := connect(t, testRoot(t), true)
	src := `version: 1
name: two
nodes:
  a:
    type: const
    with: {value: {status: pass, summary: a, data: {}}}
    contract:
      output:
        type: object
        properties:
          data: {type: object, required: [x, y]}
`
	for _, tool := range []string{"run_dag", "get_run"} {
		args := map[string]any{"yaml": src, "wait": true}
		if tool == "get_run" {
			args = map[string]any{"id": "latest"}
		}
		r := call(t, cs, tool, args)
		ps, _ := r.data()["problems"].([]any)
		if len(ps) != 1 {
			t.Fatalf("%s: problems %v", tool, r.data())
		}
		p := ps[0].(map[string]any)
		if num(p, "violations") != 2 || !strings.Contains(p["message"].(string), "required") || strings.Contains(p["message"].(string), "more") {
			t.Errorf("%s: problem %v, want the first violation and a count of 2", tool, p)
		}
	}
}

// TestGetRunRunning: get_run shows a plain exec node running while it runs, in its minimal
// answer (counted, and named) and in its raw one (the attempt under way).
func TestGetRunRunning(t *testing.T) {
	cs, _, st := storeServer(t, testRoot(t))
	r := call(t, cs, "run_dag", map[string]any{"yaml": slowDAG})
	id, _ := r.data()["id"].(string)
	if id == "" {
		t.Fatalf("run_dag: %v", r.env)
	}
	defer call(t, cs, "cancel_run", map[string]any{"id": id})
	waitFor(t, func() bool { // sleep's start is recorded
		_, as, err := st.GetRun(t.Context(), id)
		return err == nil && slices.ContainsFunc(as, func(a runs.Attempt) bool { return a.Node == "sleep" && a.Status == "running" })
	})
	g := call(t, cs, "get_run", map[string]any{"id": id})
	nodes, _ := g.data()["nodes"].(map[string]any)
	if num(nodes, "running") != 1 || num(nodes, "passed") != 1 || fmt.Sprint(g.data()["running"]) != "[sleep]" {
		t.Errorf("get_run while sleep runs: %v, want 1 running (sleep) and 1 passed", g.data())
	}
	raw := call(t, cs, "get_run", map[string]any{"id": id, "raw": true})
	var sleep map[string]any
	for _, a := range raw.data()["attempts"].([]any) {
		if a := a.(map[string]any); a["node"] == "sleep" {
			sleep = a
		}
	}
	if sleep["status"] != "running" || sleep["started"] == nil || sleep["ended"] != nil {
		t.Errorf("raw get_run while sleep runs: its attempt %v, want running, started, not ended", sleep)
	}
}

// TestGetRunRawItemOutputs: get_run with raw shows the output of a foreach item that failed,
// whole, which says why it failed.
func TestGetRunRawItemOutputs(t *testing.T) {
	cs, _, st := storeServer(t, testRoot(t))
	r := call(t, cs, "run_dag", map[string]any{"yaml": `version: 1
name: items
nodes:
  check:
    type: exec
    foreach: [pass, fail]
    with:
      command: [echo, '{"status": "${{ item }}", "summary": "item said ${{ item }}", "data": {"why": "the item was ${{ item }}"}}']
`})
	id, _ := r.data()["id"].(string)
	if id == "" {
		t.Fatalf("run_dag: %v", r.env)
	}
	waitStatus(t, st, id, "failed")
	g := call(t, cs, "get_run", map[string]any{"id": id, "raw": true})
	var item1 map[string]any
	for _, a := range g.data()["attempts"].([]any) {
		if a := a.(map[string]any); a["item"] == float64(1) {
			item1 = a
		}
	}
	out, _ := item1["output"].(map[string]any)
	if data, _ := out["data"].(map[string]any); data["why"] != "the item was fail" {
		t.Errorf("raw get_run: item 1's attempt %v, want its output with data.why", item1)
	}
}

// TestGetRunOutputErrors: a run failed by a DAG output that could not be resolved says why
// in get_run's minimal answer, as run_dag's does.
func TestGetRunOutputErrors(t *testing.T) {
	root := t.TempDir()
	src := `version: 1
name: lost-output
nodes:
  a: {type: const, with: {value: {status: pass, summary: ok, data: {}}}}
outputs:
  code: "${{ nodes.a.output.data.code }}"
`
	if err := os.WriteFile(filepath.Join(root, "lost.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _, _ := storeServer(t, root)
	want := `${{ nodes.a.output.data.code }}: no field "code"`
	r := call(t, cs, "run_dag", map[string]any{"path": "lost.yaml", "wait": true, "no_lint": true})
	d := r.data()
	id, _ := d["id"].(string)
	for name, d := range map[string]map[string]any{"run_dag": d, "get_run": call(t, cs, "get_run", map[string]any{"id": id}).data()} {
		errs, _ := d["output_errors"].(map[string]any)
		if d["status"] != "failed" || errs["code"] != want {
			t.Errorf("%s: status %v, output_errors %v, want failed and code: %q", name, d["status"], d["output_errors"], want)
		}
	}
}
