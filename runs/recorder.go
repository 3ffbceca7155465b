package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
)

// writeTimeout bounds each write of a Recorder. Writes ignore the run's cancellation (a
// canceled run must still be recorded as such), so this and the busy timeout are what stop a
// write that cannot finish. A PostgreSQL store retries a lost connection for its RetryFor
// first, and says so when it gives up (see retrier).
const writeTimeout = 30 * time.Second

// retrier is a store that retries writes for a time of its own, which a write's deadline
// must leave room for.
type retrier interface{ retryBound() time.Duration }

// Recorder records one run of a DAG into a Store as it happens: it implements dag.Recorder.
// Like the engine's calls to it, it is not safe for concurrent use.
type Recorder struct {
	s       Store
	d       *dag.DAG
	resume  bool
	resumes int
	pid     int
	host    string
	lease   *Leaser

	runID   string
	session int
	// decided holds the nodes whose final attempt was recorded in this session, so that
	// FinishRun records the final state of the others (skipped, failed before running).
	decided map[string]bool
	buf     []Attempt // RecordAttempts' batch
}

// HostTemporal is the host recorded for the runs on Temporal: they have no process of their
// own (PID -1), and go on when a worker dies.
const HostTemporal = "temporal"

// RecorderOptions configure a Recorder.
type RecorderOptions struct {
	// Resume continues the stored run of the same id (engine.RunOptions.Reuse) instead of
	// creating one; Resumes is the run's Resumes as read when deciding to resume it.
	Resume  bool
	Resumes int
	// PID and Host identify the recording process; they default to this process and host.
	PID  int
	Host string
	// Session is the resume session an earlier Recorder of the same run began (its
	// Session), for a Recorder made per write (a run on Temporal).
	Session int
	// Decided are the nodes whose final attempt an earlier Recorder of the same run recorded:
	// FinishRun leaves their state as it is (a run on Temporal is recorded by one Recorder
	// per write).
	Decided []string
	// Lease, when not nil, takes the run's lease (and its sub-runs') as BeginRun records
	// it; its owner keeps it (Leaser.Keep). Nil records the run without a lease, which only
	// the check of its process then tells dead.
	Lease *Leaser
}

// NewRecorder returns a recorder of runs of d into s.
func NewRecorder(s Store, d *dag.DAG, opts RecorderOptions) *Recorder {
	if opts.PID == 0 {
		opts.PID = os.Getpid()
	}
	if opts.Host == "" {
		opts.Host, _ = os.Hostname() // no host name: stale runs are just not detected
	}
	r := &Recorder{s: s, d: d, resume: opts.Resume, resumes: opts.Resumes, pid: opts.PID, host: opts.Host, lease: opts.Lease, session: opts.Session, decided: map[string]bool{}}
	for _, id := range opts.Decided {
		r.decided[id] = true
	}
	return r
}

var _ dag.Recorder = (*Recorder)(nil)

// BeginRun creates the run, or marks it running again when resuming.
func (r *Recorder) BeginRun(ctx context.Context, run dag.RunRecord) error {
	ctx, cancel := r.writeContext(ctx)
	defer cancel()
	r.runID = run.ID
	if r.resume || run.Resumed {
		session, err := r.s.ResumeRun(ctx, run.ID, r.resumes, r.pid, r.host)
		if err != nil {
			return err
		}
		r.session = session
		if r.lease != nil {
			if err := r.lease.Take(ctx, run.ID); err != nil {
				return err
			}
		}
		return r.s.RecordAction(ctx, run.ID, Action{Kind: ActionResume, By: run.By, At: run.Started})
	}
	var params json.RawMessage
	if run.Params != nil {
		b, err := json.Marshal(run.Params)
		if err != nil {
			return fmt.Errorf("record run %s: encode params: %w", run.ID, err)
		}
		params = b
	}
	// An absolute path lets `seam run --resume` and `seam explain` find the file again from
	// any directory.
	file := run.File
	if file != "" {
		if abs, err := filepath.Abs(file); err == nil {
			file = abs
		}
	}
	rec := Run{
		ID: run.ID, DAG: run.DAG, File: file, FileHash: run.FileHash, Params: params,
		Status: dag.RunRunning, Started: run.Started, PID: r.pid, Host: r.host,
		Parent: run.Parent, ParentNode: run.ParentNode, StartedBy: run.By,
		Trigger: run.Fired.Trigger, Scheduled: run.Fired.Scheduled, TriggerKey: run.Fired.Key,
		FireManual: run.Fired.Manual, FireNote: run.Fired.Note,
	}
	if r.lease != nil {
		rec.LeaseOwner, rec.LeaseUntil = r.lease.Owner(), r.lease.Until()
	}
	return r.s.CreateRun(ctx, rec)
}

