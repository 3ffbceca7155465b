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
