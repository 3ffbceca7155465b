package n8n

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		end  bool
		want string // RFC 3339 in UTC, "" for an error
	}{
		{"2026-01-02", false, "2026-01-02T00:00:00Z"},
		{"2026-01-02", true, "2026-01-02T23:59:59.999999999Z"},
		{" 2026-01-02T15:04:05Z ", false, "2026-01-02T15:04:05Z"},
		{"2026-01-02T15:04:05.25+09:00", true, "2026-01-02T06:04:05.25Z"},
		{"2026-01-02T15:04:05", false, ""}, // no zone: ambiguous
		{"2026-02-30", false, ""},
		{"02/01/2026", false, ""},
		{"", false, ""},
	}
	for _, tt := range tests {
		got, err := ParseDate(tt.in, tt.end)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseDate(%q) = %v, want an error", tt.in, got)
		case tt.want != "" && (err != nil || got.UTC().Format(time.RFC3339Nano) != tt.want):
			t.Errorf("ParseDate(%q, %v) = %v, %v; want %s", tt.in, tt.end, got.UTC().Format(time.RFC3339Nano), err, tt.want)
		}
	}
}

// TestDetailShapes reads data as n8n 1.x and 2.x write it: a node that ran twice (a loop) is
// one entry with its runs added up, a node without executionStatus is a success unless its
// run has an error, the failed node comes first in the minimal shape, and the error names it
// when n8n does not.
func TestDetailShapes(t *testing.T) {
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stopped := started.Add(90 * time.Millisecond)
	e := &Execution{ID: "7", WorkflowID: "w1", Status: "error", Mode: "manual", StartedAt: &started, StoppedAt: &stopped,
		WorkflowData: &ExecutionWorkflow{Name: "loop", Settings: map[string]any{"timezone": "Asia/Tokyo"},
			Nodes: []WorkflowNode{{ID: "n1", Name: "Start", Type: "n8n-nodes-base.manualTrigger"}, {ID: "n2", Name: "Loop", Type: "n8n-nodes-base.set"}}},
		Data: json.RawMessage(`{"resultData":{"error":{"message":"boom"},"lastNodeExecuted":"Fail","runData":{
			"Start":[{"startTime":1767322800000,"executionTime":1,"data":{"main":[[{"json":{}}]]}}],
			"Loop":[{"startTime":1767322800010,"executionTime":5,"data":{"main":[[{"json":{}}],null]}},
			        {"startTime":1767322800020,"executionTime":7,"data":{"main":[[{"json":{}},{"json":{}}]]}}],
			"Fail":[{"startTime":1767322800030,"executionTime":2,"error":{"message":"boom"}}]}}}`)}
	d, err := Detail(i18n.English, e)
	if err != nil {
		t.Fatal(err)
	}
	if d.WorkflowName != "loop" || *d.ExecutionTime != 90 || d.Settings["timezone"] != "Asia/Tokyo" || d.Error.Node != "Fail" || d.Error.Message != "boom" {
		t.Fatalf("detail %+v, error %+v", d.ExecutionSummary, d.Error)
	}
	names := []string{}
	for _, n := range d.NodeExecutions {
		names = append(names, n.NodeName)
	}
	if len(names) != 3 || names[0] != "Start" || names[1] != "Loop" || names[2] != "Fail" {
		t.Fatalf("nodes %v, want the order they started", names)
	}
	loop := d.NodeExecutions[1]
	if loop.NodeID != "n2" || loop.Runs != 2 || loop.ExecutionTime != 12 || loop.ItemCount != 3 || loop.Status != "success" ||
		!loop.HasData || loop.EndTime.Sub(*loop.StartTime) != 17*time.Millisecond {
		t.Errorf("loop %+v", loop)
	}
	if f := d.NodeExecutions[2]; f.Status != "error" || f.Error != "boom" || f.HasData || f.NodeType != "" {
		t.Errorf("failed node %+v", f)
	}
	m := d.Minimal()
	if m.Nodes[0].Name != "Fail" || m.Nodes[1].Name != "Start" || m.Nodes[2].Runs != 2 || m.Workflow != "loop" {
		t.Errorf("minimal nodes %+v", m.Nodes)
	}
}
