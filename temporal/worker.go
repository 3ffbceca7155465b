package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/nodes"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/workspace"
)

// WorkerOptions configure a Worker.
type WorkerOptions struct {
	// Client reads a run's bundle from its history when this worker runs an attempt of a run
	// whose workflow it has not hosted.
	Client client.Client
	// Store records the runs this worker hosts; nil records nothing.
	Store runs.Store
	// Types are the node types DAGs may use.
	Types *nodes.Registry
	// Getenv reads the variables DAGs declare under env, when an attempt runs.
	Getenv func(string) string
	// Dir is where bundles are written for attempts to run in; "" is a folder of the
	// worker's own in the system's temporary directory, removed by Close (a Dir given is left).
	Dir string
	// Logger receives what no run holds (a panic's stack); nil is slog.Default().
	Logger *slog.Logger
	// Tracer, when not nil, traces each attempt (seam.attempt), under the activity's span
	// when the client traces Temporal (Dial with a tracer); a node's processes get its
	// TRACEPARENT.
	Tracer trace.Tracer
}

// Worker hosts seam's run workflow and its activities; Register them with a Temporal worker.
type Worker struct {
	opts  WorkerOptions
	log   *slog.Logger
	files *workspace.Workspace // loads the bundles' DAGs with opts.Types

	// lease holds the leases of the runs this worker records, renewed until Close (keeping
	// stops it); nil without a store.
	lease   *runs.Leaser
	keeping context.CancelFunc

	mu      sync.Mutex
	bundles map[string]*Bundle   // by hash: those seen, for attempts to load
	loaded  map[string]*dag.DAG  // by hash: loaded from the written bundle, for attempts
	taken   map[string]time.Time // by run id: when this worker last took the run's lease
	tmp     string               // the folder made for Dir when none was given, once made
}

// MaxInlineOutput caps a node's output on Temporal when the worker has no store, in bytes:
// outputs travel in the workflow's history, whose payloads Temporal caps at 2 MB.
const MaxInlineOutput = 1 << 20

// ByReference is the size in bytes above which an output travels by reference when the
// worker has a store: the output is stored there (content-addressed) and the history carries
// its stub (engine.RefStub), so no payload in it comes near Temporal's 2 MB.
const ByReference = 256 << 10

// maxCached bounds the bundles a worker keeps in memory (each at most MaxBundle).
const maxCached = 64

// bundleRoot is where a workflow loads its bundle from: a name only, nothing is read there.
const bundleRoot = "/seam-bundle"

// NewWorker returns a Worker.
func NewWorker(opts WorkerOptions) *Worker {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	// Unconfined and reading no variable, New cannot fail: the bundles' files are read from
	// the bundles, not the worker's disk.
	files, _ := workspace.New(workspace.Options{Types: func(*workspace.Workspace) *nodes.Registry { return opts.Types }})
	w := &Worker{opts: opts, log: opts.Logger, files: files, bundles: map[string]*Bundle{}, loaded: map[string]*dag.DAG{}, taken: map[string]time.Time{}}
	if opts.Store != nil {
		w.lease = runs.NewLeaser(opts.Store, nil)
		ctx, cancel := context.WithCancel(context.Background())
		w.keeping = cancel
		go w.lease.Keep(ctx, func(err error) {
			w.log.Warn("seam worker: renew the leases of the runs it hosts; they read interrupted if it keeps failing", "error", err)
		})
	}
	return w
}

// SDKWorkerOptions are the options of the Temporal worker that hosts a Worker, running at
// most concurrency attempts at once. A workflow task may take as many of its attempts
// eagerly (on this worker, without a trip through the task queue) as the worker has free
// slots, not the SDK's 3: a fan-out then costs the server half the CPU; what does not fit
// goes through the task queue to other workers (docs/performance.md).
func SDKWorkerOptions(concurrency int) worker.Options {
	return worker.Options{
		MaxConcurrentActivityExecutionSize:          concurrency,
		MaxConcurrentLocalActivityExecutionSize:     concurrency,
		MaxEagerActivityReservationsPerWorkflowTask: &concurrency,
		// Heartbeats go out as attempts send them, not batched over 80% of their timeout:
		// their answers bring a canceled run's cancellation to its attempts.
		MaxHeartbeatThrottleInterval: time.Second,
		// A workflow task runs a run's pure nodes at once: up to the ~10,000 nodes a 1 MiB
		// bundle holds, about a second on a loaded machine, which the SDK's default 1 s would
		// take for a deadlock. Workflow tasks still time out at the server's 10 s.
		DeadlockDetectionTimeout: 5 * time.Second,
	}
}

