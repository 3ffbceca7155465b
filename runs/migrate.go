package runs

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/seam-dag/seam/internal/i18n"
)

// migrations returns the SQL that brings an SQLite store's schema from version i to i+1
// (PRAGMA user_version counts the ones applied); pgMigrations is PostgreSQL's list, which
// keeps the same version numbers for the same schema. Append only: a released migration is never edited,
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

		// 2: what the engine's Recorder hands over (foreach items, the attempt that decided a
		// node, repairs, reuse by a resume, the key a resume compares), resumes of a run,
		// and tables laid out for cheap commits. Every commit writes each B-tree page it
		// changed to the WAL, and in the engine's path a commit happens before every
		// hand-off, so the tables have one B-tree each: attempts clustered by run (seq now
		// counts within a run), outputs by hash. Version 1's UNIQUE (run_id, node, attempt)
		// goes with its index: a resume numbers its attempts from 1 again (in a new session),
		// and a foreach node has an attempt 1 per item.
		`ALTER TABLE runs ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN pid INTEGER;          -- the process running it, NULL when unknown
	ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN outputs TEXT;         -- JSON: the DAG's outputs, NULL when none
	ALTER TABLE runs ADD COLUMN output_errors TEXT;   -- JSON: name → why it was not evaluated

	CREATE TABLE outputs_v2 (
		hash TEXT PRIMARY KEY, -- hex SHA-256 of data
		size INTEGER NOT NULL,
		data BLOB NOT NULL
	) WITHOUT ROWID;
	INSERT INTO outputs_v2 (hash, size, data) SELECT hash, size, data FROM outputs;

	CREATE TABLE attempts_v2 (
		run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		seq         INTEGER NOT NULL,           -- order of recording within the run, from 1
		session     INTEGER NOT NULL DEFAULT 0, -- 0: the first run, n: its n-th resume
		node        TEXT NOT NULL,
		item        INTEGER NOT NULL DEFAULT -1, -- foreach item index; -1: the node itself
		attempt     INTEGER NOT NULL,            -- 0: the node settled without running
		type        TEXT NOT NULL DEFAULT '',
		status      TEXT NOT NULL,
		final       INTEGER NOT NULL DEFAULT 0,
		repaired    INTEGER NOT NULL DEFAULT 0,
		reused      INTEGER NOT NULL DEFAULT 0,
		key         TEXT NOT NULL DEFAULT '',
		reason      TEXT NOT NULL DEFAULT '',
		output_hash TEXT REFERENCES outputs_v2 (hash),
		violations  TEXT,
		error       TEXT NOT NULL DEFAULT '',
		log         TEXT NOT NULL DEFAULT '',
		started     INTEGER,
		ended       INTEGER,
		PRIMARY KEY (run_id, seq)
	) WITHOUT ROWID;
	INSERT INTO attempts_v2 (run_id, seq, node, attempt, type, status, reason, output_hash,
	                         violations, error, log, started, ended)
		SELECT run_id, seq, node, attempt, type, status, reason, output_hash,
		       violations, error, log, started, ended
		FROM attempts;
	-- Version 1 did not say which attempt decided a node: it was the last one.
	UPDATE attempts_v2 SET final = 1
		WHERE (run_id, seq) IN (SELECT run_id, max(seq) FROM attempts_v2 GROUP BY run_id, node);
	DROP TABLE attempts;
	DROP TABLE outputs;
	ALTER TABLE attempts_v2 RENAME TO attempts;
	ALTER TABLE outputs_v2 RENAME TO outputs;`,

		// 3: sub-runs. The run of a `dag` node's sub-DAG is a run of its own, linked to the
		// run and node that started it, so that it can be shown, listed and explained.
		`ALTER TABLE runs ADD COLUMN parent TEXT NOT NULL DEFAULT '';      -- the parent run's id
	ALTER TABLE runs ADD COLUMN parent_node TEXT NOT NULL DEFAULT ''; -- the dag node in it
	CREATE INDEX runs_parent ON runs (parent, parent_node, id) WHERE parent != '';`,

		// 4: packs. The attempts of pure nodes are stored a batch to a row, outputs inline
		// (pack.go): a row each cost the store 4–6× what the engine spends on such a node.
		// A pack takes one seq in its run's order, shared with the attempts.
		`CREATE TABLE attempt_packs (
		run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		seq    INTEGER NOT NULL,
		data   BLOB NOT NULL, -- the attempts, encoded (runs/pack.go)
		PRIMARY KEY (run_id, seq)
	) WITHOUT ROWID;`,

		// 5 (principals): who started a run, and who last cancelled and resumed it, when.
		// Runs recorded before are by nobody known ('').
		principalsMigration,

		// 6: run leases (lease.go). The process recording a run holds it by a lease it renews
		// while it lives: a run whose lease expired is interrupted, wherever its owner ran.
		// Runs recorded before have no lease (NULL) and keep the check of their process.
		`ALTER TABLE runs ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN lease_until INTEGER; -- Unix nanoseconds; NULL: no lease
	CREATE INDEX runs_lease ON runs (lease_owner) WHERE status = 'running';`,

		// 7 (approvals): an approval's question and answer, on its attempts (approvalMigration).
		approvalMigration,
		// 8 (triggers): fires, trigger state, the scheduler's lease; what started a run.
		triggersMigration,
		// 9 (webhook keys): the run each webhook key started (hookkeys.go).
		hookKeysMigration,
		// 10 (buffer_one): the time a trigger keeps waiting (fires.go).
		waitingMigration,
	}
}

