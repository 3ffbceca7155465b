package temporal

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/temporaltest"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// gateDAG waits for alice's (or a lead's) answer before it sends the reply; bob starts it.
const gateDAG = `version: 1
name: gate
nodes:
  draft:
    type: const
    with: {value: {status: pass, summary: drafted, data: {reply: "Thanks"}}}
    contract: {output: {type: object, required: [data], properties: {data: {type: object, required: [reply], properties: {reply: {type: string, minLength: 1}}}}}}
  review:
    type: approval
    with:
      title: Send?
      show: ["${{ nodes.draft.output.data }}"]
      form: {type: object, required: [reply], properties: {reply: {type: string, minLength: 1}}}
      prefill: {reply: "${{ nodes.draft.output.data.reply }}"}
      approvers: {principals: [alice], groups: [leads]}
      exclude_starter: true
  send:
    type: const
    when: "${{ nodes.review.output.data.decision == 'approve' }}"
    with: {value: {status: pass, summary: "${{ nodes.review.output.data.reply }}"}}
outputs:
  sent: "${{ nodes.review.output.data.reply }}"
`

var (
	alice = &auth.Principal{Name: "alice", Roles: []auth.Role{auth.Approver}}
	bob   = &auth.Principal{Name: "bob", Roles: []auth.Role{auth.Operator}}
)

// onTemporal is a run service on the dev server, with a worker recording into its store,
// that routes answers to Temporal as seam's front ends do (Options.Elsewhere).
func onTemporal(t *testing.T, lang i18n.Lang) (*service.Service, *Engine, runs.Store) {
	t.Helper()
	return onTemporalWith(t, lang, worker.Options{})
}

// onTemporalWith is onTemporal with a worker of opts.
func onTemporalWith(t *testing.T, lang i18n.Lang, opts worker.Options) (*service.Service, *Engine, runs.Store) {
	t.Helper()
	c := temporaltest.Client(t, client.Options{})
	st := openStore(t)
	queue := temporaltest.Worker(t, c, opts, func(w worker.Worker) {
		NewWorker(WorkerOptions{Client: c, Store: st, Types: types(), Dir: t.TempDir()}).Register(w)
	})
	eng := &Engine{Client: c, TaskQueue: queue}
	svc := service.New(service.Options{Store: st, Engine: eng, Elsewhere: eng, Lang: lang})
	t.Cleanup(svc.Close)
	return svc, eng, st
}

