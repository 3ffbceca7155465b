package runs

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// damage overwrites the start of the last page of the store file at path, closed, that does
// not hold the schema: the newest attempts and outputs are there, and the header (with the
// schema version) and the schema stay readable, so the store still opens. (Once the schema
// outgrows the first page, its new pages may be the file's last ones.)
func damage(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var pageno int
	err = db.QueryRowContext(t.Context(), `SELECT max(pageno) FROM dbstat WHERE name <> 'sqlite_schema'`).Scan(&pageno)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096 // SQLite's default page size
	if len(b) < 3*page {
		t.Fatalf("store %s has %d bytes: too small to damage a page", path, len(b))
	}
	last := (pageno - 1) * page
	copy(b[last:last+64], strings.Repeat("\xff", 64))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheck: a store with a damaged page still opens (its header is intact), and Check
// refuses it with what SQLite found; a sound store passes.
func TestCheck(t *testing.T) {
	s, path := openTemp(t)
	ctx := t.Context()
	for _, id := range []string{"r1", "r2", "r3"} {
		if err := writeAttempts(ctx, s, id, 20); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check on a sound store: %v", err)
	}
	if err := s.Close(); err != nil { // the last connection checkpoints the WAL into the file
		t.Fatal(err)
	}
	if _, err := os.Stat(path + checkedSuffix); err != nil {
		t.Fatalf("no stamp after a checked store was closed: %v", err)
	}
	damage(t, path) // a write: the stamp no longer matches, so Check reads the whole file

	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open a store with damaged pages: %v (the test needs it to open, as it does in the field)", err)
	}
	defer s2.Close()
	err = s2.Check(ctx)
	if !errors.Is(err, ErrDamaged) || !strings.HasPrefix(err.Error(), "check store "+path+": the store is damaged: ") {
		t.Fatalf("Check on a damaged store: %v; want ErrDamaged with what SQLite found", err)
	}
}

// TestOpenReadOnly opens a store with mode=ro: it reads, and refuses writes. (A read-only
// directory, where the -shm file cannot be made, is tested with seam runs list in
// cmd/seam: as root here, only a read-only mount makes one.)
func TestOpenReadOnly(t *testing.T) {
	s, path := openTemp(t)
	ctx := t.Context()
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "success", Started: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if list, _, err := ro.ListRuns(ctx, Filter{}); err != nil || len(list) != 1 || list[0].ID != "r1" {
		t.Errorf("ListRuns read-only: %v, %v; want r1", list, err)
	}
	if err := ro.CreateRun(ctx, Run{ID: "r2", DAG: "d", Status: "running", Started: t0}); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("CreateRun on a read-only store: %v; want a read-only error", err)
	}

	for _, tt := range []struct{ path, want string }{
		{filepath.Join(filepath.Dir(path), "none.db"), "open store " + filepath.Join(filepath.Dir(path), "none.db") + ": stat " + filepath.Join(filepath.Dir(path), "none.db") + ": no such file or directory"},
		{filepath.Dir(path), "open store " + filepath.Dir(path) + ": is a directory, not a database file"},
		{"a?b.db", "open store a?b.db: path must not contain '?'"},
	} {
		if _, err := OpenReadOnly(ctx, tt.path); err == nil || err.Error() != tt.want {
			t.Errorf("OpenReadOnly(%s): %v; want %s", tt.path, err, tt.want)
		}
	}
}

