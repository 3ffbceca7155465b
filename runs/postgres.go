package runs

// The PostgreSQL store (pgx, pgxpool): one database that processes on many hosts share.
// Writes that lose their connection (the server restarting, the network) are retried with
// backoff for Options.RetryFor; every write is idempotent, so a retry after a commit whose
// answer was lost records nothing twice: attempts carry the batch they were written in
// (batch, idx is unique), a run's creation and resume recognise their own earlier success.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// notifyChannel is the channel every commit that changes a run notifies, with the run's id
// as payload; WatchRun listens on it.
const notifyChannel = "seam_runs"

// pgWatchFallback is how often a watch reads the run again without a notification, in case
// one was missed while its connection was being re-established.
const pgWatchFallback = 5 * time.Second

// pgStore is a Store in a PostgreSQL database.
type pgStore struct {
	pool  *pgxpool.Pool
	where string // the DSN without its password, for messages
	// passwords are the DSN's password as written and as meant (unescaped), to take out of
	// any error that might quote them.
	passwords []string
	retryFor  time.Duration
	lang      i18n.Lang // of the errors that refuse the database's schema version
}

// openPostgres connects to the database at dsn and brings its schema up to date unless
// o.NoMigrate; readOnly only changes what its errors say.
func openPostgres(ctx context.Context, dsn string, o Options, readOnly bool) (*pgStore, error) {
	s, err := connectPostgres(ctx, dsn, o)
	if err != nil {
		return nil, err
	}
	if o.NoMigrate {
		var v int
		v, err = s.version(ctx)
		switch {
		case err != nil:
		case v == 0 && readOnly:
			err = i18n.Errorf(o.Lang, "open store %s to read: %w: the database holds no runs yet (`seam run` or `seam store migrate` creates the store)", s.where, ErrNotFound)
		case readOnly:
			if err = checkVersion(s.where, v, len(pgMigrations()), o.Lang); err != nil {
				err = i18n.Errorf(o.Lang, "open store %s to read: %w", s.where, err)
			}
		default:
			err = checkVersion(s.where, v, len(pgMigrations()), o.Lang)
		}
	} else {
		_, err = s.migrate(ctx, pgMigrations())
	}
	if err != nil {
		s.pool.Close()
		return nil, err
	}
	return s, nil
}

// connectPostgres opens the pool and makes its first connection, whatever the schema.
func connectPostgres(ctx context.Context, dsn string, o Options) (*pgStore, error) {
	s := &pgStore{where: Redact(dsn), retryFor: o.RetryFor, lang: o.Lang}
	if s.retryFor <= 0 {
		s.retryFor = DefaultRetryFor
	}
	for _, sp := range passwordSpans(dsn) {
		s.passwords = append(s.passwords, dsn[sp.start:sp.end])
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, s.scrub(fmt.Errorf("open store %s: %w", s.where, err))
	}
	s.passwords = append(s.passwords, cfg.ConnConfig.Password)
	// A bound on connecting, so that an unreachable server is retried, not waited for.
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > 10*time.Second {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	s.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.scrub(fmt.Errorf("open store %s: %w", s.where, err))
	}
	// The pool connects lazily; connect now so that a wrong address or password is reported
	// by Open, not by the first write in the middle of a run. Not retried: a store that is
	// not there at the start is more likely misnamed than restarting.
	if err := s.pool.Ping(ctx); err != nil {
		s.pool.Close()
		return nil, s.scrub(fmt.Errorf("open store %s: %w", s.where, err))
	}
	return s, nil
}

