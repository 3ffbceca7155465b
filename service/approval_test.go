package service

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

const gateDAG = `version: 1
name: gate
nodes:
  draft:
    type: const
    with: {value: {status: pass, summary: drafted, data: {reply: "Thanks"}}}
    contract: {output: {type: object, required: [data], properties: {data: {type: object, required: [reply], properties: {reply: {type: string}}}}}}
  review:
    type: approval
    with:
      title: Send?
      show: ["${{ nodes.draft.output.data }}"]
      form: {type: object, required: [reply], properties: {reply: {type: string, minLength: 1}}}
      approvers: {principals: [alice], groups: [leads]}
      exclude_starter: true
  send:
    type: const
    when: "${{ nodes.review.output.data.decision == 'approve' }}"
    with: {value: {status: pass, summary: "${{ nodes.review.output.data.reply }}"}}
`

// startGate starts gateDAG as bob and waits until it waits for its approval.
func startGate(t *testing.T, st runs.Store, lang i18n.Lang) (*Service, *dag.DAG, string) {
	t.Helper()
	s := newService(t, st, lang)
	d := load(t, t.TempDir(), "gate.yaml", gateDAG)
	bob := auth.With(t.Context(), &auth.Principal{Name: "bob", Roles: []auth.Role{auth.Operator}})
	run, err := s.Start(bob, d, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if res := wait(t, run); res.Status != dag.RunWaiting {
		t.Fatalf("run %s, want waiting", res.Status)
	}
	return s, d, run.ID
}

func loader(d *dag.DAG) func(string) (*dag.DAG, error) {
	return func(string) (*dag.DAG, error) { return d, nil }
}

// TestAnswer: an approver's answer is recorded (who, when, through what) and resumes the
// run, which then runs what waited for it; the same answer again is a repeat that does
// nothing, another one a conflict.
func TestAnswer(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		tests := []struct {
			name, who string
			groups    []string
			decision  string
			run       dag.RunStatus
			send      string
		}{
			{"approve by name", "alice", nil, "approve", dag.RunSuccess, "Hello!"},
			{"reject by group", "carol", []string{"leads"}, "reject", dag.RunFailed, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s, d, id := startGate(t, st, i18n.English)
				ctx := auth.With(t.Context(), &auth.Principal{Name: tt.who, Roles: []auth.Role{auth.Approver}, Groups: tt.groups})
				req := AnswerRequest{Run: id, Node: "review", Decision: tt.decision, Fields: map[string]any{"reply": "Hello!"}, Through: ThroughCLI}
				got, err := s.Answer(ctx, req, loader(d), Request{})
				if err != nil {
					t.Fatal(err)
				}
				if got.Run == nil || got.Approval.By != tt.who || got.Approval.Through != ThroughCLI || got.Approval.At.IsZero() {
					t.Fatalf("answered %+v", got)
				}
				res := wait(t, got.Run)
				if res.Status != tt.run {
					t.Fatalf("run %s, want %s", res.Status, tt.run)
				}
				for _, n := range res.Nodes {
					if n.ID == "send" && n.Summary != tt.send {
						t.Errorf("send says %q, want %q", n.Summary, tt.send)
					}
				}
				again, err := s.Answer(ctx, req, loader(d), Request{})
				if err != nil || !again.Repeat || again.Run != nil {
					t.Errorf("the same answer again: %+v, %v; want a repeat", again, err)
				}
				req.Fields = map[string]any{"reply": "Other"}
				_, err = s.Answer(ctx, req, loader(d), Request{})
				var ae *AnswerError
				if !errors.As(err, &ae) || ae.Why != Conflict {
					t.Fatalf("another answer: %v, want a conflict", err)
				}
				if want := "approval review of run " + id + " was answered already: " + tt.decision + " by " + tt.who + " through cli"; err.Error() != want {
					t.Errorf("conflict says\n%s\nwant\n%s", err, want)
				}
			})
		}
	})
}