// TestWritersOfOneProcessQueue holds a write transaction open past busyTimeout while a
// second writer of the same process waits: the second must queue behind the first, not fail
// with SQLITE_BUSY as SQLite's busy handler has it give up (50 MCP clients running DAGs in
// one process hit that under load).
func TestWritersOfOneProcessQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("holds a transaction open past the busy timeout")
	}
	s, _ := openTemp(t)
	ctx := t.Context()
	holding, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO outputs (hash, size, data) VALUES ('h', 1, x'00')`); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	second := make(chan error, 1)
	go func() {
		second <- s.CreateRun(ctx, Run{ID: "r2", DAG: "d", Status: "running", Started: time.Now()})
	}()
	// Past busyTimeout, SQLite would have failed the second writer by now.
	select {
	case err := <-second:
		t.Fatalf("the second writer returned while the first held the lock: %v", err)
	case <-time.After(busyTimeout + time.Second):
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first writer: %v", err)
	}
	if err := <-second; err != nil {
		t.Fatalf("second writer: %v", err)
	}
	if _, _, err := s.GetRun(ctx, "r2"); err != nil {
		t.Fatalf("the second writer's run: %v", err)
	}
}

// TestCheckStamp: Close records the file's stamp only after a Check passed, and only once the
// WAL is checkpointed; the next Check trusts a matching stamp without reading the file (here
// shown by a damaged file given the stamp it has: the limit docs/runs.md states), and any
// write to the file makes it read the whole file again.
func TestCheckStamp(t *testing.T) {
	ctx := t.Context()
	s, path := openTemp(t)
	if err := writeAttempts(ctx, s, "r1", 20); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + checkedSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a stamp was written though nothing was checked: %v", err)
	}

	// Checked, but closed while another connection keeps the WAL: no stamp.
	s1, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if err := writeAttempts(ctx, other, "r2", 5); err != nil {
		t.Fatal(err)
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + checkedSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a stamp was written while the WAL held another writer's frames: %v", err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}

	// Damaged, with the stamp it has now: Check trusts it.
	damage(t, path)
	stamp, ok := fileStamp(path)
	if !ok {
		t.Skip("no file stamp on this system")
	}
	if err := os.WriteFile(path+checkedSuffix, []byte(stamp), 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Check(ctx); err != nil {
		t.Fatalf("Check with a matching stamp read the file: %v", err)
	}
	s2.Close()

	// The same file written to again: the stamp differs and the damage is found.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s3, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if err := s3.Check(ctx); !errors.Is(err, ErrDamaged) {
		t.Fatalf("Check after a write: %v; want ErrDamaged", err)
	}
}

// TestStoreJapanese: a store refused for its location or its schema version says why in
// Options.Lang.
func TestStoreJapanese(t *testing.T) {
	ctx := t.Context()
	ja := Options{Lang: i18n.Japanese}
	dir := t.TempDir()
	at := func(name string, version int) string {
		path := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, version)); err != nil {
			t.Fatal(err)
		}
		return path
	}
	newer, older := at("newer.db", len(migrations())+1), at("older.db", 0)
	n := len(migrations())
	tests := []struct {
		name string
		open func() error
		want string
	}{
		{"newer", func() error { _, err := OpenWith(ctx, newer, ja); return err },
			fmt.Sprintf("ストア %s のスキーマバージョンは %d ですが、この seam が扱えるのは %d までです：より新しい seam が書いたストアなので、その seam（またはさらに新しいもの）で使ってください", newer, n+1, n)},
		{"older, to read", func() error { _, err := OpenReadOnlyWith(ctx, older, ja); return err },
			fmt.Sprintf("ストア %[1]s を読み取り用に開けません：ストア %[1]s のスキーマバージョンは 0 ですが、この seam には %[2]d が必要です：`seam store migrate` で最新にできます（seam run も --no-migrate がなければ最新にします）", older, n)},
		{"newer, migrated", func() error { _, _, err := MigrateWith(ctx, newer, ja); return err },
			fmt.Sprintf("ストア %s のスキーマバージョンは %d ですが、この seam が扱えるのは %d までです：より新しい seam が書いたストアなので、その seam（またはさらに新しいもの）で使ってください", newer, n+1, n)},
		{"key=value", func() error { _, err := OpenWith(ctx, "dbname=seam", ja); return err },
			"ストア dbname=seam を開けません：これは key=value 形式の接続文字列です：PostgreSQL のストアは postgres:// の URL（postgres://USER:PASSWORD@HOST:PORT/DB）で指定してください"},
		{"password", func() error { _, err := OpenReadOnlyWith(ctx, "postgres://u:pa/ss@h/db", ja); return err },
			"ストア postgres://u:xxxxx@h/db を開けません：パスワードに @、/、?、#、& がそのまま含まれていて、URL ではそこでパスワードが終わると読まれます：それぞれ %40、%2F、%3F、%23、%26 と書いてください"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.open(); err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
}
