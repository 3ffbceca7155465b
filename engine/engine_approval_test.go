package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/seam-dag/seam/dag"
)

const approvalDAG = `version: 1
name: gate
nodes:
  draft:
    type: const
    with: {value: {status: pass, summary: drafted, data: {reply: "Thanks", to: ann}}}
    contract: {output: {type: object, properties: {data: {type: object, required: [reply], properties: {reply: {type: string}}}}}}
  review:
    type: approval
    with:
      title: Send?
      show: ["${{ nodes.draft.output.data }}"]
      form: {type: object, required: [reply], properties: {reply: {type: string}}}
      prefill: {reply: "${{ nodes.draft.output.data.reply }}"}
      approvers: anyone
      timeout: 1h
  send:
    type: const
    when: "${{ nodes.review.output.data.decision == 'approve' }}"
    with: {value: {status: pass, summary: "${{ nodes.review.output.data.reply }}"}}
  other:
    type: const
    with: {value: {status: pass, summary: independent}}
`

// TestApprovalWaits: an approval without an answer opens (its evidence frozen and hashed,
// recorded as a waiting attempt) while independent branches go on, and the run ends
// waiting with its dependents pending; with an answer it runs, and the decision is what its
// consumers read.
func TestApprovalWaits(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, approvalDAG)
	m := &memRecorder{rec: rec, d: d}
	res := mustRun(t, d, RunOptions{Recorder: m, RunID: "r1"})
	if res.Status != dag.RunWaiting {
		t.Fatalf("run %s, want waiting", res.Status)
	}
	want := map[string]dag.NodeStatus{"draft": dag.NodePassed, "review": dag.NodeWaiting, "send": dag.NodePending, "other": dag.NodePassed}
	for id, st := range want {
		if got := node(t, res, id).Status; got != st {
			t.Errorf("%s is %s, want %s", id, got, st)
		}
	}
	evidence := `[{"reply":"Thanks","to":"ann"}]`
	sum := sha256.Sum256([]byte(evidence))
	a := node(t, res, "review").Approval
	if a == nil || string(a.Evidence) != evidence || a.EvidenceHash != hex.EncodeToString(sum[:]) || a.Deadline.Sub(a.Opened).String() != "1h0m0s" ||
		a.Prefill["reply"] != "Thanks" {
		t.Fatalf("approval %+v, want evidence %s hashed", a, evidence)
	}
	var waiting []dag.AttemptRecord
	for _, r := range m.records {
		if r.Node == "review" {
			waiting = append(waiting, r)
		}
	}
	if len(waiting) != 1 || waiting[0].Status != dag.NodeWaiting || waiting[0].Final || waiting[0].Approval != a {
		t.Errorf("review's records %+v, want one waiting attempt carrying the question", waiting)
	}
	if res.Outputs != nil || m.done != res {
		t.Errorf("outputs %v of a waiting run", res.Outputs)
	}

	tests := []struct {
		name     string
		answer   map[string]any
		run      dag.RunStatus
		review   dag.NodeStatus
		send     dag.NodeStatus
		sendText string
	}{
		{"approve", map[string]any{"decision": "approve", "reply": "Thanks!"}, dag.RunSuccess, dag.NodePassed, dag.NodePassed, "Thanks!"},
		{"reject", map[string]any{"decision": "reject", "reply": "Thanks", "comment": "tone"}, dag.RunFailed, dag.NodeFailed, dag.NodeSkipped, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans := &dag.ApprovalRecord{EvidenceHash: a.EvidenceHash, Answer: tt.answer, By: "alice", Through: "cli"}
			res := mustRun(t, d, RunOptions{Answers: map[string]*dag.ApprovalRecord{"review": ans}})
			if res.Status != tt.run || node(t, res, "review").Status != tt.review || node(t, res, "send").Status != tt.send {
				t.Fatalf("run %s, review %s, send %s; want %s, %s, %s", res.Status, node(t, res, "review").Status,
					node(t, res, "send").Status, tt.run, tt.review, tt.send)
			}
			if got := node(t, res, "send").Summary; got != tt.sendText {
				t.Errorf("send says %q, want %q", got, tt.sendText)
			}
			out, _ := node(t, res, "review").Output.(map[string]any)
			data, _ := out["data"].(map[string]any)
			if data["decision"] != tt.answer["decision"] || node(t, res, "review").Approval != ans {
				t.Errorf("review's output %v, approval %+v", out, node(t, res, "review").Approval)
			}
		})
	}
}

// TestApprovalWaitingCanceled: a run canceled while an approval waits is canceled, the
// approval with it, not left waiting.
func TestApprovalWaitingCanceled(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), approvalDAG)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, d, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != dag.RunCanceled {
		t.Errorf("run %s, want canceled", res.Status)
	}
}
