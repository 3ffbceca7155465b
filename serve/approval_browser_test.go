package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/seam-dag/seam/dag"
)

// TestServeBrowserApproval, in a real browser: "Waiting for you" links to the waiting run's
// approval; an answer the form refuses (an empty reply) shows the violation and the node
// stays waiting; the form filled and sent resumes the run, which ends with the answer in
// the node's output.
func TestServeBrowserApproval(t *testing.T) {
	p := tab{t, browser(t)}
	f := newFixture(t, Options{})
	id := f.startGate("anyone")
	p.do(
		chromedp.Navigate(f.http.URL+"/runs"),
		chromedp.Click(css(`#nav-approvals`)),
		chromedp.WaitVisible(css(`table.approvals`)),
		chromedp.Click(css(`a[href="/runs/`+id+`#approval-review"]`)),
		chromedp.WaitVisible(css(`#approval-review form.answer`)),
	)
	if ev := p.text(`#approval-review pre.evidence`); !strings.Contains(ev, `"reply": "Thanks <b>"`) {
		t.Errorf("the evidence shown: %q", ev)
	}
	p.do(
		chromedp.Clear(css(`input[name="f.reply"]`)),
		chromedp.Click(css(`#approval-review button.d-approve`)),
		chromedp.WaitVisible(css(`#approval-review pre.refusal`)),
	)
	if got := p.text(`#approval-review pre.refusal`); !strings.Contains(got, "/reply: field 'reply' must have minLength 1") {
		t.Errorf("the refusal says %q", got)
	}
	if r, _, _ := f.st.GetRun(t.Context(), id); r.Status != dag.RunWaiting {
		t.Errorf("run %s after a refused answer, want waiting", r.Status)
	}
	p.do(
		chromedp.SendKeys(css(`input[name="f.reply"]`), "Sent from Chromium"),
		chromedp.SetValue(css(`select[name="f.tone"]`), "warm"),
		chromedp.Click(css(`input[name="f.urgent"]`)),
		chromedp.Clear(css(`textarea[name="f.tags"]`)),
		chromedp.SendKeys(css(`textarea[name="f.tags"]`), "x\ny"),
		chromedp.SendKeys(css(`input[name="f.address.city"]`), "Oslo"),
		chromedp.Click(css(`#approval-review button.d-approve`)),
		chromedp.WaitNotPresent(css(`#approval-review`)),
	)
	r, as := f.waitEnd(id)
	if r.Status != dag.RunSuccess {
		t.Fatalf("run %s after the answer, want success", r.Status)
	}
	for _, a := range as {
		if a.Node != "review" || a.Status != dag.NodePassed {
			continue
		}
		b, err := f.svc.AttemptOutput(t.Context(), &a)
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ Data map[string]any }
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(out.Data)
		if want := `{"address":{"city":"Oslo"},"decision":"approve","reply":"Sent from Chromium","tags":["x","y"],"tone":"warm","urgent":true}`; string(got) != want {
			t.Errorf("review's output data %s, want %s", got, want)
		}
	}
	if url, err := chromedp.Run(p.ctx, chromedp.Location()); err != nil || !strings.HasSuffix(url, "/runs/"+id) {
		t.Errorf("after the answer the browser shows %q (%v), want the run's page", url, err)
	}
}
