package runs

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/seam-dag/seam/dag"
)

// pollInterval is how often a watch of an SQLite store reads the run again; SQLite cannot
// tell another process of a commit.
const pollInterval = 200 * time.Millisecond

// watchRun is WatchRun given wait, which returns once the run may have changed (or ctx
// ended). fn is called with each new state: a state is new when the run's status, resumes or
// end, or its number of attempts or of those running, or what those running printed so far
// (RecordLog), changed: an attempt's finish takes the place of its start record (GetRun), so
// the first number alone may stay the same. A run
// whose owner is found gone (its lease expired: nothing is written) is a new state too, the
// last: a follower is told, and says interrupted without reading the run again.
func watchRun(ctx context.Context, s Store, id string, wait func(context.Context) error, fn func(*Run, []Attempt) error) error {
	last := ""
	for {
		r, as, err := s.GetRun(ctx, id)
		if err != nil {
			return err
		}
		running, logs := 0, fnv.New64a()
		for i := range as {
			if as[i].IsStart() {
				running++
				logs.Write([]byte(as[i].Log))
				logs.Write([]byte{0})
			}
		}
		interrupted := r.InterruptedAt(time.Now())
		if state := fmt.Sprint(r.Status, interrupted, r.Resumes, r.Ended.UnixNano(), len(as), running, logs.Sum64()); state != last {
			last = state
			if err := fn(r, as); err != nil {
				return err
			}
		}
		if r.Status != dag.RunRunning || interrupted {
			return nil
		}
		if err := wait(ctx); err != nil {
			return err
		}
	}
}

// WatchRun implements Store by polling.
func (s *sqliteStore) WatchRun(ctx context.Context, id string, fn func(*Run, []Attempt) error) error {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	return watchRun(ctx, s, id, func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}, fn)
}

// Notifier is a store that tells of a run's changes as they commit (PostgreSQL's
// LISTEN/NOTIFY); SQLite cannot tell another process of a commit, and is polled.
type Notifier interface {
	// ListenRun listens for the changes of run id from now on: wait returns once one
	// committed, most passed, or ctx ended (with its error); stop ends the listening.
	ListenRun(ctx context.Context, id string) (wait func(ctx context.Context, most time.Duration) error, stop func())
}

// ListenRun listens for the changes of run id in st: its notifications when it is a
// Notifier (notified), else wait sleeps for most.
func ListenRun(ctx context.Context, st Store, id string) (wait func(ctx context.Context, most time.Duration) error, stop func(), notified bool) {
	if n, ok := st.(Notifier); ok {
		wait, stop = n.ListenRun(ctx, id)
		return wait, stop, true
	}
	return func(ctx context.Context, most time.Duration) error {
		t := time.NewTimer(most)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}, func() {}, false
}