// scrub takes the password out of err's message, should any layer below have quoted it;
// errors.Is and As still see err.
func (s *pgStore) scrub(err error) error {
	if err == nil {
		return err
	}
	msg := err.Error()
	for _, p := range s.passwords {
		if p != "" {
			msg = strings.ReplaceAll(msg, p, mask)
		}
	}
	if msg == err.Error() {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// migratePostgres brings the database at dsn up to date.
func migratePostgres(ctx context.Context, dsn string, o Options) (from, to int, err error) {
	s, err := connectPostgres(ctx, dsn, o)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	migs := pgMigrations()
	from, err = s.migrate(ctx, migs)
	if err != nil {
		return from, from, err
	}
	return from, len(migs), nil
}

func (s *pgStore) Path() string { return s.where }

func (s *pgStore) retryBound() time.Duration { return s.retryFor }

func (s *pgStore) Close() error {
	s.pool.Close()
	return nil
}

// Check implements Store: the database answers and has this seam's schema.
func (s *pgStore) Check(ctx context.Context) error {
	return s.checkVersion(ctx)
}

func (s *pgStore) checkVersion(ctx context.Context) error {
	v, err := s.version(ctx)
	if err != nil {
		return err
	}
	return checkVersion(s.where, v, len(pgMigrations()), s.lang)
}

// version reads the schema version, retrying a lost connection.
func (s *pgStore) version(ctx context.Context) (int, error) {
	var v int
	err := s.retry(ctx, func(ctx context.Context) error {
		var err error
		v, err = pgVersion(ctx, s.pool)
		return err
	})
	if err != nil {
		return 0, s.scrub(fmt.Errorf("open store %s: read schema version: %w", s.where, err))
	}
	return v, nil
}

// pgVersion reads the schema version: 0 before the first migration made its table.
func pgVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var v int
	err := q.QueryRow(ctx, `SELECT version FROM seam_schema`).Scan(&v)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" || errors.Is(err, pgx.ErrNoRows) { // undefined_table, or not filled in yet
		return 0, nil
	}
	return v, err
}

// migrationLock is the advisory lock key the migrations of every seam take, so that
// processes opening a new database at once apply each migration once.
const migrationLock = 0x5ea4_0001

