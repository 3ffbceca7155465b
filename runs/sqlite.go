package runs

// The SQLite store: one plain, unencrypted file. Several processes may share it: the file
// is opened in WAL mode with a busy timeout, and every write transaction takes the write
// lock up front, so concurrent writers wait for each other instead of failing with
// "database is locked".

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/seam-dag/seam/dag"

	"modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/seam-dag/seam/internal/i18n"
)

// busyTimeout is how long a write waits for another connection or process holding the write
// lock. Writes are short (one attempt, one output), so 5 s means something is wrong.
const busyTimeout = 5 * time.Second

// walAutocheckpoint is how many pages the WAL holds before a commit copies them into the
// file (SQLite's default is 1,000). A commit that checkpoints pays for it, and outputs keyed
// by a random hash dirty pages all over the file: with 10,000 (40 MB at most) a page
// rewritten by many commits is copied once, which took a fifth off the CPU of a committed
// attempt in batches of 64 (docs/performance.md). Close checkpoints whatever is left.
const walAutocheckpoint = 10_000

// sqliteStore is a Store in an SQLite file.
type sqliteStore struct {
	db   *sql.DB
	path string
	lang i18n.Lang // of the errors that refuse the store's schema version

	prepMu sync.Mutex
	prep   *stmts // nil until the first write

	// writing holds one token per write transaction of this process. Its writers queue
	// here, in order, rather than in SQLite's busy handler, which polls with growing sleeps:
	// under load one writer could wait past busyTimeout while the others of the same process
	// kept taking the lock. busyTimeout is left to bound the wait for other processes.
	writing chan struct{}

	// checked is set once Check found the store sound (or unchanged since a check that did):
	// Close then records the file's stamp for the next Check.
	checked bool
}

