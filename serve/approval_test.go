package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// gateDAG waits for an answer to a form of every kind the web view renders; APPROVERS is
// replaced by who may answer.
const gateDAG = `version: 1
name: gate
nodes:
  draft:
    type: const
    with: {value: {status: pass, summary: drafted, data: {reply: "Thanks <b>", customer: ann}}}
    contract: {output: {type: object, required: [data], properties: {data: {type: object, required: [reply], properties: {reply: {type: string, minLength: 1}, customer: {type: string}}}}}}
  review:
    type: approval
    with:
      title: Send the reply?
      body: Look at the draft first.
      show: ["${{ nodes.draft.output.data }}"]
      form:
        type: object
        required: [reply]
        properties:
          reply: {type: string, minLength: 1}
          tone: {type: string, enum: [warm, formal]}
          urgent: {type: boolean}
          count: {type: integer, minimum: 0}
          tags: {type: array, items: {type: string}}
          address: {type: object, properties: {city: {type: string}}}
      prefill: {reply: "${{ nodes.draft.output.data.reply }}", tone: formal, tags: [a, b]}
      approvers: APPROVERS
      timeout: 24h
  send:
    type: const
    when: "${{ nodes.review.output.data.decision == 'approve' }}"
    with: {value: {status: pass, summary: "${{ nodes.review.output.data.reply }}"}}
`

// startGate writes gateDAG with approvers under f's root, starts it and waits until it
// waits for its answer.
func (f *fixture) startGate(approvers string) string {
	f.t.Helper()
	return f.startGateSrc(strings.ReplaceAll(gateDAG, "APPROVERS", approvers))
}

// startGateSrc is startGate for the DAG file src.
func (f *fixture) startGateSrc(src string) string {
	f.t.Helper()
	f.writeRoot("gate.yaml", src)
	d, err := f.srv.files.Load(context.Background(), filepath.Join(f.root, "gate.yaml"))
	if err != nil {
		f.t.Fatal(err)
	}
	run, err := f.svc.Start(context.Background(), d, service.Request{})
	if err != nil {
		f.t.Fatal(err)
	}
	res, err := run.Wait()
	if err != nil || res.Status != dag.RunWaiting {
		f.t.Fatalf("gate run: %v, %v; want waiting", res, err)
	}
	return run.ID
}