// migrate applies the migrations the database has not seen, all in one transaction under
// migrationLock (PostgreSQL's DDL is transactional), and returns the version it found.
func (s *pgStore) migrate(ctx context.Context, migs []string) (int, error) {
	v, err := pgVersion(ctx, s.pool)
	if err != nil {
		return 0, s.scrub(fmt.Errorf("open store %s: read schema version: %w", s.where, err))
	}
	if v == len(migs) {
		return v, nil
	}
	if v > len(migs) {
		return v, errNewer(s.where, v, len(migs), s.lang)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS seam_schema (version INTEGER NOT NULL)`); err != nil {
			return err
		}
		// Read again under the lock: another process may have migrated meanwhile.
		if v, err = pgVersion(ctx, tx); err != nil {
			return err
		}
		if v > len(migs) {
			return errNewer(s.where, v, len(migs), s.lang)
		}
		for i := v; i < len(migs); i++ {
			if _, err := tx.Exec(ctx, migs[i]); err != nil {
				return fmt.Errorf("migrate to schema version %d: %w", i+1, err)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM seam_schema`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO seam_schema (version) VALUES ($1)`, len(migs))
		return err
	})
	if err != nil {
		return v, s.scrub(fmt.Errorf("open store %s: %w", s.where, err))
	}
	return v, nil
}

// transient reports whether err is a failure of the connection or the server's state that
// a retry on another connection may get past, rather than an answer to the statement.
func transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // shutdown, starting up
			pe.Code == "40001", pe.Code == "40P01", // serialization failure, deadlock
			pe.Code == "53300": // too many connections
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return pgconn.SafeToRetry(err) || errors.As(err, &ce) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(err.Error(), "conn closed")
}

// ErrUnreachable is returned (wrapped) when the store could not be reached for longer than
// Options.RetryFor.
var ErrUnreachable = errors.New("unreachable")

// retry runs op until it succeeds, fails with an error that is not transient, or has failed
// for longer than s.retryFor, waiting between tries from 50 ms, doubling, up to 2 s. op
// must be idempotent: a transient error may come after its commit.
func (s *pgStore) retry(ctx context.Context, op func(context.Context) error) error {
	var (
		first time.Time
		wait  = 50 * time.Millisecond
		tries int
	)
	for {
		err := op(ctx)
		if !transient(err) {
			return err
		}
		tries++
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		if now.Sub(first) >= s.retryFor {
			return fmt.Errorf("%w for %s (%d tries; the last: %w)", ErrUnreachable, s.retryFor, tries, err)
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("%w for %s, the write's deadline (%d tries; the last: %w)", ErrUnreachable, time.Since(first).Round(time.Second), tries, err)
			}
			return fmt.Errorf("%w: %w", ctx.Err(), err)
		case <-time.After(min(wait, s.retryFor-now.Sub(first))):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// isUnique reports whether err is a unique or primary key violation.
func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// violated returns the constraint a foreign key violation is of, or "".
func violated(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" {
		return pe.ConstraintName
	}
	return ""
}

// insertRunPG and runArgsPG insert a run (CreateRun).
const insertRunPG = `INSERT INTO runs (id, dag, file, file_hash, params, status, started, ended, pid, host, parent, parent_node,
	                   started_by, lease_owner, lease_until, trigger_id, scheduled_at, trigger_key)
	 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`

func runArgsPG(r Run) []any {
	return []any{r.ID, r.DAG, r.File, r.FileHash, nullJSON(r.Params), string(r.Status), timeToDB(r.Started),
		timeToDB(r.Ended), nullInt(r.PID), r.Host, r.Parent, r.ParentNode, r.StartedBy, r.LeaseOwner, timeToDB(r.LeaseUntil),
		r.Trigger, timeToDB(r.Scheduled), r.TriggerKey}
}

// createFiredRun creates a run a schedule started with its fire, in one transaction: of two
// schedulers (or two tries of one) starting the same time, one run is created.
func (s *pgStore) createFiredRun(ctx context.Context, r Run) error {
	err := s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, insertFire+` ON CONFLICT DO NOTHING`, fireArgs(startedFire(r))...)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				// Decided already: by this call, when a try before committed without saying
				// so, or by another scheduler.
				var runID string
				if err := tx.QueryRow(ctx, `SELECT run_id FROM fires WHERE dag = $1 AND trigger_id = $2 AND scheduled = $3`,
					r.DAG, r.Trigger, r.Scheduled.UnixNano()).Scan(&runID); err != nil {
					return err
				}
				if runID == r.ID {
					return nil
				}
				return fmt.Errorf("time %s of trigger %s: %w", r.Scheduled.UTC().Format(time.RFC3339), r.Trigger, ErrFired)
			}
			_, err = tx.Exec(ctx, insertRunPG, runArgsPG(r)...)
			return err
		})
	})
	if err != nil {
		return s.scrub(fmt.Errorf("create run %s in %s: %w", r.ID, s.where, err))
	}
	s.notify(ctx, r.ID)
	return nil
}

// createKeyedRun creates a run a webhook started with its key, in one transaction: of two
// requests with one key, one run is created.
func (s *pgStore) createKeyedRun(ctx context.Context, r Run) error {
	err := s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			taken, err := takeKeyPG(ctx, tx, r)
			if err != nil || !taken {
				return err // !taken: a try before committed the run
			}
			_, err = tx.Exec(ctx, insertRunPG, runArgsPG(r)...)
			return err
		})
	})
	if err != nil {
		return s.scrub(fmt.Errorf("create run %s in %s: %w", r.ID, s.where, err))
	}
	s.notify(ctx, r.ID)
	return nil
}

func (s *pgStore) CreateRun(ctx context.Context, r Run) error {
	if err := r.prepare(); err != nil {
		return err
	}
	if r.Trigger != "" && !r.Scheduled.IsZero() {
		return s.createFiredRun(ctx, r)
	}
	if keyed(r) {
		return s.createKeyedRun(ctx, r)
	}
	retried := false
	err := s.retry(ctx, func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, insertRunPG+` ON CONFLICT (id) DO NOTHING`, runArgsPG(r)...)
		if err != nil {
			retried = true
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		// The run exists: this call's own insert, when a try before committed without
		// saying so, or another's.
		if retried {
			var started int64
			var pid int
			var host string
			err := s.pool.QueryRow(ctx, `SELECT started, COALESCE(pid, 0), host FROM runs WHERE id = $1`, r.ID).Scan(&started, &pid, &host)
			if err == nil && started == r.Started.UnixNano() && pid == r.PID && host == r.Host {
				return nil
			}
		}
		return errRunExists
	})
	if errors.Is(err, errRunExists) {
		return fmt.Errorf("create run %s in %s: a run with this id exists already", r.ID, s.where)
	}
	if err != nil {
		return s.scrub(fmt.Errorf("create run %s in %s: %w", r.ID, s.where, err))
	}
	s.notify(ctx, r.ID)
	return nil
}

var errRunExists = errors.New("a run with this id exists already")

// notify tells watchers of a change made outside a transaction that notified already. A
// lost notification only delays a watcher until its fallback read.
func (s *pgStore) notify(ctx context.Context, id string) {
	_, _ = s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, id)
}

func (s *pgStore) ResumeRun(ctx context.Context, id string, resumes, pid int, host string) (int, error) {
	host = storableText(host)
	var session int
	retried := false
	err := s.retry(ctx, func(ctx context.Context) error {
		// The UPDATE takes the run's row lock: of two processes resuming at once, the second
		// waits, then finds resumes changed and updates nothing.
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			err := tx.QueryRow(ctx,
				`UPDATE runs SET status = 'running', ended = NULL, outputs = NULL, output_errors = NULL,
				        resumes = resumes + 1, pid = $1, host = $2, lease_owner = '', lease_until = NULL
				 WHERE id = $3 AND resumes = $4 RETURNING resumes`, nullInt(pid), host, id, resumes).Scan(&session)
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, id)
			return err
		})
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			retried = true
			return err
		}
		if err == nil {
			return nil
		}
		var now, nowPID int
		var nowHost string
		switch err := s.pool.QueryRow(ctx, `SELECT resumes, COALESCE(pid, 0), host FROM runs WHERE id = $1`, id).Scan(&now, &nowPID, &nowHost); {
		case errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		case err != nil:
			return err
		case retried && now == resumes+1 && nowPID == pid && nowHost == host:
			session = now // a try before committed without saying so
			return nil
		}
		return fmt.Errorf("run %s: %w", id, ErrResumed)
	})
	if err != nil {
		return 0, s.scrub(fmt.Errorf("resume run %s in %s: %w", id, s.where, err))
	}
	return session, nil
}

func (s *pgStore) RecordAttempts(ctx context.Context, batch []Attempt) error {
	if len(batch) == 0 {
		return nil
	}
	rows := make([]attemptRow, len(batch))
	for i := range batch {
		if err := rows[i].prepare(&batch[i], packable(&batch[i])); err != nil {
			return err
		}
	}
	token := batchToken()
	first := &batch[0]
	// One batch is one round trip and one implicit transaction: all of it commits, or none.
	err := s.retry(ctx, func(ctx context.Context) error {
		return s.insertAttempts(ctx, s.pool, token, batch, rows)
	})
	if err != nil {
		if len(batch) == 1 {
			return s.scrub(fmt.Errorf("record attempt %s/%s #%d in %s: %w", first.RunID, first.Node, first.Attempt, s.where, err))
		}
		return s.scrub(fmt.Errorf("record %d attempts of run %s in %s: %w", len(batch), first.RunID, s.where, err))
	}
	return nil
}

// batchToken names one batch of attempts, so that writing it again inserts nothing.
func batchToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail
	return hex.EncodeToString(b[:])
}

// batcher is what sends a pgx.Batch: the pool (an implicit transaction of its own) or a
// transaction.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// insertAttempts writes a prepared batch in one round trip, and notifies the watchers of its
// runs (PostgreSQL delivers the notification on commit).
func (s *pgStore) insertAttempts(ctx context.Context, tx batcher, token string, batch []Attempt, rows []attemptRow) error {
	if len(batch) == 0 {
		return nil
	}
	var b pgx.Batch
	runsSeen := map[string]bool{}
	for i := 0; i < len(batch); i++ {
		a := &batch[i]
		if !runsSeen[a.RunID] {
			runsSeen[a.RunID] = true
			b.Queue(`SELECT pg_notify($1, $2)`, notifyChannel, a.RunID)
		}
		if packable(a) {
			j := i + 1
			for j < len(batch) && batch[j].RunID == a.RunID && packable(&batch[j]) {
				j++
			}
			b.Queue(`INSERT INTO attempt_packs (run_id, seq, batch, idx, data)
				VALUES ($1, nextval(pg_get_serial_sequence('attempts', 'seq')), $2, $3, $4)
				ON CONFLICT (batch, idx) DO NOTHING`,
				a.RunID, token, i, encodePack(nil, batch[i:j], rows[i:j]))
			i = j - 1
			continue
		}
		if a.Output != nil {
			b.Queue(`INSERT INTO outputs (hash, size, data) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`,
				a.OutputHash, len(a.Output), a.Output)
		}
		b.Queue(`INSERT INTO attempts (run_id, batch, idx, session, node, item, attempt, type, status,
			final, repaired, reused, key, reason, output_hash, violations, error, log, started, ended, approval)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
			ON CONFLICT (batch, idx) DO NOTHING`,
			a.RunID, token, i, a.Session, a.Node, a.Item, a.Attempt, a.Type, string(a.Status), a.Final,
			a.Repaired, a.Reused, a.Key, a.Reason, rows[i].outputHash, rows[i].violations, a.Error,
			a.Log, timeToDB(a.Started), timeToDB(a.Ended), rows[i].approval)
	}
	err := tx.SendBatch(ctx, &b).Close()
	// The foreign keys refuse an unknown run or output; say which, as SQLite's store does.
	switch violated(err) {
	case "attempts_run", "attempt_packs_run":
		return fmt.Errorf("run %s: %w", runOfBatch(batch, err), ErrNotFound)
	case "attempts_output":
		return fmt.Errorf("output %s: %w", outputOfBatch(batch), ErrNotFound)
	}
	return err
}

// runOfBatch names the run a batch's foreign key violation is about: the first of its runs
// PostgreSQL's detail names, else the batch's first.
func runOfBatch(batch []Attempt, err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		for i := range batch {
			if strings.Contains(pe.Detail, "("+batch[i].RunID+")") {
				return batch[i].RunID
			}
		}
	}
	return batch[0].RunID
}

// outputOfBatch names the first output a batch references without its bytes.
func outputOfBatch(batch []Attempt) string {
	for i := range batch {
		if batch[i].Output == nil && batch[i].OutputHash != "" {
			return batch[i].OutputHash
		}
	}
	return ""
}

func (s *pgStore) FinishRunWith(ctx context.Context, id string, f Finish) error {
	rows := make([]attemptRow, len(f.Attempts))
	for i := range f.Attempts {
		if err := rows[i].prepare(&f.Attempts[i], packable(&f.Attempts[i])); err != nil {
			return fmt.Errorf("finish run %s: %w", id, err)
		}
	}
	token := batchToken()
	err := s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx,
				`UPDATE runs SET status = $1, ended = $2, outputs = $3, output_errors = $4 WHERE id = $5`,
				string(f.Status), timeToDB(f.Ended), nullJSON(f.Outputs), nullJSON(f.OutputErrors), id)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return fmt.Errorf("run %s: %w", id, ErrNotFound)
			}
			if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, id); err != nil {
				return err
			}
			return s.insertAttempts(ctx, tx, token, f.Attempts, rows)
		})
	})
	if err != nil {
		return s.scrub(fmt.Errorf("finish run %s in %s: %w", id, s.where, err))
	}
	return nil
}

// readTx runs fn in a read-only transaction on one snapshot (REPEATABLE READ), retried as
// writes are.
func (s *pgStore) readTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	})
}

func (s *pgStore) GetRun(ctx context.Context, id string) (*Run, []Attempt, error) {
	var (
		r        *Run
		attempts []Attempt
	)
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		r, err = scanRun(tx.QueryRow(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		attempts, err = pgAttempts(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, nil, s.scrub(fmt.Errorf("get run %s from %s: %w", id, s.where, err))
	}
	return r, attempts, nil
}

// pgAttempts reads run id's attempts within tx, in the order they were recorded: its rows
// and its packs, unpacked, merged by seq.
func pgAttempts(ctx context.Context, tx pgx.Tx, id string) ([]Attempt, error) {
	u := unpacker{id: id}
	packs, err := tx.Query(ctx, `SELECT seq, data FROM attempt_packs WHERE run_id = $1 ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	err = u.readPacks(packs)
	packs.Close()
	if err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT `+attemptColumns+`, seq FROM attempts WHERE run_id = $1 ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return u.readRows(rows)
}

func (s *pgStore) PutOutput(ctx context.Context, output []byte) (string, error) {
	h := HashOutput(output)
	err := s.retry(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `INSERT INTO outputs (hash, size, data) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`, h, len(output), output)
		return err
	})
	if err != nil {
		return "", s.scrub(fmt.Errorf("store output %s in %s: %w", h, s.where, err))
	}
	return h, nil
}