// approvalMigration is the step, the same on both backends, that keeps what an approval node
// asked and was answered (dag.ApprovalRecord as JSON) on its attempts, and finds the runs
// waiting for one.
const approvalMigration = `ALTER TABLE attempts ADD COLUMN approval TEXT; -- NULL but on an approval's attempts
	CREATE INDEX runs_waiting ON runs (id) WHERE status = 'waiting';`

// principalsMigration is the step, the same on both backends, that records who started,
// cancelled and resumed a run (docs/serve.md, "Who may do what").
const principalsMigration = `ALTER TABLE runs ADD COLUMN started_by TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN canceled_by TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN canceled_at BIGINT; -- Unix nanoseconds, NULL when never
	ALTER TABLE runs ADD COLUMN resumed_by TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN resumed_at BIGINT;`

// pgMigrations returns the SQL that brings a PostgreSQL store's schema from version i to
// i+1 (the table seam_schema holds the version). Append only, as migrations. It has its own
// numbering: version 1 is the schema SQLite's reached in 3 steps. Times are Unix nanoseconds
// and JSON is text, as in SQLite, so both backends read back exactly what they were given.
// Ids sort bytewise (COLLATE "C"), whatever the database's locale: runs are listed by id.
func pgMigrations() []string {
	return []string{
		// 1: runs, outputs, attempts.
		`CREATE TABLE runs (
		id          TEXT COLLATE "C" PRIMARY KEY,
		dag         TEXT NOT NULL,
		file        TEXT NOT NULL DEFAULT '',
		file_hash   TEXT NOT NULL DEFAULT '',
		params      TEXT,             -- JSON, NULL when none
		status      TEXT NOT NULL,
		started     BIGINT NOT NULL,  -- Unix nanoseconds, UTC
		ended       BIGINT,           -- NULL while running
		resumes     INTEGER NOT NULL DEFAULT 0,
		pid         INTEGER,          -- the process running it, NULL when unknown
		host        TEXT NOT NULL DEFAULT '',
		outputs     TEXT,             -- JSON: the DAG's outputs, NULL when none
		output_errors TEXT,           -- JSON: name → why it was not evaluated
		parent      TEXT COLLATE "C" NOT NULL DEFAULT '', -- the parent run's id
		parent_node TEXT NOT NULL DEFAULT ''              -- the dag node in it
	);
	CREATE INDEX runs_dag ON runs (dag, id);
	CREATE INDEX runs_started ON runs (started);
	CREATE INDEX runs_parent ON runs (parent, parent_node, id) WHERE parent <> '';

	-- Outputs are content-addressed so that a retry or a resume producing the same bytes
	-- does not store them again.
	CREATE TABLE outputs (
		hash TEXT COLLATE "C" PRIMARY KEY, -- hex SHA-256 of data
		size BIGINT NOT NULL,
		data BYTEA NOT NULL
	);

	CREATE TABLE attempts (
		run_id      TEXT COLLATE "C" NOT NULL CONSTRAINT attempts_run REFERENCES runs (id) ON DELETE CASCADE,
		seq         BIGINT GENERATED ALWAYS AS IDENTITY, -- order of recording
		batch       TEXT COLLATE "C" NOT NULL, -- the write that recorded it, so that a retried write adds nothing
		idx         INTEGER NOT NULL,          -- its place in that write
		session     INTEGER NOT NULL DEFAULT 0, -- 0: the first run, n: its n-th resume
		node        TEXT NOT NULL,
		item        INTEGER NOT NULL DEFAULT -1, -- foreach item index; -1: the node itself
		attempt     INTEGER NOT NULL,            -- 0: the node settled without running
		type        TEXT NOT NULL DEFAULT '',
		status      TEXT NOT NULL,
		final       BOOLEAN NOT NULL DEFAULT false,
		repaired    BOOLEAN NOT NULL DEFAULT false,
		reused      BOOLEAN NOT NULL DEFAULT false,
		key         TEXT NOT NULL DEFAULT '',
		reason      TEXT NOT NULL DEFAULT '',
		output_hash TEXT COLLATE "C" CONSTRAINT attempts_output REFERENCES outputs (hash),
		violations  TEXT, -- JSON array of contract.Violation, NULL when none
		error       TEXT NOT NULL DEFAULT '',
		log         TEXT NOT NULL DEFAULT '',
		started     BIGINT,
		ended       BIGINT,
		PRIMARY KEY (run_id, seq),
		CONSTRAINT attempts_batch UNIQUE (batch, idx)
	);
	CREATE INDEX attempts_output ON attempts (output_hash);`,

		// 2: packs, as SQLite's version 4 (runs/pack.go). A pack draws its seq from the
		// attempts' sequence, so that both keep the run's order.
		`CREATE TABLE attempt_packs (
		run_id TEXT COLLATE "C" NOT NULL CONSTRAINT attempt_packs_run REFERENCES runs (id) ON DELETE CASCADE,
		seq    BIGINT NOT NULL,
		batch  TEXT COLLATE "C" NOT NULL, -- as in attempts: a retried write adds nothing
		idx    INTEGER NOT NULL,          -- the place of its first attempt in that write
		data   BYTEA NOT NULL,
		PRIMARY KEY (run_id, seq),
		CONSTRAINT attempt_packs_batch UNIQUE (batch, idx)
	);`,

		// 3 (principals): as SQLite's version 5.
		principalsMigration,

		// 4: run leases, as SQLite's version 6 (lease.go).
		`ALTER TABLE runs ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN lease_until BIGINT; -- Unix nanoseconds; NULL: no lease
	CREATE INDEX runs_lease ON runs (lease_owner) WHERE status = 'running';`,

		// 5 (approvals): as SQLite's version 7.
		approvalMigration,
		// 6 (triggers): as SQLite's version 8.
		triggersMigration,
		// 7 (webhook keys): as SQLite's version 9.
		hookKeysMigration,
		// 8 (buffer_one): as SQLite's version 10.
		waitingMigration,
	}
}

