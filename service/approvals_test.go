package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/pgtest"
)

// TestListApprovals: the open approvals of waiting runs, with their question and who may
// answer; --mine keeps those the principal asking may answer; an answered one is gone.
func TestListApprovals(t *testing.T) {
	st := openStore(t, t.TempDir()+"/seam.db")
	s, d, id := startGate(t, st, i18n.English)
	tests := []struct {
		name string
		who  *auth.Principal
		mine bool
		want int
	}{
		{"all", &auth.Principal{Name: "dave"}, false, 1},
		{"mine, by name", &auth.Principal{Name: "alice"}, true, 1},
		{"mine, by group", &auth.Principal{Name: "carol", Groups: []string{"leads"}}, true, 1},
		{"mine, not an approver", &auth.Principal{Name: "dave"}, true, 0},
		{"mine, the excluded starter", &auth.Principal{Name: "bob", Groups: []string{"leads"}}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := s.ListApprovals(auth.With(t.Context(), tt.who), ApprovalQuery{Mine: tt.mine, Load: loader(d)})
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != tt.want {
				t.Fatalf("%d approvals, want %d: %+v", len(list), tt.want, list)
			}
			if tt.want == 0 {
				return
			}
			a := list[0]
			if a.Run != id || a.Node != "review" || a.DAG != "gate" || a.StartedBy != "bob" || !a.Open() ||
				a.Question.Title != "Send?" || string(a.Question.Evidence) != `[{"reply":"Thanks"}]` ||
				strings.Join(a.Approvers.Principals, ",") != "alice" || strings.Join(a.Decisions, ",") != "approve,reject" {
				t.Errorf("approval %+v", a)
			}
		})
	}
	alice := auth.With(t.Context(), &auth.Principal{Name: "alice"})
	ans, err := s.Answer(alice, AnswerRequest{Run: id, Node: "review", Decision: "approve", Fields: map[string]any{"reply": "ok"}, Through: ThroughCLI}, loader(d), Request{})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, ans.Run)
	list, err := s.ListApprovals(alice, ApprovalQuery{Load: loader(d)})
	if err != nil || len(list) != 0 {
		t.Errorf("after the answer: %+v, %v; want none", list, err)
	}
}

// TestGetApproval: one approval, open or answered, as the principal asking sees it; its
// text in English and Japanese; a node the run never asked is refused with its message.
func TestGetApproval(t *testing.T) {
	st := openStore(t, t.TempDir()+"/seam.db")
	s, d, id := startGate(t, st, i18n.English)
	alice := auth.With(t.Context(), &auth.Principal{Name: "alice"})
	tests := []struct {
		name    string
		through string
		load    func(string) (*dag.DAG, error)
		may     bool
		lines   []string
	}{
		{"an approver at the CLI", ThroughCLI, loader(d), true, []string{
			"approval review of run " + id + " (gate)", "title      Send?", "deadline   none",
			"  [\n    {\n      \"reply\": \"Thanks\"", "decisions  approve, reject", "approvers  principals alice; groups leads",
			"answer it with `seam approve " + id + " review` (or `seam reject " + id + " review`)"}},
		{"the same through MCP, without agents_may_answer", ThroughMCP, loader(d), false, []string{"you may not answer it"}},
		{"the DAG file gone", ThroughCLI, func(string) (*dag.DAG, error) { return nil, errors.New("open gate.yaml: no such file") },
			false, []string{"form       not known: open gate.yaml: no such file", "you may not answer it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := s.GetApproval(alice, "latest", "review", ApprovalQuery{Through: tt.through, Load: tt.load})
			if err != nil {
				t.Fatal(err)
			}
			if a.MayAnswer != tt.may || len(a.Question.EvidenceHash) != 64 || a.OnTemporal {
				t.Errorf("may answer %v, want %v; question %+v", a.MayAnswer, tt.may, a.Question)
			}
			var b strings.Builder
			if err := WriteApproval(&b, i18n.English, a, time.Now()); err != nil {
				t.Fatal(err)
			}
			for _, line := range tt.lines {
				if !strings.Contains(b.String(), line+"\n") {
					t.Errorf("text lacks %q:\n%s", line, b.String())
				}
			}
		})
	}

	var ja strings.Builder
	a, err := s.GetApproval(alice, id, "review", ApprovalQuery{Load: loader(d)})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteApproval(&ja, i18n.Japanese, a, time.Now()); err != nil {
		t.Fatal(err)
	}
	if want := "実行 " + id + " の承認 review（gate）\nタイトル   Send?\n"; !strings.HasPrefix(ja.String(), want) {
		t.Errorf("Japanese text:\n%s\nwant it to start\n%s", ja.String(), want)
	}

	// Answered: the answer is shown, and no one may answer again.
	ans, err := s.Answer(alice, AnswerRequest{Run: id, Node: "review", Decision: "reject", Fields: map[string]any{"reply": "x"}, Comment: "no", Through: ThroughCLI}, loader(d), Request{})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, ans.Run)
	a, err = s.GetApproval(alice, id, "review", ApprovalQuery{Load: loader(d)})
	if err != nil || a.Open() || a.MayAnswer || a.Question.By != "alice" {
		t.Fatalf("answered: %+v, %v", a, err)
	}
	var b strings.Builder
	if err := WriteApproval(&b, i18n.English, a, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "answer     reject by alice through cli at ") {
		t.Errorf("answered text:\n%s", b.String())
	}

	_, err = s.GetApproval(alice, id, "send", ApprovalQuery{Load: loader(d)})
	if want := "run " + id + " has no approval send waiting for an answer; `seam approvals list` shows those that are"; err == nil || err.Error() != want {
		t.Errorf("a node never asked: %v, want %s", err, want)
	}
}