// Registry is where a Worker registers: a Temporal worker.Worker.
type Registry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Register registers the run workflow and the attempt activity with r.
func (w *Worker) Register(r Registry) {
	r.RegisterWorkflowWithOptions(w.run, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivityWithOptions(w.attempt, activity.RegisterOptions{Name: attemptActivity})
}

// keep remembers b for the attempts this worker runs.
func (w *Worker) keep(b *Bundle) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.bundles[b.Hash]; ok {
		return
	}
	if len(w.bundles) >= maxCached {
		for h := range w.bundles { // any one: a bundle evicted is read again if needed
			delete(w.bundles, h)
			delete(w.loaded, h)
			break
		}
	}
	w.bundles[b.Hash] = b
}

// attempt is the attempt activity: it runs one attempt of a node, judged here.
func (w *Worker) attempt(ctx context.Context, in AttemptInput) (engine.AttemptOutcome, error) {
	d, err := w.dag(ctx, in.Bundle)
	if err != nil {
		return engine.AttemptOutcome{}, temporal.NewNonRetryableApplicationError(err.Error(), errBundle, nil)
	}
	// Heartbeats tell Temporal this worker is alive, and bring it the run's cancellation.
	hctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-hctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	if w.opts.Tracer != nil {
		var span trace.Span
		ctx, span = w.opts.Tracer.Start(ctx, "seam.attempt", trace.WithAttributes(
			attribute.String("seam.run_id", in.Run),
			attribute.String("seam.node", in.Request.Node),
			attribute.Int("seam.attempt", in.Request.Attempt),
		))
		defer span.End()
	}
	var fetch engine.Fetch
	if w.opts.Store != nil {
		fetch = w.opts.Store.Output
	}
	var live dag.LogRecorder // what the attempt prints, for the run's watchers
	if in.Record && w.opts.Store != nil {
		ended := make(chan struct{})
		defer close(ended)
		go w.recordStart(ctx, d, in, time.Now(), ended)
		live = w.recorder(runs.RecorderOptions{Session: in.Session})
	}
	o := engine.AttemptLive(ctx, d, in.Request, w.opts.Getenv, fetch, w.log.With("run", in.Run), in.Run, live)
	if w.opts.Store != nil && len(o.Output) > ByReference {
		// Validated on the whole output already; the workflow sees its stub.
		h, err := w.opts.Store.PutOutput(ctx, o.Output)
		if err != nil {
			o.Output, o.Valid, o.Violations = nil, false, nil
			o.Reason = i18n.Sprintf(in.Request.Lang, "store the output by reference: %v", err)
			o.Err = o.Reason
		} else {
			o.Output, o.OutputHash = engine.RefStub(o.Output, h), h
		}
	}
	if len(o.Output) > MaxInlineOutput {
		// Temporal refuses a result over 2 MB, and would retry the attempt for ever.
		o.Output, o.Valid, o.Violations = nil, false, nil
		o.Reason = i18n.Sprintf(in.Request.Lang, "the output is over the %d bytes a run on Temporal carries (docs/temporal.md)", MaxInlineOutput)
		o.Err = o.Reason
	}
	switch {
	case o.Canceled, o.Valid:
		return o, nil
	case o.Reason != "":
		return o, nodeError(o.Reason, errNodeFailed, o)
	default:
		return o, nodeError(fmt.Sprintf("output of %s breaks its contract", in.Request.Node), errContract, o)
	}
}

// recordStart records the start of the attempt in, as the embedded engine does: once it has
// run for engine.StartDelay, unless it ended first. Its finish, recorded by the workflow,
// may be committed before it; the store shows the finish all the same (runs.Attempt.IsStart).
func (w *Worker) recordStart(ctx context.Context, d *dag.DAG, in AttemptInput, since time.Time, ended <-chan struct{}) {
	t := time.NewTimer(engine.StartDelay)
	defer t.Stop()
	select {
	case <-ended:
		return
	case <-t.C:
	}
	req := in.Request
	typ := ""
	if req.Index >= 0 && req.Index < len(d.Nodes) {
		typ = d.Nodes[req.Index].Type.Name()
	}
	w.take(ctx, in.Run)
	rec := w.recorder(runs.RecorderOptions{Session: in.Session})
	err := rec.RecordAttempts(ctx, []dag.AttemptRecord{{
		RunID: in.Run, Node: req.Node, Type: typ, Attempt: req.Attempt, Item: req.Item,
		Status: dag.NodeRunning, Started: since,
	}})
	if err != nil {
		// Only what a watcher sees meanwhile is lost: the attempt goes on and is recorded.
		w.log.Warn("seam worker: record the start of an attempt", "run", in.Run, "node", req.Node, "error", err)
	}
}

