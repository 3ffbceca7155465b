package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/seam-dag/seam/dag"
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

	runID   string
	session int
	// decided holds the nodes whose final attempt was recorded in this session, so that
	// FinishRun records the final state of the others (skipped, failed before running).
	decided map[string]bool
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
}

// NewRecorder returns a recorder of runs of d into s.
func NewRecorder(s Store, d *dag.DAG, opts RecorderOptions) *Recorder {
	if opts.PID == 0 {
		opts.PID = os.Getpid()
	}
	if opts.Host == "" {
		opts.Host, _ = os.Hostname() // no host name: stale runs are just not detected
	}
	r := &Recorder{s: s, d: d, resume: opts.Resume, resumes: opts.Resumes, pid: opts.PID, host: opts.Host, session: opts.Session, decided: map[string]bool{}}
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
		return nil
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
	return r.s.CreateRun(ctx, Run{
		ID: run.ID, DAG: run.DAG, File: file, FileHash: run.FileHash, Params: params,
		Status: dag.RunRunning, Started: run.Started, PID: r.pid, Host: r.host,
		Parent: run.Parent, ParentNode: run.ParentNode,
	})
}

// Session is the run's session in the store: 0 for its first, one more for each resume; set
// by BeginRun.
func (r *Recorder) Session() int { return r.session }

var _ dag.SubRecorder = (*Recorder)(nil)

// Sub returns the recorder of a sub-run of d into the same store, by the same process: the
// sub-run is a run of its own, linked to its parent by dag.RunRecord.Parent.
func (r *Recorder) Sub(d *dag.DAG) dag.Recorder {
	return NewRecorder(r.s, d, RecorderOptions{PID: r.pid, Host: r.host})
}

// RecordAttempts writes the batch in one transaction.
func (r *Recorder) RecordAttempts(ctx context.Context, batch []dag.AttemptRecord) error {
	ctx, cancel := r.writeContext(ctx)
	defer cancel()
	as := make([]Attempt, len(batch))
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

func (r *Recorder) attempt(a *dag.AttemptRecord) Attempt {
	item := a.Item
	// Only a foreach node has items; whatever the engine puts in Item for another node, its
	// attempts are of the node itself.
	if n := r.node(a.Node); n != nil && n.Foreach == nil {
		item = -1
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

// The queries of Reusable, in PostgreSQL's notation ($1); SQLite's replaces $1 with ?1.
const (
	// The last deciding node-level attempt of each node, across sessions.
	reusableNodesSQL = `SELECT a.node, a.status, a.key, o.data
		FROM attempts a LEFT JOIN outputs o ON o.hash = a.output_hash
		WHERE a.run_id = $1 AND a.seq IN (SELECT max(seq) FROM attempts
		                 WHERE run_id = $1 AND final AND item = -1 GROUP BY node)`
	// The last attempt of each foreach item, across sessions. An item's passing attempt is
	// its last one: a pass is never retried.
	reusableItemsSQL = `SELECT a.node, a.item, a.status, a.key, o.data
		FROM attempts a LEFT JOIN outputs o ON o.hash = a.output_hash
		WHERE a.run_id = $1 AND a.seq IN (SELECT max(seq) FROM attempts
		                 WHERE run_id = $1 AND item >= 0 GROUP BY node, item)`
)

// rowScanner is the part of database/sql's and pgx's rows that Reusable reads.
type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// reusableNodes adds to out the nodes of rows (reusableNodesSQL) whose output may be reused.
func reusableNodes(rows rowScanner, out map[string]dag.Reused) error {
	for rows.Next() {
		var (
			node, status, key string
			data              []byte
		)
		if err := rows.Scan(&node, &status, &key, &data); err != nil {
			return err
		}
		if reusableStatus(status) && key != "" && data != nil {
			out[node] = dag.Reused{Key: key, Output: data}
		}
	}
	return rows.Err()
}

// reusableItems adds to out the items of rows (reusableItemsSQL) of foreach nodes not
// reusable as a whole whose last attempt passed or warned.
func reusableItems(rows rowScanner, out map[string]dag.Reused) error {
	for rows.Next() {
		var (
			node, status, key string
			item              int
			data              []byte
		)
		if err := rows.Scan(&node, &item, &status, &key, &data); err != nil {
			return err
		}
		if !reusableStatus(status) || key == "" || data == nil || out[node].Output != nil {
			continue
		}
		r := out[node]
		if r.Items == nil {
			r.Items = map[int]dag.Reused{}
		}
		r.Items[item] = dag.Reused{Key: key, Output: data}
		out[node] = r
	}
	return rows.Err()
}

func reusableStatus(status string) bool {
	s := dag.NodeStatus(status)
	return s == dag.NodePassed || s == dag.NodeWarned
}
