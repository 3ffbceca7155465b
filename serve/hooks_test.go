package serve

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

const hookSecret = "hook-secret-0123456789"

// hookDAG is a DAG with a webhook (signed with $HOOK_SECRET, keyed by the body's after) and a
// schedule, which no request starts.
const hookDAG = `version: 1
name: hooked
params:
  type: object
  required: [sha]
  properties:
    sha: {type: string}
nodes:
  say:
    type: exec
    with:
      command: [echo, "built ${{ params.sha }}"]
      output: text
outputs:
  said: "${{ nodes.say.output.data.text }}"
triggers:
  push:
    webhook:
      hmac: {secret_env: HOOK_SECRET}
      body: {type: object, required: [after], properties: {after: {type: string, minLength: 7}}}
    key: "${{ trigger.body.after }}"
    params: {sha: "${{ trigger.body.after }}"}
  unset:
    webhook:
      hmac: {secret_env: UNSET_SECRET}
      body: {type: object, required: [after], properties: {after: {type: string}}}
    key: "${{ trigger.body.after }}"
    params: {sha: "${{ trigger.body.after }}"}
  nightly:
    cron: "0 2 * * *"
    params: {sha: "${{ trigger.scheduled_time }}"}
`

func sign(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// hookFixture is a web view with principals, $HOOK_SECRET set, and hookDAG under its root.
func hookFixture(t *testing.T, readOnly bool) *fixture {
	t.Helper()
	who, err := auth.Open(principalsFile(t), auth.FileOptions{CheckEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "HOOK_SECRET" {
			return hookSecret
		}
		return ""
	}
	f := newFixture(t, Options{Principals: who, Getenv: getenv, ReadOnly: readOnly})
	if err := os.WriteFile(filepath.Join(f.root, "hooked.yaml"), []byte(hookDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// hookPost posts body to path with the headers given, and returns the status and the answer.
func hookPost(t *testing.T, f *fixture, path, body string, header map[string]string) (int, hookAnswer) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.http.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a hookAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("answer to %s is not JSON: %v", path, err)
	}
	return resp.StatusCode, a
}

func hookRuns(t *testing.T, f *fixture) []runs.Run {
	t.Helper()
	rs, _, err := f.st.ListRuns(context.Background(), runs.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestHook: a webhook request starts a run when signed with the shared secret or sent with an
// operator's bearer token, and starts nothing when it is not authenticated, its body is not
// JSON or breaks the contract, or it names no webhook; each refusal says why.
func TestHook(t *testing.T) {
	const good = `{"after": "abc1234"}`
	sig := "X-Hub-Signature-256"
	unsigned := `webhook hooked/push: sign the body ("sha256=<hex>" of its HMAC-SHA256 with the shared secret) or send an operator's bearer token`
	cases := []struct {
		name    string
		path    string
		body    string
		header  map[string]string
		code    int
		wantErr string // the answer's error, a prefix; "" for none
		started bool
	}{
		{"signed", "/hooks/hooked/push", good, map[string]string{sig: sign(hookSecret, good)}, 202, "", true},
		{"operator", "/hooks/hooked/push", `{"after": "def5678"}`, map[string]string{"Authorization": "Bearer " + operatorTok}, 202, "", true},
		{"forged", "/hooks/hooked/push", good, map[string]string{sig: sign("not-the-secret", good)}, 401,
			"webhook hooked/push: the signature in X-Hub-Signature-256 is not the body's HMAC-SHA256 with the shared secret", false},
		{"not hex", "/hooks/hooked/push", good, map[string]string{sig: "sha256=zz"}, 401,
			"webhook hooked/push: the signature in X-Hub-Signature-256 is not the body's HMAC-SHA256 with the shared secret", false},
		{"missing", "/hooks/hooked/push", good, nil, 401, unsigned, false},
		// A secret the server does not have signs nothing, whatever the sender used.
		{"secret unset", "/hooks/hooked/unset", good, map[string]string{sig: sign("", good)}, 401,
			"webhook hooked/unset: the signature in X-Hub-Signature-256 is not the body's HMAC-SHA256 with the shared secret", false},
		{"unknown DAG, unsigned", "/hooks/nope/push", good, map[string]string{sig: sign(hookSecret, good)}, 401,
			`webhook nope/push: sign the body`, false},
		{"unknown DAG, operator", "/hooks/nope/push", good, map[string]string{"Authorization": "Bearer " + operatorTok}, 404,
			"no DAG named nope under the root", false},
		{"a schedule", "/hooks/hooked/nightly", good, map[string]string{"Authorization": "Bearer " + operatorTok}, 404,
			"trigger nightly of hooked is a schedule, not a webhook: POST /hooks/hooked/nightly starts nothing", false},
		{"no trigger", "/hooks/hooked/pull", good, map[string]string{"Authorization": "Bearer " + operatorTok}, 404,
			`DAG hooked has no trigger "pull" (it has: nightly, push, unset)`, false},
		{"empty key", "/hooks/hooked/unset", `{"after": ""}`, map[string]string{"Authorization": "Bearer " + operatorTok}, 422,
			"trigger unset: the key cannot be made of the body: it is empty", false},
		{"viewer", "/hooks/hooked/push", good, map[string]string{"Authorization": "Bearer " + viewerTok}, 403,
			"grafana may not start runs: it needs the role operator (or admin), and grafana has viewer.", false},
		{"wrong token", "/hooks/hooked/push", good, map[string]string{"Authorization": "Bearer wrong-token-0123456789"}, 401,
			"that bearer token is not one of the server's principals", false},
		{"not JSON", "/hooks/hooked/push", `after=abc1234`, map[string]string{sig: sign(hookSecret, `after=abc1234`)}, 422,
			"the body is not JSON: ", false},
		{"breaks the contract", "/hooks/hooked/push", `{"after": "abc"}`, map[string]string{sig: sign(hookSecret, `{"after": "abc"}`)}, 422,
			"the body breaks the webhook's contract\n  /after: ", false},
		{"signed another body", "/hooks/hooked/push", `{"after": "abc1234"}`, map[string]string{sig: sign(hookSecret, `{"after": "abc1234"} `)}, 401,
			"webhook hooked/push: the signature", false},
		{"bad wait", "/hooks/hooked/push?wait=soon", good, map[string]string{sig: sign(hookSecret, good)}, 400,
			`wait="soon": want a duration such as 30s, at most 1m0s`, false},
		{"too long", "/hooks/hooked/push", `{"after": "` + strings.Repeat("a", service.MaxHookBody) + `"}`, nil, 413,
			fmt.Sprintf("the body is longer than %d bytes", service.MaxHookBody), false},
	}
	f := hookFixture(t, false)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(hookRuns(t, f))
			code, a := hookPost(t, f, c.path, c.body, c.header)
			if code != c.code || !strings.HasPrefix(a.Error, c.wantErr) || (c.wantErr == "" && a.Error != "") {
				t.Errorf("%d %q\nwant %d %q", code, a.Error, c.code, c.wantErr)
			}
			after := hookRuns(t, f)
			if started := len(after) > before; started != c.started || (c.started && (a.RunID == "" || after[0].ID != a.RunID)) {
				t.Errorf("started %v (answer %+v), want %v", started, a, c.started)
			}
		})
	}
}

// TestHookRecordsTrigger: the run a webhook starts records the trigger, the key and who
// started it (the webhook when signed, the principal when a bearer token).
func TestHookRecordsTrigger(t *testing.T) {
	f := hookFixture(t, false)
	cases := []struct {
		body, key string
		header    map[string]string
		by        string
	}{
		{`{"after": "abc1234"}`, "abc1234", map[string]string{"X-Hub-Signature-256": sign(hookSecret, `{"after": "abc1234"}`)}, "webhook:hooked/push"},
		{`{"after": "def5678"}`, "def5678", map[string]string{"Authorization": "Bearer " + operatorTok}, "ci-bot"},
	}
	for _, c := range cases {
		code, a := hookPost(t, f, "/hooks/hooked/push", c.body, c.header)
		if code != http.StatusAccepted {
			t.Fatalf("%d %+v", code, a)
		}
		r, _, err := f.st.GetRun(context.Background(), a.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Trigger != "push" || r.TriggerKey != c.key || r.StartedBy != c.by || !r.Scheduled.IsZero() {
			t.Errorf("run records trigger %q key %q by %q scheduled %s; want push %s %s", r.Trigger, r.TriggerKey, r.StartedBy, r.Scheduled, c.key, c.by)
		}
	}
}

// TestHookKey: a request whose key started a run already is answered 200 with that run's id
// and starts nothing, also when many come at once.
func TestHookKey(t *testing.T) {
	f := hookFixture(t, false)
	body := `{"after": "abc1234"}`
	h := map[string]string{"X-Hub-Signature-256": sign(hookSecret, body)}
	code, first := hookPost(t, f, "/hooks/hooked/push", body, h)
	if code != http.StatusAccepted {
		t.Fatalf("first: %d %+v", code, first)
	}
	code, again := hookPost(t, f, "/hooks/hooked/push", body, h)
	if code != http.StatusOK || again.RunID != first.RunID || !again.Existing {
		t.Errorf("repeated: %d %+v, want 200 with run %s", code, again, first.RunID)
	}

	body = `{"after": "same-key"}`
	h = map[string]string{"X-Hub-Signature-256": sign(hookSecret, body)}
	var wg sync.WaitGroup
	type result struct {
		code int
		a    hookAnswer
	}
	results := make([]result, 6)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].code, results[i].a = hookPost(t, f, "/hooks/hooked/push", body, h)
		}()
	}
	wg.Wait()
	started, ids := 0, map[string]bool{}
	for _, r := range results {
		switch {
		case r.code == http.StatusAccepted:
			started++
		case r.code != http.StatusOK || !r.a.Existing:
			t.Errorf("concurrent: %d %+v", r.code, r.a)
		}
		ids[r.a.RunID] = true
	}
	n := 0
	for _, r := range hookRuns(t, f) {
		if r.TriggerKey == "same-key" {
			n++
		}
	}
	if started != 1 || len(ids) != 1 || n != 1 {
		t.Errorf("%d started, run ids %v, %d runs in the store; want one", started, ids, n)
	}
}