// TestAnswerRefused: each refusal, with its message in English and Japanese; the approval
// stays open, and answers afterwards.
func TestAnswerRefused(t *testing.T) {
	st := openStore(t, t.TempDir()+"/seam.db")
	alice := &auth.Principal{Name: "alice", Roles: []auth.Role{auth.Approver}}
	tests := []struct {
		name   string
		who    *auth.Principal
		req    AnswerRequest
		why    AnswerRefusal
		en, ja string
	}{
		{"not an approver", &auth.Principal{Name: "dave", Groups: []string{"ops"}},
			AnswerRequest{Node: "review", Decision: "approve", Fields: map[string]any{"reply": "x"}}, NotApprover,
			"dave may not answer approval review of run RUN: not one of its approvers",
			"dave は実行 RUN の承認 review に回答できません: 承認者ではありません"},
		{"the starter", &auth.Principal{Name: "bob", Groups: []string{"leads"}},
			AnswerRequest{Node: "review", Decision: "approve", Fields: map[string]any{"reply": "x"}}, Starter,
			"bob may not answer approval review of run RUN: it started the run, and the approval excludes the starter",
			"bob は実行 RUN の承認 review に回答できません: この実行を開始しており、承認は開始者を除外しています"},
		{"an agent", alice,
			AnswerRequest{Node: "review", Decision: "approve", Fields: map[string]any{"reply": "x"}, Through: ThroughMCP}, AgentsMayNot,
			"approval review of run RUN does not take answers from agents (MCP): set agents_may_answer: true to allow them",
			"実行 RUN の承認 review はエージェント（MCP）からの回答を受け付けません。許可するには agents_may_answer: true を設定してください"},
		{"stale evidence", alice,
			AnswerRequest{Node: "review", Decision: "approve", Fields: map[string]any{"reply": "x"}, EvidenceHash: "0123456789abcdef"}, StaleEvidence,
			"approval review of run RUN shows other evidence now (OPEN) than the answer saw (0123456789ab): look at it again (`seam approvals show RUN review`)",
			"実行 RUN の承認 review の根拠は、回答が見たもの（0123456789ab）から変わっています（OPEN）。もう一度確認してください（`seam approvals show RUN review`）"},
		{"an invalid answer", alice,
			AnswerRequest{Node: "review", Decision: "approved", Fields: map[string]any{"reply": ""}}, InvalidAnswer,
			"the answer to approval review of run RUN breaks its form:\n  /decision: decision \"approved\" is not one of approve, reject\n  /reply: field 'reply' must have minLength 1",
			"実行 RUN の承認 review への回答はフォームに違反しています:\n  /decision: 決定 \"approved\" は approve, reject のいずれでもありません\n  /reply: フィールド 'reply' は minLength 1 以上である必要があります"},
		{"no such approval", alice,
			AnswerRequest{Node: "send", Decision: "approve"}, NotWaiting,
			"run RUN has no approval send waiting for an answer; `seam approvals list` shows those that are",
			"実行 RUN には回答を待っている承認 send がありません。`seam approvals list` で一覧できます"},
	}
	for _, lang := range []i18n.Lang{i18n.English, i18n.Japanese} {
		s, d, id := startGate(t, st, lang)
		_, as, err := st.GetRun(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		open := openQuestion(as, "review")
		for _, tt := range tests {
			t.Run(string(lang)+"/"+tt.name, func(t *testing.T) {
				req := tt.req
				req.Run = id
				_, err := s.Answer(auth.With(context.Background(), tt.who), req, loader(d), Request{})
				var ae *AnswerError
				if !errors.As(err, &ae) || ae.Why != tt.why {
					t.Fatalf("Answer = %v, want refusal %d", err, tt.why)
				}
				want := tt.en
				if lang == i18n.Japanese {
					want = tt.ja
				}
				want = strings.ReplaceAll(strings.ReplaceAll(want, "RUN", id), "OPEN", open.EvidenceHash[:12])
				if err.Error() != want {
					t.Errorf("says\n%s\nwant\n%s", err, want)
				}
			})
		}
		// Still open: the right answer from the right person goes through.
		got, err := s.Answer(auth.With(context.Background(), alice), AnswerRequest{Run: id, Node: "review", Decision: "approve",
			Fields: map[string]any{"reply": "ok"}, EvidenceHash: open.EvidenceHash}, loader(d), Request{})
		if err != nil {
			t.Fatal(err)
		}
		if res := wait(t, got.Run); res.Status != dag.RunSuccess {
			t.Errorf("run %s after the answer", res.Status)
		}
	}
}

// TestApprovalTimeout: once an approval's deadline has passed, whatever touches the run
// applies it: an answer records on_timeout's answer instead (through "timeout", with a
// warning saying so), and a resume records it too, or a reject when there is no on_timeout;
// the run goes on with it.
func TestApprovalTimeout(t *testing.T) {
	const overdueDAG = `version: 1
name: late
nodes:
  review:
    type: approval
    with:
      title: Ship?
      form: {type: object, properties: {note: {type: string}}}
      prefill: {note: drafted}
      approvers: anyone
      timeout: 1ns
%s
  ship:
    type: const
    when: "${{ nodes.review.output.data.decision == 'approve' }}"
    with: {value: {status: pass, summary: shipped}}
`
	tests := []struct {
		name, onTimeout string
		byAnswer        bool
		want            map[string]any
		warn            string
	}{
		{"answered late", "      on_timeout: {decision: reject, comment: late}", true,
			map[string]any{"decision": "reject", "comment": "late", "note": "drafted"},
			"approval review of run RUN passed its deadline (DEADLINE): its on_timeout answer was recorded instead"},
		{"resumed late, no on_timeout", "", false,
			map[string]any{"decision": "reject", "comment": "no answer by the deadline", "note": "drafted"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openStore(t, t.TempDir()+"/seam.db")
			s := newService(t, st, i18n.English)
			d := load(t, t.TempDir(), "late.yaml", strings.Replace(overdueDAG, "%s", tt.onTimeout, 1))
			run, err := s.Start(t.Context(), d, Request{})
			if err != nil {
				t.Fatal(err)
			}
			if res := wait(t, run); res.Status != dag.RunWaiting {
				t.Fatalf("run %s", res.Status)
			}
			var warned []string
			req := Request{Warn: func(w error) { warned = append(warned, w.Error()) }}
			var resumed *Run
			if tt.byAnswer {
				ans, err := s.Answer(t.Context(), AnswerRequest{Run: run.ID, Node: "review", Decision: "approve", Through: ThroughCLI}, loader(d), req)
				if err != nil {
					t.Fatal(err)
				}
				if !ans.TimedOut || ans.Approval.Through != ThroughTimeout {
					t.Errorf("answered %+v, want the deadline's answer", ans)
				}
				resumed = ans.Run
			} else {
				rs, err := s.Resumable(t.Context(), run.ID, ResumeCheck{})
				if err != nil {
					t.Fatal(err)
				}
				if resumed, err = s.Resume(t.Context(), rs, d, req); err != nil {
					t.Fatal(err)
				}
			}
			res := wait(t, resumed)
			if res.Status != dag.RunFailed {
				t.Errorf("run %s, want failed (a reject)", res.Status)
			}
			for _, n := range res.Nodes {
				if n.ID == "review" {
					out, _ := n.Output.(map[string]any)
					if data, _ := out["data"].(map[string]any); !reflect.DeepEqual(data, tt.want) {
						t.Errorf("review's data %v, want %v", data, tt.want)
					}
					if n.Approval == nil || n.Approval.Through != ThroughTimeout {
						t.Errorf("approval %+v, want through timeout", n.Approval)
					}
				}
			}
			if tt.warn != "" {
				_, as, _ := st.GetRun(t.Context(), run.ID)
				want := strings.ReplaceAll(strings.ReplaceAll(tt.warn, "RUN", run.ID), "DEADLINE", openQuestion(as, "review").Deadline.Format(time.RFC3339))
				if len(warned) == 0 || warned[0] != want {
					t.Errorf("warned %q, want %q", warned, want)
				}
			}
		})
	}
}

// TestAnswerLangMayAnswer: a front end answering each request in its own language has the
// refusal and its violations said in it, whatever the Service's; MayAnswer says who may
// answer, as Answer decides it.
func TestAnswerLangMayAnswer(t *testing.T) {
	st := openStore(t, t.TempDir()+"/seam.db")
	s, d, id := startGate(t, st, i18n.English)
	alice := auth.With(t.Context(), &auth.Principal{Name: "alice", Roles: []auth.Role{auth.Approver}})
	_, err := s.Answer(alice, AnswerRequest{Run: id, Node: "review", Decision: "approve", Fields: map[string]any{"reply": ""},
		Through: ThroughWeb, Lang: i18n.Japanese}, loader(d), Request{})
	want := "実行 " + id + " の承認 review への回答はフォームに違反しています:\n  /reply: フィールド 'reply' は minLength 1 以上である必要があります"
	if err == nil || err.Error() != want {
		t.Errorf("refusal in Japanese:\n%v\nwant\n%s", err, want)
	}
	r, _, err := st.GetRun(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := d.ByID["review"].ApprovalConfig()
	for _, tt := range []struct {
		who  *auth.Principal
		want bool
	}{
		{&auth.Principal{Name: "alice"}, true},
		{&auth.Principal{Name: "carol", Groups: []string{"leads"}}, true},
		{&auth.Principal{Name: "dave", Groups: []string{"ops"}}, false},
		{&auth.Principal{Name: "bob", Groups: []string{"leads"}}, false}, // the starter
	} {
		if got := s.MayAnswer(auth.With(t.Context(), tt.who), r, cfg); got != tt.want {
			t.Errorf("MayAnswer(%s) = %v, want %v", tt.who.Name, got, tt.want)
		}
	}
}