// errNewer says a store's schema is newer than this seam's: a newer seam wrote it, and this
// one could misread or damage what it does not know.
func errNewer(where string, v, n int, lang i18n.Lang) error {
	return i18n.Errorf(lang, "store %s has schema version %d, this seam knows up to %d: it was written by a newer seam; use that one (or a newer one) with it", where, v, n)
}

// errOlder says a store opened without migrating is older than this seam's schema.
func errOlder(where string, v, n int, lang i18n.Lang) error {
	return i18n.Errorf(lang, "store %s has schema version %d, this seam needs %d: `seam store migrate` brings it up to date (seam run does so unless --no-migrate)", where, v, n)
}

// sqliteVersion reads the schema version of an SQLite store.
func sqliteVersion(ctx context.Context, db *sql.DB, path string) (int, error) {
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("open store %s: read schema version: %w", path, err)
	}
	return v, nil
}

// checkVersion refuses, in lang, a store whose schema is not exactly this seam's, without
// changing it.
func checkVersion(where string, v, n int, lang i18n.Lang) error {
	switch {
	case v > n:
		return errNewer(where, v, n, lang)
	case v < n:
		return errOlder(where, v, n, lang)
	}
	return nil
}

// migrateDB applies the migrations in migs the store has not seen yet, each in its own
// transaction, and returns the version it found. The list is passed in so tests can
// exercise more than one step. A newer store is refused in lang.
func migrateDB(ctx context.Context, db *sql.DB, path string, migs []string, lang i18n.Lang) (int, error) {
	// Fast path without the write lock: a current store, the usual case, needs nothing, and
	// every process opening the store would otherwise queue for the lock here.
	v, err := sqliteVersion(ctx, db, path)
	if err != nil || v == len(migs) {
		return v, err
	}
	if v > len(migs) {
		return v, errNewer(path, v, len(migs), lang)
	}
	for {
		done, err := migrateOne(ctx, db, path, migs, lang)
		if err != nil || done {
			return v, err
		}
	}
}

// migrateOne applies the next migration, if any, and reports whether the schema is current.
// The version is read inside the write transaction: another process opening the same store
// at the same moment may have applied the migration while this one waited for the lock.
func migrateOne(ctx context.Context, db *sql.DB, path string, migs []string, lang i18n.Lang) (done bool, err error) {
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
		return false, errNewer(path, v, len(migs), lang)
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
