package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/n8n/n8ntest"
)

// trackerToken is the secret dags/http.yaml reads through env: it must never be printed.
const trackerToken = "tr4ck3r-t0k3n"

// TestRunExamples runs every example DAG in dags/ and checks its exit code and what it
// prints. A new example needs an entry here.
func TestRunExamples(t *testing.T) {
	type want struct {
		code   int
		stdout []string // substrings
	}
	wants := map[string]want{
		"hello.yaml": {0, []string{"✓ echo", " success in ", `said: "greet said: hello, world"`, "outputs:"}},
		// It waits for a person's answer (exit 3); approve.txtar answers one.
		"approval.yaml": {3, []string{"✓ draft", " waiting in "}},
		// TestApprovalRewindExample answers it: a reject drafts again, an approve sends.
		"approval-rewind.yaml": {3, []string{"✓ draft", "drafted a reply to ann", " waiting in "}},
		"fan-in.yaml":          {0, []string{"! west", " warn in ", "total: 9"}},
		"transform.yaml":       {0, []string{"✓ revenue", " success in ", `report: "ada: 32, bob: 35.5"`}},
		"lint-compatible.yaml": {0, []string{"✓ report", " success in ", `report: "bug scored 7 of 10"`}},
		// seam run lints first: an incompatible edge stops the run before it starts (exit 2,
		// the findings on stderr; lint_run.txtar checks them and runs these with --no-lint).
		"lint-incompatible.yaml":  {2, nil},
		"lint-type-mismatch.yaml": {2, nil},
		"lint-constraint.yaml":    {2, nil},
		"lint-optional.yaml":      {2, nil},
		"retry-repair.yaml": {0, []string{
			"↻ fetch  retrying          attempt 1 failed: exec sh -c: exit status 75; stderr: tracker busy, try again\n",
			"✓ fetch  passed", "fetched 2 tickets (2 attempts)\n",
			"↻ draft  retrying          attempt 1 failed: output breaks its contract\n",
			"drafted a reply (repaired, 2 attempts)\n", `reply: "Thanks, we are on it."`,
		}},
		"n8n-triage.yaml": {0, []string{"✓ probe", "execution", "succeeded; Code returned 1 item",
			"3 failed executions; most often: payment API answered 503 [line 2]",
			"! decide", "3 failures need a look (workflow answers now: true)", " warn in ",
			`action: "investigate"`, `top_error: "payment API answered 503 [line 2]"`}},
		"foreach.yaml": {0, []string{"✓ triage   passed", "3 items: 3 passed\n", "2 bugs among 3 tickets", "bugs: [101,103]"}},
		"http.yaml": {0, []string{"✓ bugs", "GET http://127.0.0.1:", "/api/issues: 200 OK",
			"✓ comment", "201 Created", "open_bugs: 2", "comment_status: 201", " success in "}},
		"scripts.yaml": {0, []string{"✓ classify", "labelled bug", "✓ count", `label: "bug"`, `count: {"value":4}`}},
		// Its triggers start it by themselves (schedules.md); run by hand, it is given the
		// params its nightly trigger would give.
		"nightly.yaml": {0, []string{"✓ report", `said: "report since 2026-03-29T01:00:00Z"`, " success in "}},
		"sub-dag.yaml": {0, []string{"✓ score", "score succeeded: 1 node: 1 passed", `decision: "fix this week"`}},
		"continue-on-failure.yaml": {1, []string{
			"✗ check   failed", "- deploy  skipped           upstream check failed\n",
			"✓ report  passed", "check failed: ticket opened\n", " failed in ",
		}},
		// The body of a real pull_request webhook (closed, not merged), GitHub's own example.
		"github-pull-request.yaml": {0, []string{"- announce   skipped           when was false\n",
			"✓ follow-up  passed", "#2 Update the README with new information. closed unmerged at 2019-05-15T15:21:18Z", " success in "}},
		// Without the guard, lint stops it (lint_test.go checks the finding).
		"lint-github-pull-request.yaml": {2, nil},
		"broken-contract.yaml": {1, []string{
			"✗ classify  failed",
			"    /data/label: field 'data.label' is required\n",
			"- publish   skipped           upstream classify failed\n",
			" failed in ",
		}},
	}
	setups := exampleSetups()
	files, err := filepath.Glob("../../dags/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no example DAGs in dags/")
	}
	// Runs are recorded in a store of the test's, not in .seam/ of the source tree.
	store := filepath.Join(t.TempDir(), "seam.db")
	getenv := func(k string) string {
		switch k {
		case "SEAM_LANG":
			return "en"
		case "SEAM_STORE":
			return store
		}
		return ""
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			w, ok := wants[name]
			if !ok {
				t.Fatalf("no expectation for dags/%s: add one to this test", name)
			}
			var stdout, stderr bytes.Buffer
			args, env := exampleRun(t, setups, file, getenv)
			code := run(args, strings.NewReader(""), &stdout, &stderr, env)
			if code != w.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, w.code, &stdout, &stderr)
			}
			for _, s := range w.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, &stdout)
				}
			}
			if strings.Contains(stdout.String()+stderr.String(), trackerToken) {
				t.Errorf("the secret reached the output:\n%s%s", &stdout, &stderr)
			}
		})
	}
}

