package service

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// TestRelease releases runs left running, on each store: refused while their owner may
// live (a live lease, a live process on this host), accepted once it is gone, and only once.
func TestRelease(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		ctx := t.Context()
		host, _ := os.Hostname()
		now := time.Now()
		tests := []struct {
			name string
			run  runs.Run
			want string // the refusal's message, or "" when released
		}{
			{"a live lease", runs.Run{PID: 42, Host: "elsewhere", LeaseOwner: "elsewhere/42/ab", LeaseUntil: now.Add(time.Minute)},
				"run r-live is still running: its owner elsewhere/42/ab renewed its lease, which holds until " + now.Add(time.Minute).Local().Format(time.DateTime) +
					"; release is for a run whose owner is gone, and a lease expires within 30s of its owner's death"},
			{"no lease, this process", runs.Run{PID: os.Getpid(), Host: host},
				"run r-here is still running (process " + strconv.Itoa(os.Getpid()) + " on " + host + "): stop it there, or wait for it to end"},
			{"an expired lease", runs.Run{PID: 42, Host: "elsewhere", LeaseOwner: "elsewhere/42/ab", LeaseUntil: now.Add(-time.Second)}, ""},
			{"no lease, another host", runs.Run{PID: 42, Host: "elsewhere"}, ""},
		}
		ids := map[string]string{"a live lease": "r-live", "no lease, this process": "r-here", "an expired lease": "r-expired", "no lease, another host": "r-old"}
		svc := newService(t, st, "en")
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := tc.run
				r.ID, r.DAG, r.Status, r.Started = ids[tc.name], "d", dag.RunRunning, now.Add(-time.Hour)
				if err := st.CreateRun(ctx, r); err != nil {
					t.Fatal(err)
				}
				_, err := svc.Release(ctx, r.ID)
				var nr *NotReleasableError
				switch {
				case tc.want == "" && err != nil:
					t.Fatalf("Release: %v", err)
				case tc.want != "" && (!errors.As(err, &nr) || err.Error() != tc.want):
					t.Fatalf("Release: %v\nwant: %s", err, tc.want)
				}
				got, _, err := svc.Show(ctx, r.ID)
				if err != nil {
					t.Fatal(err)
				}
				want := dag.RunCanceled
				if tc.want != "" {
					want = dag.RunRunning
				}
				if got.Status != want {
					t.Errorf("after Release: %s, want %s", got.Status, want)
				}
				if tc.want != "" {
					return
				}
				var done *NotRunningError
				if _, err := svc.Release(ctx, r.ID); !errors.As(err, &done) || err.Error() != "run "+r.ID+" has already finished: canceled" {
					t.Errorf("a second Release: %v", err)
				}
			})
		}
		var nf *NotFoundError
		if _, err := svc.Release(ctx, "r-none"); !errors.As(err, &nf) {
			t.Errorf("Release of no run: %v", err)
		}
	})
}

// TestStartTakesLease checks a run the Service starts holds a lease in the store, which
// makes it live to every reader, and that the Service refuses to release it.
func TestStartTakesLease(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		ctx := t.Context()
		svc := newService(t, st, "en")
		d := load(t, t.TempDir(), "slow.yaml", "version: 1\nname: slow\nnodes:\n  s:\n    type: exec\n    with: {command: [sleep, \"30\"]}\n")
		run, err := svc.Start(ctx, d, Request{})
		if err != nil {
			t.Fatal(err)
		}
		<-run.Recorded()
		r, _, err := svc.Show(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.LeaseOwner == "" || !r.LeaseUntil.After(time.Now()) || r.Interrupted() {
			t.Errorf("a run started: lease %q until %v, interrupted %t", r.LeaseOwner, r.LeaseUntil, r.Interrupted())
		}
		if _, err := svc.Release(ctx, run.ID); err == nil || !strings.Contains(err.Error(), "is still running") {
			t.Errorf("Release of a run this Service runs: %v", err)
		}
		if err := svc.Cancel(ctx, run.ID); err != nil {
			t.Fatal(err)
		}
		run.Wait()
	})
}

// TestResumableLease: a run of another host can be resumed once its lease has expired, not
// while it lives.
func TestResumableLease(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		ctx := t.Context()
		svc := newService(t, st, "en")
		d := load(t, t.TempDir(), "greet.yaml", greetDAG)
		for _, tc := range []struct {
			id    string
			lease time.Duration
			want  string // the refusal, or "" when resumable
		}{
			{"r-live", time.Minute, "run r-live is still running (process 42 on another-host); resume it once that process has stopped"},
			{"r-gone", -time.Second, ""},
		} {
			r := runs.Run{ID: tc.id, DAG: "greet", File: d.File, Status: dag.RunRunning, Started: time.Now().Add(-time.Hour),
				Params: []byte(`{"name":"ada"}`), PID: 42, Host: "another-host", LeaseOwner: "another-host/42/ab", LeaseUntil: time.Now().Add(tc.lease)}
			if err := st.CreateRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			_, err := svc.Resumable(ctx, tc.id, ResumeCheck{})
			if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
				t.Errorf("Resumable(%s): %v, want %q", tc.id, err, tc.want)
			}
		}
	})
}
