package runs

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// A webhook's key names the run a request asks for: at most one run per (DAG, trigger, key).
// The key's row is written in the transaction that creates its run (CreateRun with Run.Trigger
// and Run.TriggerKey set), so that two requests with one key, however close, start one run.

// hookKeysMigration is the step, the same on both backends, that adds the keys webhooks
// started runs for (docs/schedules.md).
const hookKeysMigration = `CREATE TABLE hook_keys (
		dag        TEXT NOT NULL,
		trigger_id TEXT NOT NULL,
		key        TEXT NOT NULL,
		run_id     TEXT NOT NULL,
		PRIMARY KEY (dag, trigger_id, key)
	);`

// KeyUsedError says a webhook's key started a run already, RunID: no second one starts. It
// is an ErrFired.
type KeyUsedError struct {
	DAG, Trigger, Key, RunID string
}

func (e *KeyUsedError) Error() string {
	return fmt.Sprintf("key %q of trigger %s of %s started run %s already", e.Key, e.Trigger, e.DAG, e.RunID)
}

// Unwrap makes a used key an ErrFired.
func (e *KeyUsedError) Unwrap() error { return ErrFired }

const (
	// insertKey takes the key for the run, or does nothing when another run has it: the
	// second of two writers waits for the first to commit, then finds its row.
	insertKey = `INSERT INTO hook_keys (dag, trigger_id, key, run_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`
	selectKey = `SELECT run_id FROM hook_keys WHERE dag = $1 AND trigger_id = $2 AND key = $3`
)

// keyed reports whether r is a webhook's run with a key, written with the key's row.
func keyed(r Run) bool { return r.Trigger != "" && r.TriggerKey != "" }

// takeKeySQLite takes r's key in tx, or says which run has it.
func takeKeySQLite(ctx context.Context, tx *sql.Tx, r Run) error {
	res, err := tx.ExecContext(ctx, insertKey, r.DAG, r.Trigger, r.TriggerKey, r.ID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	used := &KeyUsedError{DAG: r.DAG, Trigger: r.Trigger, Key: r.TriggerKey}
	if err := tx.QueryRowContext(ctx, selectKey, r.DAG, r.Trigger, r.TriggerKey).Scan(&used.RunID); err != nil {
		return err
	}
	return used
}

// takeKeyPG takes r's key in tx, or says which run has it; a retry of a write that committed
// without saying so finds its own run and succeeds.
func takeKeyPG(ctx context.Context, tx pgx.Tx, r Run) (taken bool, err error) {
	tag, err := tx.Exec(ctx, insertKey, r.DAG, r.Trigger, r.TriggerKey, r.ID)
	if err != nil || tag.RowsAffected() == 1 {
		return err == nil, err
	}
	used := &KeyUsedError{DAG: r.DAG, Trigger: r.Trigger, Key: r.TriggerKey}
	if err := tx.QueryRow(ctx, selectKey, r.DAG, r.Trigger, r.TriggerKey).Scan(&used.RunID); err != nil {
		return false, err
	}
	if used.RunID == r.ID {
		return false, nil
	}
	return false, used
}
