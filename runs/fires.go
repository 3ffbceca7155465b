package runs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A fire is the scheduler's decision about one scheduled time of one trigger: a run started
// for it, or why none did. Fires are unique on (DAG, trigger, scheduled time), and a started
// fire is written in the transaction that creates its run (CreateRun with Run.Trigger set):
// a restart, a second scheduler or a retry can never start a time twice.

// Decisions a fire records.
const (
	FireStarted = "started" // a run started for the time (Fire.RunID)
	FireSkipped = "skipped" // a run of the trigger was still going (overlap: skip)
	FireMissed  = "missed"  // the time was seen outside its catch-up window, or superseded
	FireManual  = "manual"  // a person fired the trigger (seam schedule trigger); not a scheduled time
)

// Fire is one decision of the scheduler.
type Fire struct {
	DAG, Trigger string
	Scheduled    time.Time // the time the run is (or would have been) for
	Decision     string    // FireStarted, FireSkipped, FireMissed or FireManual
	RunID        string    // the run it started; "" otherwise
	At           time.Time // when it was decided
	Note         string    // why, for people (the run it overlapped, the window)
}

// TriggerState is what the store keeps of a trigger between schedulers.
type TriggerState struct {
	DAG, Trigger string
	// Since is when a scheduler first saw the trigger: no time before it is due.
	Since time.Time
	// Paused, with who paused it, when and why; a paused trigger's times are missed.
	Paused   bool
	Note     string
	PausedBy string
	PausedAt time.Time
	// Waiting is the time overlap buffer_one keeps waiting for the run going to end (zero:
	// none). It is kept here, not as a fire, because the times after it are decided (skipped)
	// while it waits, which moves the scheduler's cursor past it.
	Waiting time.Time
}

// ErrFired says a time of a trigger has its decision already: it is not started again.
var ErrFired = errors.New("this time of the trigger was decided already")

// Fires is the scheduler's part of a store; both backends implement it.
type Fires interface {
	// RecordFire records a decision that starts no run (skipped, missed); ErrFired when the
	// time has one.
	RecordFire(ctx context.Context, f Fire) error
	// ListFires returns the decisions about dag's trigger, latest scheduled time first, at
	// most limit.
	ListFires(ctx context.Context, dag, trigger string, limit int) ([]Fire, error)
	// Trigger returns the state of dag's trigger, recording it Since now when new.
	Trigger(ctx context.Context, dag, trigger string, now time.Time) (TriggerState, error)
	// SetPaused pauses or resumes dag's trigger, saying who, when and why.
	SetPaused(ctx context.Context, st TriggerState) error
	// SetWaiting records t as the time dag's trigger keeps waiting (zero: none).
	SetWaiting(ctx context.Context, dag, trigger string, t time.Time) error
	// TakeSchedulerLease makes owner the store's one active scheduler until until, when no
	// other holds the lease past now; it returns the holder either way.
	TakeSchedulerLease(ctx context.Context, owner string, now, until time.Time) (holder string, err error)
}

// triggersMigration is the step, the same on both backends, that adds fires, trigger state,
// the scheduler's lease and, on runs, what started each (docs/schedules.md).
const triggersMigration = `ALTER TABLE runs ADD COLUMN trigger_id TEXT NOT NULL DEFAULT ''; -- '': started by hand
	ALTER TABLE runs ADD COLUMN scheduled_at BIGINT;                        -- Unix nanoseconds, NULL when none
	ALTER TABLE runs ADD COLUMN trigger_key TEXT NOT NULL DEFAULT '';
	CREATE TABLE fires (
		dag        TEXT NOT NULL,
		trigger_id TEXT NOT NULL,
		scheduled  BIGINT NOT NULL,  -- Unix nanoseconds
		decision   TEXT NOT NULL,    -- started, skipped, missed
		run_id     TEXT NOT NULL DEFAULT '',
		decided    BIGINT NOT NULL,
		note       TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (dag, trigger_id, scheduled)
	);
	CREATE TABLE trigger_state (
		dag        TEXT NOT NULL,
		trigger_id TEXT NOT NULL,
		since      BIGINT NOT NULL,
		paused     BOOLEAN NOT NULL DEFAULT false,
		note       TEXT NOT NULL DEFAULT '',
		paused_by  TEXT NOT NULL DEFAULT '',
		paused_at  BIGINT,
		PRIMARY KEY (dag, trigger_id)
	);
	CREATE TABLE scheduler_lease (
		id    INTEGER PRIMARY KEY CHECK (id = 1),
		owner TEXT NOT NULL,
		until BIGINT NOT NULL
	);`

// waitingMigration is the step, the same on both backends, that keeps the time a trigger
// under overlap buffer_one keeps waiting.
const waitingMigration = `ALTER TABLE trigger_state ADD COLUMN waiting BIGINT; -- Unix nanoseconds, NULL when none`

