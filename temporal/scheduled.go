package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// scheduledStartKey is the search attribute in which a Temporal Schedule gives the workflow
// it starts its scheduled (nominal, before jitter) time.
var scheduledStartKey = temporal.NewSearchAttributeKeyTime("TemporalScheduledStartTime")

// scheduled makes in the run of the time of schedule in.Trigger that a Temporal Schedule
// started this workflow for: its run id (the workflow's), its fire and the trigger's params
// for the time. It returns false when the time starts no run, by seam's rules where
// Temporal's differ: a time that is not one of the trigger's by seam's cron (the second
// time of a wall time that clocks falling back repeat) ends without a word; a time whose
// params the trigger cannot make is recorded missed, with why.
func (w *Worker) scheduled(ctx workflow.Context, in *RunInput, d *dag.DAG) (bool, error) {
	in.RunID = strings.TrimPrefix(workflow.GetInfo(ctx).WorkflowExecution.ID, WorkflowID(""))
	t, ok := workflow.GetTypedSearchAttributes(ctx).GetTime(scheduledStartKey)
	if !ok {
		return false, temporal.NewNonRetryableApplicationError(i18n.Sprintf(in.Lang, "run %s of schedule %s has no scheduled time (TemporalScheduledStartTime): only its Temporal Schedule starts it", in.RunID, in.Trigger), errRefused, nil)
	}
	t = t.UTC()
	var tr *dag.Trigger
	for _, x := range d.Triggers {
		if x.ID == in.Trigger && x.Scheduled() {
			tr = x
		}
	}
	if tr == nil {
		return false, temporal.NewNonRetryableApplicationError(i18n.Sprintf(in.Lang, "DAG %s has no schedule %s: run seam schedule sync", d.Name, in.Trigger), errRefused, nil)
	}
	ts, err := service.Times(tr, t.Add(-time.Nanosecond), 1, in.Lang)
	if err != nil {
		return false, temporal.NewNonRetryableApplicationError(err.Error(), errRefused, nil)
	}
	if len(ts) == 0 || !ts[0].Equal(t) {
		return false, nil
	}
	miss := func(note string) (bool, error) {
		f := runs.Fire{DAG: d.Name, Trigger: tr.ID, Scheduled: t, Decision: runs.FireMissed, At: workflow.Now(ctx), Note: note}
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: 2 * time.Minute, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1},
		})
		return false, workflow.ExecuteLocalActivity(lctx, w.missed, f).Get(lctx, nil)
	}
	params, err := service.ScheduledParams(tr, t, in.Lang)
	if err == nil {
		in.Params, err = json.Marshal(params)
	}
	if err != nil {
		return miss(err.Error())
	}
	in.Fired = &dag.Fired{Trigger: tr.ID, Scheduled: t}
	return true, nil
}

// missed records a time of a schedule that starts no run (the missed local activity), when
// the worker has a store that keeps fires; a time decided already keeps its decision.
func (w *Worker) missed(ctx context.Context, f runs.Fire) error {
	fires, ok := w.opts.Store.(runs.Fires)
	if !ok {
		return nil
	}
	if err := fires.RecordFire(ctx, f); err != nil && !errors.Is(err, runs.ErrFired) {
		return err
	}
	return nil
}
