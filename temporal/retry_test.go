package temporal

import (
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/service"
)

// TestApprovalTaskRetried: the worker dies after recording a run's start and before
// completing the workflow task that ran it (here the task fails once, by a panic, as the
// first record after the begin is asked for): the next try runs the task again from a history
// without the start, at a later workflow.Now, and begins the run again. It finds the run
// begun by its own workflow and goes on: the run waits for its approval and ends with the
// answer, as a run whose task never failed.
func TestApprovalTaskRetried(t *testing.T) {
	var failed atomic.Bool
	svc, _, st := onTemporalWith(t, i18n.English, worker.Options{Interceptors: []interceptor.WorkerInterceptor{&dieOnce{failed: &failed}}})
	d, res := startWaiting(t, svc, gateDAG)
	if !failed.Load() {
		t.Fatal("the workflow task did not fail: the test tests nothing")
	}
	ctx := auth.With(t.Context(), alice)
	req := service.AnswerRequest{Run: res.ID, Node: "review", Decision: "approve", Through: service.ThroughCLI}
	if _, err := svc.Answer(ctx, req, loader(d), service.Request{}); err != nil {
		t.Fatal(err)
	}
	if r, _ := ended(t, st, res.ID); r.Status != dag.RunSuccess || string(r.Outputs) != `{"sent":"Thanks"}` {
		t.Errorf("run %s with outputs %s; want success, sent Thanks", r.Status, r.Outputs)
	}
}

// dieOnce fails, once per test, the workflow task that pauses a run for its approval, after
// it recorded the run (the begin, then the attempts, then the run waiting): the panic, in the
// workflow's code outside the engine, fails the task.
type dieOnce struct {
	interceptor.WorkerInterceptorBase
	failed *atomic.Bool
}

func (d *dieOnce) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &dieOnceIn{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, failed: d.failed}
}

type dieOnceIn struct {
	interceptor.WorkflowInboundInterceptorBase
	failed *atomic.Bool
}

func (i *dieOnceIn) Init(out interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&dieOnceOut{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: out}, failed: i.failed})
}

type dieOnceOut struct {
	interceptor.WorkflowOutboundInterceptorBase
	failed *atomic.Bool
	locals int
}

func (o *dieOnceOut) ExecuteLocalActivity(ctx workflow.Context, typ string, args ...any) workflow.Future {
	o.locals++
	return o.Next.ExecuteLocalActivity(ctx, typ, args...)
}

func (o *dieOnceOut) Await(ctx workflow.Context, ok func() bool) error {
	o.die(ctx)
	return o.Next.Await(ctx, ok)
}

func (o *dieOnceOut) AwaitWithTimeout(ctx workflow.Context, d time.Duration, ok func() bool) (bool, error) {
	o.die(ctx)
	return o.Next.AwaitWithTimeout(ctx, d, ok)
}

func (o *dieOnceOut) die(ctx workflow.Context) {
	if o.locals >= 2 && !workflow.IsReplaying(ctx) && o.failed.CompareAndSwap(false, true) {
		panic("the worker dies before completing the workflow task")
	}
}
