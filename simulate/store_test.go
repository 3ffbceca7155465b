package simulate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/pgtest"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// TestFromStore: on both stores, the outputs of the last successful runs are replayed a path
// each (one that breaks today's contract is generated instead), and nothing is recorded.
func TestFromStore(t *testing.T) {
	backends := []struct {
		name string
		loc  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "seam.db") }},
		{"postgres", func(t *testing.T) string {
			if os.Getenv("SEAM_SKIP_POSTGRES") != "" {
				t.Skip("SEAM_SKIP_POSTGRES is set")
			}
			return pgtest.Database(t)
		}},
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := runs.Open(ctx, be.loc(t))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			d := load(t, classifier+"  notify:\n    type: const\n    when: \"${{ nodes.classify.output.data.kind == 'bug' }}\"\n    with: {value: {status: pass, summary: s}}\n", nil)
			if _, err := FromStore(ctx, st, d, 2, "en"); err == nil || err.Error() != "--from-store: the run store holds no successful run of sim" {
				t.Fatalf("empty store: %v", err)
			}
			svc := service.New(service.Options{Store: st, Engine: engine.Embedded{}})
			defer svc.Close()
			for range 2 {
				r, err := svc.Start(ctx, d, service.Request{})
				if err != nil {
					t.Fatal(err)
				}
				if res, err := r.Wait(); err != nil || res.Status != "success" {
					t.Fatalf("run: %v %v", res, err)
				}
			}
			before, _, err := st.ListRuns(ctx, runs.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			replays, err := FromStore(ctx, st, d, 1, "en")
			if err != nil || len(replays) != 1 || replays[0].Run != before[0].ID {
				t.Fatalf("replays %+v, %v; want the newest of %d runs", replays, err, len(before))
			}
			if err := os.Remove(filepath.Join(filepath.Dir(d.File), "ran")); err != nil {
				t.Fatal(err)
			}
			// A replay whose stored output breaks the contract now: generated instead.
			stale := Replay{Run: "stale", Outputs: map[string]any{"classify": map[string]any{"status": "pass", "summary": "s", "data": map[string]any{"kind": "question"}}}}
			rep, err := Simulate(ctx, d, Options{Replays: append(replays, stale)})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Paths) != 2 || rep.Paths[0].Replay != before[0].ID || rep.Paths[1].Replay != "stale" {
				t.Fatalf("paths %+v", rep.Paths)
			}
			if got := outcome(rep.Branches[0]); got != "when notify true[1 2] false[]" {
				t.Errorf("branch %s", got)
			}
			if k := rep.Paths[1].Generated["classify"].(map[string]any)["data"].(map[string]any)["kind"]; k != "bug" {
				t.Errorf("the stale output was handed on: kind %v", k)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(d.File), "ran")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an exec node ran: %v", err)
			}
			after, _, err := st.ListRuns(ctx, runs.Filter{})
			if err != nil || len(after) != len(before) {
				t.Errorf("%d runs after the simulation, %d before: %v", len(after), len(before), err)
			}
		})
	}
}
