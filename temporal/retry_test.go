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

// TestApprovalTaskRetried: the worker dies after recording a run and before completing the
// workflow task that did (here the task fails once, by a panic in the workflow's code outside
// the engine): the next try runs the task again from a history without those records, at a
// later workflow.Now, and records them again. Its begin finds the run begun (or resumed) by
// its own workflow and goes on, and the run ends with the answer as a run whose task never
// failed: when the task that paused the run dies, and when the one that resumed it with the
// answer does (its begin, a resume, then finds the run resumed by its own workflow).
func TestApprovalTaskRetried(t *testing.T) {
	tests := []struct {
		name string
		at   dieAt
	}{
		{"the task that paused the run", atPause},
		{"the task that resumed the run with the answer", atResume},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			die := &dieOnce{at: tt.at}
			svc, _, st := onTemporalWith(t, i18n.English, worker.Options{Interceptors: []interceptor.WorkerInterceptor{die}})
			d, res := startWaiting(t, svc, gateDAG)
			ctx := auth.With(t.Context(), alice)
			req := service.AnswerRequest{Run: res.ID, Node: "review", Decision: "approve", Through: service.ThroughCLI}
			if _, err := svc.Answer(ctx, req, loader(d), service.Request{}); err != nil {
				t.Fatal(err)
			}
			r, _ := ended(t, st, res.ID)
			if !die.failed.Load() {
				t.Fatal("the workflow task did not fail: the test tests nothing")
			}
			if r.Status != dag.RunSuccess || string(r.Outputs) != `{"sent":"Thanks"}` || r.Resumes != 1 {
				t.Errorf("run %s with outputs %s, resumed %d times; want success, sent Thanks, once", r.Status, r.Outputs, r.Resumes)
			}
		})
	}
}

// dieAt says where dieOnce fails the workflow task.
type dieAt int

const (
	// atPause: as the run waits for its answer, once the run is recorded (the begin, then
	// the attempts, then the run waiting).
	atPause dieAt = iota
	// atResume: as the resume after the answer starts its first activity (the answered
	// approval's attempt), once the resume is recorded.
	atResume
)

// dieOnce fails one workflow task, the first to reach its point.
type dieOnce struct {
	interceptor.WorkerInterceptorBase
	at     dieAt
	failed atomic.Bool
}

func (d *dieOnce) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &dieOnceIn{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, d: d}
}

type dieOnceIn struct {
	interceptor.WorkflowInboundInterceptorBase
	d *dieOnce
}

func (i *dieOnceIn) Init(out interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&dieOnceOut{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: out}, d: i.d})
}

type dieOnceOut struct {
	interceptor.WorkflowOutboundInterceptorBase
	d      *dieOnce
	locals int
}

func (o *dieOnceOut) ExecuteLocalActivity(ctx workflow.Context, typ string, args ...any) workflow.Future {
	o.locals++
	return o.Next.ExecuteLocalActivity(ctx, typ, args...)
}

func (o *dieOnceOut) ExecuteActivity(ctx workflow.Context, typ string, args ...any) workflow.Future {
	o.d.die(ctx, atResume)
	return o.Next.ExecuteActivity(ctx, typ, args...)
}

func (o *dieOnceOut) Await(ctx workflow.Context, ok func() bool) error {
	if o.locals >= 2 {
		o.d.die(ctx, atPause)
	}
	return o.Next.Await(ctx, ok)
}

func (o *dieOnceOut) AwaitWithTimeout(ctx workflow.Context, timeout time.Duration, ok func() bool) (bool, error) {
	if o.locals >= 2 {
		o.d.die(ctx, atPause)
	}
	return o.Next.AwaitWithTimeout(ctx, timeout, ok)
}

func (d *dieOnce) die(ctx workflow.Context, at dieAt) {
	if d.at == at && !workflow.IsReplaying(ctx) && d.failed.CompareAndSwap(false, true) {
		panic("the worker dies before completing the workflow task")
	}
}
