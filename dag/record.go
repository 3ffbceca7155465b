package dag

import (
	"context"
	"time"

	"github.com/seam-dag/seam/contract"
)

// Recorder persists a run while it happens; the run store implements it. The engine makes
// one call at a time, though not always from the goroutine that called Run: it commits on a
// goroutine of its own so that workers keep running meanwhile. An error from BeginRun stops
// the run before any node starts; an error from RecordAttempts stops the run and fails the
// nodes of that batch (their outputs are not handed on, since a crash could lose them).
type Recorder interface {
	// BeginRun is called once, before any node starts.
	BeginRun(ctx context.Context, run RunRecord) error
	// RecordAttempts records attempts that have just finished, in the order they finished.
	// The engine calls it before any of their outputs is handed downstream, so once it has
	// returned a crash loses nothing a dependent has seen. A batch holds every attempt that
	// finished since the previous call, so a store can write it in one transaction.
	RecordAttempts(ctx context.Context, batch []AttemptRecord) error
	// FinishRun records the run's final state.
	FinishRun(ctx context.Context, res *RunResult) error
}

// LogRecorder is a Recorder that records what a running attempt has printed so far, for a
// watcher of the run to see before the attempt ends.
type LogRecorder interface {
	// RecordLog records a.Log as the log of a's attempt (run, node, item, attempt), which
	// is running; false when its start is not recorded yet, so that nothing took it.
	RecordLog(ctx context.Context, a AttemptRecord) (bool, error)
}

// RunRecord describes a run as it starts.
type RunRecord struct {
	ID       string
	DAG      string // the DAG's name
	File     string
	FileHash string // DAG.Hash
	Params   map[string]any
	Started  time.Time
	// Resumed is set when the run continues an earlier one under the same id (engine.RunOptions.Reuse).
	Resumed bool
	// Parent and ParentNode are, for the sub-run of a `dag` node, the run and node that
	// started it; empty for a run of its own.
	Parent, ParentNode string
	// By names the principal who started the run, or resumed it when Resumed (auth's
	// names: "alice", "os:USER"); "" when not known.
	By string
	// Fired says which trigger started the run; zero for a run started by hand.
	Fired Fired
}

// Fired says which trigger started a run, and for which scheduled time (a schedule) or key
// (a webhook). A run with a trigger and a scheduled time is recorded with its fire in one
// write, so that no time starts twice (runs.ErrFired).
type Fired struct {
	Trigger   string
	Scheduled time.Time
	Key       string
	// Manual marks a person's fire (seam schedule trigger), not one of the schedule's times;
	// Note is what its fire records of who asked (a trigger, a backfill).
	Manual bool
	Note   string
}

// SubRecorder is a Recorder that records sub-runs too: the engine hands the recorder Sub
// returns to the sub-run of each `dag` node, so that the sub-run is stored as a run of its
// own, linked to its parent (RunRecord.Parent).
type SubRecorder interface {
	Recorder
	// Sub returns the recorder of a sub-run of d.
	Sub(d *DAG) Recorder
}

// AttemptRecord is one finished attempt of one node (or of one foreach item).
type AttemptRecord struct {
	RunID string
	Node  string
	Type  string
	// Attempt counts the node's tries from 1, retries and repairs included. For a foreach
	// node the per-item attempts are recorded with Item ≥ 0, and the node's combined output
	// as one more record with Item -1.
	Attempt int
	Item    int
	Status  NodeStatus // passed, warned, failed or canceled: this attempt's outcome
	// Final is set on the attempt that decided the node's status.
	Final bool
	// Repaired is set when the attempt passed after violations were fed back to the node.
	Repaired bool
	// Reused is set when a resume reused an earlier run's output instead of running the node.
	Reused bool
	// Key identifies what the attempt ran: the node's definition and its resolved `with` and
	// input. A resume reuses a passed output only when the key is unchanged.
	Key    string
	Output []byte // the output as the node printed it; nil when there was none
	// OutputHash, with a nil Output, names the output already stored under that hash
	// (runs.Store.PutOutput): one that travelled by reference. Empty otherwise.
	OutputHash string `json:",omitempty"`
	Violations []contract.Violation
	Reason     string
	Error      string
	Log        string
	Started    time.Time
	Ended      time.Time
	// Approval, on an approval node's attempts, is the question it opened (the waiting
	// attempt) and the answer it ran with (the final one).
	Approval *ApprovalRecord `json:",omitempty"`
}

// ApprovalRecord is what an approval asked and what it was answered.
type ApprovalRecord struct {
	// Title and Body are the node's, resolved and masked when it opened: what the person is
	// asked, as a list of approvals shows it without loading the DAG file again.
	Title string `json:"title,omitempty"`
	Body  string `json:"body,omitempty"`
	// Evidence is the node's `show`, resolved and masked, as canonical JSON (encoding/json's:
	// keys sorted, no spaces); EvidenceHash is its hex SHA-256. An answer names the hash it
	// saw, so that evidence a rewind changed is not approved unseen.
	Evidence     []byte    `json:"evidence,omitempty"`
	EvidenceHash string    `json:"evidence_hash"`
	Opened       time.Time `json:"opened"`
	// Prefill is the node's prefill, resolved and masked: the form as it starts. An answer
	// changes what it gives; what it leaves is the prefill's (edit-and-approve).
	Prefill  map[string]any `json:"prefill,omitempty"`
	Deadline time.Time      `json:"deadline,omitzero"` // zero: no timeout
	// Round counts the times the node asked: 1 (recorded as 0 by a store written before
	// rewinds) the first time, one more each time a reject under on_reject's rewind ran its
	// chain again and opened it anew.
	Round int `json:"round,omitempty"`
	// The answer: the form's fields, decision and comment; who gave it (a principal's
	// name), when, and through what (cli, web, mcp, timeout). Empty while waiting.
	Answer  map[string]any `json:"answer,omitempty"`
	By      string         `json:"by,omitempty"`
	At      time.Time      `json:"at,omitzero"`
	Through string         `json:"through,omitempty"`
}

// Reused is an output of an earlier run that a resume may hand on without running its node.
type Reused struct {
	Key    string // the AttemptRecord.Key it was produced under
	Output []byte // nil when only some items of a foreach node may be reused
	// Items holds, by index, the outputs of the items of a foreach node that passed or
	// warned when the node as a whole did not: a resume runs only the other items.
	Items map[int]Reused
}
