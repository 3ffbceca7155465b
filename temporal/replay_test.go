package temporal

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/service"
)

// historiesDir holds histories of run workflows recorded on a Temporal server: every one must
// replay on the current workflow code, or the runs under way when a worker is upgraded fail.
const historiesDir = "testdata/histories"

// historyToken is the value of SEAM_TEST_TOKEN, which testdata/secrets.yaml reads, when a
// history is recorded: no history may hold it.
const historyToken = "h1story-t0ken-value"

// TestReplayHistories replays each stored history on the run workflow as it is now, and checks
// that none holds the secret its run read.
func TestReplayHistories(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(historiesDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Skipf("no histories in %s: record them on a Temporal server with SEAM_RECORD_HISTORIES=HOST:PORT go test -run TestRecordHistories ./temporal/", historiesDir)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			// The store makes the workflow record, through the same local activities as when
			// the history was made; a replay takes their results from the history.
			w := NewWorker(WorkerOptions{Store: openStore(t), Types: types(), Dir: t.TempDir()})
			r.RegisterWorkflowWithOptions(w.run, workflow.RegisterOptions{Name: WorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), path); err != nil {
				t.Fatalf("replay %s: %v", path, err)
			}
			if s := holding(t, path, historyToken); s != "" {
				t.Errorf("%s holds the secret: %s", path, s)
			}
		})
	}
}

func quietLogger() log.Logger { return log.NewStructuredLogger(slog.New(slog.DiscardHandler)) }

// TestRecordHistories records the histories TestReplayHistories replays: with
// SEAM_RECORD_HISTORIES set to a Temporal server's address (`temporal server start-dev`), it
// runs a few DAG files there on a worker of its own and writes their histories to historiesDir.
// Record again only when a workflow change is versioned (workflow.GetVersion), keeping the old
// histories beside the new; SEAM_RECORD_ONLY=NAME records only the history NAME.
// "continue-as-new" needs a server that suggests continue-as-new after 40 events
// (testdata/histories/README.md): it writes the run's first history and its last.
func TestRecordHistories(t *testing.T) {
	addr := os.Getenv("SEAM_RECORD_HISTORIES")
	if addr == "" {
		t.Skip("SEAM_RECORD_HISTORIES is not set: nothing is recorded")
	}
	ctx := context.Background()
	c, err := client.Dial(client.Options{HostPort: addr, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const queue = "seam-record-histories"
	getenv := func(name string) string {
		if name == "SEAM_TEST_TOKEN" {
			return historyToken
		}
		return ""
	}
	// One worker hosts the workflows, another the attempts: the second reads each bundle
	// from the run's history, as a worker that did not start the run does.
	flows, attempts := worker.New(c, queue, worker.Options{}), worker.New(c, queue, worker.Options{})
	host := NewWorker(WorkerOptions{Client: c, Store: openStore(t), Types: types(), Dir: t.TempDir()})
	flows.RegisterWorkflowWithOptions(host.run, workflow.RegisterOptions{Name: WorkflowName})
	runner := NewWorker(WorkerOptions{Client: c, Types: types(), Dir: t.TempDir(), Getenv: getenv})
	attempts.RegisterActivityWithOptions(runner.attempt, activity.RegisterOptions{Name: attemptActivity})
	for _, wk := range []worker.Worker{flows, attempts} {
		if err := wk.Start(); err != nil {
			t.Fatal(err)
		}
		defer wk.Stop()
	}
	// The DAG files run, by the name of their history file; cancel cancels the run once
	// the node it names runs; answer approves the approval it names once the run waits.
	dags := []struct{ name, path, cancel, answer string }{
		{"replay", "testdata/replay.yaml", "", ""},
		{"retry-repair", "../dags/retry-repair.yaml", "", ""},
		{"foreach", "../dags/foreach.yaml", "", ""},
		{"cancel", "testdata/cancel.yaml", "slow", ""},
		{"timeout", "testdata/timeout.yaml", "", ""},
		{"secrets", "testdata/secrets.yaml", "", ""},
		{"sub-dag", "../dags/sub-dag.yaml", "", ""},
		{"continue-as-new", "testdata/continue.yaml", "", ""},
		{"approval", "../dags/approval.yaml", "", "review"},
	}
	for _, tt := range dags {
		name, path := tt.name, tt.path
		if only := os.Getenv("SEAM_RECORD_ONLY"); only != "" && only != name {
			continue
		}
		b, err := newBundle(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		runID := "history-" + name
		in := RunInput{RunID: runID, File: filepath.Base(path), Bundle: b}
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: WorkflowID(runID), TaskQueue: queue}, WorkflowName, in)
		if err != nil {
			t.Fatal(err)
		}
		first := run.GetRunID() // Get moves run on to the latest run of the workflow
		if tt.cancel != "" {
			waitRunning(t, c, run, tt.cancel)
			if err := c.CancelWorkflow(ctx, run.GetID(), run.GetRunID()); err != nil {
				t.Fatal(err)
			}
		}
		if tt.answer != "" {
			eng := &Engine{Client: c}
			for paused := (*dag.RunResult)(nil); paused == nil; time.Sleep(50 * time.Millisecond) {
				if v, err := c.QueryWorkflow(ctx, run.GetID(), "", PausedQuery); err == nil {
					_ = v.Get(&paused) // nil until the run waits
				}
			}
			req := service.AnswerRequest{Run: runID, Node: tt.answer, Decision: "approve", Through: service.ThroughCLI}
			if _, err := eng.AnswerRun(ctx, req, &auth.Principal{Name: "alice"}); err != nil {
				t.Fatal(err)
			}
		}
		var res dag.RunResult
		if err := run.Get(ctx, &res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		histories := map[string]string{name: first}
		if name == "continue-as-new" {
			histories[name+"-last"] = "" // the latest run of the workflow
		}
		for file, runID := range histories {
			n := writeHistory(t, c, run.GetID(), runID, filepath.Join(historiesDir, file+".json"))
			var statuses []string
			for _, n := range res.Nodes {
				statuses = append(statuses, n.ID+" "+string(n.Status))
			}
			t.Logf("%s: run %s (%s), %d events", file, res.Status, strings.Join(statuses, ", "), n)
		}
	}
}

// writeHistory writes the history of run runID of workflow id to dst and returns its length.
func writeHistory(t *testing.T, c client.Client, id, runID, dst string) int {
	t.Helper()
	var h historypb.History
	it := c.GetWorkflowHistory(context.Background(), id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	out, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(&h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return len(h.Events)
}

// holding returns the first string in the JSON file at path that holds secret, as it is or
// in a base64 payload, or "".
func holding(t *testing.T, path, secret string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any) string
	walk = func(v any) string {
		switch v := v.(type) {
		case string:
			if d, err := base64.StdEncoding.DecodeString(v); err == nil && strings.Contains(string(d), secret) || strings.Contains(v, secret) {
				return v
			}
		case map[string]any:
			for _, e := range v {
				if s := walk(e); s != "" {
					return s
				}
			}
		case []any:
			for _, e := range v {
				if s := walk(e); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return walk(v)
}

// waitRunning waits until the progress query says the node id runs.
func waitRunning(t *testing.T, c client.Client, run client.WorkflowRun, id string) {
	t.Helper()
	for range 300 {
		v, err := c.QueryWorkflow(context.Background(), run.GetID(), run.GetRunID(), ProgressQuery)
		if err != nil {
			t.Fatal(err)
		}
		var nodes []dag.NodeResult
		if err := v.Get(&nodes); err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if n.ID == id && n.Status == dag.NodeRunning {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not start", id)
}
