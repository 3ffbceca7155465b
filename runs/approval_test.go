package runs

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

func TestApprovalStored(t *testing.T) { eachBackend(t, testApprovalStored) }

// testApprovalStored: an approval's question is kept on its waiting attempt and read back
// whole; a run finishes waiting; AnswerApproval records the first answer on the question,
// returns the stored one unchanged to a second, and says ErrNotFound for a node that asked
// nothing.
func testApprovalStored(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "running", Started: t0}); err != nil {
		t.Fatal(err)
	}
	q := &dag.ApprovalRecord{Evidence: []byte(`[{"a":1}]`), EvidenceHash: "abc", Opened: t0, Deadline: t0.Add(time.Hour)}
	if err := recordAttempt(ctx, s, Attempt{RunID: "r1", Node: "review", Type: "approval", Item: -1, Status: dag.NodeWaiting, Approval: q}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRunWith(ctx, "r1", Finish{Status: dag.RunWaiting, Ended: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	r, as, err := s.GetRun(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != dag.RunWaiting || len(as) != 1 || as[0].Status != dag.NodeWaiting || as[0].Approval == nil {
		t.Fatalf("run %s, attempts %+v", r.Status, as)
	}
	if got := as[0].Approval; string(got.Evidence) != string(q.Evidence) || got.EvidenceHash != q.EvidenceHash ||
		!got.Opened.Equal(q.Opened) || !got.Deadline.Equal(q.Deadline) || got.Answer != nil {
		t.Errorf("question read back %+v, want %+v", got, q)
	}

	first := dag.ApprovalRecord{Answer: map[string]any{"decision": "approve"}, By: "alice", At: t0.Add(time.Minute), Through: "cli"}
	second := dag.ApprovalRecord{Answer: map[string]any{"decision": "reject"}, By: "bob", At: t0.Add(2 * time.Minute), Through: "web"}
	tests := []struct {
		name     string
		answer   dag.ApprovalRecord
		recorded bool
	}{
		{"the first answer", first, true},
		{"a second one", second, false},
	}
	for _, tt := range tests {
		got, recorded, err := s.AnswerApproval(ctx, "r1", "review", tt.answer)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if recorded != tt.recorded || !reflect.DeepEqual(got.Answer, first.Answer) || got.By != "alice" || got.Through != "cli" || got.EvidenceHash != "abc" {
			t.Errorf("%s: recorded %v, stored %+v", tt.name, recorded, got)
		}
	}
	_, as, err = s.GetRun(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if a := as[0].Approval; a == nil || a.By != "alice" || !a.At.Equal(first.At) || a.Answer["decision"] != "approve" {
		t.Errorf("answer read back %+v", a)
	}
	_, _, err = s.AnswerApproval(ctx, "r1", "send", first)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("answering a node that asked nothing: %v, want ErrNotFound", err)
	}
}

// TestSummaryStatusWaiting: a node whose last attempt waits for an approval's answer is
// waiting, not unfinished; one whose attempt was left running by a dead process is
// unfinished, and a decided one is its attempt's.
func TestSummaryStatusWaiting(t *testing.T) {
	tests := []struct {
		name string
		a    Attempt
		want dag.NodeStatus
	}{
		{"waiting for an answer", Attempt{Node: "review", Item: -1, Status: dag.NodeWaiting}, dag.NodeWaiting},
		{"interrupted", Attempt{Node: "build", Item: -1, Status: AttemptInterrupted}, Unfinished},
		{"passed", Attempt{Node: "build", Item: -1, Status: dag.NodePassed, Final: true}, dag.NodePassed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := Summarize([]Attempt{tt.a})
			if len(ns) != 1 || ns[0].Status() != tt.want {
				t.Fatalf("Summarize(%+v) status %v, want %s", tt.a, ns[0].Status(), tt.want)
			}
		})
	}
}

// TestApprovalNotified: on PostgreSQL, a process listening for a waiting run (ListenRun) is
// told of an answer as its transaction commits, and of the resume that follows: wait returns
// long before its bound. On SQLite ListenRun only sleeps (polling).
func TestApprovalNotified(t *testing.T) {
	ctx := context.Background()
	s, dsn := openTempPostgres(t)
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "running", Started: t0}); err != nil {
		t.Fatal(err)
	}
	q := &dag.ApprovalRecord{EvidenceHash: "abc", Opened: t0}
	if err := recordAttempt(ctx, s, Attempt{RunID: "r1", Node: "review", Type: "approval", Item: -1, Status: dag.NodeWaiting, Approval: q}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRunWith(ctx, "r1", Finish{Status: dag.RunWaiting, Ended: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	wait, stop, notified := ListenRun(ctx, s, "r1")
	defer stop()
	if !notified {
		t.Fatal("PostgreSQL does not notify")
	}
	other, err := Open(ctx, dsn) // another process's store
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tests := []struct {
		name   string
		change func() error
	}{
		{"the answer", func() error {
			_, _, err := other.AnswerApproval(ctx, "r1", "review", dag.ApprovalRecord{Answer: map[string]any{"decision": "approve"}, At: t0})
			return err
		}},
		{"the resume", func() error { _, err := other.ResumeRun(ctx, "r1", 0, 1, "h"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.change(); err != nil {
				t.Fatal(err)
			}
			// An hour is the bound; a minute without the notification fails.
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if err := wait(wctx, time.Hour); err != nil {
				t.Fatalf("no notification: %v", err)
			}
		})
	}
	if _, _, notified := ListenRun(ctx, Store(nil), "r1"); notified {
		t.Error("a store without notifications said it notifies")
	}
}
