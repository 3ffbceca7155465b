package runs

import (
	"testing"

	"github.com/seam-dag/seam/dag"
)

// TestSummaryStatus: a node's status in a run's summary; an approval waiting for its answer
// is waiting, not unfinished, though no attempt decided it.
func TestSummaryStatus(t *testing.T) {
	tests := []struct {
		name string
		as   []Attempt
		want dag.NodeStatus
	}{
		{"passed", []Attempt{{Node: "a", Item: -1, Attempt: 1, Status: dag.NodePassed, Final: true}}, dag.NodePassed},
		{"running", []Attempt{{Node: "a", Item: -1, Attempt: 1, Status: dag.NodeRunning}}, dag.NodeRunning},
		{"waiting for an answer", []Attempt{{Node: "a", Item: -1, Status: dag.NodeWaiting, Approval: &dag.ApprovalRecord{EvidenceHash: "h"}}}, dag.NodeWaiting},
		{"its process died", []Attempt{{Node: "a", Item: -1, Attempt: 1, Status: dag.NodeFailed}}, Unfinished},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := Summarize(tt.as)
			if len(ns) != 1 || ns[0].Status() != tt.want {
				t.Fatalf("status %s, want %s", ns[0].Status(), tt.want)
			}
		})
	}
}
