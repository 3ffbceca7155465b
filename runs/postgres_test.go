package runs

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/pgtest"
)

// TestOpenBadURL: a PostgreSQL URL that does not parse is refused with the reason, and
// without its password; no server is needed to find out.
func TestOpenBadURL(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"postgres://u:sec%zzret@h/db", "invalid percent-encoded token in password"},
		{"postgres://u:secret@h:notaport/db", "invalid port"},
		{"postgres://u:secret@h/db?sslmode=bogus", "sslmode is invalid"},
		{"postgres://u@h/db?password=secret&connect_timeout=x", "invalid connect_timeout"},
	} {
		_, err := Open(t.Context(), tt.url)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "sec") {
			t.Errorf("Open(%s): %v; want %q, without the password", Redact(tt.url), err, tt.want)
		}
	}
}

// TestPostgresPasswordNeverShown: the DSN's password is in no message, whether the store
// opens or not (a wrong password, a wrong database, a server that is not there).
func TestPostgresPasswordNeverShown(t *testing.T) {
	dsn := pgtest.Database(t)
	pw := pgtest.Password(dsn)
	if pw == "" {
		t.Fatal("the test server's DSN has no password: the test would prove nothing")
	}
	ctx := t.Context()
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if strings.Contains(s.Path(), pw) || !strings.Contains(s.Path(), ":xxxxx@") {
		t.Errorf("Path() = %q shows the password", s.Path())
	}
	msgs := []string{s.Path()}
	if err := recordAttempt(ctx, s, Attempt{RunID: "nope", Node: "a", Attempt: 1, Status: "passed"}, nil); err != nil {
		msgs = append(msgs, err.Error())
	}
	for _, bad := range []string{
		strings.Replace(dsn, ":"+pw+"@", ":"+pw+"x@", 1),                            // wrong password
		strings.Replace(dsn, "/seam_test_", "/nope_", 1),                            // no such database
		strings.Replace(dsn, "127.0.0.1:", "127.0.0.1:1", 1) + "&connect_timeout=2", // nothing listens
	} {
		_, err := Open(ctx, bad)
		if err == nil {
			t.Fatalf("Open(%s) succeeded", Redact(bad))
		}
		msgs = append(msgs, err.Error())
	}
	for _, m := range msgs {
		if strings.Contains(m, pw) {
			t.Errorf("message shows the password: %s", m)
		}
	}
	if !strings.Contains(msgs[len(msgs)-3], "password authentication failed") {
		t.Errorf("wrong password: %s; want PostgreSQL's reason", msgs[len(msgs)-3])
	}
}

