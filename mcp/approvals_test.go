package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/internal/i18n"
)

const agentGate = `version: 1
name: agentgate
nodes:
  draft:
    type: const
    with: {value: {status: pass, summary: drafted, data: {reply: "Thanks"}}}
    contract: {output: {type: object, required: [data], properties: {data: {type: object, required: [reply], properties: {reply: {type: string, minLength: 1}}}}}}
  review:
    type: approval
    with:
      title: Send it?
      show: ["${{ nodes.draft.output.data }}"]
      form: {type: object, required: [reply], properties: {reply: {type: string, minLength: 1}}}
      prefill: {reply: "${{ nodes.draft.output.data.reply }}"}
      approvers: anyone
      agents_may_answer: AGENTS
  send:
    type: const
    when: "${{ nodes.review.output.data.decision == 'approve' }}"
    with: {value: {status: pass, summary: "${{ nodes.review.output.data.reply }}"}}
`

// approvalServer serves a root holding agents.yaml (agents may answer) and people.yaml
// (they may not) and returns the session and the ids of a waiting run of each.
func approvalServer(t *testing.T, lang i18n.Lang) (*sdk.ClientSession, string, string) {
	t.Helper()
	root := testRoot(t)
	for name, agents := range map[string]string{"agents.yaml": "true", "people.yaml": "false"} {
		src := strings.Replace(agentGate, "AGENTS", agents, 1)
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, cs := serve(t, Options{Root: root, Store: tempStore(t), Lang: lang}, nil)
	ids := make([]string, 2)
	for i, name := range []string{"people.yaml", "agents.yaml"} {
		r := call(t, cs, "run_dag", map[string]any{"path": name, "wait": true})
		ids[i], _ = r.data()["id"].(string)
		if st, _ := r.data()["status"].(string); st != "waiting" {
			t.Fatalf("run of %s: %v, want waiting", name, r.env)
		}
	}
	return cs, ids[1], ids[0]
}

// TestApprovalTools: list_approvals and get_approval, compact and raw, over a client
// session; answer_approval continues the run when agents may answer.
func TestApprovalTools(t *testing.T) {
	cs, agents, people := approvalServer(t, i18n.English)

	l := call(t, cs, "list_approvals", map[string]any{})
	as, _ := l.data()["approvals"].([]any)
	if num(l.data(), "count") != 2 || len(as) != 2 || l.env["message"] != "2 approvals waiting for an answer" {
		t.Fatalf("list_approvals: %v", l.env)
	}
	first, _ := as[0].(map[string]any)
	if first["run"] != agents || first["title"] != "Send it?" || first["may_answer"] != true || first["form"] != nil {
		t.Errorf("the newest, compact: %v", first)
	}
	raw := call(t, cs, "list_approvals", map[string]any{"raw": true})
	rawFirst := raw.data()["approvals"].([]any)[0].(map[string]any)
	if rawFirst["form"] == nil || rawFirst["question"] == nil {
		t.Errorf("raw: %v", rawFirst)
	}
	mine := call(t, cs, "list_approvals", map[string]any{"mine": true})
	if num(mine.data(), "count") != 1 {
		t.Errorf("mine (an agent: only agents.yaml's): %v", mine.env)
	}

	g := call(t, cs, "get_approval", map[string]any{"run": agents, "node": "review"})
	hash, _ := g.data()["evidence_hash"].(string)
	if len(hash) != 64 || g.data()["may_answer"] != true || g.env["message"] != "approval review of run "+agents+" waits for an answer: Send it?" {
		t.Fatalf("get_approval: %v", g.env)
	}
	if ev, _ := g.data()["evidence"].([]any); len(ev) != 1 {
		t.Errorf("evidence: %v", g.data()["evidence"])
	}
	if p := call(t, cs, "get_approval", map[string]any{"run": people, "node": "review"}); p.data()["may_answer"] != false {
		t.Errorf("people.yaml's, to an agent: %v", p.env)
	}

	// list_runs' status filter takes waiting: the two runs, the newest first.
	w := call(t, cs, "list_runs", map[string]any{"status": "waiting"})
	if rs, _ := w.data()["runs"].([]any); errCode(w) != "" || len(rs) != 2 || rs[0].(map[string]any)["id"] != agents {
		t.Errorf("list_runs status waiting: %v", w.env)
	}

	a := call(t, cs, "answer_approval", map[string]any{"run": agents, "node": "review", "decision": "approve",
		"fields": map[string]any{"reply": "Hello"}, "evidence_hash": hash, "wait": true})
	if errCode(a) != "" || a.data()["status"] != "success" || a.env["message"] != "approval review of run "+agents+" answered; the run ended success" {
		t.Fatalf("answer_approval: %v", a.env)
	}
	if g := call(t, cs, "get_approval", map[string]any{"run": agents, "node": "review"}); g.env["message"] != "approval review of run "+agents+" was answered: approve" {
		t.Errorf("answered: %v", g.env)
	}
}

// TestAnswerApprovalRefused: each refusal through MCP, with its message in English and
// Japanese; the approval stays open.
func TestAnswerApprovalRefused(t *testing.T) {
	tests := []struct {
		name   string
		people bool
		args   map[string]any
		en, ja string
	}{
		{"agents may not", true, map[string]any{"decision": "approve"},
			"approval review of run RUN does not take answers from agents (MCP): set agents_may_answer: true to allow them",
			"実行 RUN の承認 review はエージェント（MCP）からの回答を受け付けません。許可するには agents_may_answer: true を設定してください"},
		{"stale evidence", false, map[string]any{"decision": "approve", "evidence_hash": "0123456789abcdef"},
			"approval review of run RUN shows other evidence now (",
			"実行 RUN の承認 review の根拠は、回答が見たもの（0123456789ab）から変わっています（"},
		{"the form broken", false, map[string]any{"decision": "approve", "fields": map[string]any{"reply": ""}},
			"the answer to approval review of run RUN breaks its form:\n  /reply: ",
			"実行 RUN の承認 review への回答はフォームに違反しています:\n  /reply: "},
		{"no such approval", false, map[string]any{"decision": "approve", "node": "send"},
			"run RUN has no approval send waiting for an answer; `seam approvals list` shows those that are",
			"実行 RUN には回答を待っている承認 send がありません。`seam approvals list` で一覧できます"},
	}
	for _, lang := range []i18n.Lang{i18n.English, i18n.Japanese} {
		cs, agents, people := approvalServer(t, lang)
		for _, tt := range tests {
			t.Run(string(lang)+"/"+tt.name, func(t *testing.T) {
				id := agents
				if tt.people {
					id = people
				}
				args := map[string]any{"run": id, "node": "review"}
				for k, v := range tt.args {
					args[k] = v
				}
				r := call(t, cs, "answer_approval", args)
				want := map[i18n.Lang]string{i18n.English: tt.en, i18n.Japanese: tt.ja}[lang]
				want = strings.ReplaceAll(want, "RUN", id)
				if msg, _ := r.env["message"].(string); errCode(r) != CodeAnswerRefused || !strings.HasPrefix(msg, want) {
					t.Errorf("got %v\nwant the message to start %q", r.env, want)
				}
				if g := call(t, cs, "get_approval", map[string]any{"run": id, "node": "review"}); g.data()["answer"] != nil {
					t.Errorf("answered after a refusal: %v", g.env)
				}
			})
		}
	}
}

// TestApprovalToolsReadOnly: a read-only server lists and shows approvals, and offers no
// answer_approval.
func TestApprovalToolsReadOnly(t *testing.T) {
	_, cs := serve(t, Options{Root: testRoot(t), Store: tempStore(t), ReadOnly: true}, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "list_approvals") || !slices.Contains(names, "get_approval") || slices.Contains(names, "answer_approval") {
		t.Errorf("read-only tools: %v", names)
	}
}