// TestHookWait: ?wait= answers with the run's outputs when it ends within the time.
func TestHookWait(t *testing.T) {
	f := hookFixture(t, false)
	body := `{"after": "abc1234"}`
	code, a := hookPost(t, f, "/hooks/hooked/push?wait=30s", body, map[string]string{"X-Hub-Signature-256": sign(hookSecret, body)})
	if code != http.StatusOK || a.Status != "success" || a.RunID == "" || a.Outputs["said"] != "built abc1234" {
		t.Errorf("%d %+v", code, a)
	}
}

// TestHookJapanese: the refusals follow Accept-Language, the contract's violations too.
func TestHookJapanese(t *testing.T) {
	f := hookFixture(t, false)
	body := `{"after": "abc"}`
	code, a := hookPost(t, f, "/hooks/hooked/push", body, map[string]string{"X-Hub-Signature-256": sign(hookSecret, body), "Accept-Language": "ja"})
	if code != http.StatusUnprocessableEntity || !strings.HasPrefix(a.Error, "本文が webhook の契約に違反しています\n  /after: ") || len(a.Violations) != 1 {
		t.Errorf("%d %+v", code, a)
	}
	code, a = hookPost(t, f, "/hooks/hooked/push", body, map[string]string{"Accept-Language": "ja"})
	if code != http.StatusUnauthorized || !strings.HasPrefix(a.Error, "webhook hooked/push: 本文に署名するか") {
		t.Errorf("%d %+v", code, a)
	}
}

// TestHookReadOnly: a read-only server starts nothing, signed or not.
func TestHookReadOnly(t *testing.T) {
	f := hookFixture(t, true)
	body := `{"after": "abc1234"}`
	code, a := hookPost(t, f, "/hooks/hooked/push", body, map[string]string{"X-Hub-Signature-256": sign(hookSecret, body)})
	if code != http.StatusForbidden || a.Error != "this server is read-only: webhooks start nothing" || len(hookRuns(t, f)) != 0 {
		t.Errorf("%d %+v", code, a)
	}
}
