package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/runs"
)

// TestTemporalApprovalChannels answers a run waiting on Temporal through each of seam's
// front ends, wired to Temporal as the CLI wires them: seam approve, the web form of `seam
// serve --engine temporal` (the POST a browser sends) and answer_approval in a real MCP
// client session with `seam mcp --engine temporal` (the node has agents_may_answer: true).
// Each answer reaches the workflow's Update; the run ends as the CLI's answer ends it (the
// same statuses, outputs and answer), recorded through the channel that gave it.
func TestTemporalApprovalChannels(t *testing.T) {
	env := temporalEnv(t)
	src := strings.Replace(killGateDAG, "approvers: anyone", "approvers: anyone\n      agents_may_answer: true", 1)
	dir := writeDAGs(t, map[string]string{"gate.yaml": src})
	store := filepath.Join(dir, "s.db")
	startWorker(t, dir, env, store)
	tests := []struct {
		through string
		answer  func(t *testing.T, id string)
	}{
		{"cli", func(t *testing.T, id string) {
			if out, errOut, code := seamEnv(t, dir, env, "approve", "--store", store, id, "review", "--set", "reply=Sent"); code != 0 {
				t.Fatalf("seam approve: exit %d\n%s%s", code, out, errOut)
			}
		}},
		{"web", func(t *testing.T, id string) {
			_, out := startSeam(t, dir, env, "serve", "--engine", "temporal", "--addr", "127.0.0.1:0", "--store", store, "--root", ".")
			addr := regexp.MustCompile(`seam serve: (http://\S+)/ `)
			waitFor(t, "seam serve to listen", func() bool { return addr.MatchString(out.String()) })
			answerOnWeb(t, addr.FindStringSubmatch(out.String())[1], store, id)
		}},
		{"mcp", func(t *testing.T, id string) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cs, _, stderr := startSeamMCP(ctx, t, dir, env, "--engine", "temporal", "--store", store, "--root", dir)
			defer cs.Close()
			got := stdioCall(t, ctx, cs, "answer_approval", map[string]any{"run": id, "node": "review", "decision": "approve", "fields": map[string]any{"reply": "Sent"}})
			if !strings.Contains(got.Message, "answered") {
				t.Errorf("answer_approval said %q; stderr:\n%s", got.Message, stderr)
			}
		}},
	}
	var cli string
	for _, tt := range tests {
		t.Run(tt.through, func(t *testing.T) {
			if out, errOut, code := seamEnv(t, dir, env, "run", "--engine", "temporal", "--store", store, "gate.yaml"); code != 3 {
				t.Fatalf("seam run: exit %d, want 3 (waiting)\n%s%s", code, out, errOut)
			}
			id := waitingRun(t, store)
			tt.answer(t, id)
			endsSent(t, store, id, "Sent")
			got, through := ending(t, store, id)
			if through != tt.through {
				t.Errorf("the answer was recorded through %q, want %q", through, tt.through)
			}
			if tt.through == "cli" {
				cli = got
			} else if got != cli {
				t.Errorf("the run ended otherwise than when answered at the CLI:\n%s\nCLI:\n%s", got, cli)
			}
		})
	}
}

// ending is how run id of store ended, front end aside: its status, host, resumes and
// outputs, each node's status and output; and through what its approval was answered.
func ending(t *testing.T, store, id string) (text, through string) {
	t.Helper()
	st, err := runs.OpenReadOnly(t.Context(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, as, err := st.GetRun(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s, resumed %d: %s\n", r.Status, r.Host, r.Resumes, r.Outputs)
	for _, n := range runs.Summarize(as) {
		o, err := runs.AttemptOutput(t.Context(), st, n.Final)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s\n", n.ID, n.Status(), o)
	}
	for _, a := range as {
		if a.Node == "review" && a.Approval != nil && a.Approval.Answer != nil {
			through = a.Approval.Through
		}
	}
	return b.String(), through
}
