package runs

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations returns the SQL that brings the schema from version i to i+1 (PRAGMA
// user_version counts the ones applied). Append only: a released migration is never edited,
// because stores already past it would not see the change. A function rather than a variable
// so that nothing can modify the list at run time.
func migrations() []string {
	return []string{
		// 1: runs, attempts, outputs.
		`CREATE TABLE runs (
		id        TEXT PRIMARY KEY,
		dag       TEXT NOT NULL,
		file      TEXT NOT NULL DEFAULT '',
		file_hash TEXT NOT NULL DEFAULT '',
		params    TEXT,             -- JSON, NULL when none
		status    TEXT NOT NULL,
		started   INTEGER NOT NULL, -- Unix nanoseconds, UTC
		ended     INTEGER           -- NULL while running
	);
	CREATE INDEX runs_dag ON runs (dag, id);
	CREATE INDEX runs_started ON runs (started);

	-- Outputs are content-addressed so that a retry or a resume producing the same bytes
	-- does not store them again.
	CREATE TABLE outputs (
		hash TEXT PRIMARY KEY, -- hex SHA-256 of data
		size INTEGER NOT NULL,
		data BLOB NOT NULL
	);

	CREATE TABLE attempts (
		seq         INTEGER PRIMARY KEY AUTOINCREMENT, -- insertion order, never reused
		run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		node        TEXT NOT NULL,
		type        TEXT NOT NULL DEFAULT '',
		attempt     INTEGER NOT NULL,
		status      TEXT NOT NULL,
		reason      TEXT NOT NULL DEFAULT '',
		output_hash TEXT REFERENCES outputs (hash),
		violations  TEXT, -- JSON array of contract.Violation, NULL when none
		error       TEXT NOT NULL DEFAULT '',
		log         TEXT NOT NULL DEFAULT '',
		started     INTEGER,
		ended       INTEGER,
		UNIQUE (run_id, node, attempt)
	);
	CREATE INDEX attempts_run ON attempts (run_id, seq);
	CREATE INDEX attempts_output ON attempts (output_hash);`,
	}
}

// migrate applies the migrations the store has not seen yet, each in its own transaction.
func (s *Store) migrate(ctx context.Context) error {
	return migrateDB(ctx, s.db, s.path, migrations())
}

// migrateDB is migrate with the list passed in, so tests can exercise more than one step.
func migrateDB(ctx context.Context, db *sql.DB, path string, migs []string) error {
	// Fast path without the write lock: a current store, the usual case, needs nothing, and
	// every process opening the store would otherwise queue for the lock here.
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("open store %s: read schema version: %w", path, err)
	}
	if v == len(migs) {
		return nil
	}
	for {
		done, err := migrateOne(ctx, db, path, migs)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// migrateOne applies the next migration, if any, and reports whether the schema is current.
// The version is read inside the write transaction: another process opening the same store
// at the same moment may have applied the migration while this one waited for the lock.
func migrateOne(ctx context.Context, db *sql.DB, path string, migs []string) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("open store %s: begin migration: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback() // the migration error is the one worth reporting
		}
	}()
	var v int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return false, fmt.Errorf("open store %s: read schema version: %w", path, err)
	}
	if v > len(migs) {
		return false, fmt.Errorf("store %s has schema version %d, this seam knows up to %d", path, v, len(migs))
	}
	if v == len(migs) {
		return true, tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, migs[v]); err != nil {
		return false, fmt.Errorf("open store %s: migrate to schema version %d: %w", path, v+1, err)
	}
	// PRAGMA takes no bound parameters; v is an int, so formatting it in is safe.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
		return false, fmt.Errorf("open store %s: set schema version %d: %w", path, v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("open store %s: commit schema version %d: %w", path, v+1, err)
	}
	return false, nil
}
