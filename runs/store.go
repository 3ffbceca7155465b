// Package runs is the run store: every run, every attempt of every node, its output, its
// contract violations, timings and errors, kept in one SQLite file (pure Go, modernc.org/sqlite)
// so that a run can be inspected and resumed after the process that ran it is gone.
//
// The store records exactly what it is given. Callers must not pass secrets (API keys,
// tokens, passwords) in params, outputs, errors or logs: the file is plain, unencrypted
// SQLite, and nothing here masks or redacts.
//
// Several processes may share one store: the file is opened in WAL mode with a busy timeout,
// and every write transaction takes the write lock up front, so concurrent writers wait for
// each other instead of failing with "database is locked".
package runs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seam-dag/seam/contract"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// ErrNotFound is returned (wrapped) when a run or an output does not exist.
var ErrNotFound = errors.New("not found")

// busyTimeout is how long a write waits for another connection or process holding the write
// lock. Writes are short (one attempt, one output), so 5 s means something is wrong.
const busyTimeout = 5 * time.Second

// DefaultListLimit is the page size ListRuns uses when Filter.Limit is not positive.
const DefaultListLimit = 100

// Run is one execution of a DAG.
type Run struct {
	// ID identifies the run. IDs must sort by creation time (dag.NewRunID does): ListRuns
	// orders and paginates by ID.
	ID       string
	DAG      string // the DAG's name
	File     string // the DAG file it was loaded from, if any
	FileHash string // hash of that file's content, to tell whether a resume runs the same DAG
	Params   json.RawMessage
	Status   string // a run state: running, success, warn, failed, canceled
	Started  time.Time
	Ended    time.Time // zero while the run is running
}

// Attempt is one try at running one node within a run.
type Attempt struct {
	RunID   string
	Node    string // the node's id
	Type    string // the node's type name
	Attempt int    // 1 for the first try, counting retries
	Status  string // a node state: passed, warned, failed, skipped, canceled, ...
	Reason  string
	// OutputHash references the stored output (see HashOutput). RecordAttempt fills it in
	// from the output it is given; set it with a nil output to point at an output already
	// stored (e.g. reused by a resume).
	OutputHash string
	Violations []contract.Violation
	Error      string
	Log        string
	Started    time.Time
	Ended      time.Time
}

// Filter selects runs for ListRuns. Zero fields do not filter.
type Filter struct {
	DAG    string
	Status string
	Since  time.Time // runs started at or after
	Limit  int       // page size; DefaultListLimit when not positive
	Cursor string    // the next value returned by the previous page
}

// Store is an open run store. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
}

// Open opens the store at path, creating the file and its parent directories when missing,
// and brings its schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open store: empty path")
	}
	// The driver splits the DSN at the first '?' to find its parameters, so a path holding
	// one would be silently truncated.
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("open store %s: path must not contain '?'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open store %s: create directory: %w", path, err)
	}
	// Pragmas go in the DSN so that every pooled connection gets them, not just the first.
	// _txlock=immediate makes BEGIN take the write lock at once: a deferred transaction that
	// upgrades from read to write can fail with SQLITE_BUSY without waiting for busy_timeout.
	dsn := path + "?_txlock=immediate" +
		fmt.Sprintf("&_pragma=busy_timeout(%d)", busyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)" + // in WAL, NORMAL survives a process crash; only power loss can lose the last commits
		"&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	// sql.Open connects lazily; connect now so a bad file is reported by Open, not by the
	// first write in the middle of a run.
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	return nil
}

// Path returns the file the store was opened from.
func (s *Store) Path() string { return s.path }

// HashOutput returns the key an output is stored under: the hex SHA-256 of its bytes.
func HashOutput(output []byte) string {
	sum := sha256.Sum256(output)
	return hex.EncodeToString(sum[:])
}

// CreateRun records the start of a run.
func (s *Store) CreateRun(ctx context.Context, r Run) error {
	if r.ID == "" || r.Status == "" || r.Started.IsZero() {
		return fmt.Errorf("create run %q: id, status and start time are required", r.ID)
	}
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO runs (id, dag, file, file_hash, params, status, started, ended)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.DAG, r.File, r.FileHash, nullJSON(r.Params), r.Status, timeToDB(r.Started), timeToDB(r.Ended))
	if err != nil {
		return fmt.Errorf("create run %s in %s: %w", r.ID, s.path, err)
	}
	return nil
}

// RecordAttempt records one attempt and, when output is not nil, the output it produced.
// It returns once the write is committed: the engine calls it before handing the output
// downstream, so a crash never loses an output something else has already consumed.
// Identical outputs are stored once and shared between attempts.
func (s *Store) RecordAttempt(ctx context.Context, a Attempt, output []byte) error {
	if a.RunID == "" || a.Node == "" || a.Status == "" {
		return fmt.Errorf("record attempt %s/%s: run id, node and status are required", a.RunID, a.Node)
	}
	if output != nil {
		h := HashOutput(output)
		if a.OutputHash != "" && a.OutputHash != h {
			return fmt.Errorf("record attempt %s/%s: output hash %s does not match the output (%s)", a.RunID, a.Node, a.OutputHash, h)
		}
		a.OutputHash = h
	}
	var viol any // NULL when there are none, so "no violations" reads back as nil
	if len(a.Violations) > 0 {
		b, err := json.Marshal(a.Violations)
		if err != nil {
			return fmt.Errorf("record attempt %s/%s: encode violations: %w", a.RunID, a.Node, err)
		}
		viol = string(b)
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, a.RunID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("run %s: %w", a.RunID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if output != nil {
			if _, err := tx.ExecContext(ctx,
				`INSERT OR IGNORE INTO outputs (hash, size, data) VALUES (?, ?, ?)`,
				a.OutputHash, len(output), output); err != nil {
				return fmt.Errorf("store output: %w", err)
			}
		} else if a.OutputHash != "" {
			// A reference without bytes must point at an output that exists; the foreign
			// key would refuse it too, but with an unhelpful message.
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM outputs WHERE hash = ?`, a.OutputHash).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("output %s: %w", a.OutputHash, ErrNotFound)
			}
			if err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx,
			`INSERT INTO attempts (run_id, node, type, attempt, status, reason, output_hash,
			                       violations, error, log, started, ended)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.RunID, a.Node, a.Type, a.Attempt, a.Status, a.Reason, nullString(a.OutputHash),
			viol, a.Error, a.Log, timeToDB(a.Started), timeToDB(a.Ended))
		return err
	})
	if err != nil {
		return fmt.Errorf("record attempt %s/%s #%d in %s: %w", a.RunID, a.Node, a.Attempt, s.path, err)
	}
	return nil
}

