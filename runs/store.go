// Package runs is the run store: every run, every attempt of every node, its output, its
// contract violations, timings and errors, kept so that a run can be inspected and resumed
// after the process that ran it is gone. Two backends implement Store with the same
// semantics: SQLite in one file (pure Go, modernc.org/sqlite), the embedded default, and
// PostgreSQL (pgx), which a team, several hosts and workers share. Open chooses by location.
//
// The store records exactly what it is given. Callers must not pass secrets (API keys,
// tokens, passwords) in params, outputs, errors or logs: nothing here masks or redacts them.
// The one secret the store knows, a PostgreSQL DSN's password, never leaves it: Path and
// every error name the database without it.
package runs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// Store is an open run store. It is safe for concurrent use. Every implementation passes
// the same test suite (storeSuite in store_test.go), which is its contract.
type Store interface {
	// Path says where the store is, for messages: the file, or the DSN without its password.
	Path() string
	// Check verifies the store can record a run (a damaged SQLite file, an unreachable
	// database), so that a run is refused before its nodes run with their side effects.
	Check(ctx context.Context) error
	Close() error

	// CreateRun records the start of a run.
	CreateRun(ctx context.Context, r Run) error
	// ResumeRun marks run id running again for a resume by process pid on host, and returns
	// the session number its attempts are to carry (1 for the first resume). resumes is the
	// run's Resumes as the caller read it: of two processes resuming the same run at once,
	// the second to get here fails with ErrResumed, so exactly one resumes it.
	ResumeRun(ctx context.Context, id string, resumes, pid int, host string) (int, error)
	// RecordAttempts records a batch of attempts, with their outputs, in one transaction and
	// returns once it is committed: the engine calls it before handing any of the outputs
	// downstream, so a crash never loses an output something else has already consumed. One
	// commit per batch is what makes the store cheap enough to sit in the engine's path (see
	// docs/performance.md). Identical outputs are stored once and shared between attempts.
	RecordAttempts(ctx context.Context, batch []Attempt) error
	// RecordLog sets the log of the start record of a's attempt (a's run, session, node,
	// item and attempt) to a.Log, and reports whether there was one: the engine writes there
	// what a running attempt has printed so far (masked), at most once a second, for a
	// watcher (WatchRun tells it). An attempt whose start is not recorded yet is false.
	RecordLog(ctx context.Context, a Attempt) (bool, error)
	// RecordAction records who cancelled or resumed run id, and when (the last of each kind
	// is kept); a run not in the store is ErrNotFound.
	RecordAction(ctx context.Context, id string, a Action) error
	// FinishRunWith records how a run ended, with its outputs and any last attempts, at once.
	FinishRunWith(ctx context.Context, id string, f Finish) error

	// GetRun returns a run and its attempts in the order they were recorded, from one
	// snapshot even while another process is still writing to it; packed attempts come
	// with their outputs.
	GetRun(ctx context.Context, id string) (*Run, []Attempt, error)
	// Output returns the output stored under hash among those all runs share; a packed
	// attempt's output is with the attempt instead (AttemptOutput, RunOutput find both).
	Output(ctx context.Context, hash string) ([]byte, error)
	// PutOutput stores output alone, ahead of the attempt that will point at it (an
	// Attempt with OutputHash and a nil Output), and returns its hash (HashOutput). Storing
	// an output already there changes nothing.
	PutOutput(ctx context.Context, output []byte) (string, error)
	// ListRuns returns runs matching f, newest first, and the cursor for the next page (""
	// when this is the last page).
	ListRuns(ctx context.Context, f Filter) ([]Run, string, error)
	// Reusable returns, by node id, what a resume of run id may reuse: the output of every
	// node whose last deciding attempt passed or warned and has a key, the outputs the run
	// handed downstream. Nodes that failed, were skipped or canceled, or never finished are
	// absent, so the resume runs them; but for a foreach node among them, the items whose
	// last attempt passed or warned are given (in Items), so the resume runs only those left.
	Reusable(ctx context.Context, id string) (map[string]dag.Reused, error)
	// WatchRun calls fn with run id and its attempts now and again each time they change,
	// until the run is no longer running (or its process is found dead), fn returns an
	// error, or ctx ends. It follows a run written by another process or host: PostgreSQL
	// is told of every commit (LISTEN/NOTIFY), SQLite is polled. When the run's owner is
	// found gone (Run.Interrupted), fn is called once more with the run as it then reads.
	WatchRun(ctx context.Context, id string, fn func(*Run, []Attempt) error) error

	// TakeLease gives the lease of run id, while it is running, to owner until the time
	// given (a Leaser's); CreateRun takes it with the run's LeaseOwner and LeaseUntil.
	TakeLease(ctx context.Context, id, owner string, until time.Time) error
	// RenewLeases extends to until the leases owner holds on runs still running, and
	// returns how many it extended.
	RenewLeases(ctx context.Context, owner string, until time.Time) (int, error)
	// AnswerApproval records answer (its Answer, By, At, Through) on the question node's
	// approval last opened in run id, in one transaction, and returns the record as stored.
	// recorded is false when an answer was there already: the stored one is returned
	// unchanged, for the caller to tell a repeat from a conflict. ErrNotFound when the node
	// opened no approval in that run.
	AnswerApproval(ctx context.Context, id, node string, answer dag.ApprovalRecord) (stored *dag.ApprovalRecord, recorded bool, err error)
	// ReleaseRun records run id canceled at ended, as `seam runs release` does for a run
	// whose owner is gone, provided it is still running with the lease its caller read
	// (lease, zero for none): ErrLeaseChanged when its owner renewed it or a resume took it
	// meanwhile, ErrNotRunning when it has ended.
	ReleaseRun(ctx context.Context, id string, lease, ended time.Time) error
	// DeleteRuns deletes, in one transaction, the top-level runs ids (Prune chooses them)
	// with their sub-runs, attempts, start records, packs and the outputs no other run
	// points at, but none that may run at now (a live lease, or running without one): those
	// are left whole. A run becoming live meanwhile fails the batch. dryRun rolls the
	// transaction back, so that what would go is counted exactly.
	DeleteRuns(ctx context.Context, ids []string, now time.Time, dryRun bool) (Deleted, error)
}

