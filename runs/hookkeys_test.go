package runs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/seam-dag/seam/dag"
)

func keyedRun(id, key string) Run {
	return Run{ID: id, DAG: "nightly", Status: dag.RunRunning, Started: fireTime, Trigger: "redo", TriggerKey: key}
}

// TestHookKeysStartOnce: a webhook's run is created with its key, so a second run with the
// key is refused naming the first, other keys and runs without a key start, and of many
// concurrent runs with one key exactly one is created.
func TestHookKeysStartOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s, _ := b.open(t)
		where := s.Path()
		if err := s.CreateRun(ctx, keyedRun("r1", "abc")); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			run     Run
			wantErr string
		}{
			{keyedRun("r2", "abc"), fmt.Sprintf(`create run r2 in %s: key "abc" of trigger redo of nightly started run r1 already`, where)},
			{keyedRun("r3", "def"), ""},
			{Run{ID: "r4", DAG: "nightly", Status: dag.RunRunning, Started: fireTime, Trigger: "redo"}, ""},
		}
		for _, c := range cases {
			err := s.CreateRun(ctx, c.run)
			if c.wantErr == "" {
				if err != nil {
					t.Errorf("run %s: %v", c.run.ID, err)
				}
				continue
			}
			var used *KeyUsedError
			if !errors.As(err, &used) || used.RunID != "r1" || !errors.Is(err, ErrFired) || err.Error() != c.wantErr {
				t.Errorf("run %s: %v\nwant %s", c.run.ID, err, c.wantErr)
			}
		}
		r, _, err := s.GetRun(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if r.Trigger != "redo" || r.TriggerKey != "abc" || !r.Scheduled.IsZero() {
			t.Errorf("run records trigger %q key %q scheduled %s", r.Trigger, r.TriggerKey, r.Scheduled)
		}

		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.CreateRun(ctx, keyedRun(fmt.Sprintf("c%d", i), "same"))
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			var used *KeyUsedError
			switch {
			case err == nil:
				ok++
			case !errors.As(err, &used):
				t.Errorf("concurrent run: %v", err)
			}
		}
		if n := count(t, s, `SELECT count(*) FROM runs WHERE trigger_key = 'same'`); ok != 1 || n != 1 {
			t.Errorf("%d runs created, %d in the store; want 1", ok, n)
		}
	})
}
