package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

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

const rewindDAG = `version: 1
name: gate
nodes:
  facts:
    type: const
    with: {value: {status: pass, summary: facts, data: {customer: ann}}}
  draft:
    type: exec
    with:
      command: [sh, -c, 'printf "{\"status\":\"pass\",\"summary\":\"drafted\",\"data\":{\"reply\":\"Thanks\",\"review\":%s}}" "${SEAM_REVIEW:-null}"']
    contract: {output: {type: object, properties: {data: {type: object, required: [reply], properties: {reply: {type: string}}}}}}
  polish:
    type: const
    with: {value: {status: pass, summary: polished, data: "${{ nodes.draft.output.data }}"}}
  review:
    type: approval
    with:
      title: Send?
      show: ["${{ nodes.polish.output.data }}", "${{ nodes.facts.output.data }}"]
      form: {type: object, properties: {reply: {type: string}}}
      approvers: anyone
      on_reject: {rewind: draft, max_rounds: 2}
  send:
    type: const
    with: {value: {status: pass, summary: "${{ nodes.review.output.data.decision }}"}}
`

// TestApprovalRewind: a reject under on_reject's rewind with rounds left runs the chain from
// the rewind node to the approval again (whatever a resume could reuse), with the answer in
// $SEAM_REVIEW, and the approval asks again in its next round with the new evidence; nodes
// off the chain are reused. The reject of the last round fails the node, as on_reject: fail.
func TestApprovalRewind(t *testing.T) {
	noLeaks(t)
	rec := newRecorder()
	d := load(t, rec, rewindDAG)
	m := &memRecorder{rec: rec, d: d}
	first := mustRun(t, d, RunOptions{Recorder: m, RunID: "r1"})
	q := node(t, first, "review").Approval
	if first.Status != dag.RunWaiting || q == nil || q.Round != 1 {
		t.Fatalf("run %s, question %+v; want waiting in round 1", first.Status, q)
	}
	reuse := map[string]dag.Reused{}
	for _, a := range m.records {
		if a.Final && a.Output != nil {
			reuse[a.Node] = dag.Reused{Key: a.Key, Output: a.Output}
		}
	}
	if len(reuse) != 3 {
		t.Fatalf("reusable %v, want facts, draft and polish", reuse)
	}
	reject := func(round int) map[string]*dag.ApprovalRecord {
		return map[string]*dag.ApprovalRecord{"review": {EvidenceHash: q.EvidenceHash, Round: round, By: "alice", Through: "cli",
			Answer: map[string]any{"decision": "reject", "reply": "Thanks", "comment": "warmer"}}}
	}
	tests := []struct {
		name    string
		answers map[string]*dag.ApprovalRecord
		run     dag.RunStatus
		review  dag.NodeStatus
		reused  []string // the nodes reused, of facts, draft and polish
		round   int      // of the question open after, 0: none
	}{
		{"a reject rewinds", reject(1), dag.RunWaiting, dag.NodeWaiting, []string{"facts"}, 2},
		{"an old store's reject is of round 1", reject(0), dag.RunWaiting, dag.NodeWaiting, []string{"facts"}, 2},
		{"the last round's reject fails", reject(2), dag.RunFailed, dag.NodeFailed, []string{"facts", "draft", "polish"}, 0},
		{"an approve runs", map[string]*dag.ApprovalRecord{"review": {EvidenceHash: q.EvidenceHash, Round: 1,
			Answer: map[string]any{"decision": "approve", "reply": "Thanks"}}}, dag.RunSuccess, dag.NodePassed, []string{"facts", "draft", "polish"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, d, RunOptions{Reuse: reuse, Answers: tt.answers})
			if res.Status != tt.run || node(t, res, "review").Status != tt.review {
				t.Fatalf("run %s, review %s; want %s, %s", res.Status, node(t, res, "review").Status, tt.run, tt.review)
			}
			var reused []string
			for _, id := range []string{"facts", "draft", "polish"} {
				if node(t, res, id).Reused {
					reused = append(reused, id)
				}
			}
			if !slices.Equal(reused, tt.reused) {
				t.Errorf("reused %v, want %v", reused, tt.reused)
			}
			if tt.round == 0 {
				return
			}
			again := node(t, res, "review").Approval
			if again == nil || again.Round != tt.round || again.EvidenceHash == q.EvidenceHash {
				t.Fatalf("question after the reject %+v; want round %d with evidence other than %s", again, tt.round, q.EvidenceHash)
			}
			var evidence []map[string]any
			if err := json.Unmarshal(again.Evidence, &evidence); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"node": "review", "round": float64(1), "decision": "reject", "fields": map[string]any{"reply": "Thanks"},
				"comment": "warmer", "by": "alice", "through": "cli"}
			if got := evidence[0]["review"]; !reflect.DeepEqual(got, want) {
				t.Errorf("the draft read $SEAM_REVIEW %v, want %v", got, want)
			}
		})
	}
}