// TestPostgresMigrations: a new database is migrated on first use (by several processes at
// once, each migration applied once), NoMigrate refuses an older schema and names the fix,
// and a schema newer than this seam's is refused and left alone.
func TestPostgresMigrations(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.Database(t)
	n := len(pgMigrations())

	_, err := OpenWith(ctx, dsn, Options{NoMigrate: true})
	want := fmt.Sprintf("store %s has schema version 0, this seam needs %d: `seam store migrate` brings it up to date", Redact(dsn), n)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("NoMigrate on a new database: %v\nwant %s", err, want)
	}
	wantRO := fmt.Sprintf("open store %s to read: not found: the database holds no runs yet (`seam run` or `seam store migrate` creates the store)", Redact(dsn))
	if _, err := OpenReadOnly(ctx, dsn); err == nil || err.Error() != wantRO || !errors.Is(err, ErrNotFound) {
		t.Fatalf("OpenReadOnly on a new database: %v\nwant %s", err, wantRO)
	}

	const handles = 6
	stores := make([]Store, handles)
	errs := make([]error, handles)
	var wg sync.WaitGroup
	for i := range handles {
		wg.Go(func() { stores[i], errs[i] = Open(ctx, dsn) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("handle %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	s := stores[0]
	if v := count(t, s, `SELECT version FROM seam_schema`); v != n {
		t.Errorf("version = %d, want %d", v, n)
	}
	if rows := count(t, s, `SELECT count(*) FROM seam_schema`); rows != 1 {
		t.Errorf("seam_schema has %d rows, want 1", rows)
	}
	if from, to, err := Migrate(ctx, dsn); err != nil || from != n || to != n {
		t.Errorf("Migrate on a current store: %d → %d, %v", from, to, err)
	}

	if _, err := s.(*pgStore).pool.Exec(ctx, `UPDATE seam_schema SET version = $1`, n+1); err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("store %s has schema version %d, this seam knows up to %d: it was written by a newer seam", Redact(dsn), n+1, n)
	for name, open := range map[string]func() (Store, error){
		"Open":         func() (Store, error) { return Open(ctx, dsn) },
		"OpenReadOnly": func() (Store, error) { return OpenReadOnly(ctx, dsn) },
	} {
		if _, err := open(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s on a newer store: %v\nwant %s", name, err, want)
		}
	}
	if _, _, err := Migrate(ctx, dsn); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Migrate on a newer store: %v", err)
	}
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Check on a newer store: %v", err)
	}
}

// TestMigrateFromZero: Migrate creates the schema of a new store of either kind and says
// from which version to which.
func TestMigrateFromZero(t *testing.T) { eachBackend(t, testMigrateFromZero) }

func testMigrateFromZero(t *testing.T, b backend) {
	ctx := t.Context()
	loc, n := t.TempDir()+"/new.db", len(migrations())
	if b.name == "postgres" {
		loc, n = pgtest.Database(t), len(pgMigrations())
	}
	from, to, err := Migrate(ctx, loc)
	if err != nil || from != 0 || to != n {
		t.Fatalf("Migrate: %d → %d, %v; want 0 → %d", from, to, err, n)
	}
	s, err := OpenWith(ctx, loc, Options{NoMigrate: true})
	if err != nil {
		t.Fatalf("open with NoMigrate after Migrate: %v", err)
	}
	s.Close()
}

// TestPostgresRestart restarts the server (pg_ctl restart) while two writers record
// attempts: every write goes through, once, and nothing is lost. Then, with the server
// stopped for longer than RetryFor, a write fails saying the store was unreachable, and the
// store works again once the server is back.
func TestPostgresRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server of its own")
	}
	dsn, ctl := pgtest.Cluster(t)
	ctx := t.Context()
	s, err := OpenWith(ctx, dsn, Options{RetryFor: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const writers, per = 2, 150
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	started := make(chan struct{}, writers)
	for w := range writers {
		wg.Go(func() {
			id := fmt.Sprintf("run-%d", w)
			if err := s.CreateRun(ctx, Run{ID: id, DAG: "d", Status: "running", Started: time.Now()}); err != nil {
				errs <- err
				return
			}
			for i := range per {
				if i == 20 {
					started <- struct{}{}
				}
				a := Attempt{RunID: id, Node: fmt.Sprintf("n%03d", i), Item: -1, Attempt: 1, Status: "passed", Final: true}
				if err := recordAttempt(ctx, s, a, fmt.Appendf(nil, `{"data":%d}`, i)); err != nil {
					errs <- err
					return
				}
			}
			errs <- finishRun(ctx, s, id, "success", time.Now())
		})
	}
	for range writers {
		<-started
	}
	if err := ctl("restart"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("writer across a restart: %v", err)
		}
	}
	for w := range writers {
		r, as, err := s.GetRun(ctx, fmt.Sprintf("run-%d", w))
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "success" || len(as) != per {
			t.Errorf("run %s: %s with %d attempts, want success with %d (each once)", r.ID, r.Status, len(as), per)
		}
	}

	// Down for longer than RetryFor: the write fails and says why.
	short, err := OpenWith(ctx, dsn, Options{RetryFor: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	if err := ctl("down"); err != nil {
		t.Fatal(err)
	}
	err = recordAttempt(ctx, short, Attempt{RunID: "run-0", Node: "late", Attempt: 1, Status: "passed"}, []byte(`1`))
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "record attempt run-0/late #1 in "+Redact(dsn)+": unreachable for 2s (") {
		t.Errorf("write to a stopped server: %v", err)
	}
	if err := ctl("up"); err != nil {
		t.Fatal(err)
	}
	if err := recordAttempt(ctx, short, Attempt{RunID: "run-0", Node: "late", Attempt: 1, Status: "passed"}, []byte(`1`)); err != nil {
		t.Errorf("write once the server is back: %v", err)
	}
	if n := count(t, s, `SELECT count(*) FROM attempts WHERE node = 'late'`); n != 1 {
		t.Errorf("attempts of the late node = %d, want 1: the failed write recorded nothing", n)
	}
}