func (s *pgStore) Output(ctx context.Context, hash string) ([]byte, error) {
	var b []byte
	err := s.retry(ctx, func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, `SELECT data FROM outputs WHERE hash = $1`, hash).Scan(&b)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("output %s: %w", hash, ErrNotFound)
	}
	if err != nil {
		return nil, s.scrub(fmt.Errorf("read output %s from %s: %w", hash, s.where, err))
	}
	return b, nil
}

func (s *pgStore) ListRuns(ctx context.Context, f Filter) ([]Run, string, error) {
	q, args, limit := listQuery(f, func(n int) string { return fmt.Sprintf("$%d", n) })
	var out []Run
	err := s.retry(ctx, func(ctx context.Context) error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRun(rows)
			if err != nil {
				return err
			}
			out = append(out, *r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, "", s.scrub(fmt.Errorf("list runs in %s: %w", s.where, err))
	}
	out, next := page(out, limit)
	return out, next, nil
}

func (s *pgStore) Reusable(ctx context.Context, id string) (map[string]dag.Reused, error) {
	var out map[string]dag.Reused
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM runs WHERE id = $1`, id).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		as, err := pgAttempts(ctx, tx, id)
		if err != nil {
			return err
		}
		out, err = reusable(as, func(hashes []string) (map[string][]byte, error) {
			rows, err := tx.Query(ctx, `SELECT hash, data FROM outputs WHERE hash = ANY($1)`, hashes)
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			m := make(map[string][]byte, len(hashes))
			for rows.Next() {
				var (
					h string
					b []byte
				)
				if err := rows.Scan(&h, &b); err != nil {
					return nil, err
				}
				m[h] = b
			}
			return m, rows.Err()
		})
		return err
	})
	if err != nil {
		return nil, s.scrub(fmt.Errorf("read reusable outputs of run %s from %s: %w", id, s.where, err))
	}
	return out, nil
}

// WatchRun implements Store with LISTEN/NOTIFY on a connection of its own, read again every
// pgWatchFallback too; a lost connection is made again.
func (s *pgStore) WatchRun(ctx context.Context, id string, fn func(*Run, []Attempt) error) error {
	l := &listener{s: s}
	defer l.close()
	// Listen before the first read, so that no commit falls between the two.
	_ = l.listen(ctx) // when it fails, wait connects again
	return watchRun(ctx, s, id, func(ctx context.Context) error { return l.wait(ctx, id, pgWatchFallback) }, fn)
}

// ListenRun implements Notifier with LISTEN/NOTIFY on a connection of its own.
func (s *pgStore) ListenRun(ctx context.Context, id string) (wait func(context.Context, time.Duration) error, stop func()) {
	l := &listener{s: s}
	_ = l.listen(ctx) // when it fails, wait connects again
	return func(ctx context.Context, most time.Duration) error { return l.wait(ctx, id, most) }, l.close
}

// listener is a connection LISTENing on notifyChannel.
type listener struct {
	s    *pgStore
	conn *pgx.Conn
}

func (l *listener) listen(ctx context.Context) error {
	c, err := pgx.ConnectConfig(ctx, l.s.pool.Config().ConnConfig)
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, `LISTEN `+notifyChannel); err != nil {
		c.Close(ctx)
		return err
	}
	l.conn = c
	return nil
}

// wait returns once run id was notified, most passed, or ctx ended.
func (l *listener) wait(ctx context.Context, id string, most time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, most)
	defer cancel()
	for {
		if l.conn == nil {
			if err := l.listen(wctx); err != nil {
				// Unreachable: the fallback read retries, and says so when it gives up.
				<-wctx.Done()
				return ctx.Err()
			}
		}
		n, err := l.conn.WaitForNotification(wctx)
		switch {
		case err == nil && n.Payload == id:
			return nil
		case err == nil:
			continue // another run's
		case wctx.Err() != nil:
			return ctx.Err()
		}
		l.close() // the connection failed: connect again
	}
}

func (l *listener) close() {
	if l.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		l.conn.Close(ctx)
		l.conn = nil
	}
}

// RecordLog sets the log of a's start record, and tells the run's watchers.
func (s *pgStore) RecordLog(ctx context.Context, a Attempt) (bool, error) {
	a.Log = storableText(a.Log)
	found := false
	err := s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, recordLogSQL(true), recordLogArgs(&a)...)
			if err != nil {
				return err
			}
			if found = tag.RowsAffected() > 0; !found {
				return nil
			}
			_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, a.RunID)
			return err
		})
	})
	if err != nil {
		return false, s.scrub(fmt.Errorf("record the log of node %s of run %s in %s: %w", a.Node, a.RunID, s.where, err))
	}
	return found, nil
}

// RecordAction records who cancelled or resumed run id, and when.
func (s *pgStore) RecordAction(ctx context.Context, id string, a Action) error {
	q, err := actionSQL(a.Kind, func(i int) string { return "$" + strconv.Itoa(i) })
	if err != nil {
		return err
	}
	err = s.retry(ctx, func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, q, a.By, timeToDB(a.At), id)
		if err == nil && tag.RowsAffected() == 0 {
			return fmt.Errorf("run %s: %w", id, ErrNotFound)
		}
		return err
	})
	if err != nil {
		return s.scrub(fmt.Errorf("record %s of run %s in %s: %w", a.Kind, id, s.where, err))
	}
	return nil
}

// TakeLease gives run id's lease to owner until until, while the run is running.
func (s *pgStore) TakeLease(ctx context.Context, id, owner string, until time.Time) error {
	err := s.retry(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `UPDATE runs SET lease_owner = $1, lease_until = $2 WHERE id = $3 AND status = 'running'`,
			owner, timeToDB(until), id)
		return err
	})
	if err != nil {
		return s.scrub(fmt.Errorf("lease run %s in %s: %w", id, s.where, err))
	}
	return nil
}

// RenewLeases extends the leases owner holds on running runs to until. Renewals notify no
// one: nothing a reader shows changes.
func (s *pgStore) RenewLeases(ctx context.Context, owner string, until time.Time) (int, error) {
	var n int64
	err := s.retry(ctx, func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `UPDATE runs SET lease_until = $1 WHERE lease_owner = $2 AND status = 'running'`,
			timeToDB(until), owner)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, s.scrub(fmt.Errorf("renew the leases of %s in %s: %w", owner, s.where, err))
	}
	return int(n), nil
}

// ReleaseRun records run id canceled if it still runs under the lease its caller read.
func (s *pgStore) ReleaseRun(ctx context.Context, id string, lease, ended time.Time) error {
	err := s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `UPDATE runs SET status = 'canceled', ended = $1
				WHERE id = $2 AND status = 'running' AND lease_until IS NOT DISTINCT FROM $3`,
				timeToDB(ended), id, timeToDB(lease))
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, id)
				return err
			}
			var status string
			switch err := tx.QueryRow(ctx, `SELECT status FROM runs WHERE id = $1`, id).Scan(&status); {
			case errors.Is(err, pgx.ErrNoRows):
				return fmt.Errorf("run %s: %w", id, ErrNotFound)
			case err != nil:
				return err
			case status != string(dag.RunRunning):
				return fmt.Errorf("run %s: %w", id, ErrNotRunning)
			}
			return fmt.Errorf("run %s: %w", id, ErrLeaseChanged)
		})
	})
	if err != nil {
		return s.scrub(fmt.Errorf("release run %s in %s: %w", id, s.where, err))
	}
	return nil
}

// DeleteRuns implements Store.
func (s *pgStore) DeleteRuns(ctx context.Context, ids []string, now time.Time, dryRun bool) (Deleted, error) {
	var d Deleted
	err := s.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			var err error
			d, err = deleteRuns(ctx, pgQuerier{tx}, func(n int) string { return fmt.Sprintf("$%d", n) }, ids, now)
			if err == nil && dryRun {
				err = errDryRun
			}
			return err
		})
	})
	if err != nil && !errors.Is(err, errDryRun) {
		return Deleted{}, s.scrub(fmt.Errorf("delete runs in %s: %w", s.where, err))
	}
	return d, nil
}

// pgQuerier is a PostgreSQL transaction as deleteRuns uses it.
type pgQuerier struct{ tx pgx.Tx }

func (q pgQuerier) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := q.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (q pgQuerier) exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.tx.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

// AnswerApproval records an answer: see Store. The question's row is locked, so that of two
// answers at once the second sees the first.
func (s *pgStore) AnswerApproval(ctx context.Context, id, node string, answer dag.ApprovalRecord) (*dag.ApprovalRecord, bool, error) {
	var (
		rec      *dag.ApprovalRecord
		recorded bool
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var (
			seq int64
			q   string
		)
		err := tx.QueryRow(ctx, lastQuestion(func(n int) string { return fmt.Sprintf("$%d", n) })+" FOR UPDATE", id, node).Scan(&seq, &q)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("approval %s/%s: %w", id, node, ErrNotFound)
		}
		if err != nil {
			return err
		}
		var text []byte
		if rec, text, recorded, err = answerInto(q, answer); err != nil || !recorded {
			return err
		}
		if _, err = tx.Exec(ctx, `UPDATE attempts SET approval = $1 WHERE run_id = $2 AND seq = $3`, string(text), id, seq); err != nil {
			return err
		}
		// In the answer's transaction: a process waiting for the answer hears of it as it commits.
		_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, id)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("answer approval %s/%s: %w", id, node, err)
	}
	return rec, recorded, nil
}