// exampleSetups gives the examples that need a live service their arguments and environment.
// exampleRun returns seam run's arguments for the example file, with what its setup (if it
// has one) adds, and the environment: the setup's variables over getenv.
func exampleRun(t *testing.T, setups map[string]func(t *testing.T) ([]string, func(string) string), file string, getenv func(string) string) ([]string, func(string) string) {
	args := []string{"run", file}
	setup, ok := setups[filepath.Base(file)]
	if !ok {
		return args, getenv
	}
	extra, more := setup(t)
	return append(args, extra...), func(k string) string {
		if v := more(k); v != "" {
			return v
		}
		return getenv(k)
	}
}

func exampleSetups() map[string]func(t *testing.T) (args []string, getenv func(string) string) {
	return map[string]func(t *testing.T) (args []string, getenv func(string) string){
		"nightly.yaml": func(t *testing.T) ([]string, func(string) string) {
			return []string{"-p", "since=2026-03-29T01:00:00Z"}, func(string) string { return "" }
		},
		// A workflow with 3 failed executions, on the n8n that scripts/test.sh starts.
		"n8n-triage.yaml": func(t *testing.T) ([]string, func(string) string) {
			id, path := n8ntest.TriageFixture(t, 3)
			return []string{"-p", "workflowId=" + string(id), "-p", "path=" + path}, n8ntest.Getenv(t)
		},
		// GitHub's example payload of a pull request closed without merging, as the webhook's body.
		"github-pull-request.yaml": func(t *testing.T) ([]string, func(string) string) {
			return []string{"--params-file", "../../dags/github/pull_request.closed.json"}, func(string) string { return "" }
		},
		"lint-github-pull-request.yaml": func(t *testing.T) ([]string, func(string) string) {
			return []string{"--params-file", "../../dags/github/pull_request.closed.json"}, func(string) string { return "" }
		},
		// A tracker on loopback that wants the token and echoes it back, to show it masked.
		"http.yaml": func(t *testing.T) ([]string, func(string) string) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer "+trackerToken {
					http.Error(w, `{"error": "bad token"}`, http.StatusUnauthorized)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				switch {
				case r.Method == http.MethodGet && r.URL.Path == "/api/issues":
					fmt.Fprintf(w, `{"issues": [{"id": 7, "title": "crash"}, {"id": 9, "title": "typo"}], "auth": %q}`, r.Header.Get("Authorization"))
				case r.Method == http.MethodPost && r.URL.Path == "/api/issues/7/comments":
					w.WriteHeader(http.StatusCreated)
					_, _ = io.Copy(w, r.Body)
				default:
					http.NotFound(w, r)
				}
			}))
			t.Cleanup(srv.Close)
			return []string{"-p", "tracker=" + srv.URL}, func(k string) string {
				if k == "TRACKER_TOKEN" {
					return trackerToken
				}
				return ""
			}
		},
	}
}
