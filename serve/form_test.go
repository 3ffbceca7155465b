package serve

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// formDAG has a param of every kind the run form shows: required ones (a boolean among
// them), an integer that JSON's float64 would round, bounds, a step, a boolean with a
// default and one with none.
const formDAG = `version: 1
name: form
params:
  type: object
  required: [seed, name, dry]
  properties:
    name: {type: string}
    seed: {type: integer}
    dry: {type: boolean}
    count: {type: integer, minimum: 1, maximum: 10}
    pace: {type: number, multipleOf: 0.25, minimum: 0}
    ratio: {type: number}
    color: {type: boolean, default: true}
    verbose: {type: boolean}
    tags: {type: array}
nodes:
  done:
    type: const
    with:
      value: {status: pass, summary: ok}
`

// formFixture is a fixture whose root holds form.yaml.
func formFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, Options{})
	if err := os.WriteFile(filepath.Join(f.root, "form.yaml"), []byte(formDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// storedParams is the params the run that a form's answer redirects to was recorded with.
func (f *fixture) storedParams(resp *http.Response) map[string]json.RawMessage {
	f.t.Helper()
	id, ok := strings.CutPrefix(resp.Header.Get("Location"), "/runs/")
	if !ok {
		f.t.Fatalf("answer %d redirects to %q, not to a run", resp.StatusCode, resp.Header.Get("Location"))
	}
	run, _, err := f.svc.Show(f.t.Context(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(run.Params, &params); err != nil {
		f.t.Fatalf("params %s: %v", run.Params, err)
	}
	return params
}

// TestServeRunFormFields: the form lists the required params first, and a number input
// carries the schema's minimum, maximum and multipleOf (a schema's numbers are json.Number).
func TestServeRunFormFields(t *testing.T) {
	f := formFixture(t)
	_, page := f.get(nil, "/dags/form.yaml")
	var order []string
	for _, m := range regexp.MustCompile(`name="p\.(\w+)"`).FindAllStringSubmatch(page, -1) {
		order = append(order, m[1])
	}
	if got, want := strings.Join(order, " "), "dry name seed color count pace ratio tags verbose"; got != want {
		t.Errorf("fields in order %q, want %q", got, want)
	}
	for _, want := range []string{
		`<input type="number" step="1" name="p.count" value="" min="1" max="10">`,
		`<input type="number" step="0.25" name="p.pace" value="" min="0">`,
		`<input type="number" step="any" name="p.ratio" value="">`,
		`<input type="number" step="1" name="p.seed" value="" required>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the form has no %s:\n%s", want, page)
		}
	}
}

// TestServeRunFormParams: what a run form sends is what the run gets: numbers exactly as
// typed, an unchecked box false only for a param with a default or a required one.
func TestServeRunFormParams(t *testing.T) {
	f := formFixture(t)
	c := jarClient(t, f)
	_, page := f.get(c, "/dags/form.yaml")
	token := csrfOf(t, page)
	for _, tc := range []struct {
		name   string
		form   url.Values
		want   map[string]string // param: its JSON as stored
		absent []string
	}{
		{"an integer past 2^53 stays exact", url.Values{"p.seed": {"9007199254740993"}},
			map[string]string{"seed": "9007199254740993"}, nil},
		{"an integer past 2^64 stays exact", url.Values{"p.seed": {"18446744073709551617"}},
			map[string]string{"seed": "18446744073709551617"}, nil},
		{"a number as typed", url.Values{"p.seed": {"1"}, "p.ratio": {"0.1000000000000000055511151231257827"}},
			map[string]string{"ratio": "0.1000000000000000055511151231257827"}, nil},
		{"JSON keeps its numbers", url.Values{"p.seed": {"1"}, "p.tags": {"[9007199254740993]"}},
			map[string]string{"tags": "[9007199254740993]"}, nil},
		{"unchecked boxes", url.Values{"p.seed": {"1"}},
			map[string]string{"dry": "false", "color": "false"}, []string{"verbose"}},
		{"checked boxes", url.Values{"p.seed": {"1"}, "p.dry": {"on"}, "p.color": {"on"}, "p.verbose": {"on"}},
			map[string]string{"dry": "true", "color": "true", "verbose": "true"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("csrf", token)
			tc.form.Set("p.name", "Ada")
			resp, body := post(t, c, f.http.URL+"/dags/form.yaml", tc.form)
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("status %d, want 303:\n%s", resp.StatusCode, body)
			}
			params := f.storedParams(resp)
			for k, want := range tc.want {
				if got := string(params[k]); got != want {
					t.Errorf("param %s = %s, want %s", k, got, want)
				}
			}
			for _, k := range tc.absent {
				if v, ok := params[k]; ok {
					t.Errorf("param %s = %s, want it absent", k, v)
				}
			}
		})
	}
}

// TestServeRunFormRefusals: a value not of its param's type is said on the form, and the
// boxes stay as they were sent.
func TestServeRunFormRefusals(t *testing.T) {
	f := formFixture(t)
	c := jarClient(t, f)
	_, page := f.get(c, "/dags/form.yaml")
	token := csrfOf(t, page)
	for _, tc := range []struct {
		name   string
		form   url.Values
		saying string
	}{
		{"a fraction for an integer", url.Values{"p.seed": {"1.5"}}, `seed: &#34;1.5&#34; is not an integer`},
		{"a word for an integer", url.Values{"p.seed": {"one"}}, `seed: &#34;one&#34; is not an integer`},
		{"a word for a number", url.Values{"p.seed": {"1"}, "p.ratio": {"half"}}, `ratio: &#34;half&#34; is not a number`},
		{"two numbers for a number", url.Values{"p.seed": {"1"}, "p.ratio": {"1 2"}}, `ratio: &#34;1 2&#34; is not a number`},
		{"not JSON", url.Values{"p.seed": {"1"}, "p.tags": {"[1,"}}, `tags: not JSON: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("csrf", token)
			tc.form.Set("p.name", "Ada")
			tc.form.Set("p.color", "on")
			resp, body := post(t, c, f.http.URL+"/dags/form.yaml", tc.form)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.saying) {
				t.Errorf("status %d; want 400 saying %q:\n%s", resp.StatusCode, tc.saying, body)
			}
			if !strings.Contains(body, `name="p.color" checked>`) || strings.Contains(body, `name="p.dry" checked>`) {
				t.Errorf("the boxes are not as they were sent (color checked, dry not):\n%s", body)
			}
		})
	}
	list, _, err := f.svc.List(t.Context(), runsFilter())
	if err != nil || len(list) != 0 {
		t.Errorf("runs after refused forms: %d (%v), want none", len(list), err)
	}
}

// TestServeBrowserRunFormParams: in Chromium, a number input refuses what the schema's
// bounds refuse, and the form starts a run with an integer past 2^53 intact and an unchecked
// box false only where the param has a default or is required.
func TestServeBrowserRunFormParams(t *testing.T) {
	p := tab{t, browser(t)}
	f := formFixture(t)
	p.do(
		chromedp.Navigate(f.http.URL+"/dags/form.yaml"),
		chromedp.WaitVisible(css(`#run-form`)),
		chromedp.SendKeys(css(`input[name="p.name"]`), "Ada"),
		chromedp.SendKeys(css(`input[name="p.seed"]`), "9007199254740993"),
		chromedp.SendKeys(css(`input[name="p.count"]`), "11"),
		chromedp.SendKeys(css(`input[name="p.pace"]`), "0.3"),
	)
	for _, tc := range []struct{ name, js string }{
		{"count 11 is above its maximum", `document.querySelector('[name="p.count"]').validity.rangeOverflow`},
		{"pace 0.3 is off its step of 0.25", `document.querySelector('[name="p.pace"]').validity.stepMismatch`},
		{"the form does not submit", `!document.querySelector('#run-form').checkValidity()`},
		{"the seed is valid", `document.querySelector('[name="p.seed"]').validity.valid`},
	} {
		if p.eval(`(`+tc.js+`) ? 1 : 0`) != 1 {
			t.Errorf("%s: %s is false", tc.name, tc.js)
		}
	}
	p.do(
		chromedp.SetValue(css(`input[name="p.count"]`), "10"),
		chromedp.SetValue(css(`input[name="p.pace"]`), "0.75"),
		chromedp.Click(css(`input[name="p.color"]`)), // its default is true: unchecked, false
		chromedp.Click(css(`#run-submit`)),
		chromedp.WaitVisible(css(`#run`)),
	)
	loc, err := chromedp.Run(p.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	id := loc[strings.LastIndex(loc, "/")+1:]
	run, _, err := f.svc.Show(t.Context(), id)
	if err != nil {
		t.Fatalf("run %q of %s: %v", id, loc, err)
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(run.Params, &params); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"seed": "9007199254740993", "count": "10", "pace": "0.75", "dry": "false", "color": "false"} {
		if got := string(params[k]); got != want {
			t.Errorf("param %s = %s, want %s (params %s)", k, got, want, run.Params)
		}
	}
	if v, ok := params["verbose"]; ok {
		t.Errorf("verbose = %s, want it absent (no default, not required, unchecked)", v)
	}
}