// nodeError is the failure of an attempt that ran and failed, or whose output broke its
// contract: never retried by Temporal, carrying the outcome, and benign, since nodes fail in
// the normal course of things (the SDK logs it at debug level, not as an error).
func nodeError(msg, typ string, o engine.AttemptOutcome) error {
	return temporal.NewApplicationErrorWithOptions(msg, typ, temporal.ApplicationErrorOptions{
		NonRetryable: true, Details: []any{o}, Category: temporal.ApplicationErrorCategoryBenign,
	})
}

// dag returns the DAG of the bundle hash, written under the worker's folder and loaded.
func (w *Worker) dag(ctx context.Context, hash string) (*dag.DAG, error) {
	w.mu.Lock()
	d, b := w.loaded[hash], w.bundles[hash]
	w.mu.Unlock()
	if d != nil {
		return d, nil
	}
	if b == nil {
		var err error
		if b, err = w.fetch(ctx, hash); err != nil {
			return nil, err
		}
		w.keep(b)
	}
	dir, err := w.dir()
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", hash, err)
	}
	at := filepath.Join(dir, hash)
	if err := b.Write(at); err != nil {
		return nil, err
	}
	// Loaded from the bundle, where a file named by its absolute path is found too; exec
	// nodes run in the folder written.
	d, err = b.Load(ctx, at, w.files.LoadWith)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", hash, err)
	}
	w.mu.Lock()
	if _, ok := w.bundles[hash]; ok {
		w.loaded[hash] = d
	}
	w.mu.Unlock()
	return d, nil
}