// FinishRun sets a run's final status and end time.
func (s *Store) FinishRun(ctx context.Context, id, status string, ended time.Time) error {
	res, err := s.db.ExecContext(ctx, `UPDATE runs SET status = ?, ended = ? WHERE id = ?`,
		status, timeToDB(ended), id)
	if err != nil {
		return fmt.Errorf("finish run %s in %s: %w", id, s.path, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("finish run %s in %s: %w", id, s.path, err)
	}
	if n == 0 {
		return fmt.Errorf("finish run %s: %w", id, ErrNotFound)
	}
	return nil
}

// GetRun returns a run and its attempts in the order they were recorded.
func (s *Store) GetRun(ctx context.Context, id string) (*Run, []Attempt, error) {
	var (
		r        *Run
		attempts []Attempt
	)
	// One read transaction, so the run and its attempts come from the same snapshot even
	// while another process is still writing to it.
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		row := tx.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id)
		var err error
		r, err = scanRun(row)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx,
			`SELECT node, type, attempt, status, reason, COALESCE(output_hash, ''),
			        violations, error, log, started, ended
			 FROM attempts WHERE run_id = ? ORDER BY seq`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			a := Attempt{RunID: id}
			var (
				viol           sql.NullString
				started, ended sql.NullInt64
			)
			if err := rows.Scan(&a.Node, &a.Type, &a.Attempt, &a.Status, &a.Reason, &a.OutputHash,
				&viol, &a.Error, &a.Log, &started, &ended); err != nil {
				return err
			}
			if viol.Valid {
				if err := json.Unmarshal([]byte(viol.String), &a.Violations); err != nil {
					return fmt.Errorf("decode violations of %s #%d: %w", a.Node, a.Attempt, err)
				}
			}
			a.Started, a.Ended = timeFromDB(started), timeFromDB(ended)
			attempts = append(attempts, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, nil, fmt.Errorf("get run %s from %s: %w", id, s.path, err)
	}
	return r, attempts, nil
}

// Output returns the output stored under hash.
func (s *Store) Output(ctx context.Context, hash string) ([]byte, error) {
	var b []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM outputs WHERE hash = ?`, hash).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("output %s: %w", hash, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read output %s from %s: %w", hash, s.path, err)
	}
	return b, nil
}

// ListRuns returns runs matching f, newest first, and the cursor for the next page ("" when
// this is the last page).
func (s *Store) ListRuns(ctx context.Context, f Filter) ([]Run, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	var (
		where []string
		args  []any
	)
	if f.DAG != "" {
		where, args = append(where, "dag = ?"), append(args, f.DAG)
	}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, f.Status)
	}
	if !f.Since.IsZero() {
		where, args = append(where, "started >= ?"), append(args, f.Since.UnixNano())
	}
	if f.Cursor != "" {
		// Keyset pagination on the id: unlike OFFSET, it neither skips nor repeats runs when
		// new ones are created between pages.
		where, args = append(where, "id < ?"), append(args, f.Cursor)
	}
	q := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	// One row more than asked tells whether there is a next page.
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, limit+1)

	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list runs in %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, "", fmt.Errorf("list runs in %s: %w", s.path, err)
		}
		out = append(out, *r)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("list runs in %s: %w", s.path, err)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

const runColumns = `id, dag, file, file_hash, params, status, started, ended`

// scanRun reads one row selected with runColumns.
func scanRun(row interface{ Scan(...any) error }) (*Run, error) {
	var (
		r              Run
		params         sql.NullString
		started, ended sql.NullInt64
	)
	if err := row.Scan(&r.ID, &r.DAG, &r.File, &r.FileHash, &params, &r.Status, &started, &ended); err != nil {
		return nil, err
	}
	if params.Valid {
		r.Params = json.RawMessage(params.String)
	}
	r.Started, r.Ended = timeFromDB(started), timeFromDB(ended)
	return &r, nil
}

// tx runs fn in a write transaction (BEGIN IMMEDIATE, see Open) and commits it.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback() // the error from fn is the one worth reporting
		return err
	}
	return tx.Commit()
}

// readTx runs fn in a read-only transaction. The driver begins those DEFERRED, so in WAL a
// reader takes no write lock and never waits for a writer.
func (s *Store) readTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // nothing was written
	return fn(tx)
}

// Times are stored as UTC Unix nanoseconds: they compare and sort as integers (Since, the
// index on started) and round-trip exactly. A zero time is NULL, as its UnixNano is undefined.
func timeToDB(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func timeFromDB(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.Unix(0, v.Int64).UTC()
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