func sqliteUnique(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY || se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE)
}

// insertFire is the statement both backends record a decision with (placeholders numbered,
// which SQLite reads too).
const insertFire = `INSERT INTO fires (dag, trigger_id, scheduled, decision, run_id, decided, note) VALUES ($1, $2, $3, $4, $5, $6, $7)`

func fireArgs(f Fire) []any {
	return []any{f.DAG, f.Trigger, f.Scheduled.UnixNano(), f.Decision, f.RunID, f.At.UnixNano(), f.Note}
}

// startedFire is the fire a run started by a schedule (or by a person: FireManual) records
// with it.
func startedFire(r Run) Fire {
	f := Fire{DAG: r.DAG, Trigger: r.Trigger, Scheduled: r.Scheduled, Decision: FireStarted, RunID: r.ID, At: r.Started, Note: r.FireNote}
	if r.FireManual {
		f.Decision = FireManual
	}
	return f
}

func (s *sqliteStore) RecordFire(ctx context.Context, f Fire) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, insertFire, fireArgs(f)...)
		return err
	})
	if sqliteUnique(err) {
		return fmt.Errorf("record %s of %s/%s at %s in %s: %w", f.Decision, f.DAG, f.Trigger, f.Scheduled.UTC().Format(time.RFC3339), s.path, ErrFired)
	}
	if err != nil {
		return fmt.Errorf("record %s of %s/%s in %s: %w", f.Decision, f.DAG, f.Trigger, s.path, err)
	}
	return nil
}

const selectFires = `SELECT dag, trigger_id, scheduled, decision, run_id, decided, note FROM fires
	WHERE dag = $1 AND trigger_id = $2 ORDER BY scheduled DESC LIMIT $3`

func scanFire(row interface{ Scan(...any) error }) (Fire, error) {
	var f Fire
	var sched, at int64
	err := row.Scan(&f.DAG, &f.Trigger, &sched, &f.Decision, &f.RunID, &at, &f.Note)
	f.Scheduled, f.At = time.Unix(0, sched).UTC(), time.Unix(0, at).UTC()
	return f, err
}

func (s *sqliteStore) ListFires(ctx context.Context, dag, trigger string, limit int) ([]Fire, error) {
	var out []Fire
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, selectFires, dag, trigger, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			f, err := scanFire(rows)
			if err != nil {
				return err
			}
			out = append(out, f)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list fires of %s/%s in %s: %w", dag, trigger, s.path, err)
	}
	return out, nil
}

const (
	insertTrigger = `INSERT INTO trigger_state (dag, trigger_id, since) VALUES ($1, $2, $3) ON CONFLICT (dag, trigger_id) DO NOTHING`
	selectTrigger = `SELECT since, paused, note, paused_by, paused_at, waiting FROM trigger_state WHERE dag = $1 AND trigger_id = $2`
	updatePaused  = `UPDATE trigger_state SET paused = $3, note = $4, paused_by = $5, paused_at = $6 WHERE dag = $1 AND trigger_id = $2`
	updateWaiting = `UPDATE trigger_state SET waiting = $3 WHERE dag = $1 AND trigger_id = $2`
	// takeLease takes the one row of scheduler_lease when it is free, expired or owner's.
	takeLease = `INSERT INTO scheduler_lease (id, owner, until) VALUES (1, $1, $2)
	ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, until = excluded.until
	WHERE scheduler_lease.owner = excluded.owner OR scheduler_lease.until < $3`
)

func scanTrigger(st *TriggerState, row interface{ Scan(...any) error }) error {
	var since int64
	var at, waiting *int64
	if err := row.Scan(&since, &st.Paused, &st.Note, &st.PausedBy, &at, &waiting); err != nil {
		return err
	}
	st.Since, st.PausedAt, st.Waiting = time.Unix(0, since).UTC(), timeFromNanos(at), timeFromNanos(waiting)
	return nil
}

func (s *sqliteStore) Trigger(ctx context.Context, dag, trigger string, now time.Time) (TriggerState, error) {
	st := TriggerState{DAG: dag, Trigger: trigger}
	// A known trigger is read without a write transaction: the scheduler asks for each of
	// its triggers every tick, and a write transaction is a commit each.
	err := s.readTx(ctx, func(tx *sql.Tx) error { return scanTrigger(&st, tx.QueryRowContext(ctx, selectTrigger, dag, trigger)) })
	if err == nil {
		return st, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("read trigger %s/%s in %s: %w", dag, trigger, s.path, err)
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, insertTrigger, dag, trigger, now.UnixNano()); err != nil {
			return err
		}
		return scanTrigger(&st, tx.QueryRowContext(ctx, selectTrigger, dag, trigger))
	})
	if err != nil {
		return st, fmt.Errorf("read trigger %s/%s in %s: %w", dag, trigger, s.path, err)
	}
	return st, nil
}

