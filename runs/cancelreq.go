package runs

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// A cancel request is how one process stops a run another process records: the asker
// records who canceled the run and when (RecordAction with ActionCancel, as every cancel
// does), and the process holding the run's lease, which asks its store every CancelPoll
// while it has runs going, cancels those with a request newer than their last resume. So
// the request needs no column of its own, and a run resumed after a cancel is not canceled
// again by the old request.

// CancelPoll is how often a process with runs going asks for their cancel requests: the
// most a request waits before its run is told to stop.
const CancelPoll = time.Second

// CancelRequests is the part of a store that finds the cancel requests of a lease owner's
// runs; both backends implement it.
type CancelRequests interface {
	// CancelRequested returns the ids of the running runs owner holds the lease of that
	// someone asked to cancel since they last started or resumed.
	CancelRequested(ctx context.Context, owner string) ([]string, error)
}

// selectCancelRequested is the query both backends find requests with (the partial index
// runs_lease serves it).
const selectCancelRequested = `SELECT id FROM runs WHERE lease_owner = $1 AND status = 'running'
	AND canceled_at IS NOT NULL AND (resumed_at IS NULL OR canceled_at > resumed_at) ORDER BY id`

func (s *sqliteStore) CancelRequested(ctx context.Context, owner string) ([]string, error) {
	var ids []string
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, selectCancelRequested, owner)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read the cancel requests of %s in %s: %w", owner, s.path, err)
	}
	return ids, nil
}

func (s *pgStore) CancelRequested(ctx context.Context, owner string) ([]string, error) {
	var ids []string
	err := s.retry(ctx, func(ctx context.Context) error {
		ids = nil
		rows, err := s.pool.Query(ctx, selectCancelRequested, owner)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.scrub(fmt.Errorf("read the cancel requests of %s in %s: %w", owner, s.where, err))
	}
	return ids, nil
}

var (
	_ CancelRequests = (*sqliteStore)(nil)
	_ CancelRequests = (*pgStore)(nil)
)
