package main

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dag/seam/runs"
)

// tickerDAG starts a run every second whose node takes a while, so that a kill lands
// mid-run; every time missed while no scheduler runs is caught up.
const tickerDAG = `version: 1
name: ticker
params:
  type: object
  properties:
    at: {type: string}
nodes:
  work:
    type: exec
    with: {command: 'sleep 0.3; echo "{\"status\":\"pass\",\"summary\":\"done\"}"', shell: true}
triggers:
  tick:
    every: 1s
    catchup: {window: 5m, runs: all}
    overlap: allow_all
    params: {at: "${{ trigger.scheduled_time }}"}
`

// TestSchedulerKilled kills `seam scheduler` (SIGKILL) while its runs are going, and starts
// another: that one takes over once the first's lease expires, catches up the seconds
// missed meanwhile, and no second is started twice or lost.
func TestSchedulerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process, and waits out a lease")
	}
	onEachStore(t, "ticker.yaml", tickerDAG, func(t *testing.T, dir, store string) {
		first, out := startSeam(t, dir, nil, "scheduler", "--store", store, ".")
		waitFor(t, "3 fires", func() bool { return len(fires(t, store)) >= 3 })
		if err := syscall.Kill(first.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		first.Wait()
		killed := len(fires(t, store))
		second, out2 := startSeam(t, dir, nil, "scheduler", "--store", store, ".")
		// The first's lease (runs.LeaseFor) runs out, then the second catches up.
		waitFor(t, "the second scheduler to catch up", func() bool { return len(fires(t, store)) >= killed+35 })
		second.Process.Signal(syscall.SIGTERM)
		second.Wait()
		fs := fires(t, store)
		slices.SortFunc(fs, func(a, b runs.Fire) int { return a.Scheduled.Compare(b.Scheduled) })
		for i, f := range fs {
			if f.Decision != runs.FireStarted {
				t.Errorf("%s: %s (%s)", f.Scheduled.Format(time.RFC3339), f.Decision, f.Note)
			}
			if i > 0 && !f.Scheduled.Equal(fs[i-1].Scheduled.Add(time.Second)) {
				t.Errorf("after %s comes %s: a second lost", fs[i-1].Scheduled.Format(time.RFC3339), f.Scheduled.Format(time.RFC3339))
			}
		}
		st, err := runs.OpenReadOnly(t.Context(), store)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		list, _, err := st.ListRuns(t.Context(), runs.Filter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[time.Time]bool{}
		for _, r := range list {
			if seen[r.Scheduled] {
				t.Errorf("two runs for %s", r.Scheduled.Format(time.RFC3339))
			}
			seen[r.Scheduled] = true
		}
		if len(list) != len(fs) {
			t.Errorf("%d runs, %d fires", len(list), len(fs))
		}
		if t.Failed() {
			t.Logf("first scheduler:\n%s\nsecond:\n%s", out, out2)
		}
	})
}

// fires returns the decisions about ticker's tick in store.
func fires(t *testing.T, store string) []runs.Fire {
	t.Helper()
	st, err := runs.OpenReadOnly(t.Context(), store)
	if err != nil {
		return nil // not created yet
	}
	defer st.Close()
	fs, err := st.(runs.Fires).ListFires(t.Context(), "ticker", "tick", 1000)
	if err != nil {
		return nil // not migrated yet
	}
	return fs
}