// TestWriteApprovals: the list's text, and what it says when it is empty, in both languages.
func TestWriteApprovals(t *testing.T) {
	opened := time.Date(2026, 12, 4, 16, 0, 0, 0, time.Local)
	list := []Approval{{Run: "R1", DAG: "gate", Node: "review", Question: &dag.ApprovalRecord{Title: "Send?\nmore", Opened: opened, Deadline: opened.Add(24 * time.Hour)}}}
	tests := []struct {
		name string
		l    i18n.Lang
		list []Approval
		want string
	}{
		{"one", i18n.English, list, "R1  review  gate  2026-12-04 16:00  due 2026-12-05 16:00  Send?\n"},
		{"one, Japanese", i18n.Japanese, list, "R1  review  gate  2026-12-04 16:00  期限 2026-12-05 16:00  Send?\n"},
		{"none", i18n.English, nil, "no approval waits for an answer\n"},
		{"none, Japanese", i18n.Japanese, nil, "回答を待っている承認はありません\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteApprovals(&b, tt.l, tt.list); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

// TestWriteApprovalOverdue: a passed deadline is said as the run's engine applies it: on the
// embedded engine the next command to touch the run, on Temporal the workflow's timer.
func TestWriteApprovalOverdue(t *testing.T) {
	opened := time.Date(2026, 12, 4, 16, 0, 0, 0, time.Local)
	q := &dag.ApprovalRecord{Title: "Send?", Opened: opened, Deadline: opened.Add(time.Hour)}
	tests := []struct {
		name     string
		l        i18n.Lang
		temporal bool
		want     string
	}{
		{"embedded", i18n.English, false, "deadline   2026-12-04 17:00 (passed: the next command to touch the run records its on_timeout answer)\n"},
		{"embedded, Japanese", i18n.Japanese, false, "期限       2026-12-04 17:00（経過: 次にこの実行に触れるコマンドが on_timeout の回答を記録します）\n"},
		{"Temporal", i18n.English, true, "deadline   2026-12-04 17:00 (passed: the run's workflow on Temporal records its on_timeout answer when its timer fires, once a worker runs it)\n"},
		{"Temporal, Japanese", i18n.Japanese, true, "期限       2026-12-04 17:00（経過: Temporal 上のこの実行のワークフローが、タイマーの発火時に on_timeout の回答を記録します。ワーカーが動いている必要があります）\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			a := &Approval{Run: "R1", DAG: "gate", Node: "review", Question: q, OnTemporal: tt.temporal}
			if err := WriteApproval(&b, tt.l, a, opened.Add(2*time.Hour)); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "\n"+tt.want) {
				t.Errorf("got\n%s\nwant a line\n%s", b.String(), tt.want)
			}
		})
	}
}

// TestAwaitAnswer: AwaitAnswer returns once another process (a second service on the same
// store) answers and resumes the run; a canceled wait returns its cause. On PostgreSQL it
// hears of the answer (LISTEN/NOTIFY), on SQLite it polls.
func TestAwaitAnswer(t *testing.T) {
	for _, store := range []struct {
		name     string
		location func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return t.TempDir() + "/seam.db" }},
		{"postgres", func(t *testing.T) string { return pgtest.Database(t) }},
	} {
		t.Run(store.name, func(t *testing.T) { testAwaitAnswer(t, store.location(t)) })
	}
}

func testAwaitAnswer(t *testing.T, path string) {
	s, d, id := startGate(t, openStore(t, path), i18n.English)

	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errors.New("interrupted"))
	if err := s.AwaitAnswer(ctx, id, d, Request{}); err == nil || err.Error() != "interrupted" {
		t.Fatalf("a canceled wait: %v", err)
	}

	done := make(chan error, 1)
	go func() { done <- s.AwaitAnswer(t.Context(), id, d, Request{}) }()
	other := newService(t, openStore(t, path), i18n.English)
	alice := auth.With(t.Context(), &auth.Principal{Name: "alice"})
	ans, err := other.Answer(alice, AnswerRequest{Run: id, Node: "review", Decision: "approve", Fields: map[string]any{"reply": "ok"}, Through: ThroughCLI}, loader(d), Request{})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, ans.Run)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r, _, err := s.Show(t.Context(), id)
	if err != nil || r.Status != dag.RunSuccess {
		t.Fatalf("after the wait: %+v, %v", r, err)
	}
}
