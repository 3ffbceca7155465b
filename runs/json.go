package runs

import (
	"encoding/json"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
)

// RunJSON is a run as `seam runs show --json` and `seam runs list --json` write it: the
// record's fields, durations in milliseconds, times in RFC 3339.
type RunJSON struct {
	ID       string `json:"id"`
	DAG      string `json:"dag"`
	File     string `json:"file,omitempty"`
	FileHash string `json:"file_hash,omitempty"`
	// Status is "interrupted" for a run stored as running whose owner is gone (its lease
	// expired, or its process died), which Interrupted says too.
	Status       dag.RunStatus   `json:"status"`
	Interrupted  bool            `json:"interrupted,omitempty"`
	Started      time.Time       `json:"started"`
	Ended        time.Time       `json:"ended,omitzero"`
	DurationMS   float64         `json:"duration_ms,omitempty"`
	Resumes      int             `json:"resumes,omitempty"`
	Params       json.RawMessage `json:"params,omitempty"`
	Outputs      json.RawMessage `json:"outputs,omitempty"`
	OutputErrors json.RawMessage `json:"output_errors,omitempty"`
	// Parent and ParentNode: the run and dag node a sub-run belongs to.
	Parent     string `json:"parent,omitempty"`
	ParentNode string `json:"parent_node,omitempty"`
	WhoJSON
}

// JSON is r as RunJSON.
func (r *Run) JSON() RunJSON {
	now := time.Now()
	j := RunJSON{ID: r.ID, DAG: r.DAG, File: r.File, FileHash: r.FileHash, Status: r.DisplayStatus(now),
		Interrupted: r.InterruptedAt(now), Started: r.Started, Ended: r.Ended, Resumes: r.Resumes,
		Params: r.Params, Outputs: r.Outputs, OutputErrors: r.OutputErrors,
		Parent: r.Parent, ParentNode: r.ParentNode, WhoJSON: r.Who()}
	if !r.Ended.IsZero() {
		j.DurationMS = millis(r.Ended.Sub(r.Started))
	}
	return j
}

// NodeJSON is a node of a run, by its final attempt, as RunJSON's documents hold it.
type NodeJSON struct {
	ID         string               `json:"id"`
	Type       string               `json:"type,omitempty"`
	Status     dag.NodeStatus       `json:"status"`
	Attempts   int                  `json:"attempts"`
	Items      int                  `json:"items,omitempty"`
	Reused     bool                 `json:"reused,omitempty"`
	Repaired   bool                 `json:"repaired,omitempty"`
	DurationMS float64              `json:"duration_ms"`
	Reason     string               `json:"reason,omitempty"`
	Violations []contract.Violation `json:"violations,omitempty"`
	Error      string               `json:"error,omitempty"`
	OutputHash string               `json:"output_hash,omitempty"`
}

// JSON is n as NodeJSON.
func (n *NodeSummary) JSON() NodeJSON {
	f := n.Final
	j := NodeJSON{ID: n.ID, Type: n.Type, Status: n.Status(), Attempts: n.Attempts, Items: n.Items,
		Reused: f.Reused, Repaired: f.Repaired, Reason: f.Reason, Violations: f.Violations,
		Error: f.Error, OutputHash: f.OutputHash}
	if !f.Started.IsZero() && !f.Ended.IsZero() {
		j.DurationMS = millis(f.Ended.Sub(f.Started))
	}
	return j
}

// AttemptJSON is one attempt of a run, as RunJSON's documents hold it.
type AttemptJSON struct {
	Session    int                  `json:"session"`
	Node       string               `json:"node"`
	Item       *int                 `json:"item,omitempty"`
	Attempt    int                  `json:"attempt"`
	Status     dag.NodeStatus       `json:"status"`
	Final      bool                 `json:"final,omitempty"`
	Repaired   bool                 `json:"repaired,omitempty"`
	Reused     bool                 `json:"reused,omitempty"`
	Key        string               `json:"key,omitempty"`
	Reason     string               `json:"reason,omitempty"`
	OutputHash string               `json:"output_hash,omitempty"`
	Violations []contract.Violation `json:"violations,omitempty"`
	Error      string               `json:"error,omitempty"`
	Log        string               `json:"log,omitempty"`
	Started    time.Time            `json:"started,omitzero"`
	Ended      time.Time            `json:"ended,omitzero"`
}

// JSON is a as AttemptJSON.
func (a *Attempt) JSON() AttemptJSON {
	j := AttemptJSON{Session: a.Session, Node: a.Node, Attempt: a.Attempt, Status: a.Status,
		Final: a.Final, Repaired: a.Repaired, Reused: a.Reused, Key: a.Key, Reason: a.Reason,
		OutputHash: a.OutputHash, Violations: a.Violations, Error: a.Error, Log: a.Log,
		Started: a.Started, Ended: a.Ended}
	if a.Item >= 0 {
		item := a.Item
		j.Item = &item
	}
	return j
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
