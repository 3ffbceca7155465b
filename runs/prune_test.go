package runs

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

func TestPrune(t *testing.T) { eachBackend(t, testPrune) }

// pruneFixture records, in s, runs old (a day before now) and new, of two DAGs, in the
// states a prune must tell apart, and returns now.
//
//	a-1 old success   outputs: shared (with a-4), only-a1; a start record; a pack
//	a-2 old failed    sub-run a-2s (sub-run a-2ss under it), output only-sub
//	a-3 old running   lease live
//	a-5 old running   lease expired (interrupted)
//	a-6 old running   no lease (recorded before leases)
//	b-1 old success
//	a-4 new success   output shared
func pruneFixture(t *testing.T, s Store) time.Time {
	t.Helper()
	ctx := context.Background()
	now := t0.Add(48 * time.Hour)
	old, fresh := t0, now.Add(-time.Hour)
	run := func(id, dagName string, status dag.RunStatus, started time.Time, parent string, lease time.Time, as ...Attempt) {
		r := Run{ID: id, DAG: dagName, Status: "running", Started: started, Parent: parent, LeaseOwner: "o", LeaseUntil: lease}
		if parent != "" {
			r.ParentNode = "sub"
		}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for i := range as {
			as[i].RunID, as[i].Item, as[i].Type = id, -1, "const"
		}
		if len(as) > 0 {
			if err := s.RecordAttempts(ctx, as); err != nil {
				t.Fatal(err)
			}
		}
		if status != dag.RunRunning {
			if err := s.FinishRunWith(ctx, id, Finish{Status: status, Ended: started.Add(time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	passed := func(node, out string) Attempt {
		return Attempt{Node: node, Attempt: 1, Status: "passed", Final: true, Output: []byte(out), Started: old, Ended: old}
	}
	start := Attempt{Node: "slow", Attempt: 1, Status: dag.NodeRunning, Started: old}
	pure := Attempt{Node: "p", Attempt: 1, Status: "passed", Final: true, Pure: true, Output: []byte(`{"status":"pass","summary":"p"}`)}
	run("20260309T000001-a1", "a", dag.RunSuccess, old, "", time.Time{}, passed("x", `{"shared":1}`), passed("y", `{"only":"a1"}`), start, pure)
	run("20260309T000002-a2", "a", dag.RunFailed, old, "", time.Time{})
	run("20260309T000003-a2s", "a-sub", dag.RunFailed, old, "20260309T000002-a2", time.Time{}, passed("z", `{"only":"sub"}`))
	run("20260309T000004-a2ss", "a-sub-sub", dag.RunSuccess, old, "20260309T000003-a2s", time.Time{})
	run("20260309T000005-a3", "a", dag.RunRunning, old, "", now.Add(LeaseFor))
	run("20260309T000006-a5", "a", dag.RunRunning, old, "", now.Add(-time.Second))
	run("20260309T000007-a6", "a", dag.RunRunning, old, "", time.Time{})
	run("20260309T000008-b1", "b", dag.RunSuccess, old, "", time.Time{})
	run("20260311T000000-a4", "a", dag.RunSuccess, fresh, "", time.Time{}, passed("x", `{"shared":1}`))
	return now
}

func testPrune(t *testing.T, b backend) {
	ctx := context.Background()
	tests := []struct {
		name    string
		keep    int
		dagName string
		dry     bool
		// pruned are the top-level runs that go, newest first; kept all runs that stay.
		pruned           []string
		subRuns, outputs int
	}{
		{name: "older than a day", pruned: []string{"b1", "a5", "a2", "a1"}, subRuns: 2, outputs: 2},
		{name: "keep the newest 3 of each DAG", keep: 3, pruned: []string{"a2", "a1"}, subRuns: 2, outputs: 2},
		{name: "one DAG", dagName: "b", pruned: []string{"b1"}},
		{name: "dry run", dry: true, pruned: []string{"b1", "a5", "a2", "a1"}, subRuns: 2, outputs: 2},
	}
	all := []string{"a1", "a2", "a2s", "a2ss", "a3", "a4", "a5", "a6", "b1"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := b.open(t)
			now := pruneFixture(t, s)
			// Batch 2: the runs go in several transactions.
			p, err := Prune(ctx, s, PruneOptions{Before: now.Add(-24 * time.Hour), Keep: tc.keep, DAG: tc.dagName, DryRun: tc.dry, Now: now, Batch: 2}, "en")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range p.Runs {
				got = append(got, r.ID[strings.LastIndexByte(r.ID, '-')+1:])
			}
			if !slices.Equal(got, tc.pruned) || p.SubRuns != tc.subRuns || p.Outputs != tc.outputs {
				t.Fatalf("pruned %v, %d sub-runs, %d outputs; want %v, %d, %d", got, p.SubRuns, p.Outputs, tc.pruned, tc.subRuns, tc.outputs)
			}
			gone := map[string]bool{}
			if !tc.dry {
				for _, id := range tc.pruned {
					gone[id] = true
					if id == "a2" {
						gone["a2s"], gone["a2ss"] = true, true
					}
				}
			}
			for _, id := range all {
				full := fmt.Sprintf("%%-%s", id)
				if n := count(t, s, `SELECT count(*) FROM runs WHERE id LIKE ?`, full); (n == 0) != gone[id] {
					t.Errorf("run %s: %d rows, gone %v", id, n, gone[id])
				}
				if gone[id] {
					for _, table := range []string{"attempts", "attempt_packs"} {
						if n := count(t, s, `SELECT count(*) FROM `+table+` WHERE run_id LIKE ?`, full); n != 0 {
							t.Errorf("run %s: %d rows left in %s", id, n, table)
						}
					}
				}
			}
			// The output a-4 shares with a-1 stays; those only pruned runs had go.
			// shared (with a-4), only-a1 and only-sub are rows; the pack's output is inline.
			wantOutputs := 3
			if !tc.dry {
				wantOutputs -= tc.outputs
			}
			if n := count(t, s, `SELECT count(*) FROM outputs`); n != wantOutputs {
				t.Errorf("%d outputs left, want %d", n, wantOutputs)
			}
			r, as, err := s.GetRun(ctx, "20260311T000000-a4")
			if err != nil || r.Status != dag.RunSuccess || len(as) != 1 {
				t.Fatalf("the new run after the prune: %v, %d attempts, %v", r, len(as), err)
			}
			if out, err := AttemptOutput(ctx, s, &as[0]); err != nil || string(out) != `{"shared":1}` {
				t.Fatalf("the new run's output after the prune: %s, %v", out, err)
			}
		})
	}
}

func TestPruneErrors(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	if _, err := Prune(ctx, s, PruneOptions{Keep: -1}, "en"); err == nil || err.Error() != "keep -1 runs: want 0 or more" {
		t.Fatalf("keep -1: %v", err)
	}
	s.Close()
	if _, err := Prune(ctx, s, PruneOptions{Now: t0}, "en"); err == nil || !strings.HasPrefix(err.Error(), "prune runs: list runs in ") {
		t.Fatalf("a closed store: %v", err)
	}
}

// TestDeleteRunsRefusesLive: DeleteRuns, given a run that runs (its lease live, or no
// lease), leaves it whole, as Prune's own choice would.
func TestDeleteRunsRefusesLive(t *testing.T) { eachBackend(t, testDeleteRunsRefusesLive) }

func testDeleteRunsRefusesLive(t *testing.T, b backend) {
	s, _ := b.open(t)
	now := pruneFixture(t, s)
	d, err := s.DeleteRuns(context.Background(), []string{"20260309T000005-a3", "20260309T000007-a6", "20260309T000003-a2s", "nope"}, now, false)
	if err != nil {
		t.Fatal(err)
	}
	// a2s is a sub-run: it goes only with its parent.
	if len(d.Runs) != 0 || count(t, s, `SELECT count(*) FROM runs`) != 9 {
		t.Fatalf("deleted %v; %d runs left, want all 9", d.Runs, count(t, s, `SELECT count(*) FROM runs`))
	}
	// SQLite's DeleteRuns turns foreign keys off on its connection: they are on again.
	if _, err := s.DeleteRuns(context.Background(), []string{"20260309T000001-a1"}, now, false); err != nil {
		t.Fatal(err)
	}
	// database/sql hands out its idle connections in turn: each is asked.
	for range 4 {
		if _, ok := s.(*sqliteStore); ok && count(t, s, `PRAGMA foreign_keys`) != 1 {
			t.Fatal("foreign keys are off on a connection after DeleteRuns")
		}
	}
}

func TestParseAge(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{in: "30d", want: 30 * 24 * time.Hour},
		{in: "12h", want: 12 * time.Hour},
		{in: "1ns", want: 1},
		{in: "", err: `--older-than "": want a positive duration (30d, 12h, 90m)`},
		{in: "-1h", err: `--older-than "-1h": want a positive duration (30d, 12h, 90m)`},
		{in: "xd", err: `--older-than "xd": want a positive duration (30d, 12h, 90m)`},
		{in: "0d", err: `--older-than "0d": want a positive duration (30d, 12h, 90m)`},
	}
	for _, tc := range tests {
		got, err := ParseAge("en", tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseAge(%q): %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestPruneKeepsWaiting(t *testing.T) { eachBackend(t, testPruneKeepsWaiting) }

// testPruneKeepsWaiting: a run waiting for an approval's answer, however old, is not pruned
// (a person may still answer it); a finished run as old is.
func testPruneKeepsWaiting(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	now := t0.Add(48 * time.Hour)
	for id, st := range map[string]dag.RunStatus{"20260309T000001-w": dag.RunWaiting, "20260309T000002-d": dag.RunSuccess} {
		if err := s.CreateRun(ctx, Run{ID: id, DAG: "a", Status: "running", Started: t0}); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishRunWith(ctx, id, Finish{Status: st, Ended: t0.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Prune(ctx, s, PruneOptions{Before: now, Now: now}, "en")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Runs) != 1 || p.Runs[0].ID != "20260309T000002-d" {
		t.Errorf("pruned %+v, want only the finished run", p.Runs)
	}
	if r, _, err := s.GetRun(ctx, "20260309T000001-w"); err != nil || r.Status != "waiting" {
		t.Errorf("the waiting run: %+v, %v; want it kept", r, err)
	}
}
