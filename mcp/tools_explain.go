package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

func (s *server) addExplainTools(srv *sdk.Server) error {
	return addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "explain_node",
		Description: "Say why a node of a recorded run (\"latest\" for the newest) failed or rejected its input: its " +
			"reason, and for each contract violation the field, the message, the value at fault and where it came " +
			"from (its own output, or the upstream node that produced the input). A skipped node names the upstream " +
			"node to explain instead. raw: true adds every violation with the contract lines it broke, the error and the log.",
		Annotations: readOnlyTool("Explain a node"),
	}, s.explainNode)
}

// ExplainInput are explain_node's arguments.
type ExplainInput struct {
	Run  string `json:"run" jsonschema:"the run's id, or \"latest\" for the newest run"`
	Node string `json:"node" jsonschema:"the node's id (get_run lists the run's nodes that did not pass)"`
	Common
}

// explainValueLimit bounds a violation's value in minimal answers; raw keeps it whole.
const explainValueLimit = 80

// explanation is explain_node's data: everything runs.Explain says, with each violation's
// value as JSON.
type explanation struct{ x *runs.Explanation }

func (e explanation) MarshalJSON() ([]byte, error) {
	vs := make([]explainedFull, len(e.x.Violations))
	for i, v := range e.x.Violations {
		vs[i] = explainedFull{Pointer: v.Pointer, Message: v.Message, explainedValue: newExplainedValue(v.Value, 0),
			Input: v.Input, From: v.From, Producer: v.Producer, Contract: v.Contract}
	}
	return json.Marshal(struct {
		*runs.Explanation
		Violations []explainedFull `json:"violations,omitempty"`
	}{e.x, vs})
}