func (s *sqliteStore) SetPaused(ctx context.Context, st TriggerState) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, insertTrigger, st.DAG, st.Trigger, st.PausedAt.UnixNano()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, updatePaused, st.DAG, st.Trigger, st.Paused, st.Note, st.PausedBy, timeToDB(st.PausedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("pause trigger %s/%s in %s: %w", st.DAG, st.Trigger, s.path, err)
	}
	return nil
}

func (s *sqliteStore) SetWaiting(ctx context.Context, dag, trigger string, t time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, updateWaiting, dag, trigger, timeToDB(t))
		return err
	})
	if err != nil {
		return fmt.Errorf("keep a time of trigger %s/%s waiting in %s: %w", dag, trigger, s.path, err)
	}
	return nil
}

func (s *sqliteStore) TakeSchedulerLease(ctx context.Context, owner string, now, until time.Time) (string, error) {
	var holder string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, takeLease, owner, until.UnixNano(), now.UnixNano()); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT owner FROM scheduler_lease WHERE id = 1`).Scan(&holder)
	})
	if err != nil {
		return "", fmt.Errorf("take the scheduler's lease in %s: %w", s.path, err)
	}
	return holder, nil
}

func (s *pgStore) RecordFire(ctx context.Context, f Fire) error {
	err := s.retry(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, insertFire, fireArgs(f)...)
		return err
	})
	if isUnique(err) {
		return fmt.Errorf("record %s of %s/%s at %s in %s: %w", f.Decision, f.DAG, f.Trigger, f.Scheduled.UTC().Format(time.RFC3339), s.where, ErrFired)
	}
	if err != nil {
		return s.scrub(fmt.Errorf("record %s of %s/%s in %s: %w", f.Decision, f.DAG, f.Trigger, s.where, err))
	}
	return nil
}

func (s *pgStore) ListFires(ctx context.Context, dag, trigger string, limit int) ([]Fire, error) {
	var out []Fire
	err := s.retry(ctx, func(ctx context.Context) error {
		out = nil
		rows, err := s.pool.Query(ctx, selectFires, dag, trigger, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			f, err := scanFire(rows)
			if err != nil {
				return err
			}
			out = append(out, f)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.scrub(fmt.Errorf("list fires of %s/%s in %s: %w", dag, trigger, s.where, err))
	}
	return out, nil
}

func (s *pgStore) Trigger(ctx context.Context, dag, trigger string, now time.Time) (TriggerState, error) {
	st := TriggerState{DAG: dag, Trigger: trigger}
	err := s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, insertTrigger, dag, trigger, now.UnixNano()); err != nil {
				return err
			}
			return scanTrigger(&st, tx.QueryRow(ctx, selectTrigger, dag, trigger))
		})
	})
	if err != nil {
		return st, s.scrub(fmt.Errorf("read trigger %s/%s in %s: %w", dag, trigger, s.where, err))
	}
	return st, nil
}

func (s *pgStore) SetPaused(ctx context.Context, st TriggerState) error {
	err := s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, insertTrigger, st.DAG, st.Trigger, st.PausedAt.UnixNano()); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, updatePaused, st.DAG, st.Trigger, st.Paused, st.Note, st.PausedBy, timeToDB(st.PausedAt))
			return err
		})
	})
	if err != nil {
		return s.scrub(fmt.Errorf("pause trigger %s/%s in %s: %w", st.DAG, st.Trigger, s.where, err))
	}
	return nil
}

func (s *pgStore) SetWaiting(ctx context.Context, dag, trigger string, t time.Time) error {
	err := s.retry(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, updateWaiting, dag, trigger, timeToDB(t))
		return err
	})
	if err != nil {
		return s.scrub(fmt.Errorf("keep a time of trigger %s/%s waiting in %s: %w", dag, trigger, s.where, err))
	}
	return nil
}

func (s *pgStore) TakeSchedulerLease(ctx context.Context, owner string, now, until time.Time) (string, error) {
	var holder string
	err := s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, takeLease, owner, until.UnixNano(), now.UnixNano()); err != nil {
				return err
			}
			return tx.QueryRow(ctx, `SELECT owner FROM scheduler_lease WHERE id = 1`).Scan(&holder)
		})
	})
	if err != nil {
		return "", s.scrub(fmt.Errorf("take the scheduler's lease in %s: %w", s.where, err))
	}
	return holder, nil
}

var (
	_ Fires = (*sqliteStore)(nil)
	_ Fires = (*pgStore)(nil)
)