// openSQLite opens the store at path, creating the file and its parent directories when
// missing, and brings its schema up to date unless o.NoMigrate.
func openSQLite(ctx context.Context, path string, o Options) (*sqliteStore, error) {
	s, err := openSQLiteDB(ctx, path)
	if err != nil {
		return nil, err
	}
	s.lang = o.Lang
	if o.NoMigrate {
		err = s.checkVersion(ctx)
	} else {
		_, err = migrateDB(ctx, s.db, path, migrations(), o.Lang)
	}
	if err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// openSQLiteDB opens (creating) the file at path, whatever its schema.
func openSQLiteDB(ctx context.Context, path string) (*sqliteStore, error) {
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
		"&_pragma=foreign_keys(1)" +
		fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)", walAutocheckpoint)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s := &sqliteStore{db: db, path: path, writing: make(chan struct{}, 1)}
	// sql.Open connects lazily; connect now so a bad file is reported by Open, not by the
	// first write in the middle of a run.
	if err := connect(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

func (s *sqliteStore) checkVersion(ctx context.Context) error {
	v, err := sqliteVersion(ctx, s.db, s.path)
	if err != nil {
		return err
	}
	return checkVersion(s.path, v, len(migrations()), s.lang)
}

// migrateSQLite brings the store at path up to date, creating it when missing.
func migrateSQLite(ctx context.Context, path string, lang i18n.Lang) (from, to int, err error) {
	s, err := openSQLiteDB(ctx, path)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	from, err = migrateDB(ctx, s.db, path, migrations(), lang)
	if err != nil {
		return from, from, err
	}
	return from, len(migrations()), nil
}

// openSQLiteReadOnly opens the existing store at path to read it, never writing to the file
// or its directory, so that the commands that only read work on a store they cannot write
// (a read-only directory or mount). In WAL mode a reader needs the
// -shm file, which SQLite creates beside the store: when the directory is not writable and
// no -wal file is left (no writer can be at work, and every commit is in the file), the
// store is opened immutable, without the -shm file and without locks. A store of another
// schema version is refused in lang.
func openSQLiteReadOnly(ctx context.Context, path string, lang i18n.Lang) (*sqliteStore, error) {
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
	if err := checkVersion(path, v, len(migrations()), lang); err != nil {
		db.Close()
		return nil, i18n.Errorf(lang, "open store %s to read: %w", path, err)
	}
	return &sqliteStore{db: db, path: path, writing: make(chan struct{}, 1), lang: lang}, nil
}

// wOK is access(2)'s W_OK, which package syscall does not name.
const wOK = 2

// ErrDamaged is returned (wrapped) by Check for a store whose file is damaged.
var ErrDamaged = errors.New("the store is damaged")

// Check verifies the structure of every page of the store (PRAGMA quick_check), so that a
// damaged file is refused before a run starts rather than found by the run's first record,
// after nodes ran with their side effects. It reads the whole file: about 30 ms of CPU for
// a store of 10,000 runs; integrity_check, which also checks index contents, takes 4 times
// as long and is not needed to catch damaged pages. So it is skipped when nothing wrote the
// file since a seam that had checked it closed it (see checkedStamp).
func (s *sqliteStore) Check(ctx context.Context) error {
	if stamp, ok := s.stamp(); ok {
		if b, err := os.ReadFile(s.path + checkedSuffix); err == nil && string(b) == stamp {
			s.checked = true
			return nil
		}
	}
	if err := s.quickCheck(ctx); err != nil {
		return err
	}
	s.checked = true
	return nil
}

// checkedSuffix names the file beside the store that holds the stamp (fileStamp) the store
// had when a seam that had checked it last closed it.
const checkedSuffix = "-checked"

// stamp is the store file's stamp while its WAL is empty (or gone): all of its content is
// then in the file. With frames in the WAL (a writer open, or one that died) there is none,
// and Check reads the whole store.
func (s *sqliteStore) stamp() (string, bool) {
	if fi, err := os.Stat(s.path + "-wal"); err == nil && fi.Size() > 0 {
		return "", false
	}
	return fileStamp(s.path)
}

// quickCheck runs PRAGMA quick_check and says what it found.
func (s *sqliteStore) quickCheck(ctx context.Context) error {
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
func (s *sqliteStore) Close() error {
	s.prepMu.Lock()
	if s.prep != nil {
		s.prep.close() // closing the database below reports what matters
		s.prep = nil
	}
	s.prepMu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	// The last connection to close checkpoints the WAL into the file: what was checked
	// plus what SQLite wrote since is all there, and the next Check can trust it as long
	// as nothing else writes the file. A stamp that cannot be written costs that Check a
	// full read, nothing more.
	if stamp, ok := s.stamp(); ok && s.checked {
		_ = os.WriteFile(s.path+checkedSuffix, []byte(stamp), 0o644)
	}
	return nil
}

// Path returns the file the store was opened from.
func (s *sqliteStore) Path() string { return s.path }

// CreateRun records the start of a run.
func (s *sqliteStore) CreateRun(ctx context.Context, r Run) error {
	if err := r.prepare(); err != nil {
		return err
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if keyed(r) {
			// The key, in the run's transaction: one run per key, or none.
			if err := takeKeySQLite(ctx, tx, r); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO runs (id, dag, file, file_hash, params, status, started, ended, pid, host, parent, parent_node,
			                   started_by, lease_owner, lease_until, trigger_id, scheduled_at, trigger_key)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.DAG, r.File, r.FileHash, nullJSON(r.Params), string(r.Status), timeToDB(r.Started),
			timeToDB(r.Ended), nullInt(r.PID), r.Host, r.Parent, r.ParentNode, r.StartedBy, r.LeaseOwner, timeToDB(r.LeaseUntil),
			r.Trigger, timeToDB(r.Scheduled), r.TriggerKey)
		if err != nil || r.Trigger == "" || r.Scheduled.IsZero() {
			return err
		}
		// The fire, in the run's transaction: the time is started once, or not at all.
		if _, err := tx.ExecContext(ctx, insertFire, fireArgs(startedFire(r))...); sqliteUnique(err) {
			return fmt.Errorf("time %s of trigger %s: %w", r.Scheduled.UTC().Format(time.RFC3339), r.Trigger, ErrFired)
		} else if err != nil {
			return err
		}
		return nil
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

// ResumeRun marks run id running again for a resume by process pid on host, and returns the
// session number its attempts are to carry (1 for the first resume). resumes is the run's
// Resumes as the caller read it: two processes resuming the same run at once would write
// one run twice, so the second to get here fails with ErrResumed.
func (s *sqliteStore) ResumeRun(ctx context.Context, id string, resumes, pid int, host string) (int, error) {
	host = storableText(host)
	var session int
	err := s.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx,
			`UPDATE runs SET status = 'running', ended = NULL, outputs = NULL, output_errors = NULL,
			        resumes = resumes + 1, pid = ?, host = ?, lease_owner = '', lease_until = NULL
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

// RecordAttempts records a batch of attempts, with their outputs, in one transaction and
// returns once it is committed: the engine calls it before handing any of the outputs
// downstream, so a crash never loses an output something else has already consumed. One
// commit per batch is what makes the store cheap enough to sit in the engine's path (see
// docs/performance.md). Identical outputs are stored once and shared between attempts.
func (s *sqliteStore) RecordAttempts(ctx context.Context, batch []Attempt) error {
	if len(batch) == 0 {
		return nil
	}
	rows := make([]attemptRow, len(batch))
	for i := range batch {
		if err := rows[i].prepare(&batch[i], packable(&batch[i])); err != nil {
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

// insertAttempts writes a prepared batch within tx: each run of packable attempts (pack.go)
// as one pack, the others as rows, in the batch's order.
func (s *sqliteStore) insertAttempts(ctx context.Context, tx *sql.Tx, batch []Attempt, rows []attemptRow) error {
	if len(batch) == 0 {
		return nil
	}
	st, err := s.statements(ctx)
	if err != nil {
		return err
	}
	var (
		run string
		seq int64 // the last seq of run
	)
	for i := 0; i < len(batch); {
		a := &batch[i]
		if a.RunID != run {
			// The foreign key would refuse an unknown run too, but with an unhelpful message.
			err := tx.StmtContext(ctx, st.lastSeq).QueryRowContext(ctx, a.RunID).Scan(&seq)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("run %s: %w", a.RunID, ErrNotFound)
			}
			if err != nil {
				return err
			}
			run = a.RunID
		}
		seq++
		if packable(a) {
			j := i + 1
			for j < len(batch) && batch[j].RunID == run && packable(&batch[j]) {
				j++
			}
			if _, err := tx.StmtContext(ctx, st.insertPack).ExecContext(ctx, run, seq, encodePack(nil, batch[i:j], rows[i:j])); err != nil {
				return fmt.Errorf("attempts %s to %s: %w", a.Node, batch[j-1].Node, err)
			}
			i = j
			continue
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
			a.RunID, seq, a.Session, a.Node, a.Item, a.Attempt, a.Type, string(a.Status), a.Final, a.Repaired,
			a.Reused, a.Key, a.Reason, rows[i].outputHash, rows[i].violations, a.Error, a.Log,
			timeToDB(a.Started), timeToDB(a.Ended), rows[i].approval); err != nil {
			return fmt.Errorf("attempt %s #%d: %w", a.Node, a.Attempt, err)
		}
		i++
	}
	return nil
}

// stmts are the statements of the write path, prepared once per store: parsing SQL costs
// more than the inserts themselves.
type stmts struct {
	lastSeq, outputExists, insertOutput, insertAttempt, insertPack *sql.Stmt
}

func (s *sqliteStore) statements(ctx context.Context) (*stmts, error) {
	s.prepMu.Lock()
	defer s.prepMu.Unlock()
	if s.prep != nil {
		return s.prep, nil
	}
	var st stmts
	all := []struct {
		to  **sql.Stmt
		sql string
	}{
		// The last seq of a run, in the attempts and the packs that share its order; no row
		// when there is no such run.
		{&st.lastSeq, `SELECT max(
			(SELECT COALESCE(max(seq), 0) FROM attempts WHERE run_id = ?1),
			(SELECT COALESCE(max(seq), 0) FROM attempt_packs WHERE run_id = ?1))
			FROM runs WHERE id = ?1`},
		{&st.outputExists, `SELECT 1 FROM outputs WHERE hash = ?`},
		{&st.insertOutput, `INSERT OR IGNORE INTO outputs (hash, size, data) VALUES (?, ?, ?)`},
		{&st.insertAttempt, `INSERT INTO attempts (run_id, seq, session, node, item, attempt, type,
			status, final, repaired, reused, key, reason, output_hash, violations, error, log,
			started, ended, approval) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&st.insertPack, `INSERT INTO attempt_packs (run_id, seq, data) VALUES (?, ?, ?)`},
	}
	for _, p := range all {
		stmt, err := s.db.PrepareContext(ctx, p.sql)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare: %w", err)
		}
		*p.to = stmt
	}
	s.prep = &st
	return s.prep, nil
}

// close closes the statements prepared so far.
func (st *stmts) close() {
	for _, q := range []*sql.Stmt{st.lastSeq, st.outputExists, st.insertOutput, st.insertAttempt, st.insertPack} {
		if q != nil {
			q.Close()
		}
	}
}

// FinishRunWith records how a run ended, with its outputs and any last attempts, at once.
func (s *sqliteStore) FinishRunWith(ctx context.Context, id string, f Finish) error {
	rows := make([]attemptRow, len(f.Attempts))
	for i := range f.Attempts {
		if err := rows[i].prepare(&f.Attempts[i], packable(&f.Attempts[i])); err != nil {
			return fmt.Errorf("finish run %s: %w", id, err)
		}
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE runs SET status = ?, ended = ?, outputs = ?, output_errors = ? WHERE id = ?`,
			string(f.Status), timeToDB(f.Ended), nullJSON(f.Outputs), nullJSON(f.OutputErrors), id)
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
func (s *sqliteStore) GetRun(ctx context.Context, id string) (*Run, []Attempt, error) {
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
		attempts, err = readAttempts(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("get run %s from %s: %w", id, s.path, err)
	}
	return r, attempts, nil
}

// readAttempts reads run id's attempts within tx, in the order they were recorded: its rows
// and its packs, unpacked, merged by seq.
func readAttempts(ctx context.Context, tx *sql.Tx, id string) ([]Attempt, error) {
	u := unpacker{id: id}
	packs, err := tx.QueryContext(ctx, `SELECT seq, data FROM attempt_packs WHERE run_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	err = u.readPacks(packs)
	packs.Close()
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+attemptColumns+`, seq FROM attempts WHERE run_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return u.readRows(rows)
}

// Output returns the output stored under hash.
func (s *sqliteStore) Output(ctx context.Context, hash string) ([]byte, error) {
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

// PutOutput stores output alone and returns its hash.
func (s *sqliteStore) PutOutput(ctx context.Context, output []byte) (string, error) {
	h := HashOutput(output)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO outputs (hash, size, data) VALUES (?, ?, ?)`, h, len(output), output)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("store output %s in %s: %w", h, s.path, err)
	}
	return h, nil
}

// ListRuns returns runs matching f, newest first, and the cursor for the next page ("" when
// this is the last page).
func (s *sqliteStore) ListRuns(ctx context.Context, f Filter) ([]Run, string, error) {
	q, args, limit := listQuery(f, func(int) string { return "?" })
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
	out, next := page(out, limit)
	return out, next, nil
}

// tx runs fn in a write transaction (BEGIN IMMEDIATE, see Open) and commits it.
func (s *sqliteStore) tx(ctx context.Context, fn func(*sql.Tx) error) error {
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
func (s *sqliteStore) readTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // nothing was written
	return fn(tx)
}

// Reusable implements Store.
func (s *sqliteStore) Reusable(ctx context.Context, id string) (map[string]dag.Reused, error) {
	var out map[string]dag.Reused
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		as, err := readAttempts(ctx, tx, id)
		if err != nil {
			return err
		}
		out, err = reusable(as, func(hashes []string) (map[string][]byte, error) {
			m := make(map[string][]byte, len(hashes))
			for _, h := range hashes {
				var b []byte
				err := tx.QueryRowContext(ctx, `SELECT data FROM outputs WHERE hash = ?`, h).Scan(&b)
				if errors.Is(err, sql.ErrNoRows) {
					continue
				}
				if err != nil {
					return nil, err
				}
				m[h] = b
			}
			return m, nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read reusable outputs of run %s from %s: %w", id, s.path, err)
	}
	return out, nil
}

// RecordLog sets the log of a's start record.
func (s *sqliteStore) RecordLog(ctx context.Context, a Attempt) (bool, error) {
	a.Log = storableText(a.Log)
	found := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, recordLogSQL(false), recordLogArgs(&a)...)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		found = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("record the log of node %s of run %s in %s: %w", a.Node, a.RunID, s.path, err)
	}
	return found, nil
}

