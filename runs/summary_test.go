package runs

import (
	"os"
	"os/exec"
	"testing"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
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

// TestStatusFor: a run's status for people; one left running by a dead process on this
// host is interrupted, and a waiting run says so, in both languages.
func TestStatusFor(t *testing.T) {
	host, _ := os.Hostname()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  Run
		lang i18n.Lang
		want string
	}{
		{"running", Run{Status: dag.RunRunning, PID: os.Getpid(), Host: host}, i18n.English, "running"},
		{"its process died", Run{Status: dag.RunRunning, PID: cmd.Process.Pid, Host: host}, i18n.English, "interrupted"},
		{"waiting", Run{Status: dag.RunWaiting}, i18n.English, "waiting"},
		{"waiting, Japanese", Run{Status: dag.RunWaiting}, i18n.Japanese, "回答待ち"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.run.StatusFor(tt.lang); got != tt.want {
				t.Errorf("StatusFor = %q, want %q", got, tt.want)
			}
		})
	}
}
