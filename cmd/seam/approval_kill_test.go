package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// killGateDAG waits for an approval; its output is the reply the answer gave.
const killGateDAG = `version: 1
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
      approvers: anyone
  send:
    type: const
    when: "${{ nodes.review.output.data.decision == 'approve' }}"
    with: {value: {status: pass, summary: "sent: ${{ nodes.review.output.data.reply }}"}}
outputs:
  sent: "${{ nodes.send.output.summary }}"
`

// seamOut runs seam in dir to its end and returns what it printed and its exit status.
func seamOut(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	bin, err := exec.LookPath("seam")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "SEAM_LANG=en")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// waitingRun waits until the newest run of store waits for its answer, and returns its id.
func waitingRun(t *testing.T, store string) string {
	t.Helper()
	var id string
	waitFor(t, "a waiting run", func() bool {
		r, _ := latestRun(t, store)
		if r != nil && r.Status == dag.RunWaiting {
			id = r.ID
		}
		return id != ""
	})
	return id
}

// endsSent checks that run id of store ended success, its output the answer's reply.
func endsSent(t *testing.T, store, id, reply string) {
	t.Helper()
	st, err := runs.OpenReadOnly(t.Context(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var r *runs.Run
	waitFor(t, "the run to end", func() bool {
		r, _, err = st.GetRun(t.Context(), id)
		return err == nil && r.Status != dag.RunWaiting && r.Status != dag.RunRunning
	})
	var outputs map[string]any
	_ = json.Unmarshal(r.Outputs, &outputs)
	if r.Status != dag.RunSuccess || outputs["sent"] != "sent: "+reply {
		t.Errorf("run %s: %s, outputs %s; want success, sent: %s", id, r.Status, r.Outputs, reply)
	}
}

// TestApprovalRunWaitKilled kills `seam run --wait` (SIGKILL) while its run waits for the
// answer; the answer given afterwards from another process finishes the run: seam approve
// itself, or, when the answering process died after recording it, seam run --resume.
func TestApprovalRunWaitKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as processes")
	}
	tests := []struct {
		name   string
		answer func(t *testing.T, dir, store, id string)
	}{
		{"seam approve", func(t *testing.T, dir, store, id string) {
			if out, code := seamOut(t, dir, "approve", "--store", store, id, "review", "--set", "reply=Sent"); code != 0 {
				t.Fatalf("seam approve: exit %d\n%s", code, out)
			}
		}},
		{"seam run --resume after an answer left", func(t *testing.T, dir, store, id string) {
			st, err := runs.Open(t.Context(), store)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			// What seam approve records before it resumes, had it died in between.
			if _, ok, err := st.AnswerApproval(t.Context(), id, "review", dag.ApprovalRecord{
				Answer: map[string]any{"decision": "approve", "reply": "Sent"}, By: "alice", At: time.Now(), Through: "cli"}); err != nil || !ok {
				t.Fatalf("record the answer: %v, %v", ok, err)
			}
			if out, code := seamOut(t, dir, "run", "--store", store, "--resume", id); code != 0 {
				t.Fatalf("seam run --resume: exit %d\n%s", code, out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onEachStore(t, "gate.yaml", killGateDAG, func(t *testing.T, dir, store string) {
				waiter, out := startSeam(t, dir, nil, "run", "--store", store, "--wait", "gate.yaml")
				id := waitingRun(t, store)
				waitFor(t, "the waiting note", func() bool { return strings.Contains(out.String(), "waits for approval review") })
				if err := syscall.Kill(waiter.Process.Pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				waiter.Wait()
				tt.answer(t, dir, store, id)
				endsSent(t, store, id, "Sent")
			})
		})
	}
}

// TestApprovalServeKilled kills `seam serve` (SIGKILL) while a run waits for its answer and
// starts it again: an answer through the web form (the POST a browser sends) then finishes
// the run; and an answer recorded by a process that died before resuming the run is taken
// by the restarted serve on its own (service.Untaken after it was given).
func TestApprovalServeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as processes")
	}
	tests := []struct {
		name   string
		answer func(t *testing.T, base, store, id string)
	}{
		{"through the web form", answerOnWeb},
		{"an answer left", func(t *testing.T, _, store, id string) {
			st, err := runs.Open(t.Context(), store)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if _, ok, err := st.AnswerApproval(t.Context(), id, "review", dag.ApprovalRecord{
				Answer: map[string]any{"decision": "approve", "reply": "Sent"}, By: "alice", At: time.Now(), Through: "cli"}); err != nil || !ok {
				t.Fatalf("record the answer: %v, %v", ok, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onEachStore(t, "gate.yaml", killGateDAG, func(t *testing.T, dir, store string) {
				// Without its scheduler, whose lease the second would wait out (runs.LeaseFor).
				first, _ := startSeam(t, dir, nil, "serve", "--addr", "127.0.0.1:0", "--store", store, "--root", ".", "--no-scheduler")
				if out, code := seamOut(t, dir, "run", "--store", store, "gate.yaml"); code != 3 {
					t.Fatalf("seam run: exit %d, want 3 (waiting)\n%s", code, out)
				}
				id := waitingRun(t, store)
				if err := syscall.Kill(first.Process.Pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				first.Wait()
				_, out := startSeam(t, dir, nil, "serve", "--addr", "127.0.0.1:0", "--store", store, "--root", ".")
				addr := regexp.MustCompile(`seam serve: (http://\S+)/ `)
				waitFor(t, "seam serve to listen", func() bool { return addr.MatchString(out.String()) })
				tt.answer(t, addr.FindStringSubmatch(out.String())[1], store, id)
				endsSent(t, store, id, "Sent")
			})
		})
	}
}

// answerOnWeb approves run id's review with reply Sent through the web view at base, as a
// browser does: the run's page, then its form's POST.
func answerOnWeb(t *testing.T, base, _, id string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(base + "/runs/" + id)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	field := func(name string) string {
		m := regexp.MustCompile(`name="` + name + `" value="([0-9a-f]+)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no %s in the run's page:\n%s", name, page)
		}
		return m[1]
	}
	form := url.Values{"csrf": {field("csrf")}, "evidence": {field("evidence")}, "decision": {"approve"}, "f.reply": {"Sent"}}
	resp, err = c.PostForm(base+"/runs/"+id+"/approvals/review", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the answer: %s, want 303 to the run", resp.Status)
	}
}
