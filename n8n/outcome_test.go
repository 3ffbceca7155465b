package n8n

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestOutcome reads executions' data as n8n writes it: the last node's last run's items on all
// its main outputs, in order (an output n8n did not take is null, an item without json is
// nil), nothing of other connection types or other nodes, and the error n8n names or else the
// last run's.
func TestOutcome(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Outcome
	}{
		{"items of all outputs in order",
			`{"resultData":{"lastNodeExecuted":"B","runData":{"B":[{"data":{"main":[[{"json":{"a":1}}],[{"json":{"b":2}},{"json":{"c":"x"}}]]}}]}}}`,
			Outcome{LastNode: "B", Items: []any{map[string]any{"a": 1.0}, map[string]any{"b": 2.0}, map[string]any{"c": "x"}}}},
		{"an output not taken",
			`{"resultData":{"lastNodeExecuted":"If","runData":{"If":[{"data":{"main":[null,[{"json":{"b":2}}]]}}]}}}`,
			Outcome{LastNode: "If", Items: []any{map[string]any{"b": 2.0}}}},
		{"the last run of a loop",
			`{"resultData":{"lastNodeExecuted":"L","runData":{"L":[{"data":{"main":[[{"json":{"run":1}}]]}},{"data":{"main":[[{"json":{"run":2}}]]}}]}}}`,
			Outcome{LastNode: "L", Items: []any{map[string]any{"run": 2.0}}}},
		{"an item with binary data only, and one whose json is not an object",
			`{"resultData":{"lastNodeExecuted":"F","runData":{"F":[{"data":{"main":[[{"binary":{"data":{"mimeType":"text/plain"}}},{"json":[1,"two"]}]]}}]}}}`,
			Outcome{LastNode: "F", Items: []any{nil, []any{1.0, "two"}}}},
		{"other connection types and other nodes left out",
			`{"resultData":{"lastNodeExecuted":"Agent","runData":{
				"Before":[{"data":{"main":[[5]]}}],
				"Agent":[{"data":{"ai_tool":[[{"json":{"tool":1}}]],"main":[[{"json":{"answer":"yes"}}]]}}]}}}`,
			Outcome{LastNode: "Agent", Items: []any{map[string]any{"answer": "yes"}}}},
		{"a run without data",
			`{"resultData":{"lastNodeExecuted":"Fail","runData":{"Fail":[{"startTime":1767322800030,"error":{"message":"boom"}}]}}}`,
			Outcome{LastNode: "Fail", Error: "boom", Items: []any{}}},
		{"the execution's error and node",
			`{"resultData":{"error":{"message":"stopped","node":{"name":"Check"}},"lastNodeExecuted":"Check",
				"runData":{"Check":[{"error":{"message":"the run's own"},"data":{"main":[[]]}}]}}}`,
			Outcome{LastNode: "Check", Error: "stopped", ErrorNode: "Check", Items: []any{}}},
		{"no run of the last node",
			`{"resultData":{"error":{"message":"crashed"},"lastNodeExecuted":"Gone","runData":{}}}`,
			Outcome{LastNode: "Gone", Error: "crashed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Execution{ID: "3", Data: json.RawMessage(tt.data)}
			got, err := e.Outcome(i18n.English)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Outcome() = %#v, %v\nwant %#v", got, err, tt.want)
			}
		})
	}
}

// TestOutcomeErrors: an execution without data, data not in n8n's shape, and an item of the
// last node that is not an object are errors that name the execution (and the item); the
// rest of each message is encoding/json's.
func TestOutcomeErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // the message's start
	}{
		{"no data", ``, "execution 3 has no data (fetch it with includeData)"},
		{"null data", `null`, "execution 3 has no data (fetch it with includeData)"},
		{"not the shape", `{"resultData": 5}`, "execution 3: read data: json: cannot unmarshal number into Go struct field executionData.resultData"},
		{"an item of the last node that is not an object",
			`{"resultData":{"lastNodeExecuted":"B","runData":{"B":[{"data":{"main":[[{"json":{}}],[{"json":{}},7]]}}]}}}`,
			`execution 3: read data: node "B", output 1, item 1: json: cannot unmarshal number into Go value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Execution{ID: "3", Data: json.RawMessage(tt.data)}
			if _, err := e.Outcome(i18n.English); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant %s", err, tt.want)
			}
		})
	}
}
