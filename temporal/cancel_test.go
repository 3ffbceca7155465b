package temporal

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/temporaltest"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// TestCancelPending: a run that no worker has taken (none polls its task queue) is not in
// the store; the service cancels it on Temporal all the same, ending its workflow, and
// records it canceled, with what a resume needs. A run Temporal does not know either is not
// found.
func TestCancelPending(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	ctx := context.Background()
	path := writeDAG(t, "version: 1\nname: pending\nparams: {type: object}\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: a}}}\n")
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Client: c, TaskQueue: temporaltest.Queue()}
	runID := engine.NewRunID(time.Now())
	if _, err := e.Start(ctx, d, engine.RunOptions{RunID: runID, Params: map[string]any{"x": "y"}}); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	svc := service.New(service.Options{Store: st, Elsewhere: e})
	if err := svc.Cancel(ctx, runID); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	r, _, err := st.GetRun(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != dag.RunCanceled || r.DAG != "pending" || r.File != path || r.FileHash != d.Hash || string(r.Params) != `{"x":"y"}` || r.Host != runs.HostTemporal || r.Started.IsZero() {
		t.Errorf("recorded %+v", r)
	}
	desc, err := c.DescribeWorkflowExecution(ctx, WorkflowID(runID), "")
	if err != nil {
		t.Fatal(err)
	}
	if s := desc.GetWorkflowExecutionInfo().GetStatus(); s != enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED {
		t.Errorf("the workflow is %s, want terminated", s)
	}
	// Ended: it is now the store's, which says it finished.
	var nr *service.NotRunningError
	if err := svc.Cancel(ctx, runID); !errors.As(err, &nr) {
		t.Errorf("Cancel again: %v", err)
	}
	var nf *service.NotFoundError
	if err := svc.Cancel(ctx, engine.NewRunID(time.Now())); !errors.As(err, &nf) {
		t.Errorf("Cancel of a run Temporal does not know: %v", err)
	}
}

// TestCancelPendingNotRecorded: a run no worker has taken, canceled through a Service whose
// store refuses to write, is ended on Temporal and the cancel says it is not recorded.
func TestCancelPendingNotRecorded(t *testing.T) {
	c := temporaltest.Client(t, client.Options{})
	ctx := context.Background()
	path := writeDAG(t, "version: 1\nname: pending\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: a}}}\n")
	d, err := dag.Load(ctx, path, dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Client: c, TaskQueue: temporaltest.Queue()}
	db := filepath.Join(t.TempDir(), "seam.db")
	st, err := runs.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	ro, err := runs.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for _, lang := range []i18n.Lang{"en", "ja"} {
		runID := engine.NewRunID(time.Now())
		if _, err := e.Start(ctx, d, engine.RunOptions{RunID: runID}); err != nil {
			t.Fatal(err)
		}
		want := map[i18n.Lang]string{
			"en": "run " + runID + ": canceled before a worker took it, but not recorded: ",
			"ja": "実行 " + runID + ": ワーカーが受け取る前にキャンセルしましたが、記録できませんでした: ",
		}[lang]
		err := service.New(service.Options{Store: ro, Elsewhere: e, Lang: lang}).Cancel(ctx, runID)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: Cancel: %v, want %q…", lang, err, want)
		}
		desc, err := c.DescribeWorkflowExecution(ctx, WorkflowID(runID), "")
		if err != nil {
			t.Fatal(err)
		}
		if s := desc.GetWorkflowExecutionInfo().GetStatus(); s != enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED {
			t.Errorf("%s: the workflow is %s, want terminated", lang, s)
		}
	}
}