// startWaiting starts src as bob with svc and returns the run once it waits for its answer.
func startWaiting(t *testing.T, svc *service.Service, src string) (*dag.DAG, *dag.RunResult) {
	t.Helper()
	d, err := dag.Load(t.Context(), writeDAG(t, src), dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Start(auth.With(t.Context(), bob), d, service.Request{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Wait()
	if err != nil || res.Status != dag.RunWaiting {
		t.Fatalf("run: %+v %v; want it waiting", res, err)
	}
	return d, res
}

// ended waits until the store has run id ended, and returns it.
func ended(t *testing.T, st runs.Store, id string) (*runs.Run, []runs.Attempt) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r, as, err := st.GetRun(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != dag.RunWaiting && r.Status != dag.RunRunning {
			return r, as
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s after a minute", id, r.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// outcome is what a run ended with, engine aside: its status, outputs, and each node's
// status and data.
func outcome(t *testing.T, st runs.Store, id string) string {
	t.Helper()
	r, as := ended(t, st, id)
	var b strings.Builder
	b.WriteString(string(r.Status) + " " + string(r.Outputs) + "\n")
	for _, n := range runs.Summarize(as) {
		b.WriteString(n.ID + " " + string(n.Status()))
		o, err := runs.AttemptOutput(t.Context(), st, n.Final)
		if err != nil {
			t.Fatal(err)
		}
		if len(o) > 0 {
			var v struct {
				Status, Summary string
				Data            any
			}
			_ = json.Unmarshal(o, &v)
			d, _ := json.Marshal(v)
			b.Write(append([]byte(" "), d...))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestApprovalOnTemporal: a run on Temporal waits for its approval as on the embedded engine
// (recorded waiting, listed), takes the answer through the run service (routed to the
// workflow's Update) and ends with the same outputs as the embedded engine answered the same
// way; the same answer again is a repeat, another a conflict, said as the embedded engine says.
func TestApprovalOnTemporal(t *testing.T) {
	svc, _, st := onTemporal(t, i18n.English)
	tests := []struct {
		name, decision string
		who            *auth.Principal
		fields         map[string]any
		want           dag.RunStatus
	}{
		{"approve edited", "approve", alice, map[string]any{"reply": "Hello!"}, dag.RunSuccess},
		{"reject by a lead", "reject", &auth.Principal{Name: "carol", Groups: []string{"leads"}}, nil, dag.RunFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, res := startWaiting(t, svc, gateDAG)
			if r, _, err := st.GetRun(t.Context(), res.ID); err != nil || r.Status != dag.RunWaiting || r.Host != runs.HostTemporal {
				t.Fatalf("stored run %+v %v; want it waiting on Temporal", r, err)
			}
			list, err := svc.ListApprovals(t.Context(), service.ApprovalQuery{Load: loader(d)})
			if err != nil || !containsApproval(list, res.ID, "review") {
				t.Fatalf("approvals listed: %+v %v", list, err)
			}
			if a, err := svc.GetApproval(auth.With(t.Context(), alice), res.ID, "review", service.ApprovalQuery{Load: loader(d)}); err != nil || !a.OnTemporal {
				t.Errorf("approval shown %+v %v; want it on Temporal", a, err)
			}
			ctx := auth.With(t.Context(), tt.who)
			req := service.AnswerRequest{Run: res.ID, Node: "review", Decision: tt.decision, Fields: tt.fields, Through: service.ThroughCLI}
			got, err := svc.Answer(ctx, req, loader(d), service.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Run != nil || got.Approval.By != tt.who.Name || got.Approval.Through != service.ThroughCLI || got.Approval.At.IsZero() {
				t.Fatalf("answered %+v", got)
			}
			onT := outcome(t, st, res.ID)
			if r, _, _ := st.GetRun(t.Context(), res.ID); r.Status != tt.want || r.Resumes != 1 {
				t.Errorf("run %s resumed %d times; want %s, once", r.Status, r.Resumes, tt.want)
			}

			// The same on the embedded engine.
			est := openStore(t)
			esvc := service.New(service.Options{Store: est, Lang: i18n.English})
			t.Cleanup(esvc.Close)
			_, eres := startWaiting(t, esvc, gateDAG)
			req.Run = eres.ID
			eans, err := esvc.Answer(ctx, req, loader(d), service.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := eans.Run.Wait(); err != nil {
				t.Fatal(err)
			}
			if emb := outcome(t, est, eres.ID); emb != onT {
				t.Errorf("the engines end differently:\nembedded:\n%s\nTemporal:\n%s", emb, onT)
			}

			// Again: a repeat; another answer: a conflict, as on the embedded engine.
			req.Run = res.ID
			again, err := svc.Answer(ctx, req, loader(d), service.Request{})
			if err != nil || !again.Repeat {
				t.Errorf("the same answer again: %+v %v; want a repeat", again, err)
			}
			req.Comment = "no, wait"
			_, err = svc.Answer(ctx, req, loader(d), service.Request{})
			want := "approval review of run " + res.ID + " was answered already: " + tt.decision + " by " + tt.who.Name + " through cli"
			var ae *service.AnswerError
			if !errors.As(err, &ae) || ae.Why != service.Conflict || err.Error() != want {
				t.Errorf("another answer: %v; want %s", err, want)
			}
		})
	}
}

func containsApproval(list []service.Approval, run, node string) bool {
	for _, a := range list {
		if a.Run == run && a.Node == node {
			return true
		}
	}
	return false
}

func loader(d *dag.DAG) func(string) (*dag.DAG, error) {
	return func(string) (*dag.DAG, error) { return d, nil }
}

// TestApprovalRefusedOnTemporal gives the workflow's Update answers the run service would
// refuse, past the service: the Update's validator refuses each with the service's message,
// in English and Japanese, and the workflow's history does not grow; the approval stays open
// and takes a good answer afterwards.
func TestApprovalRefusedOnTemporal(t *testing.T) {
	tests := []struct {
		name   string
		by     *auth.Principal
		req    service.AnswerRequest
		why    service.AnswerRefusal
		en, ja string
	}{
		{"an invalid answer", alice,
			service.AnswerRequest{Node: "review", Decision: "approved", Fields: map[string]any{"reply": ""}}, service.InvalidAnswer,
			"the answer to approval review of run RUN breaks its form:\n  /decision: decision \"approved\" is not one of approve, reject\n  /reply: field 'reply' must have minLength 1",
			"実行 RUN の承認 review への回答はフォームに違反しています:\n  /decision: 決定 \"approved\" は approve, reject のいずれでもありません\n  /reply: フィールド 'reply' は minLength 1 以上である必要があります"},
		{"not an approver", &auth.Principal{Name: "dave", Groups: []string{"ops"}},
			service.AnswerRequest{Node: "review", Decision: "approve"}, service.NotApprover,
			"dave may not answer approval review of run RUN: not one of its approvers",
			"dave は実行 RUN の承認 review に回答できません: 承認者ではありません"},
		{"the starter", &auth.Principal{Name: "bob", Groups: []string{"leads"}},
			service.AnswerRequest{Node: "review", Decision: "approve"}, service.Starter,
			"bob may not answer approval review of run RUN: it started the run, and the approval excludes the starter",
			"bob は実行 RUN の承認 review に回答できません: この実行を開始しており、承認は開始者を除外しています"},
		{"an agent", alice,
			service.AnswerRequest{Node: "review", Decision: "approve", Through: service.ThroughMCP}, service.AgentsMayNot,
			"approval review of run RUN does not take answers from agents (MCP): set agents_may_answer: true to allow them",
			"実行 RUN の承認 review はエージェント（MCP）からの回答を受け付けません。許可するには agents_may_answer: true を設定してください"},
		{"stale evidence", alice,
			service.AnswerRequest{Node: "review", Decision: "approve", EvidenceHash: "0123456789abcdef"}, service.StaleEvidence,
			"approval review of run RUN shows other evidence now (OPEN) than the answer saw (0123456789ab): look at it again (`seam approvals show RUN review`)",
			"実行 RUN の承認 review の根拠は、回答が見たもの（0123456789ab）から変わっています（OPEN）。もう一度確認してください（`seam approvals show RUN review`）"},
		{"no such approval", alice,
			service.AnswerRequest{Node: "send", Decision: "approve"}, service.NotWaiting,
			"run RUN has no approval send waiting for an answer; `seam approvals list` shows those that are",
			"実行 RUN には回答を待っている承認 send がありません。`seam approvals list` で一覧できます"},
		{"no such node", alice,
			service.AnswerRequest{Node: "nope", Decision: "approve"}, service.NotWaiting,
			"run RUN has no approval nope waiting for an answer; `seam approvals list` shows those that are",
			"実行 RUN には回答を待っている承認 nope がありません。`seam approvals list` で一覧できます"},
	}
	svc, eng, st := onTemporal(t, i18n.English)
	_, res := startWaiting(t, svc, gateDAG)
	open := node(t, res, "review").Approval
	if open == nil || open.EvidenceHash == "" {
		t.Fatalf("the paused run holds no question: %+v", node(t, res, "review"))
	}
	events := countEvents(t, eng.Client, WorkflowID(res.ID))
	for _, lang := range []i18n.Lang{i18n.English, i18n.Japanese} {
		for _, tt := range tests {
			t.Run(string(lang)+"/"+tt.name, func(t *testing.T) {
				req := tt.req
				req.Run, req.Lang = res.ID, lang
				_, err := eng.AnswerRun(t.Context(), req, tt.by)
				var ae *service.AnswerError
				if !errors.As(err, &ae) || ae.Why != tt.why {
					t.Fatalf("AnswerRun = %v, want refusal %d", err, tt.why)
				}
				want := tt.en
				if lang == i18n.Japanese {
					want = tt.ja
				}
				want = strings.ReplaceAll(strings.ReplaceAll(want, "RUN", res.ID), "OPEN", open.EvidenceHash[:12])
				if err.Error() != want {
					t.Errorf("says\n%s\nwant\n%s", err, want)
				}
			})
		}
	}
	if after := countEvents(t, eng.Client, WorkflowID(res.ID)); after != events {
		t.Errorf("the refused answers took the history from %d events to %d", events, after)
	}
	got, err := eng.AnswerRun(t.Context(), service.AnswerRequest{Run: res.ID, Node: "review", Decision: "approve",
		Fields: map[string]any{"reply": "ok"}, EvidenceHash: open.EvidenceHash, Through: service.ThroughWeb}, alice)
	if err != nil || got.Approval.By != "alice" || got.Approval.Answer["reply"] != "ok" {
		t.Fatalf("a good answer: %+v %v", got, err)
	}
	if r, _ := ended(t, st, res.ID); r.Status != dag.RunSuccess {
		t.Errorf("run %s after the answer", r.Status)
	}
}

// TestApprovalTimeoutOnTemporal: with no answer, the workflow's timer records on_timeout's
// answer at the deadline (through timeout), and the run goes on with it.
func TestApprovalTimeoutOnTemporal(t *testing.T) {
	const lateDAG = `version: 1
name: late
nodes:
  review:
    type: approval
    with:
      title: Ship?
      form: {type: object, properties: {note: {type: string}}}
      prefill: {note: drafted}
      approvers: anyone
      timeout: 2s
      on_timeout: {decision: approve, comment: "no answer: shipped"}
  ship:
    type: const
    when: "${{ nodes.review.output.data.decision == 'approve' }}"
    with: {value: {status: pass, summary: "${{ has(nodes.review.output.data.comment) ? nodes.review.output.data.comment : 'none' }}"}}
`
	svc, _, st := onTemporal(t, i18n.English)
	_, res := startWaiting(t, svc, lateDAG)
	r, as := ended(t, st, res.ID)
	if r.Status != dag.RunSuccess {
		t.Fatalf("run %s, want success", r.Status)
	}
	var q *dag.ApprovalRecord
	for _, a := range as {
		if a.Node == "review" && a.Approval != nil && a.Approval.Answer != nil {
			q = a.Approval
		}
	}
	if q == nil || q.Through != service.ThroughTimeout || q.Answer["decision"] != "approve" || q.Answer["note"] != "drafted" || q.Answer["comment"] != "no answer: shipped" {
		t.Fatalf("recorded answer %+v, want on_timeout's through timeout", q)
	}
	for _, n := range runs.Summarize(as) {
		o, _ := runs.AttemptOutput(t.Context(), st, n.Final)
		if n.ID == "ship" && (n.Status() != dag.NodePassed || !strings.Contains(string(o), "no answer: shipped")) {
			t.Errorf("ship: %s %s", n.Status(), o)
		}
	}
}

// TestApprovalAnsweredBeforePause answers an approval while an independent branch still
// runs, before the run pauses: the Update is accepted against the question as it opened, and
// the answer recorded once the run has paused; the run then goes on with it.
func TestApprovalAnsweredBeforePause(t *testing.T) {
	dir := t.TempDir()
	src := strings.Replace(gateDAG, "outputs:", `  slow:
    type: exec
    with: {command: [sh, -c, 'while [ ! -f `+dir+`/go ]; do sleep 0.05; done; echo "{\"status\":\"pass\",\"summary\":\"slow\"}"']}
outputs:`, 1)
	svc, _, st := onTemporal(t, i18n.English)
	d, err := dag.Load(t.Context(), writeDAG(t, src), dag.LoadOptions{Types: types()})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Start(auth.With(t.Context(), bob), d, service.Request{})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		r, as, err := st.GetRun(t.Context(), run.ID)
		if err == nil && r.Status == dag.RunRunning && slices.ContainsFunc(as, func(a runs.Attempt) bool { return a.Approval != nil }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the approval did not open while slow runs: %+v %v", r, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	answered := make(chan error, 1)
	go func() {
		_, err := svc.Answer(auth.With(t.Context(), alice), service.AnswerRequest{Run: run.ID, Node: "review", Decision: "approve", Through: service.ThroughCLI}, loader(d), service.Request{})
		answered <- err
	}()
	time.Sleep(200 * time.Millisecond) // the Update reaches the workflow while slow runs; the test holds either way
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	if got := outcome(t, st, run.ID); !strings.HasPrefix(got, `success {"sent":"Thanks"}`) || !strings.Contains(got, "slow passed") || !strings.Contains(got, "send passed") {
		t.Errorf("run ended:\n%s", got)
	}
}

// TestApprovalCanceledOnTemporal: a run waiting for its answer on Temporal is canceled
// through the run service: the workflow stops waiting and records the run canceled, the
// approval with it.
func TestApprovalCanceledOnTemporal(t *testing.T) {
	svc, _, st := onTemporal(t, i18n.English)
	_, res := startWaiting(t, svc, gateDAG)
	if err := svc.Cancel(t.Context(), res.ID); err != nil {
		t.Fatal(err)
	}
	r, as := ended(t, st, res.ID)
	if r.Status != dag.RunCanceled {
		t.Fatalf("run %s, want canceled", r.Status)
	}
	for _, n := range runs.Summarize(as) {
		if want := map[string]dag.NodeStatus{"draft": dag.NodePassed, "review": dag.NodeCanceled, "send": dag.NodeCanceled}[n.ID]; n.Status() != want {
			t.Errorf("node %s: %s, want %s", n.ID, n.Status(), want)
		}
	}
}