// waitEnd waits until run id has ended, and returns it with its attempts.
func (f *fixture) waitEnd(id string) (*runs.Run, []runs.Attempt) {
	f.t.Helper()
	for {
		r, as, err := f.st.GetRun(f.t.Context(), id)
		if err != nil {
			f.t.Fatal(err)
		}
		if r.Status != dag.RunRunning {
			return r, as
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// evidenceOf reads the evidence hash the run page's form carries.
func evidenceOf(t *testing.T, page string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, `name="evidence" value="`)
	if !ok {
		t.Fatalf("no evidence hash in the page:\n%s", page)
	}
	h, _, _ := strings.Cut(rest, `"`)
	return h
}

// TestServeApprovalPage: a waiting run's page shows its approval: title, body, the frozen
// evidence (as text), the deadline and a form generated from the form's schema with the
// prefill as its values, and a button per decision; the runs page shows the run waiting.
func TestServeApprovalPage(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.startGate("anyone")
	_, page := f.get(nil, "/runs/"+id)
	for _, want := range []string{
		`<span class="status st-waiting" id="run-status">waiting</span>`,
		`id="approval-review"`, `Send the reply?`, `Look at the draft first.`,
		`class="deadline"`,
		`&#34;reply&#34;: &#34;Thanks &lt;b&gt;&#34;`, // the evidence, as text
		`<input type="text" name="f.reply" value="Thanks &lt;b&gt;">`,
		`<select name="f.tone"><option value=""></option><option>warm</option><option selected>formal</option></select>`,
		`<input type="checkbox" name="f.urgent">`,
		`<input type="number" name="f.count" value="" step="1" min="0">`,
		"<textarea name=\"f.tags\" placeholder=\"one per line\">a\nb</textarea>",
		`<fieldset data-field="address"><legend>address</legend>`, `<input type="text" name="f.address.city" value="">`,
		`<textarea name="comment">`,
		`<button type="submit" name="decision" value="approve" class="decision d-approve">approve</button>`,
		`<button type="submit" name="decision" value="reject" class="decision d-reject">reject</button>`,
		`<a href="/approvals" id="nav-approvals">Waiting for you</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the run page does not show %s", want)
		}
	}
	if !regexp.MustCompile(`data-node="review">.*?<tspan class="icon">⏸</tspan>`).MatchString(page) {
		t.Errorf("the waiting approval is not marked ⏸ in the graph:\n%s", page)
	}
	_, list := f.get(nil, "/runs")
	if !strings.Contains(list, `<span class="status st-waiting" data-status>waiting</span>`) || !strings.Contains(list, `<option value="waiting"`) {
		t.Errorf("the runs page does not show the run waiting, or cannot filter by it:\n%s", list)
	}
	rof := newFixture(t, Options{ReadOnly: true})
	if _, ro := rof.get(nil, "/runs/"+rof.startGate("anyone")); strings.Contains(ro, `class="answer"`) || !strings.Contains(ro, `id="approval-review"`) {
		t.Errorf("a read-only server shows the answer form")
	}
}

// TestServeApprovalAnswer: the form's answer is checked again on the server; an answer that
// passes resumes the run, which ends with it in the node's output, recorded as given through
// the web; one refused shows why on the run's page (in the page's language), with what was
// sent, and the approval stays open.
func TestServeApprovalAnswer(t *testing.T) {
	valid := url.Values{"decision": {"approve"}, "f.reply": {"Sent!"}, "f.tone": {"warm"}, "f.urgent": {"on"},
		"f.count": {"3"}, "f.tags": {"x\r\n\r\ny"}, "f.address.city": {"Oslo"}, "comment": {"fine"}}
	with := func(k, v string) url.Values {
		u := url.Values{}
		for key, vs := range valid {
			u[key] = vs
		}
		u.Set(k, v)
		return u
	}
	tests := []struct {
		name, lang string
		form       url.Values
		code       int
		says       string
	}{
		{"an invalid field", "en", with("f.reply", ""), http.StatusUnprocessableEntity,
			"the answer to approval review of run RUN breaks its form:\n  /reply: field &#39;reply&#39; must have minLength 1"},
		{"an invalid field, in Japanese", "ja", with("f.reply", ""), http.StatusUnprocessableEntity,
			"実行 RUN の承認 review への回答はフォームに違反しています:\n  /reply: フィールド &#39;reply&#39; は minLength 1 以上である必要があります"},
		{"a decision not offered", "en", with("decision", "maybe"), http.StatusUnprocessableEntity,
			"  /decision: decision &#34;maybe&#34; is not one of approve, reject"},
		{"not an integer", "en", with("f.count", "3.5"), http.StatusBadRequest, "count: &#34;3.5&#34; is not an integer"},
		{"not an integer, in Japanese", "ja", with("f.count", "x"), http.StatusBadRequest, "count：&#34;x&#34; は整数ではありません"},
		{"not a choice", "en", with("f.tone", "rude"), http.StatusBadRequest, "tone: &#34;rude&#34; is not one of its choices"},
		{"stale evidence", "en", with("evidence", "0123456789abcdef"), http.StatusConflict,
			"approval review of run RUN shows other evidence now (OPEN) than the answer saw (0123456789ab)"},
		{"no such approval", "en", valid, http.StatusConflict, "run RUN has no approval send waiting for an answer"},
	}
	f := newFixture(t, Options{})
	id := f.startGate("anyone")
	c := jarClient(t, f)
	_, page := f.get(c, "/runs/"+id)
	token, hash := csrfOf(t, page), evidenceOf(t, page)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{}
			for k, v := range tt.form {
				form[k] = v
			}
			form.Set("csrf", token)
			if form.Get("evidence") == "" {
				form.Set("evidence", hash)
			}
			node := "review"
			if tt.name == "no such approval" {
				node = "send"
			}
			req, _ := http.NewRequest(http.MethodPost, f.http.URL+"/runs/"+id+"/approvals/"+node, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept-Language", tt.lang)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			body := string(b)
			if resp.StatusCode != tt.code {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.code)
			}
			want := strings.ReplaceAll(strings.ReplaceAll(tt.says, "RUN", id), "OPEN", hash[:12])
			if !strings.Contains(body, want) {
				t.Errorf("the page does not say\n%s\n%s", want, body)
			}
			if node == "review" && !strings.Contains(body, `name="f.address.city" value="Oslo"`) {
				t.Errorf("the page does not keep what was sent")
			}
			if r, _, _ := f.st.GetRun(t.Context(), id); r.Status != dag.RunWaiting {
				t.Errorf("run %s after a refused answer, want waiting", r.Status)
			}
		})
	}

	resp, _ := post(t, c, f.http.URL+"/runs/"+id+"/approvals/review", with("csrf", token))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/runs/"+id {
		t.Fatalf("answer: %d to %q, want 303 to the run", resp.StatusCode, resp.Header.Get("Location"))
	}
	r, as := f.waitEnd(id)
	if r.Status != dag.RunSuccess {
		t.Fatalf("run %s after the answer, want success", r.Status)
	}
	var through string
	var out map[string]any
	for _, a := range as {
		if a.Node == "review" && a.Status == dag.NodeWaiting && a.Approval != nil {
			through = a.Approval.Through
		}
		if a.Node == "review" && a.Status == dag.NodePassed {
			b, err := f.svc.AttemptOutput(t.Context(), &a)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
		}
	}
	if through != service.ThroughWeb {
		t.Errorf("the answer was recorded through %q, want web", through)
	}
	got, _ := json.Marshal(out["data"])
	if want := `{"address":{"city":"Oslo"},"comment":"fine","count":3,"decision":"approve","reply":"Sent!","tags":["x","y"],"tone":"warm","urgent":true}`; string(got) != want {
		t.Errorf("review's output data %s, want %s", got, want)
	}
	again := with("decision", "reject")
	again.Set("csrf", token)
	resp, body := post(t, c, f.http.URL+"/runs/"+id+"/approvals/review", again)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "approval review of run "+id+" was answered already: approve by ") {
		t.Errorf("another answer: %d\n%s", resp.StatusCode, body)
	}
}

// TestServeApprovalPrincipals: with a principals file, answering needs the approver role (or
// admin) and being one of the node's approvers; "Waiting for you" lists only the approvals
// the principal may answer. Without a principals file it lists every open approval.
func TestServeApprovalPrincipals(t *testing.T) {
	f, _ := principalsFixture(t)
	id := f.startGate("{principals: [alice], groups: [support]}")
	answer := url.Values{"decision": {"approve"}, "f.reply": {"ok"}}
	tests := []struct {
		name, tok string
		code      int
		says      string
		listed    bool
	}{
		{"a viewer", viewerTok, http.StatusForbidden, "grafana may not do this: it needs the role approver (or admin)", false},
		{"an operator", operatorTok, http.StatusForbidden, "ci-bot may not do this: it needs the role approver (or admin)", false},
		{"an admin not among the approvers", adminTok, http.StatusForbidden, "root may not answer approval review of run " + id + ": not one of its approvers", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := bearerDo(t, f, http.MethodPost, "/runs/"+id+"/approvals/review", tt.tok, answer)
			if resp.StatusCode != tt.code || !strings.Contains(body, tt.says) {
				t.Errorf("answer: %d, want %d saying %q:\n%s", resp.StatusCode, tt.code, tt.says, body)
			}
			_, list := bearerDo(t, f, http.MethodGet, "/approvals", tt.tok, nil)
			if strings.Contains(list, `data-node="review"`) != tt.listed || !strings.Contains(list, `id="no-approvals"`) {
				t.Errorf("Waiting for you lists it: %v, want %v:\n%s", !tt.listed, tt.listed, list)
			}
		})
	}
	_, list := bearerDo(t, f, http.MethodGet, "/approvals", approverTok, nil)
	if !strings.Contains(list, `<tr data-run="`+id+`" data-node="review"><td><a href="/runs/`+id+`#approval-review">`) || !strings.Contains(list, "Send the reply?") {
		t.Errorf("Waiting for you does not list the approval for alice:\n%s", list)
	}
	resp, _ := bearerDo(t, f, http.MethodPost, "/runs/"+id+"/approvals/review", approverTok, answer)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("alice's answer: %d, want 303", resp.StatusCode)
	}
	if r, _ := f.waitEnd(id); r.Status != dag.RunSuccess {
		t.Errorf("run %s after alice's answer", r.Status)
	}

	open := newFixture(t, Options{})
	other := open.startGate("{principals: [alice]}")
	if _, list := open.get(nil, "/approvals"); !strings.Contains(list, `data-node="review"`) || !strings.Contains(list, other) {
		t.Errorf("without a principals file, Waiting for you does not list every open approval:\n%s", list)
	}
}

// TestServeApprovalLate: an answer sent after the approval's deadline is not taken: the
// deadline's answer is recorded instead (a reject, no on_timeout being set) and the run goes
// on with it; the page says so rather than redirect as if the answer were taken.
func TestServeApprovalLate(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.startGateSrc(strings.ReplaceAll(strings.ReplaceAll(gateDAG, "APPROVERS", "anyone"), "timeout: 24h", "timeout: 1ms"))
	c := jarClient(t, f)
	_, page := f.get(c, "/runs/"+id)
	form := url.Values{"csrf": {csrfOf(t, page)}, "decision": {"approve"}, "f.reply": {"late"}}
	resp, body := post(t, c, f.http.URL+"/runs/"+id+"/approvals/review", form)
	if want := "approval review of run " + id + " passed its deadline ("; resp.StatusCode != http.StatusConflict ||
		!strings.Contains(body, `<pre class="error refusal" id="refused">`+want) || !strings.Contains(body, "): its on_timeout answer was recorded instead</pre>") {
		t.Errorf("a late answer: %d\n%s", resp.StatusCode, body)
	}
	r, as := f.waitEnd(id)
	if r.Status != dag.RunFailed {
		t.Errorf("run %s after the deadline's reject, want failed", r.Status)
	}
	for _, a := range as {
		if a.Node == "review" && a.Status == dag.NodeWaiting && a.Approval != nil {
			if a.Approval.Through != service.ThroughTimeout || a.Approval.Answer["decision"] != "reject" {
				t.Errorf("recorded %+v, want the deadline's reject", a.Approval)
			}
		}
	}
}
