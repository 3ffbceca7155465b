package service

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/runs"
)

// TestCanCancel: a front end offers Cancel only for a run Cancel reaches: one this Service
// runs, not one another process (on this host or another) or Temporal, unreached, runs.
func TestCanCancel(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "runs.db"))
	s := newService(t, st, "en")
	dir := t.TempDir()
	d := load(t, dir, "hang.yaml", hangDAG)
	t.Chdir(dir) // the node waits for ./release
	t.Cleanup(func() { os.WriteFile(filepath.Join(dir, "release"), nil, 0o644) })
	run, err := s.Start(t.Context(), d, Request{})
	if err != nil {
		t.Fatal(err)
	}
	<-run.Recorded()
	host, _ := os.Hostname()
	tests := []struct {
		name string
		run  runs.Run
		want bool
	}{
		{"run by this Service", runs.Run{ID: run.ID}, true},
		{"run by another process here", runs.Run{ID: "20260101T000000.000-00000009", PID: os.Getpid() + 1, Host: host}, false},
		{"run on another host", runs.Run{ID: "20260101T000000.000-0000000a", PID: 42, Host: "another-host"}, false},
		{"on Temporal, which this Service does not reach", runs.Run{ID: "20260101T000000.000-0000000b", PID: -1, Host: runs.HostTemporal}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run.Status, tt.run.Started = dag.RunRunning, time.Now()
			if got := s.CanCancel(&tt.run); got != tt.want {
				t.Errorf("CanCancel = %v, want %v", got, tt.want)
			}
		})
	}
	if err := s.Cancel(t.Context(), run.ID); err != nil {
		t.Fatal(err)
	}
	wait(t, run)
	if s.CanCancel(&runs.Run{ID: run.ID}) {
		t.Error("CanCancel of a run that ended here: true")
	}
}