// RecordAction records who cancelled or resumed run id, and when.
func (s *sqliteStore) RecordAction(ctx context.Context, id string, a Action) error {
	q, err := actionSQL(a.Kind, func(int) string { return "?" })
	if err != nil {
		return err
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, a.By, timeToDB(a.At), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record %s of run %s in %s: %w", a.Kind, id, s.path, err)
	}
	return nil
}

// TakeLease gives run id's lease to owner until until, while the run is running.
func (s *sqliteStore) TakeLease(ctx context.Context, id, owner string, until time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE runs SET lease_owner = ?, lease_until = ? WHERE id = ? AND status = 'running'`,
			owner, timeToDB(until), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("lease run %s in %s: %w", id, s.path, err)
	}
	return nil
}

// RenewLeases extends the leases owner holds on running runs to until.
func (s *sqliteStore) RenewLeases(ctx context.Context, owner string, until time.Time) (int, error) {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET lease_until = ? WHERE lease_owner = ? AND status = 'running'`,
			timeToDB(until), owner)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("renew the leases of %s in %s: %w", owner, s.path, err)
	}
	return int(n), nil
}

// ReleaseRun records run id canceled if it still runs under the lease its caller read.
func (s *sqliteStore) ReleaseRun(ctx context.Context, id string, lease, ended time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		// IS compares NULL (no lease) with NULL as equal.
		res, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'canceled', ended = ?
			WHERE id = ? AND status = 'running' AND lease_until IS ?`, timeToDB(ended), id, timeToDB(lease))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		var status string
		switch err := tx.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, id).Scan(&status); {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		case err != nil:
			return err
		case status != string(dag.RunRunning):
			return fmt.Errorf("run %s: %w", id, ErrNotRunning)
		}
		return fmt.Errorf("run %s: %w", id, ErrLeaseChanged)
	})
	if err != nil {
		return fmt.Errorf("release run %s in %s: %w", id, s.path, err)
	}
	return nil
}

// DeleteRuns implements Store. Its transaction runs on a connection of its own with foreign
// keys off: SQLite has no index on attempts.output_hash (it would cost every commit), so with
// them on each output deleted would scan every attempt of every run (measured: 2,000 runs of
// 4 outputs took 3.7 s, 5,000 took 48 s). deleteRuns keeps what they guard by itself: it
// deletes the attempts and packs of the runs it deletes, and only outputs no attempt left
// points at, all under the write lock.
func (s *sqliteStore) DeleteRuns(ctx context.Context, ids []string, now time.Time, dryRun bool) (Deleted, error) {
	var d Deleted
	select {
	case s.writing <- struct{}{}:
	case <-ctx.Done():
		return d, ctx.Err()
	}
	defer func() { <-s.writing }()
	err := s.withoutForeignKeys(ctx, func(conn *sql.Conn) error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		d, err = deleteRuns(ctx, sqlQuerier{tx}, func(n int) string { return fmt.Sprintf("?%d", n) }, ids, now)
		if err != nil || dryRun {
			_ = tx.Rollback() // the error from deleteRuns is the one worth reporting
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return Deleted{}, fmt.Errorf("delete runs in %s: %w", s.path, err)
	}
	return d, nil
}

// withoutForeignKeys calls fn with a connection whose foreign key checks are off (a pragma
// that has no effect inside a transaction, so it is set around fn's), and turns them on
// again before the connection goes back to the pool; one that cannot is discarded.
func (s *sqliteStore) withoutForeignKeys(ctx context.Context, fn func(*sql.Conn) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // never reused so
		}
	}()
	return fn(conn)
}

// sqlQuerier is an SQLite transaction as deleteRuns uses it.
type sqlQuerier struct{ tx *sql.Tx }

func (q sqlQuerier) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := q.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (q sqlQuerier) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// AnswerApproval records an answer: see Store.
func (s *sqliteStore) AnswerApproval(ctx context.Context, id, node string, answer dag.ApprovalRecord) (*dag.ApprovalRecord, bool, error) {
	var (
		rec      *dag.ApprovalRecord
		recorded bool
	)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var (
			seq int64
			q   string
		)
		err := tx.QueryRowContext(ctx, lastQuestion(func(int) string { return "?" }), id, node).Scan(&seq, &q)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("approval %s/%s: %w", id, node, ErrNotFound)
		}
		if err != nil {
			return err
		}
		var text []byte
		if rec, text, recorded, err = answerInto(q, answer); err != nil || !recorded {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE attempts SET approval = ? WHERE run_id = ? AND seq = ?`, string(text), id, seq)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("answer approval %s/%s in %s: %w", id, node, s.path, err)
	}
	return rec, recorded, nil
}