// Options configure Open.
type Options struct {
	// NoMigrate refuses a store whose schema is older than this seam's instead of bringing
	// it up to date (seam store migrate does that).
	NoMigrate bool
	// RetryFor bounds how long a PostgreSQL store retries a write whose connection failed
	// (the server restarting, the network); DefaultRetryFor when zero. Past it the write
	// fails, and the run that made it stops.
	RetryFor time.Duration
	// Lang is the language of the errors that say why a store is refused (its location, its
	// schema version): "en" (the default) or "ja".
	Lang i18n.Lang
}

// DefaultRetryFor is how long a write waits for an unreachable PostgreSQL store.
const DefaultRetryFor = 30 * time.Second

// Open opens the store at location and brings its schema up to date: a postgres:// or
// postgresql:// URL is a PostgreSQL database, anything else the path of an SQLite file,
// created with its parent directories when missing.
func Open(ctx context.Context, location string) (Store, error) {
	return OpenWith(ctx, location, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, location string, o Options) (Store, error) {
	if err := checkLocation(location, o.Lang); err != nil {
		return nil, err
	}
	// Each branch returns a nil Store on error, not a Store holding a nil pointer.
	if IsPostgres(location) {
		s, err := openPostgres(ctx, location, o, false)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	s, err := openSQLite(ctx, location, o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenReadOnly opens the existing store at location to read it, for the commands that only
// read (runs list and show, explain, a read-only MCP server): it never creates or migrates
// a store, and refuses one whose schema is not this seam's.
func OpenReadOnly(ctx context.Context, location string) (Store, error) {
	return OpenReadOnlyWith(ctx, location, Options{})
}

// OpenReadOnlyWith is OpenReadOnly with options: o.Lang; the store is never migrated,
// whatever o.NoMigrate says.
func OpenReadOnlyWith(ctx context.Context, location string, o Options) (Store, error) {
	if err := checkLocation(location, o.Lang); err != nil {
		return nil, err
	}
	if IsPostgres(location) {
		o.NoMigrate = true
		s, err := openPostgres(ctx, location, o, true)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	s, err := openSQLiteReadOnly(ctx, location, o.Lang)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Migrate brings the store at location up to date and returns its schema version before
// and after.
func Migrate(ctx context.Context, location string) (from, to int, err error) {
	return MigrateWith(ctx, location, Options{})
}

// MigrateWith is Migrate with options: o.Lang, o.RetryFor.
func MigrateWith(ctx context.Context, location string, o Options) (from, to int, err error) {
	if err := checkLocation(location, o.Lang); err != nil {
		return 0, 0, err
	}
	if IsPostgres(location) {
		return migratePostgres(ctx, location, o)
	}
	return migrateSQLite(ctx, location, o.Lang)
}

// IsPostgres reports whether location names a PostgreSQL database rather than a file.
func IsPostgres(location string) bool {
	l := strings.ToLower(location)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// ErrNotFound is returned (wrapped) when a run or an output does not exist.
var ErrNotFound = errors.New("not found")

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
	Status   dag.RunStatus
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
	// StartedBy names the principal who started the run (auth: "alice", "os:USER",
	// "token"); "" for runs recorded before seam knew.
	StartedBy string
	// CanceledBy and Canceled say who asked last to cancel the run, and when; ResumedBy
	// and Resumed who resumed it last, and when. Empty and zero when nobody did.
	CanceledBy, ResumedBy string
	Canceled, Resumed     time.Time
	// LeaseOwner holds the run's lease until LeaseUntil (lease.go); zero for a run recorded
	// before leases, or while a resume is taking it.
	LeaseOwner string
	LeaseUntil time.Time
	// Trigger is the trigger that started the run ("" : a person or an agent, "manual"),
	// Scheduled the time a schedule's run is for, TriggerKey a webhook's key. A run with
	// Trigger and Scheduled is created with its fire, in one transaction (fires.go).
	Trigger    string
	Scheduled  time.Time
	TriggerKey string
	// FireManual and FireNote go to the run's fire, not to the run: a person's fire
	// (FireManual, not a time of the schedule) and who asked for it or for a backfill.
	FireManual bool
	FireNote   string
}

// Action is something a principal did to a run after it started.
type Action struct {
	Kind ActionKind
	By   string // the principal's name
	At   time.Time
}

// ActionKind is what an Action did.
type ActionKind string

// The actions a run records.
const (
	ActionCancel ActionKind = "cancel"
	ActionResume ActionKind = "resume"
)

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
	Type    string         // the node's type name
	Attempt int            // 1 for the first try, counting retries; 0 when the node settled without running
	Status  dag.NodeStatus // passed, warned, failed, skipped, canceled, ...
	// Final marks the attempt that decided the node's (or item's) status in its session.
	Final    bool
	Repaired bool   // passed after its violations were fed back to the node
	Reused   bool   // a resume reused an earlier output instead of running the node
	Key      string // what the attempt ran (dag.AttemptRecord.Key); "" when unknown
	Reason   string
	// OutputHash references the stored output (see HashOutput). RecordAttempts fills it in
	// from Output; set it with a nil Output to point at an output already stored (e.g.
	// reused by a resume).
	OutputHash string
	// Output is the output to store with the attempt (RecordAttempts); nil for none. GetRun
	// leaves it nil, but for a packed attempt (Pure), whose output is stored with it: read
	// the bytes with AttemptOutput.
	Output []byte
	// Pure marks the attempt of a pure node (nodes.Pure): a resume computes it again, so the
	// store keeps the pure attempts of a batch packed in one row (pack.go), which costs a
	// fraction of a row each. GetRun sets it on the attempts it read from a pack.
	Pure       bool
	Violations []contract.Violation
	Error      string
	Log        string
	Started    time.Time
	Ended      time.Time
	// Approval is an approval node's question (its waiting attempt), with the answer once
	// AnswerApproval recorded it; nil on other attempts.
	Approval *dag.ApprovalRecord
}

// Filter selects runs for ListRuns. Zero fields do not filter.
type Filter struct {
	DAG    string
	Status dag.RunStatus
	Since  time.Time // runs started at or after
	// TopLevel leaves out sub-runs (those of `dag` nodes): "latest" is the newest run a
	// person started, not the sub-run its last dag node started.
	TopLevel bool
	Limit    int    // page size; DefaultListLimit when not positive
	Cursor   string // the next value returned by the previous page
}

// ErrLeaseChanged is returned (wrapped) by ReleaseRun when the run's lease is not the one
// its caller read: its owner renewed it, or a resume took it.
var ErrLeaseChanged = errors.New("its lease changed meanwhile")

// ErrNotRunning is returned (wrapped) by ReleaseRun when the run is no longer running.
var ErrNotRunning = errors.New("not running")

// ErrResumed is returned (wrapped) by ResumeRun when another process resumed the run since
// its caller read it.
var ErrResumed = errors.New("resumed by another process meanwhile")

// AttemptOutput returns the output of an attempt GetRun returned: the bytes that came with
// it (a packed attempt's, see Attempt.Pure), or those stored under its OutputHash; nil when
// it has none.
func AttemptOutput(ctx context.Context, s Store, a *Attempt) ([]byte, error) {
	if a.Output != nil || a.OutputHash == "" {
		return a.Output, nil
	}
	return s.Output(ctx, a.OutputHash)
}

// RunOutput returns the output an attempt of run id stored under hash: from the outputs all
// runs share, or packed with its attempt.
func RunOutput(ctx context.Context, s Store, id, hash string) ([]byte, error) {
	out, err := s.Output(ctx, hash)
	if !errors.Is(err, ErrNotFound) {
		return out, err
	}
	_, as, rerr := s.GetRun(ctx, id)
	if rerr != nil {
		return nil, rerr
	}
	for i := range as {
		if as[i].Output != nil && as[i].OutputHash == hash {
			return as[i].Output, nil
		}
	}
	return nil, err
}

// HashOutput returns the key an output is stored under: the hex SHA-256 of its bytes.
func HashOutput(output []byte) string {
	sum := sha256.Sum256(output)
	return hex.EncodeToString(sum[:])
}

// Finish says how a run ended.
type Finish struct {
	Status dag.RunStatus // success, warn, failed, canceled
	Ended  time.Time
	// Outputs and OutputErrors are the DAG's outputs and why some were not evaluated (JSON
	// objects), nil when there are none.
	Outputs, OutputErrors json.RawMessage
	// Attempts are recorded in the same transaction, e.g. the final state of nodes that
	// settled without running.
	Attempts []Attempt
}

// prepare checks r has what every store requires of a new run and makes its text storable
// (storableText).
func (r *Run) prepare() error {
	if r.ID == "" || r.Status == "" || r.Started.IsZero() {
		return fmt.Errorf("create run %q: id, status and start time are required", r.ID)
	}
	r.storable()
	return nil
}

// attemptRow is what an Attempt needs encoded before its transaction starts, so that the
// write lock is held for the inserts only.
type attemptRow struct {
	violations any // JSON text, or nil (NULL) when there are none, so they read back as nil
	outputHash any
	approval   any // JSON text of the ApprovalRecord, or nil (NULL)
}

// prepare encodes a, its text made storable (storableText); a packed attempt (packable) keeps
// its output without a hash, which is computed when it is read.
func (r *attemptRow) prepare(a *Attempt, packed bool) error {
	if a.RunID == "" || a.Node == "" || a.Status == "" {
		return fmt.Errorf("record attempt %s/%s: run id, node and status are required", a.RunID, a.Node)
	}
	a.storable()
	if a.Output != nil && !packed {
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
	if a.Approval != nil {
		b, err := json.Marshal(a.Approval)
		if err != nil {
			return fmt.Errorf("record attempt %s/%s: encode approval: %w", a.RunID, a.Node, err)
		}
		r.approval = string(b)
	}
	return nil
}

// listQuery is ListRuns' query for f, with the placeholder ph(n) for its n-th argument, its
// arguments and the page size.
func listQuery(f Filter, ph func(n int) string) (string, []any, int) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	var (
		where []string
		args  []any
	)
	arg := func(cond string, v any) {
		args = append(args, v)
		where = append(where, cond+ph(len(args)))
	}
	if f.DAG != "" {
		arg("dag = ", f.DAG)
	}
	if f.Status != "" {
		arg("status = ", string(f.Status))
	}
	if !f.Since.IsZero() {
		arg("started >= ", nanosClamped(f.Since))
	}
	if f.TopLevel {
		where = append(where, "parent = ''")
	}
	if f.Cursor != "" {
		// Keyset pagination on the id: unlike OFFSET, it neither skips nor repeats runs when
		// new ones are created between pages.
		arg("id < ", f.Cursor)
	}
	q := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	// One row more than asked tells whether there is a next page.
	args = append(args, limit+1)
	q += ` ORDER BY id DESC LIMIT ` + ph(len(args))
	return q, args, limit
}

// page cuts the one row more that listQuery asks for, and returns the next page's cursor.
func page(out []Run, limit int) ([]Run, string) {
	if len(out) <= limit {
		return out, ""
	}
	out = out[:limit]
	return out, out[limit-1].ID
}

// The columns of runs and attempts as both backends read them into a Run and an Attempt.
const (
	runColumns = `id, dag, file, file_hash, params, status, started, ended, resumes,
	COALESCE(pid, 0), host, outputs, output_errors, parent, parent_node,
	started_by, canceled_by, canceled_at, resumed_by, resumed_at, lease_owner, lease_until,
	trigger_id, scheduled_at, trigger_key`
	attemptColumns = `session, node, item, type, attempt, status, final, repaired, reused, key,
	reason, COALESCE(output_hash, ''), violations, error, log, started, ended, approval`
)

// scanRun reads one row selected with runColumns.
func scanRun(row interface{ Scan(...any) error }) (*Run, error) {
	var (
		r                   Run
		params, outs, oerrs *string
		started, ended      *int64
		canceled, resumed   *int64
		lease, scheduled    *int64
	)
	if err := row.Scan(&r.ID, &r.DAG, &r.File, &r.FileHash, &params, &r.Status, &started, &ended,
		&r.Resumes, &r.PID, &r.Host, &outs, &oerrs, &r.Parent, &r.ParentNode,
		&r.StartedBy, &r.CanceledBy, &canceled, &r.ResumedBy, &resumed, &r.LeaseOwner, &lease,
		&r.Trigger, &scheduled, &r.TriggerKey); err != nil {
		return nil, err
	}
	r.Canceled, r.Resumed = timeFromNanos(canceled), timeFromNanos(resumed)
	r.Params, r.Outputs, r.OutputErrors = jsonOrNil(params), jsonOrNil(outs), jsonOrNil(oerrs)
	r.Started, r.Ended, r.LeaseUntil = timeFromNanos(started), timeFromNanos(ended), timeFromNanos(lease)
	r.Scheduled = timeFromNanos(scheduled)
	return &r, nil
}

// scanAttempt reads one row of run id's attempts selected with attemptColumns, and then
// the columns selected after them into more.
func scanAttempt(row interface{ Scan(...any) error }, id string, more ...any) (Attempt, error) {
	a := Attempt{RunID: id}
	var (
		viol, approval *string
		started, ended *int64
	)
	if err := row.Scan(append([]any{&a.Session, &a.Node, &a.Item, &a.Type, &a.Attempt, &a.Status,
		&a.Final, &a.Repaired, &a.Reused, &a.Key, &a.Reason, &a.OutputHash,
		&viol, &a.Error, &a.Log, &started, &ended, &approval}, more...)...); err != nil {
		return a, err
	}
	if approval != nil {
		a.Approval = &dag.ApprovalRecord{}
		if err := json.Unmarshal([]byte(*approval), a.Approval); err != nil {
			return a, fmt.Errorf("decode approval of %s: %w", a.Node, err)
		}
	}
	if viol != nil {
		if err := json.Unmarshal([]byte(*viol), &a.Violations); err != nil {
			return a, fmt.Errorf("decode violations of %s #%d: %w", a.Node, a.Attempt, err)
		}
	}
	a.Started, a.Ended = timeFromNanos(started), timeFromNanos(ended)
	return a, nil
}

// Times are stored as UTC Unix nanoseconds on both backends: they compare and sort as
// integers (Since, the index on started) and round-trip exactly. A zero time is NULL, as its
// UnixNano is undefined.
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

func timeFromNanos(v *int64) time.Time {
	if v == nil {
		return time.Time{}
	}
	return time.Unix(0, *v).UTC()
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

func jsonOrNil(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
}

// answerInto merges answer into the question stored as JSON text q, and returns the record
// and its JSON; recorded is false, and the JSON nil, when q holds an answer already.
func answerInto(q string, answer dag.ApprovalRecord) (rec *dag.ApprovalRecord, text []byte, recorded bool, err error) {
	rec = &dag.ApprovalRecord{}
	if err := json.Unmarshal([]byte(q), rec); err != nil {
		return nil, nil, false, fmt.Errorf("decode approval: %w", err)
	}
	if rec.Answer != nil {
		return rec, nil, false, nil
	}
	rec.Answer, rec.By, rec.At, rec.Through = answer.Answer, answer.By, answer.At, answer.Through
	text, err = json.Marshal(rec)
	if err != nil {
		return nil, nil, false, fmt.Errorf("encode approval: %w", err)
	}
	return rec, text, true, nil
}

// lastQuestion selects the approval a node last opened in a run: ph is the placeholder style.
func lastQuestion(ph func(int) string) string {
	return `SELECT seq, approval FROM attempts WHERE run_id = ` + ph(1) + ` AND node = ` + ph(2) +
		` AND status = 'waiting' AND approval IS NOT NULL ORDER BY seq DESC LIMIT 1`
}
