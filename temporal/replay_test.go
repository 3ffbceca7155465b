package temporal

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/seam-dag/seam/dag"
)

// historiesDir holds histories of run workflows recorded on a Temporal server: every one must
// replay on the current workflow code, or the runs under way when a worker is upgraded fail.
const historiesDir = "testdata/histories"

// TestReplayHistories replays each stored history on the run workflow as it is now.
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
		})
	}
}

func quietLogger() log.Logger { return log.NewStructuredLogger(slog.New(slog.DiscardHandler)) }

// TestRecordHistories records the histories TestReplayHistories replays: with
// SEAM_RECORD_HISTORIES set to a Temporal server's address (`temporal server start-dev`), it
// runs a few DAG files there on a worker of its own and writes their histories to historiesDir.
// Record again only when a workflow change is versioned (workflow.GetVersion), keeping the old
// histories beside the new.
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
	wk := worker.New(c, queue, worker.Options{})
	w := NewWorker(WorkerOptions{Client: c, Store: openStore(t), Types: types(), Dir: t.TempDir()})
	w.Register(wk)
	if err := wk.Start(); err != nil {
		t.Fatal(err)
	}
	defer wk.Stop()
	// The DAG files run, by the name of their history file.
	dags := map[string]string{
		"replay":       "testdata/replay.yaml",
		"retry-repair": "../dags/retry-repair.yaml",
		"foreach":      "../dags/foreach.yaml",
	}
	for name, path := range dags {
		b, err := NewBundle(ctx, path, dag.LoadOptions{Types: types()})
		if err != nil {
			t.Fatal(err)
		}
		runID := "history-" + name
		in := RunInput{RunID: runID, File: filepath.Base(path), Bundle: b}
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: WorkflowID(runID), TaskQueue: queue}, WorkflowName, in)
		if err != nil {
			t.Fatal(err)
		}
		var res dag.RunResult
		if err := run.Get(ctx, &res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var h historypb.History
		it := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
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
		dst := filepath.Join(historiesDir, name+".json")
		if err := os.WriteFile(dst, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		var statuses []string
		for _, n := range res.Nodes {
			statuses = append(statuses, n.ID+" "+string(n.Status))
		}
		t.Logf("%s: run %s (%s), %d events", dst, res.Status, strings.Join(statuses, ", "), len(h.Events))
	}
}
