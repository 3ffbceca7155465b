package mcp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seam-dag/seam/runs"
)

// TestGetRunInterrupted: a run left running by an owner that is gone, on another host (only
// its lease can tell), reads interrupted in get_run, minimal and raw, and in list_runs, so
// that an agent polling it stops; resume_run takes it up.
func TestGetRunInterrupted(t *testing.T) {
	root := testRoot(t)
	file := filepath.Join(root, "fixable.yaml")
	if err := os.WriteFile(file, []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _, st := storeServer(t, root)
	tests := []struct {
		name  string
		lease time.Duration // from now
		want  string
	}{
		{"lease live", time.Minute, "running"},
		{"lease expired", -time.Second, "interrupted"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runs.Run{ID: "20260101T000000.000-0000000" + string(rune('0'+i)), DAG: "fixable", File: file, Status: "running",
				Started: time.Now().Add(-time.Hour), PID: 42, Host: "another-host", LeaseOwner: "another-host/42/ab", LeaseUntil: time.Now().Add(tc.lease)}
			if err := st.CreateRun(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			for _, raw := range []bool{false, true} {
				g := call(t, cs, "get_run", map[string]any{"id": r.ID, "raw": raw})
				got := g.data()["status"]
				if raw {
					got = g.data()["run"].(map[string]any)["status"]
				}
				if errCode(g) != "" || got != tc.want || g.env["message"] != "run "+r.ID+" of fixable: "+tc.want {
					t.Errorf("get_run (raw %t): %v; want status %s", raw, g.env, tc.want)
				}
			}
			l := call(t, cs, "list_runs", map[string]any{})
			for _, x := range l.data()["runs"].([]any) {
				if x := x.(map[string]any); x["id"] == r.ID && x["status"] != tc.want {
					t.Errorf("list_runs shows %s %v; want %s", r.ID, x["status"], tc.want)
				}
			}
		})
	}
	res := call(t, cs, "resume_run", map[string]any{"id": "20260101T000000.000-00000001", "wait": true})
	if errCode(res) != "" {
		t.Errorf("resume_run of an interrupted run: %v", res.env)
	}
}

// TestLintDAGHidden: lint_dag and run_dag refuse a hidden file under the root (a name, or a
// folder, starting with a dot) without loading it, so nothing of it is quoted back.
func TestLintDAGHidden(t *testing.T) {
	root := t.TempDir()
	secret := "token: hunter2-do-not-quote\n"
	for _, p := range []string{".env.yaml", ".git/config.yaml"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		if err := os.WriteFile(filepath.Join(root, p), []byte(secret), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, root, false)
	for _, tc := range []struct{ tool, path, part string }{
		{"lint_dag", ".env.yaml", ".env.yaml"},
		{"lint_dag", ".git/config.yaml", ".git"},
		{"run_dag", "./.env.yaml", ".env.yaml"},
	} {
		r := call(t, cs, tc.tool, map[string]any{"path": tc.path})
		msg, _ := r.env["message"].(string)
		want := `path "` + tc.path + `" is hidden (` + tc.part + ` starts with a dot): the server loads no hidden file; list_dags lists the DAG files`
		if errCode(r) != CodeInvalidArgument || msg != want {
			t.Errorf("%s %s: %v\nwant %s", tc.tool, tc.path, r.env, want)
		}
	}
}