// Session is the run's session in the store: 0 for its first, one more for each resume; set
// by BeginRun.
func (r *Recorder) Session() int { return r.session }

var _ dag.SubRecorder = (*Recorder)(nil)

// Sub returns the recorder of a sub-run of d into the same store, by the same process: the
// sub-run is a run of its own, linked to its parent by dag.RunRecord.Parent.
func (r *Recorder) Sub(d *dag.DAG) dag.Recorder {
	return NewRecorder(r.s, d, RecorderOptions{PID: r.pid, Host: r.host, Lease: r.lease})
}

// RecordAttempts writes the batch in one transaction.
func (r *Recorder) RecordAttempts(ctx context.Context, batch []dag.AttemptRecord) error {
	ctx, cancel := r.writeContext(ctx)
	defer cancel()
	// One buffer for every batch: the store keeps none of it, and batches come out alike.
	as := slices.Grow(r.buf[:0], len(batch))[:len(batch)]
	r.buf = as
	defer clear(as) // the outputs are the engine's to drop
	for i := range batch {
		as[i] = r.attempt(&batch[i])
	}
	if err := r.s.RecordAttempts(ctx, as); err != nil {
		return err
	}
	for i := range as {
		if as[i].Final && as[i].Item < 0 {
			r.decided[as[i].Node] = true
		}
	}
	return nil
}

// RecordLog records the log of a running attempt in its start record.
func (r *Recorder) RecordLog(ctx context.Context, a dag.AttemptRecord) (bool, error) {
	ctx, cancel := r.writeContext(ctx)
	defer cancel()
	return r.s.RecordLog(ctx, r.attempt(&a))
}

func (r *Recorder) attempt(a *dag.AttemptRecord) Attempt {
	item := a.Item
	n := r.node(a.Node)
	// Only a foreach node has items; whatever the engine puts in Item for another node, its
	// attempts are of the node itself.
	if n != nil && n.Foreach == nil {
		item = -1
	}
	pure := false
	if n != nil {
		_, pure = n.Type.(nodes.Pure)
	}
	runID := a.RunID
	if runID == "" {
		runID = r.runID
	}
	return Attempt{
		RunID: runID, Session: r.session, Node: a.Node, Item: item, Type: a.Type,
		Attempt: a.Attempt, Status: a.Status, Final: a.Final, Repaired: a.Repaired,
		Reused: a.Reused, Key: a.Key, Reason: a.Reason, Output: a.Output, OutputHash: a.OutputHash,
		Violations: a.Violations, Error: a.Error, Log: a.Log, Started: a.Started, Ended: a.Ended,
		Pure: pure, Approval: a.Approval,
	}
}

func (r *Recorder) node(id string) *dag.Node {
	if r.d == nil {
		return nil
	}
	return r.d.ByID[id]
}

