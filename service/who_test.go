package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// TestWhoStartsCancelsResumes: the principal a front end puts in the context is recorded as
// the run's starter, its canceller and its resumer, with when; without one, the run is the
// operating-system user's (the local CLI).
func TestWhoStartsCancelsResumes(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		s := newService(t, st, "en")
		dir := t.TempDir()
		alice := auth.With(t.Context(), &auth.Principal{Name: "alice", Roles: []auth.Role{auth.Operator}})
		bob := auth.With(t.Context(), &auth.Principal{Name: "bob", Roles: []auth.Role{auth.Admin}})

		// Started by alice, cancelled by bob.
		d := load(t, dir, "hang.yaml", hangDAG)
		t.Chdir(dir)
		t.Cleanup(func() { os.WriteFile(filepath.Join(dir, "release"), nil, 0o644) })
		run, err := s.Start(alice, d, Request{})
		if err != nil {
			t.Fatal(err)
		}
		<-run.Recorded()
		if err := s.Cancel(bob, run.ID); err != nil {
			t.Fatal(err)
		}
		wait(t, run)
		r, _, err := s.Show(t.Context(), run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.StartedBy != "alice" || r.CanceledBy != "bob" || r.Canceled.IsZero() || r.ResumedBy != "" {
			t.Errorf("started by %q, canceled by %q at %v, resumed by %q", r.StartedBy, r.CanceledBy, r.Canceled, r.ResumedBy)
		}

		// Started by nobody named: the operating-system user; resumed by bob.
		first, err := s.Start(t.Context(), load(t, dir, "fixable.yaml", fixableDAG), Request{})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, first)
		rs, err := s.Resumable(t.Context(), first.ID, ResumeCheck{})
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.Resume(bob, rs, load(t, dir, "fixable.yaml", strings.Replace(fixableDAG, "other: 1", "label: x", 1)), Request{})
		if err != nil {
			t.Fatal(err)
		}
		if res := wait(t, again); res.Status != dag.RunSuccess {
			t.Fatalf("resume: %s", res.Status)
		}
		r, _, err = s.Show(t.Context(), first.ID)
		if err != nil {
			t.Fatal(err)
		}
		if me := auth.OS("", os.Getenv).Name; r.StartedBy != me || r.ResumedBy != "bob" || r.Resumed.IsZero() || r.CanceledBy != "" {
			t.Errorf("started by %q (want %q), resumed by %q at %v, canceled by %q", r.StartedBy, me, r.ResumedBy, r.Resumed, r.CanceledBy)
		}
	})
}
