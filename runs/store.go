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
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/seam-dag/seam/contract"
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
	// ID identifies the run. IDs must sort by creation time (engine.NewRunID does): ListRuns
	// orders and paginates by ID.
	ID       string
	DAG      string // the DAG's name
	File     string // the DAG file it was loaded from, if any
	FileHash string // hash of that file's content, to tell whether a resume runs the same DAG
	Params   json.RawMessage
	Status   string // a run state: running, success, warn, failed, canceled
	Started  time.Time
	Ended    time.Time // zero while the run is running
	// Resumes counts the times the run was resumed; attempts of the n-th carry Session n.
	Resumes int
	// PID and Host name the process that last ran it (0 and "" when unknown), so that a
	// run still "running" can be told from one whose process died.
	PID  int
	Host string
	// Outputs are the DAG's outputs (a JSON object) once the run succeeded or warned, and
	// OutputErrors why some could not be evaluated (a JSON object, name → message).
	Outputs      json.RawMessage
	OutputErrors json.RawMessage
	// Parent and ParentNode are, for the sub-run of a `dag` node, the run and node that
	// started it; empty otherwise.
	Parent, ParentNode string
}

// Attempt is one try at running one node within a run.
type Attempt struct {
	RunID string
	// Session is 0 for the attempts of the first run and n for those of its n-th resume,
	// which numbers its attempts from 1 again.
	Session int
	Node    string // the node's id
	// Item is the foreach item the attempt ran, or -1 for the node itself (a node without
	// foreach, or the combined output of a foreach node).
	Item    int
	Type    string // the node's type name
	Attempt int    // 1 for the first try, counting retries; 0 when the node settled without running
	Status  string // a node state: passed, warned, failed, skipped, canceled, ...
	// Final marks the attempt that decided the node's (or item's) status in its session.
	Final    bool
	Repaired bool   // passed after its violations were fed back to the node
	Reused   bool   // a resume reused an earlier output instead of running the node
	Key      string // what the attempt ran (dag.AttemptRecord.Key); "" when unknown
	Reason   string
	// OutputHash references the stored output (see HashOutput). RecordAttempt fills it in
	// from the output it is given; set it with a nil output to point at an output already
	// stored (e.g. reused by a resume).
	OutputHash string
	// Output is the output to store with the attempt (RecordAttempts); nil for none. GetRun
	// leaves it nil: read the bytes with Store.Output(OutputHash).
	Output     []byte
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
	// TopLevel leaves out sub-runs (those of `dag` nodes): "latest" is the newest run a
	// person started, not the sub-run its last dag node started.
	TopLevel bool
	Limit    int    // page size; DefaultListLimit when not positive
	Cursor   string // the next value returned by the previous page
}

