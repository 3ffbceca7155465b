package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestResumeRunWarnsFileChanged checks, over a client session, that resume_run says as
// `seam run --resume` does that the DAG file changed since the run, in the answer's message
// and its data, in English and Japanese, whether it waits or not.
func TestResumeRunWarnsFileChanged(t *testing.T) {
	for _, tc := range []struct{ lang, said string }{
		{"en", "fixable.yaml changed since run %s: nodes whose definition or input changed run again"},
		{"ja", "fixable.yaml は実行 %s の後に変更されています：定義か入力の変わったノードは再実行します"},
	} {
		for _, wait := range []bool{true, false} {
			t.Run(tc.lang+map[bool]string{true: "/wait", false: "/at-once"}[wait], func(t *testing.T) {
				root := testRoot(t)
				file := filepath.Join(root, "fixable.yaml")
				if err := os.WriteFile(file, []byte(fixable), 0o644); err != nil {
					t.Fatal(err)
				}
				st := tempStore(t)
				_, cs := serve(t, Options{Root: root, Store: st, Lang: i18n.Lang(tc.lang)}, nil)
				id, _ := call(t, cs, "run_dag", map[string]any{"path": "fixable.yaml", "wait": true}).data()["id"].(string)

				// Unchanged: no warning.
				r := call(t, cs, "resume_run", map[string]any{"id": id, "wait": true})
				if errCode(r) != "" || r.data()["warnings"] != nil || strings.Contains(r.env["message"].(string), "fixable.yaml") {
					t.Fatalf("resume of an unchanged file: %v", r.env)
				}

				if err := os.WriteFile(file, []byte(strings.Replace(fixable, "other: 1", "label: bug", 1)), 0o644); err != nil {
					t.Fatal(err)
				}
				r = call(t, cs, "resume_run", map[string]any{"id": id, "wait": wait})
				said := strings.Replace(tc.said, "%s", id, 1)
				ws, _ := r.data()["warnings"].([]any)
				if errCode(r) != "" || !strings.Contains(r.env["message"].(string), said) || len(ws) != 1 || ws[0] != said {
					t.Fatalf("resume of a changed file: %v; want the warning %q", r.env, said)
				}
				if run := waitStatus(t, st, id, "success"); run.Resumes != 2 {
					t.Errorf("resumes: %d, want 2", run.Resumes)
				}
			})
		}
	}
}

// TestResumeRunLints checks that resume_run lints the DAG file before resuming, as run_dag
// and `seam run --resume` do, and that no_lint resumes it anyway.
func TestResumeRunLints(t *testing.T) {
	root := testRoot(t)
	cs, _, st := storeServer(t, root)
	first := call(t, cs, "run_dag", map[string]any{"path": "dags/lint-incompatible.yaml", "wait": true, "no_lint": true})
	id, _ := first.data()["id"].(string)
	if first.data()["status"] != "failed" {
		t.Fatalf("first run: %v", first.env)
	}
	r := call(t, cs, "resume_run", map[string]any{"id": id, "wait": true})
	details, _ := r.env["error"].(map[string]any)["details"].(map[string]any)
	if errCode(r) != CodeLintFailed || !strings.Contains(r.env["message"].(string), "dags/lint-incompatible.yaml was not run: lint found 1 error") ||
		num(details, "errors") != 1 {
		t.Fatalf("resume of a DAG lint finds errors in: %v", r.env)
	}
	if run, _, err := st.GetRun(t.Context(), id); err != nil || run.Resumes != 0 {
		t.Errorf("a resume lint refused was recorded: %+v, %v", run, err)
	}
	r = call(t, cs, "resume_run", map[string]any{"id": id, "wait": true, "no_lint": true})
	if errCode(r) != "" || r.data()["status"] != "failed" {
		t.Errorf("resume with no_lint: %v", r.env)
	}
}

// TestResumeRunFrom checks, over a client session, that resume_run with from reruns a
// finished run from that node (it and its dependents run, the rest is reused, in a new
// session), and says why it cannot when the DAG has no such node.
func TestResumeRunFrom(t *testing.T) {
	root := testRoot(t)
	const chain = `version: 1
name: chain
nodes:
  a: {type: const, with: {value: {status: pass, summary: a}}}
  b: {type: const, needs: [a], with: {value: {status: pass, summary: b}}}
  c: {type: const, needs: [b], with: {value: {status: pass, summary: c}}}
  d: {type: const, needs: [a], with: {value: {status: pass, summary: d}}}
`
	if err := os.WriteFile(filepath.Join(root, "chain.yaml"), []byte(chain), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _, st := storeServer(t, root)
	id, _ := call(t, cs, "run_dag", map[string]any{"path": "chain.yaml", "wait": true}).data()["id"].(string)

	tests := []struct {
		from                       string
		wait                       bool
		code, message, reused, ran string
		session                    int
	}{
		{"b", true, "", "run " + id + " of chain: success", "ad", "bc", 1},
		{"c", false, "", "run " + id + " of chain rerun from node c: get_run shows how it goes", "abd", "c", 2},
		{"nope", true, CodeNotResumable, "run " + id + ` of DAG "chain" has no node "nope" to rerun from`, "", "", 2},
	}
	for _, tc := range tests {
		t.Run(tc.from, func(t *testing.T) {
			r := call(t, cs, "resume_run", map[string]any{"id": id, "from": tc.from, "wait": tc.wait})
			if errCode(r) != tc.code || !strings.Contains(r.env["message"].(string), tc.message) {
				t.Fatalf("resume_run from %s: %v; want code %q and %q", tc.from, r.env, tc.code, tc.message)
			}
			if tc.code != "" {
				return
			}
			waitStatus(t, st, id, "success")
			run, as, err := st.GetRun(t.Context(), id)
			if err != nil || run.Resumes != tc.session {
				t.Fatalf("run after rerun: %+v, %v; want session %d", run, err, tc.session)
			}
			var reused, ran string
			for _, a := range as {
				if a.Session == tc.session && a.Final && a.Item < 0 {
					if a.Reused {
						reused += a.Node
					} else {
						ran += a.Node
					}
				}
			}
			if reused != tc.reused || ran != tc.ran {
				t.Errorf("rerun from %s: reused %q and ran %q; want reused %q, ran %q", tc.from, reused, ran, tc.reused, tc.ran)
			}
		})
	}
}