// explainedValue is a violation's value as a client reads it: the JSON value itself, not its
// text; missing when the field is absent; when only the value's start is known (the store
// keeps a shortened value, a minimal answer shortens a long one), that start as a string,
// with truncated.
type explainedValue struct {
	Value     json.RawMessage `json:"value,omitempty"`
	Missing   bool            `json:"missing,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
}

// newExplainedValue reads a violation's value (JSON text, "" when missing), shortened to
// limit runes when limit > 0.
func newExplainedValue(text string, limit int) explainedValue {
	if text == "" {
		return explainedValue{Missing: true}
	}
	r := []rune(text)
	if json.Valid([]byte(text)) && (limit <= 0 || len(r) <= limit) {
		return explainedValue{Value: json.RawMessage(text)}
	}
	if limit > 0 && len(r) > limit {
		text = string(r[:limit])
	}
	b, _ := json.Marshal(strings.TrimSuffix(text, "…")) // a string always encodes
	return explainedValue{Value: b, Truncated: true}
}

// explainedFull is a violation as raw answers show it: runs.ExplainedViolation with its value
// as JSON.
type explainedFull struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	explainedValue
	Input    bool             `json:"input,omitempty"`
	From     string           `json:"from"`
	Producer string           `json:"producer,omitempty"`
	Contract runs.ContractRef `json:"contract"`
}

// explainedBrief is a violation as minimal answers show it.
type explainedBrief struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	explainedValue
	From string `json:"from"`
}

func (e explanation) minimal() any {
	x := e.x
	m := struct {
		Run      string         `json:"run"`
		DAG      string         `json:"dag,omitempty"` // a sub-run's DAG
		Node     string         `json:"node"`
		Status   dag.NodeStatus `json:"status"`
		Attempts int            `json:"attempts,omitempty"`
		Reason   string         `json:"reason,omitempty"`
		Upstream string         `json:"upstream,omitempty"`
		// Count is the number of violations; Violations are the first of them.
		Count      int              `json:"count,omitempty"`
		Violations []explainedBrief `json:"violations,omitempty"`
		Note       string           `json:"note,omitempty"`
		// SubRun is, for a dag node, the explanation of the sub-run's node that failed.
		SubRun any `json:"sub_run,omitempty"`
	}{Run: x.Run, DAG: x.DAG, Node: x.Node, Status: x.Status, Attempts: x.Attempts, Reason: x.Reason, Upstream: x.Upstream,
		Count: len(x.Violations), Note: x.FileNote}
	for _, v := range first(x.Violations, minimalErrors) {
		m.Violations = append(m.Violations, explainedBrief{Pointer: pointerOrRoot(v.Pointer), Message: v.Message,
			explainedValue: newExplainedValue(v.Value, explainValueLimit), From: v.From})
	}
	if x.SubRun != nil {
		m.SubRun = explanation{x.SubRun}.minimal()
	}
	return m
}

// unknownNode is the error details of a node the run does not have.
type unknownNode struct {
	Run   string   `json:"run"`
	Nodes []string `json:"nodes"`
}

func (s *server) explainNode(ctx context.Context, _ *sdk.CallToolRequest, in ExplainInput) (message, any, error) {
	if _, err := s.store(); err != nil {
		return message{}, nil, err
	}
	if in.Node == "" {
		return message{}, nil, fail(CodeInvalidArgument, nil, "node is empty: give the id of a node of the run (get_run shows the nodes that did not pass)")
	}
	if in.Run == "" {
		return message{}, nil, emptyID("run")
	}
	x, err := s.svc.Explain(ctx, in.Run, in.Node, runs.ExplainOptions{ShowPath: s.root.rel, ReadFile: s.readRunDAG})
	var unknown *runs.UnknownNodeError
	if errors.As(err, &unknown) {
		return message{}, nil, fail(CodeNotFound, unknownNode{Run: unknown.Run, Nodes: unknown.Nodes},
			"run %[1]s has no node %[2]q; its nodes: %[3]s", unknown.Run, unknown.Node, strings.Join(unknown.Nodes, ", "))
	}
	var nf *service.NotFoundError
	var none *service.NoRunsError
	if errors.As(err, &nf) || errors.As(err, &none) {
		return message{}, nil, runError(err, in.Run)
	}
	if err != nil {
		return message{}, nil, failVerbatim(CodeInternal, err)
	}
	return explainMessage(x), explanation{x}, nil
}

// readRunDAG reads a run's DAG file for its contract lines, only when it is under the root:
// the store may hold runs of files anywhere (recorded by the CLI or another server), and the
// lines would show a client what the root keeps from it.
func (s *server) readRunDAG(path string) ([]byte, error) {
	// The store may have recorded the path through a symbolic link to the root; resolve
	// checks the real path either way.
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	real, err := s.root.resolve(path)
	var te *toolError
	if errors.As(err, &te) && te.code == CodeOutsideRoot {
		return nil, errors.New("it is outside the server's root")
	}
	if err != nil {
		return nil, err
	}
	b, err := s.root.readFile(real)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.root.rel(real), err)
	}
	return b, nil
}

// explainMessage says in one line what the node did and, when it failed, what to fix first.
func explainMessage(x *runs.Explanation) message {
	msg := msgf("node %s %s in run %s", x.Node, x.Status, x.Run)
	if x.Attempts > 1 && x.Items == 0 { // a foreach node's reason counts its item's attempts
		msg = msgf("node %s %s in run %s after %d attempts", x.Node, x.Status, x.Run, x.Attempts)
	}
	if x.Reason != "" {
		msg = msgf("%v: %s", msg, oneLine(x.Reason))
	}
	switch x.Status {
	case dag.NodePassed, dag.NodeWarned:
		return msgf("%v; nothing to explain", msg)
	case dag.NodeSkipped:
		if x.Upstream != "" {
			return msgf("%v; explain_node %s says why", msg, x.Upstream)
		}
		return msg
	}
	if len(x.Violations) == 0 {
		return msg
	}
	v, more := x.Violations[0], len(x.Violations)-1
	at := pointerOrRoot(v.Pointer)
	switch {
	case v.Producer != "" && more > 0:
		return msgf("%v: %s: %s (from node %s) (and %v)", msg, at, v.Message, v.Producer, howMany(more, "more violation"))
	case v.Producer != "":
		return msgf("%v: %s: %s (from node %s)", msg, at, v.Message, v.Producer)
	case more > 0:
		return msgf("%v: %s: %s (and %v)", msg, at, v.Message, howMany(more, "more violation"))
	}
	return msgf("%v: %s: %s", msg, at, v.Message)
}

// oneLine joins a multi-line reason (an exec error with its stderr) into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// pointerOrRoot shows the root pointer "" as "/".
func pointerOrRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