// Store is an open run store. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string

	prepMu sync.Mutex
	prep   *stmts // nil until the first write

	// writing holds one token per write transaction of this process. Its writers queue
	// here, in order, rather than in SQLite's busy handler, which polls with growing sleeps:
	// under load one writer could wait past busyTimeout while the others of the same process
	// kept taking the lock. busyTimeout is left to bound the wait for other processes.
	writing chan struct{}
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
	// SQLite would only say "unable to open database file".
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("open store %s: is a directory, not a database file", path)
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
	s := &Store{db: db, path: path, writing: make(chan struct{}, 1)}
	// sql.Open connects lazily; connect now so a bad file is reported by Open, not by the
	// first write in the middle of a run.
	if err := connect(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// OpenReadOnly opens the existing store at path to read it, never writing to the file or
// its directory, so that the commands that only read (runs list and show, explain, a
// read-only MCP server) work on a store they cannot write. In WAL mode a reader needs the
// -shm file, which SQLite creates beside the store: when the directory is not writable and
// no -wal file is left (no writer can be at work, and every commit is in the file), the
// store is opened immutable, without the -shm file and without locks.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open store: empty path")
	}
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("open store %s: path must not contain '?'", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("open store %s: is a directory, not a database file", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// A URI filename, for mode=ro and immutable=1: '%' and '#' would be read as an escape and
	// a fragment ('?' is refused above).
	dsn := "file:" + strings.NewReplacer("%", "%25", "#", "%23").Replace(abs) + "?mode=ro" +
		fmt.Sprintf("&_pragma=busy_timeout(%d)", busyTimeout.Milliseconds())
	_, walErr := os.Stat(path + "-wal")
	if syscall.Access(filepath.Dir(abs), wOK) != nil && errors.Is(walErr, fs.ErrNotExist) {
		dsn += "&immutable=1"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := connect(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// Reading cannot migrate: a store from an older seam is read once a run has migrated it.
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: read schema version: %w", path, err)
	}
	if n := len(migrations()); v != n {
		db.Close()
		return nil, fmt.Errorf("open store %s to read: it has schema version %d, this seam reads %d (seam run updates an older store)", path, v, n)
	}
	return &Store{db: db, path: path, writing: make(chan struct{}, 1)}, nil
}

// wOK is access(2)'s W_OK, which package syscall does not name.
const wOK = 2

// ErrDamaged is returned (wrapped) by Check for a store whose file is damaged.
var ErrDamaged = errors.New("the store is damaged")

// Check verifies the structure of every page of the store (PRAGMA quick_check), so that a
// damaged file is refused before a run starts rather than found by the run's first record,
// after nodes ran with their side effects. It reads the whole file: about 45 ms for a store
// of 10,000 runs (19 MB); integrity_check, which also checks index contents, takes 4 times
// as long and is not needed to catch damaged pages.
func (s *Store) Check(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check(3)`) // the first 3 problems say enough
	if err != nil {
		return fmt.Errorf("check store %s: %w: %w", s.path, ErrDamaged, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return fmt.Errorf("check store %s: %w: %w", s.path, ErrDamaged, err)
		}
		// A row may hold several lines, the first naming the database ("*** in database
		// main ***"), which is always main here.
		for _, line := range strings.Split(p, "\n") {
			if line != "" && !strings.HasPrefix(line, "***") && len(problems) < 3 {
				problems = append(problems, line)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check store %s: %w: %w", s.path, ErrDamaged, err)
	}
	if len(problems) == 1 && problems[0] == "ok" {
		return nil
	}
	return fmt.Errorf("check store %s: %w: %s", s.path, ErrDamaged, strings.Join(problems, "; "))
}

// connect makes the first connection. Its pragmas switch a new file to WAL, which takes a
// lock SQLite does not wait for with busy_timeout: processes opening a new store at once can
// find it taken (SQLITE_BUSY), so connect retries for as long as a write would wait.
func connect(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	for {
		err := db.PingContext(ctx)
		var se *sqlite.Error
		if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Close closes the store.
func (s *Store) Close() error {
	s.prepMu.Lock()
	if s.prep != nil {
		for _, q := range []*sql.Stmt{s.prep.runExists, s.prep.outputExists, s.prep.insertOutput, s.prep.insertAttempt} {
			q.Close() // closing the database below reports what matters
		}
		s.prep = nil
	}
	s.prepMu.Unlock()
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
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO runs (id, dag, file, file_hash, params, status, started, ended, pid, host, parent, parent_node)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.DAG, r.File, r.FileHash, nullJSON(r.Params), r.Status, timeToDB(r.Started),
			timeToDB(r.Ended), nullInt(r.PID), r.Host, r.Parent, r.ParentNode)
		return err
	})
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
		return fmt.Errorf("create run %s in %s: a run with this id exists already", r.ID, s.path)
	}
	if err != nil {
		return fmt.Errorf("create run %s in %s: %w", r.ID, s.path, err)
	}
	return nil
}

// ErrResumed is returned (wrapped) by ResumeRun when another process resumed the run since
// its caller read it.
var ErrResumed = errors.New("resumed by another process meanwhile")

// ResumeRun marks run id running again for a resume by process pid on host, and returns the
// session number its attempts are to carry (1 for the first resume). resumes is the run's
// Resumes as the caller read it: two processes resuming the same run at once would write
// one run twice, so the second to get here fails with ErrResumed.
func (s *Store) ResumeRun(ctx context.Context, id string, resumes, pid int, host string) (int, error) {
	var session int
	err := s.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx,
			`UPDATE runs SET status = 'running', ended = NULL, outputs = NULL, output_errors = NULL,
			        resumes = resumes + 1, pid = ?, host = ?
			 WHERE id = ? AND resumes = ? RETURNING resumes`, nullInt(pid), host, id, resumes).Scan(&session)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var one int
		switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, id).Scan(&one); {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		case err != nil:
			return err
		}
		return fmt.Errorf("run %s: %w", id, ErrResumed)
	})
	if err != nil {
		return 0, fmt.Errorf("resume run %s in %s: %w", id, s.path, err)
	}
	return session, nil
}

// RecordAttempt records one attempt and, when output is not nil, the output it produced.
// It is RecordAttempts with a batch of one.
func (s *Store) RecordAttempt(ctx context.Context, a Attempt, output []byte) error {
	if output != nil {
		a.Output = output
	}
	return s.RecordAttempts(ctx, []Attempt{a})
}

// RecordAttempts records a batch of attempts, with their outputs, in one transaction and
// returns once it is committed: the engine calls it before handing any of the outputs
// downstream, so a crash never loses an output something else has already consumed. One
// commit per batch is what makes the store cheap enough to sit in the engine's path (see
// docs/performance.md). Identical outputs are stored once and shared between attempts.
func (s *Store) RecordAttempts(ctx context.Context, batch []Attempt) error {
	if len(batch) == 0 {
		return nil
	}
	rows := make([]attemptRow, len(batch))
	for i := range batch {
		if err := rows[i].prepare(&batch[i]); err != nil {
			return err
		}
	}
	first := &batch[0]
	err := s.tx(ctx, func(tx *sql.Tx) error {
		return s.insertAttempts(ctx, tx, batch, rows)
	})
	if err != nil {
		if len(batch) == 1 {
			return fmt.Errorf("record attempt %s/%s #%d in %s: %w", first.RunID, first.Node, first.Attempt, s.path, err)
		}
		return fmt.Errorf("record %d attempts of run %s in %s: %w", len(batch), first.RunID, s.path, err)
	}
	return nil
}

// attemptRow is what an Attempt needs encoded before its transaction starts, so that the
// write lock is held for the inserts only.
type attemptRow struct {
	violations any // JSON text, or nil (NULL) when there are none, so they read back as nil
	outputHash any
}

func (r *attemptRow) prepare(a *Attempt) error {
	if a.RunID == "" || a.Node == "" || a.Status == "" {
		return fmt.Errorf("record attempt %s/%s: run id, node and status are required", a.RunID, a.Node)
	}
	if a.Output != nil {
		h := HashOutput(a.Output)
		if a.OutputHash != "" && a.OutputHash != h {
			return fmt.Errorf("record attempt %s/%s: output hash %s does not match the output (%s)", a.RunID, a.Node, a.OutputHash, h)
		}
		a.OutputHash = h
	}
	r.outputHash = nullString(a.OutputHash)
	if len(a.Violations) > 0 {
		b, err := json.Marshal(a.Violations)
		if err != nil {
			return fmt.Errorf("record attempt %s/%s: encode violations: %w", a.RunID, a.Node, err)
		}
		r.violations = string(b)
	}
	return nil
}

// insertAttempts writes a prepared batch within tx.
func (s *Store) insertAttempts(ctx context.Context, tx *sql.Tx, batch []Attempt, rows []attemptRow) error {
	st, err := s.statements(ctx)
	if err != nil {
		return err
	}
	checked := ""
	for i := range batch {
		a := &batch[i]
		// The foreign key would refuse an unknown run too, but with an unhelpful message.
		if a.RunID != checked {
			var one int
			err := tx.StmtContext(ctx, st.runExists).QueryRowContext(ctx, a.RunID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("run %s: %w", a.RunID, ErrNotFound)
			}
			if err != nil {
				return err
			}
			checked = a.RunID
		}
		if a.Output != nil {
			if _, err := tx.StmtContext(ctx, st.insertOutput).ExecContext(ctx, a.OutputHash, len(a.Output), a.Output); err != nil {
				return fmt.Errorf("store output: %w", err)
			}
		} else if a.OutputHash != "" {
			// A reference without bytes must point at an output that exists.
			var one int
			err := tx.StmtContext(ctx, st.outputExists).QueryRowContext(ctx, a.OutputHash).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("output %s: %w", a.OutputHash, ErrNotFound)
			}
			if err != nil {
				return err
			}
		}
		if _, err := tx.StmtContext(ctx, st.insertAttempt).ExecContext(ctx,
			a.RunID, a.Session, a.Node, a.Item, a.Attempt, a.Type, a.Status, a.Final, a.Repaired,
			a.Reused, a.Key, a.Reason, rows[i].outputHash, rows[i].violations, a.Error, a.Log,
			timeToDB(a.Started), timeToDB(a.Ended)); err != nil {
			return fmt.Errorf("attempt %s #%d: %w", a.Node, a.Attempt, err)
		}
	}
	return nil
}

// stmts are the statements of the write path, prepared once per store: parsing SQL costs
// more than the inserts themselves.
type stmts struct {
	runExists, outputExists, insertOutput, insertAttempt *sql.Stmt
}

func (s *Store) statements(ctx context.Context) (*stmts, error) {
	s.prepMu.Lock()
	defer s.prepMu.Unlock()
	if s.prep != nil {
		return s.prep, nil
	}
	var st stmts
	for _, p := range []struct {
		to  **sql.Stmt
		sql string
	}{
		{&st.runExists, `SELECT 1 FROM runs WHERE id = ?`},
		{&st.outputExists, `SELECT 1 FROM outputs WHERE hash = ?`},
		{&st.insertOutput, `INSERT OR IGNORE INTO outputs (hash, size, data) VALUES (?, ?, ?)`},
		// seq is the next in the run: the last key of the run's range of the primary key.
		{&st.insertAttempt, `INSERT INTO attempts (run_id, seq, session, node, item, attempt, type,
			status, final, repaired, reused, key, reason, output_hash, violations, error, log,
			started, ended)
			VALUES (?1, (SELECT COALESCE(max(seq), 0) + 1 FROM attempts WHERE run_id = ?1),
			        ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
	} {
		stmt, err := s.db.PrepareContext(ctx, p.sql)
		if err != nil {
			for _, q := range []*sql.Stmt{st.runExists, st.outputExists, st.insertOutput, st.insertAttempt} {
				if q != nil {
					q.Close()
				}
			}
			return nil, fmt.Errorf("prepare: %w", err)
		}
		*p.to = stmt
	}
	s.prep = &st
	return s.prep, nil
}

// Finish says how a run ended.
type Finish struct {
	Status string // a run state: success, warn, failed, canceled
	Ended  time.Time
	// Outputs and OutputErrors are the DAG's outputs and why some were not evaluated (JSON
	// objects), nil when there are none.
	Outputs, OutputErrors json.RawMessage
	// Attempts are recorded in the same transaction, e.g. the final state of nodes that
	// settled without running.
	Attempts []Attempt
}

// FinishRun sets a run's final status and end time.
func (s *Store) FinishRun(ctx context.Context, id, status string, ended time.Time) error {
	return s.FinishRunWith(ctx, id, Finish{Status: status, Ended: ended})
}

// FinishRunWith records how a run ended, with its outputs and any last attempts, at once.
func (s *Store) FinishRunWith(ctx context.Context, id string, f Finish) error {
	rows := make([]attemptRow, len(f.Attempts))
	for i := range f.Attempts {
		if err := rows[i].prepare(&f.Attempts[i]); err != nil {
			return fmt.Errorf("finish run %s: %w", id, err)
		}
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE runs SET status = ?, ended = ?, outputs = ?, output_errors = ? WHERE id = ?`,
			f.Status, timeToDB(f.Ended), nullJSON(f.Outputs), nullJSON(f.OutputErrors), id)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		}
		return s.insertAttempts(ctx, tx, f.Attempts, rows)
	})
	if err != nil {
		return fmt.Errorf("finish run %s in %s: %w", id, s.path, err)
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
			`SELECT session, node, item, type, attempt, status, final, repaired, reused, key,
			        reason, COALESCE(output_hash, ''), violations, error, log, started, ended
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
			if err := rows.Scan(&a.Session, &a.Node, &a.Item, &a.Type, &a.Attempt, &a.Status,
				&a.Final, &a.Repaired, &a.Reused, &a.Key, &a.Reason, &a.OutputHash,
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
		where, args = append(where, "started >= ?"), append(args, nanosClamped(f.Since))
	}
	if f.TopLevel {
		where = append(where, "parent = ''")
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

const runColumns = `id, dag, file, file_hash, params, status, started, ended, resumes,
	COALESCE(pid, 0), host, outputs, output_errors, parent, parent_node`

// scanRun reads one row selected with runColumns.
func scanRun(row interface{ Scan(...any) error }) (*Run, error) {
	var (
		r                   Run
		params, outs, oerrs sql.NullString
		started, ended      sql.NullInt64
	)
	if err := row.Scan(&r.ID, &r.DAG, &r.File, &r.FileHash, &params, &r.Status, &started, &ended,
		&r.Resumes, &r.PID, &r.Host, &outs, &oerrs, &r.Parent, &r.ParentNode); err != nil {
		return nil, err
	}
	if params.Valid {
		r.Params = json.RawMessage(params.String)
	}
	if outs.Valid {
		r.Outputs = json.RawMessage(outs.String)
	}
	if oerrs.Valid {
		r.OutputErrors = json.RawMessage(oerrs.String)
	}
	r.Started, r.Ended = timeFromDB(started), timeFromDB(ended)
	return &r, nil
}

// tx runs fn in a write transaction (BEGIN IMMEDIATE, see Open) and commits it.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	select {
	case s.writing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writing }()
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

// nanosClamped is t in Unix nanoseconds, clamped to what an int64 holds (years 1678 to
// 2262), so that a filter far in the past or future still compares the right way.
func nanosClamped(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, math.MinInt64)):
		return math.MinInt64
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
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

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