// TestApprovalAskedAgain: a resume that finds a question unanswered asks it again in its
// round, and, on the same evidence, since when it first opened (its deadline where it was).
func TestApprovalAskedAgain(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), approvalDAG)
	opened := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		hash   string
		round  int
		opened bool // kept
	}{
		{"same evidence", "", 2, true},
		{"other evidence", "0123", 2, false},
		{"an old store's question", "", 0, true},
	}
	first := node(t, mustRun(t, d, RunOptions{}), "review").Approval
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash := first.EvidenceHash
			if tt.hash != "" {
				hash = tt.hash
			}
			q := &dag.ApprovalRecord{EvidenceHash: hash, Opened: opened, Round: tt.round}
			res := mustRun(t, d, RunOptions{Answers: map[string]*dag.ApprovalRecord{"review": q}})
			a := node(t, res, "review").Approval
			if res.Status != dag.RunWaiting || a == nil || a.Round != max(tt.round, 1) || a.Opened.Equal(opened) != tt.opened ||
				!a.Deadline.Equal(a.Opened.Add(time.Hour)) {
				t.Fatalf("run %s, question %+v; want waiting in round %d, opened at %s: %v", res.Status, a, max(tt.round, 1), opened, tt.opened)
			}
		})
	}
}

// TestApprovalTrace: a traced run that takes an answer has a seam.approval span under its
// run's, from when the question opened to when the answer was given, naming the run, node,
// decision and channel, and holding none of the answer's values; a run that only opens the
// question has none (the span ends with the answer).
func TestApprovalTrace(t *testing.T) {
	noLeaks(t)
	d := load(t, newRecorder(), approvalDAG)
	opened := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		answers map[string]*dag.ApprovalRecord
		want    map[string]string // the span's attributes; nil: no span
	}{
		{"answered", map[string]*dag.ApprovalRecord{"review": {EvidenceHash: "abc", Opened: opened, At: opened.Add(time.Hour),
			By: "alice", Through: "web", Answer: map[string]any{"decision": "approve", "reply": "a private reply", "comment": "a private comment"}}},
			map[string]string{"seam.run_id": "r1", "seam.node": "review", "seam.decision": "approve", "seam.through": "web",
				"seam.round": "1", "seam.evidence_hash": "abc"}},
		{"waiting", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, spans := traced(t, context.Background(), d, RunOptions{RunID: "r1", Answers: tt.answers})
			var got []int
			for k, s := range spans {
				if s.Name == "seam.approval" {
					got = append(got, k)
				}
				for _, kv := range s.Attributes {
					if v := kv.Value.Emit(); strings.Contains(v, "private") {
						t.Errorf("span %s holds the answer's %s: %s", s.Name, kv.Key, v)
					}
				}
			}
			if tt.want == nil {
				if len(got) != 0 {
					t.Errorf("%d seam.approval spans of a question not answered", len(got))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d seam.approval spans, want 1", len(got))
			}
			s := spans[got[0]]
			var run tracetest.SpanStub
			for _, x := range spans {
				if x.Name == "seam.run" {
					run = x
				}
			}
			if !reflect.DeepEqual(attrs(s.Attributes), tt.want) || !s.StartTime.Equal(opened) || !s.EndTime.Equal(opened.Add(time.Hour)) ||
				s.Parent.SpanID() != run.SpanContext.SpanID() {
				t.Errorf("span %v from %s to %s under %s; want %v from %s to %s under the run's", attrs(s.Attributes), s.StartTime, s.EndTime,
					s.Parent.SpanID(), tt.want, opened, opened.Add(time.Hour))
			}
		})
	}
}
