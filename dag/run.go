package dag

import (
	"encoding/json"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

// RunStatus is the state of a run.
type RunStatus string

// Run states.
const (
	RunRunning  RunStatus = "running"
	RunSuccess  RunStatus = "success"
	RunWarn     RunStatus = "warn"
	RunFailed   RunStatus = "failed"
	RunCanceled RunStatus = "canceled"
	// RunWaiting: nothing more can run until a person answers an approval; an answer
	// resumes the run (service.Answer).
	RunWaiting RunStatus = "waiting"
)

// NodeStatus is the state of one node within a run.
type NodeStatus string

// Node states.
const (
	NodePending  NodeStatus = "pending"
	NodeRunning  NodeStatus = "running"
	NodePassed   NodeStatus = "passed"
	NodeWarned   NodeStatus = "warned"
	NodeFailed   NodeStatus = "failed"
	NodeSkipped  NodeStatus = "skipped"
	NodeCanceled NodeStatus = "canceled"
	// NodeWaiting: an approval waiting for its answer; not final, so its dependents wait.
	NodeWaiting NodeStatus = "waiting"
)

// Text is the status as a word of lang, for people; the status itself is the value that JSON,
// the store and filters use.
func (s NodeStatus) Text(lang i18n.Lang) string {
	switch s {
	case NodePending:
		return i18n.Format(lang, "pending")
	case NodeRunning:
		return i18n.Format(lang, "running")
	case NodePassed:
		return i18n.Format(lang, "passed")
	case NodeWarned:
		return i18n.Format(lang, "warned")
	case NodeFailed:
		return i18n.Format(lang, "failed")
	case NodeSkipped:
		return i18n.Format(lang, "skipped")
	case NodeCanceled:
		return i18n.Format(lang, "canceled")
	case NodeWaiting:
		return i18n.Format(lang, "waiting")
	}
	return string(s)
}

// Text is the status as a word of lang, for people.
func (s RunStatus) Text(lang i18n.Lang) string {
	switch s {
	case RunRunning:
		return i18n.Format(lang, "running")
	case RunSuccess:
		return i18n.Format(lang, "success")
	case RunWarn:
		return i18n.Format(lang, "warn")
	case RunFailed:
		return i18n.Format(lang, "failed")
	case RunCanceled:
		return i18n.Format(lang, "canceled")
	case RunWaiting:
		return i18n.Format(lang, "waiting")
	}
	return string(s)
}

// FinalStatuses are the statuses a node ends with, in the order people read them: what
// nodes.<id>.status may be.
func FinalStatuses() []NodeStatus {
	return []NodeStatus{NodePassed, NodeWarned, NodeFailed, NodeSkipped, NodeCanceled}
}

// Done reports whether the status is final.
func (s NodeStatus) Done() bool { return s != NodePending && s != NodeRunning && s != NodeWaiting }

// RunResult is the record of a run.
type RunResult struct {
	ID      string        `json:"id"`
	DAG     string        `json:"dag"`
	File    string        `json:"file,omitempty"`
	Status  RunStatus     `json:"status"`
	Started time.Time     `json:"started"`
	Ended   time.Time     `json:"ended,omitzero"`
	Elapsed time.Duration `json:"-"`     // marshalled as duration_ms
	Nodes   []NodeResult  `json:"nodes"` // in DAG file order
	// Outputs are the DAG's outputs, evaluated when the run succeeded or warned.
	Outputs map[string]any `json:"outputs,omitempty"`
	// OutputErrors says why an output could not be evaluated, by output name.
	OutputErrors map[string]string `json:"output_errors,omitempty"`
	// Error says why the run failed where no node's reason does: the run store failed (the
	// run stopped, since nothing more could be handed on safely), the run timed out, or a
	// declared output could not be resolved (OutputErrors has each).
	Error string `json:"error,omitempty"`
}

// NodeResult is the record of one node within a run.
type NodeResult struct {
	ID     string     `json:"id"`
	Type   string     `json:"type"`
	Status NodeStatus `json:"status"`
	// Reason says in a sentence why the node was skipped, failed or canceled.
	Reason string `json:"reason,omitempty"`
	// Summary is the output's summary when the output met its contract.
	Summary string `json:"summary,omitempty"`
	// Output is the decoded output, kept even when it broke its contract (then it was not
	// handed downstream).
	Output any `json:"output,omitempty"`
	// Attempts counts the tries (for foreach, those of the item tried most); 0 when it never
	// ran.
	Attempts int `json:"attempts,omitempty"`
	// Repaired is set when the output met its contract after violations were fed back.
	Repaired bool `json:"repaired,omitempty"`
	// Items and ItemsDone count a foreach node's items, and those finished.
	Items     int `json:"items,omitempty"`
	ItemsDone int `json:"items_done,omitempty"`
	// Reused is set when a resume handed on an earlier run's output instead of running.
	Reused bool `json:"reused,omitempty"`
	// Approval is an approval node's question and, once given, its answer.
	Approval   *ApprovalRecord      `json:"approval,omitempty"`
	Violations []contract.Violation `json:"violations,omitempty"`
	Error      string               `json:"error,omitempty"`
	Log        string               `json:"log,omitempty"` // e.g. an excerpt of exec's stderr
	Started    time.Time            `json:"started,omitzero"`
	Ended      time.Time            `json:"ended,omitzero"`
	Elapsed    time.Duration        `json:"-"` // marshalled as duration_ms
}

// MarshalJSON adds the run's duration in milliseconds.
func (r RunResult) MarshalJSON() ([]byte, error) {
	type plain RunResult
	return json.Marshal(struct {
		plain
		DurationMS float64 `json:"duration_ms"`
	}{plain(r), millis(r.Elapsed)})
}

// MarshalJSON adds the node's duration in milliseconds.
func (n NodeResult) MarshalJSON() ([]byte, error) {
	type plain NodeResult
	return json.Marshal(struct {
		plain
		DurationMS float64 `json:"duration_ms"`
	}{plain(n), millis(n.Elapsed)})
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