// FinishRun records the run's status and outputs, and the final state of every node whose
// deciding attempt was not recorded (skipped, or failed before it ran: its input broke its
// contract) as an attempt 0, so that `seam runs show` and `seam explain` see every node.
func (r *Recorder) FinishRun(ctx context.Context, res *dag.RunResult) error {
	ctx, cancel := r.writeContext(ctx)
	defer cancel()
	f := Finish{Status: res.Status, Ended: res.Ended}
	if f.Ended.IsZero() {
		f.Ended = time.Now()
	}
	var err error
	if len(res.Outputs) > 0 {
		if f.Outputs, err = json.Marshal(res.Outputs); err != nil {
			return fmt.Errorf("record run %s: encode outputs: %w", res.ID, err)
		}
	}
	if len(res.OutputErrors) > 0 {
		if f.OutputErrors, err = json.Marshal(res.OutputErrors); err != nil {
			return fmt.Errorf("record run %s: encode output errors: %w", res.ID, err)
		}
	}
	for _, n := range res.Nodes {
		if r.decided[n.ID] || !n.Status.Done() {
			continue
		}
		f.Attempts = append(f.Attempts, Attempt{
			RunID: res.ID, Session: r.session, Node: n.ID, Item: -1, Type: n.Type,
			Status: n.Status, Final: true, Reason: n.Reason, Violations: n.Violations,
			Error: n.Error, Log: n.Log, Started: n.Started, Ended: n.Ended,
		})
		r.decided[n.ID] = true
	}
	return r.s.FinishRunWith(ctx, res.ID, f)
}

// writeContext detaches ctx from the run's cancellation: when a run is canceled its last
// attempts and its canceled state must still be written.
func (r *Recorder) writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := writeTimeout
	if rs, ok := r.s.(retrier); ok {
		d += rs.retryBound()
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// reusable returns what a resume of a run may reuse (Store.Reusable) from its attempts, in
// the order they were recorded: for each node, the output of its last deciding node-level
// attempt, if that passed or warned and has a key; for a foreach node not reusable as a
// whole, the outputs of the items whose last attempt passed or warned (an item's pass is
// never retried). outputs reads the stored outputs of the attempts chosen, by hash, all at
// once; an output it does not return is not reused.
func reusable(as []Attempt, outputs func(hashes []string) (map[string][]byte, error)) (map[string]dag.Reused, error) {
	type item struct {
		node string
		item int
	}
	nodes, items := map[string]*Attempt{}, map[item]*Attempt{}
	for i := range as {
		a := &as[i]
		switch {
		case a.Item < 0 && a.Final:
			nodes[a.Node] = a
		case a.Item >= 0:
			items[item{a.Node, a.Item}] = a
		}
	}
	ok := func(a *Attempt) bool {
		return reusableStatus(a.Status) && a.Key != "" && a.OutputHash != ""
	}
	var hashes []string
	for _, a := range nodes {
		if ok(a) && a.Output == nil {
			hashes = append(hashes, a.OutputHash)
		}
	}
	for _, a := range items {
		if ok(a) && a.Output == nil {
			hashes = append(hashes, a.OutputHash)
		}
	}
	stored := map[string][]byte{}
	if len(hashes) > 0 {
		var err error
		if stored, err = outputs(hashes); err != nil {
			return nil, err
		}
	}
	output := func(a *Attempt) []byte {
		if a.Output != nil {
			return a.Output
		}
		return stored[a.OutputHash]
	}
	out := map[string]dag.Reused{}
	for node, a := range nodes {
		if b := output(a); ok(a) && b != nil {
			out[node] = dag.Reused{Key: a.Key, Output: b}
		}
	}
	for k, a := range items {
		b := output(a)
		if !ok(a) || b == nil || out[k.node].Output != nil {
			continue
		}
		r := out[k.node]
		if r.Items == nil {
			r.Items = map[int]dag.Reused{}
		}
		r.Items[k.item] = dag.Reused{Key: a.Key, Output: b}
		out[k.node] = r
	}
	return out, nil
}

func reusableStatus(s dag.NodeStatus) bool {
	return s == dag.NodePassed || s == dag.NodeWarned
}