// dir is where bundles are written: Dir, or a folder of the worker's own made on first use.
func (w *Worker) dir() (string, error) {
	if w.opts.Dir != "" {
		return w.opts.Dir, os.MkdirAll(w.opts.Dir, 0o755)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tmp == "" {
		d, err := os.MkdirTemp("", "seam-bundles-")
		if err != nil {
			return "", err
		}
		w.tmp = d
	}
	return w.tmp, nil
}

// Close removes the folder the worker made for bundles, if it made one. Call it once the
// Temporal worker hosting it has stopped.
func (w *Worker) Close() error {
	if w.keeping != nil {
		w.keeping()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tmp == "" {
		return nil
	}
	err := os.RemoveAll(w.tmp)
	w.tmp = ""
	return err
}

// fetch reads the bundle hash from the input of the workflow whose attempt ctx is.
func (w *Worker) fetch(ctx context.Context, hash string) (*Bundle, error) {
	if w.opts.Client == nil {
		return nil, fmt.Errorf("bundle %s: not seen by this worker, which has no client to read it", hash)
	}
	ex := activity.GetInfo(ctx).WorkflowExecution
	it := w.opts.Client.GetWorkflowHistory(ctx, ex.ID, ex.RunID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return nil, fmt.Errorf("bundle %s: the history of %s is empty", hash, ex.ID)
	}
	ev, err := it.Next()
	if err != nil {
		return nil, fmt.Errorf("bundle %s: read the history of %s: %w", hash, ex.ID, err)
	}
	start := ev.GetWorkflowExecutionStartedEventAttributes()
	if start == nil {
		return nil, fmt.Errorf("bundle %s: the history of %s does not start with the workflow's input", hash, ex.ID)
	}
	var in RunInput
	if err := converter.GetDefaultDataConverter().FromPayloads(start.GetInput(), &in); err != nil {
		return nil, fmt.Errorf("bundle %s: decode the input of %s: %w", hash, ex.ID, err)
	}
	if err := in.Bundle.Check(); err != nil {
		return nil, err
	}
	if in.Bundle.Hash != hash {
		return nil, fmt.Errorf("bundle %s: the run %s holds bundle %s", hash, ex.ID, in.Bundle.Hash)
	}
	return in.Bundle, nil
}

// The local activities that record a run, on the worker hosting its workflow. A run on
// Temporal is recorded with no process of its own (pid -1): it goes on when one worker dies.
// Its lease is held by a worker that records it, renewed while that worker lives; the one
// that takes up the workflow of a dead one takes the lease at its next record (take).
func (w *Worker) recorder(o runs.RecorderOptions) *runs.Recorder {
	o.PID, o.Host, o.Lease = -1, runs.HostTemporal, w.lease
	return runs.NewRecorder(w.opts.Store, nil, o)
}

// take takes run id's lease for this worker unless it took it less than runs.LeaseRenew
// ago: a worker hosting a run records it often, and its renewals keep the lease meanwhile.
// Another worker may have taken it since (a workflow moves when its worker dies, an attempt
// runs where there is room); the one that took it last holds it. A lease not taken is
// logged, not failed: the run goes on, and the next record takes it.
func (w *Worker) take(ctx context.Context, id string) {
	now := time.Now()
	w.mu.Lock()
	last, ok := w.taken[id]
	if !ok || now.Sub(last) >= runs.LeaseRenew {
		w.taken[id] = now
		for r, at := range w.taken { // runs finished elsewhere, or long idle here
			if now.Sub(at) > runs.LeaseFor {
				delete(w.taken, r)
			}
		}
	}
	w.mu.Unlock()
	if ok && now.Sub(last) < runs.LeaseRenew {
		return
	}
	if err := w.lease.Take(ctx, id); err != nil {
		w.log.Warn("seam worker: take the lease of a run", "run", id, "error", err)
	}
}

// taken forgets run id, which has finished.
func (w *Worker) forget(id string) {
	w.mu.Lock()
	delete(w.taken, id)
	w.mu.Unlock()
}

// begin records the run's start, or its resume, and returns its session. A begin may be
// tried again after its first try committed: its local activity timed out on a busy store
// without saying so, or the worker died before completing the workflow task that ran it
// (say, one that paused the run for an approval, or resumed it with the answer), and the next
// worker runs that task again from its history, where the begin is not, at a later
// workflow.Now. The retry finds the run there, begun by this same workflow (see begun).
func (w *Worker) begin(ctx context.Context, in BeginInput) (int, error) {
	rec := w.recorder(runs.RecorderOptions{Resume: in.Run.Resumed, Resumes: in.Resumes})
	w.mu.Lock()
	w.taken[in.Run.ID] = time.Now() // BeginRun takes it
	w.mu.Unlock()
	if err := rec.BeginRun(ctx, in.Run); err != nil {
		if session, ok := w.begun(ctx, in, err); ok {
			if err := w.lease.Take(ctx, in.Run.ID); err != nil {
				w.log.Warn("seam worker: take the lease of a run", "run", in.Run.ID, "error", err)
			}
			return session, nil
		}
		return 0, err
	}
	return rec.Session(), nil
}

// begun reports whether the store holds in's run as this workflow began it, and its session.
// The run id is drawn from what names the workflow, of which one execution is open at a time.
// A start: the run's start falls within this execution (since it started, no later than
// this try's start); a start time of its own would not do, as each try of the task takes
// workflow.Now anew. A resume (refused, as resumed meanwhile): the run is running on
// Temporal, one resume past in's, which only this workflow's resume does to a run that
// waited in it.
func (w *Worker) begun(ctx context.Context, in BeginInput, err error) (int, bool) {
	r, _, gerr := w.opts.Store.GetRun(ctx, in.Run.ID)
	if gerr != nil || r.Host != runs.HostTemporal || r.DAG != in.Run.DAG {
		return 0, false
	}
	if in.Run.Resumed {
		ok := errors.Is(err, runs.ErrResumed) && r.Status == dag.RunRunning && r.Resumes == in.Resumes+1
		return r.Resumes, ok
	}
	return 0, !r.Started.Before(in.Since) && !r.Started.After(in.Run.Started)
}

func (w *Worker) record(ctx context.Context, in RecordInput) error {
	if len(in.Batch) > 0 {
		w.take(ctx, in.Batch[0].RunID)
	}
	return w.recorder(runs.RecorderOptions{Session: in.Session}).RecordAttempts(ctx, in.Batch)
}

func (w *Worker) finish(ctx context.Context, in FinishInput) error {
	defer w.forget(in.Result.ID)
	return w.recorder(runs.RecorderOptions{Session: in.Session, Decided: in.Decided}).FinishRun(ctx, in.Result)
}
