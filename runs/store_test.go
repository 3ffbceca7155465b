package runs

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
)

// t0 has nanoseconds so the tests show times round-trip exactly.
var t0 = time.Date(2026, 3, 9, 10, 15, 0, 123456789, time.UTC)

func TestRoundTrip(t *testing.T) { eachBackend(t, testRoundTrip) }

func testRoundTrip(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)

	run := Run{
		ID: "20260309T101500.123-3fa2c1d0", DAG: "demo", File: "dags/demo.yaml",
		FileHash: "abc123", Params: json.RawMessage(`{"n":3}`), Status: "running", Started: t0,
	}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	outA := []byte(`{"data":{"n":3},"summary":"three"}`)
	outB := []byte(`{"data":{"n":"x"}}`)
	attempts := []struct {
		a   Attempt
		out []byte
	}{
		{Attempt{RunID: run.ID, Node: "a", Type: "const", Attempt: 1, Status: "passed",
			Started: t0.Add(time.Millisecond), Ended: t0.Add(2 * time.Millisecond)}, outA},
		{Attempt{RunID: run.ID, Node: "b", Type: "exec", Attempt: 1, Status: "failed",
			Reason: "exited 1", Error: "exit status 1", Log: "boom\n",
			Started: t0.Add(3 * time.Millisecond), Ended: t0.Add(4 * time.Millisecond)}, nil},
		{Attempt{RunID: run.ID, Node: "b", Type: "exec", Attempt: 2, Status: "failed",
			Reason: "output broke its contract",
			Violations: []contract.Violation{
				{Pointer: "/data/n", Keyword: "/properties/data/properties/n/type", Value: `"x"`, Message: "got string, want integer"},
				{Pointer: "", Keyword: "/required", Message: "missing property summary"},
			},
			Started: t0.Add(5 * time.Millisecond), Ended: t0.Add(6 * time.Millisecond)}, outB},
		// Not finished: a zero end time must read back as zero, not as 1970 or year 1.
		{Attempt{RunID: run.ID, Node: "c", Type: "transform", Attempt: 1, Status: "running",
			Started: t0.Add(7 * time.Millisecond)}, nil},
	}
	var want []Attempt
	for _, x := range attempts {
		if err := recordAttempt(ctx, s, x.a, x.out); err != nil {
			t.Fatal(err)
		}
		w := x.a
		if x.out != nil {
			w.OutputHash = HashOutput(x.out)
		}
		want = append(want, w)
	}

	// Before FinishRun, the run reads back as running with no end.
	got, _, err := s.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, run) {
		t.Errorf("running run:\n got %+v\nwant %+v", *got, run)
	}

	ended := t0.Add(time.Second)
	if err := finishRun(ctx, s, run.ID, "failed", ended); err != nil {
		t.Fatal(err)
	}
	got, gotAttempts, err := s.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantRun := run
	wantRun.Status, wantRun.Ended = "failed", ended
	if !reflect.DeepEqual(*got, wantRun) {
		t.Errorf("finished run:\n got %+v\nwant %+v", *got, wantRun)
	}
	if !reflect.DeepEqual(gotAttempts, want) {
		t.Errorf("attempts:\n got %+v\nwant %+v", gotAttempts, want)
	}

	for _, out := range [][]byte{outA, outB} {
		b, err := s.Output(ctx, HashOutput(out))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, out) {
			t.Errorf("Output = %s, want %s", b, out)
		}
	}
}

func TestOutputStoredOnce(t *testing.T) { eachBackend(t, testOutputStoredOnce) }

func testOutputStoredOnce(t *testing.T, b backend) {
	ctx := context.Background()
	same := []byte(`{"data":{"v":1}}`)
	tests := []struct {
		name        string
		outputs     [][]byte
		wantOutputs int
	}{
		{"same bytes twice", [][]byte{same, same}, 1},
		{"same bytes three times", [][]byte{same, same, same}, 1},
		{"different bytes", [][]byte{same, []byte(`{"data":{"v":2}}`)}, 2},
		// Whitespace is part of the bytes: the store does not canonicalise JSON.
		{"same JSON, different bytes", [][]byte{same, []byte(`{"data": {"v":1}}`)}, 2},
		{"empty output is an output", [][]byte{{}, {}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := b.open(t)
			if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "running", Started: t0}); err != nil {
				t.Fatal(err)
			}
			for i, out := range tt.outputs {
				a := Attempt{RunID: "r1", Node: "n", Attempt: i + 1, Status: "passed"}
				if err := recordAttempt(ctx, s, a, out); err != nil {
					t.Fatal(err)
				}
			}
			if n := count(t, s, `SELECT count(*) FROM outputs`); n != tt.wantOutputs {
				t.Errorf("outputs rows = %d, want %d", n, tt.wantOutputs)
			}
			if n := count(t, s, `SELECT count(*) FROM attempts WHERE output_hash IS NOT NULL`); n != len(tt.outputs) {
				t.Errorf("attempts with an output = %d, want %d", n, len(tt.outputs))
			}
		})
	}
}

func TestReuseOutputByHash(t *testing.T) { eachBackend(t, testReuseOutputByHash) }

func testReuseOutputByHash(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	for _, id := range []string{"r1", "r2"} {
		if err := s.CreateRun(ctx, Run{ID: id, DAG: "d", Status: "running", Started: t0}); err != nil {
			t.Fatal(err)
		}
	}
	out := []byte(`{"data":1}`)
	if err := recordAttempt(ctx, s, Attempt{RunID: "r1", Node: "n", Attempt: 1, Status: "passed"}, out); err != nil {
		t.Fatal(err)
	}
	// A resume points at the earlier output without passing its bytes again.
	h := HashOutput(out)
	if err := recordAttempt(ctx, s, Attempt{RunID: "r2", Node: "n", Attempt: 1, Status: "passed", OutputHash: h}, nil); err != nil {
		t.Fatal(err)
	}
	_, got, err := s.GetRun(ctx, "r2")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].OutputHash != h {
		t.Fatalf("r2 attempts = %+v, want one referencing %s", got, h)
	}
	if n := count(t, s, `SELECT count(*) FROM outputs`); n != 1 {
		t.Errorf("outputs rows = %d, want 1", n)
	}
}

func TestPutOutput(t *testing.T) { eachBackend(t, testPutOutput) }

// testPutOutput: an output stored alone, twice, is one row, reads back whole, and an attempt
// recorded afterwards may point at it by its hash.
func testPutOutput(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	out := bytes.Repeat([]byte("x"), 300<<10)
	out = append(append([]byte(`"`), out...), '"')
	for range 2 {
		h, err := s.PutOutput(ctx, out)
		if err != nil {
			t.Fatal(err)
		}
		if h != HashOutput(out) {
			t.Fatalf("PutOutput = %s, want %s", h, HashOutput(out))
		}
	}
	if n := count(t, s, `SELECT count(*) FROM outputs`); n != 1 {
		t.Errorf("outputs rows = %d, want 1", n)
	}
	got, err := s.Output(ctx, HashOutput(out))
	if err != nil || !bytes.Equal(got, out) {
		t.Fatalf("Output = %d bytes (%v), want the %d stored", len(got), err, len(out))
	}
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "running", Started: t0}); err != nil {
		t.Fatal(err)
	}
	if err := recordAttempt(ctx, s, Attempt{RunID: "r1", Node: "n", Attempt: 1, Status: "passed", OutputHash: HashOutput(out)}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestErrors(t *testing.T) { eachBackend(t, testErrors) }

func testErrors(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "running", Started: t0}); err != nil {
		t.Fatal(err)
	}
	ok := Attempt{RunID: "r1", Node: "n", Attempt: 1, Status: "passed"}
	if err := recordAttempt(ctx, s, ok, []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		do       func() error
		notFound bool
		contains string
	}{
		{"GetRun unknown", func() error { _, _, err := s.GetRun(ctx, "nope"); return err }, true, "nope"},
		{"FinishRun unknown", func() error { return finishRun(ctx, s, "nope", "success", t0) }, true, "nope"},
		{"Output unknown", func() error { _, err := s.Output(ctx, HashOutput([]byte("x"))); return err }, true, HashOutput([]byte("x"))},
		{"attempt for unknown run", func() error {
			return recordAttempt(ctx, s, Attempt{RunID: "nope", Node: "n", Attempt: 1, Status: "passed"}, []byte(`1`))
		}, true, "nope"},
		{"packed attempt for unknown run", func() error {
			return recordAttempt(ctx, s, Attempt{RunID: "nope", Node: "n", Attempt: 1, Status: "passed", Pure: true}, []byte(`1`))
		}, true, "record attempt nope/n #1 in "},
		{"attempt referencing a missing output", func() error {
			return recordAttempt(ctx, s, Attempt{RunID: "r1", Node: "m", Attempt: 1, Status: "passed", OutputHash: "deadbeef"}, nil)
		}, true, "deadbeef"},
		{"hash does not match output", func() error {
			return recordAttempt(ctx, s, Attempt{RunID: "r1", Node: "m", Attempt: 1, Status: "passed", OutputHash: "deadbeef"}, []byte(`1`))
		}, false, "does not match"},
		{"batch failing on its second attempt", func() error {
			return s.RecordAttempts(ctx, []Attempt{
				{RunID: "r1", Node: "m", Attempt: 1, Status: "passed", Output: []byte(`2`)},
				{RunID: "r1", Node: "m", Attempt: 2, Status: "passed", OutputHash: "deadbeef"},
			})
		}, true, "record 2 attempts of run r1"},
		{"duplicate run", func() error {
			return s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "running", Started: t0})
		}, false, "create run r1"},
		{"run without start time", func() error { return s.CreateRun(ctx, Run{ID: "r2", DAG: "d", Status: "running"}) }, false, "required"},
		{"attempt without node", func() error { return recordAttempt(ctx, s, Attempt{RunID: "r1", Status: "passed"}, nil) }, false, "required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrNotFound) != tt.notFound {
				t.Errorf("errors.Is(%v, ErrNotFound) = %v, want %v", err, !tt.notFound, tt.notFound)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not mention %q", err, tt.contains)
			}
		})
	}
	// A failed write leaves nothing behind: the transaction rolled back.
	if n := count(t, s, `SELECT count(*) FROM attempts`); n != 1 {
		t.Errorf("attempts rows = %d after failed writes, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM outputs`); n != 1 {
		t.Errorf("outputs rows = %d after failed writes, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM attempt_packs`); n != 0 {
		t.Errorf("packs = %d after failed writes, want 0", n)
	}
}

func TestListRuns(t *testing.T) { eachBackend(t, testListRuns) }

func testListRuns(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	// Seven runs a minute apart; ids sort by time as engine.NewRunID's do.
	type seed struct{ dag, status string }
	seeds := []seed{
		{"a", "success"}, {"b", "failed"}, {"a", "failed"}, {"a", "success"},
		{"b", "success"}, {"a", "running"}, {"a", "success"},
	}
	for i, sd := range seeds {
		r := Run{ID: fmt.Sprintf("2026030%dT000000.000-0000", i), DAG: sd.dag, Status: dag.RunStatus(sd.status), Started: t0.Add(time.Duration(i) * time.Minute)}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	id := func(i int) string { return fmt.Sprintf("2026030%dT000000.000-0000", i) }

	tests := []struct {
		name     string
		f        Filter
		want     []string
		wantNext string
	}{
		{"all, newest first", Filter{}, []string{id(6), id(5), id(4), id(3), id(2), id(1), id(0)}, ""},
		{"by dag", Filter{DAG: "b"}, []string{id(4), id(1)}, ""},
		{"by status", Filter{Status: "failed"}, []string{id(2), id(1)}, ""},
		{"dag and status", Filter{DAG: "a", Status: "success"}, []string{id(6), id(3), id(0)}, ""},
		{"since is inclusive", Filter{Since: t0.Add(4 * time.Minute)}, []string{id(6), id(5), id(4)}, ""},
		{"since far in the future", Filter{Since: time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)}, nil, ""},
		{"since far in the past", Filter{Since: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), Limit: 1}, []string{id(6)}, id(6)},
		{"limit", Filter{Limit: 2}, []string{id(6), id(5)}, id(5)},
		{"limit equal to the count has no next page", Filter{DAG: "b", Limit: 2}, []string{id(4), id(1)}, ""},
		{"cursor", Filter{Cursor: id(5), Limit: 2}, []string{id(4), id(3)}, id(3)},
		{"cursor with filter", Filter{DAG: "a", Cursor: id(5)}, []string{id(3), id(2), id(0)}, ""},
		{"unknown dag", Filter{DAG: "zzz"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, next, err := s.ListRuns(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range runs {
				got = append(got, r.ID)
			}
			if !reflect.DeepEqual(got, tt.want) || next != tt.wantNext {
				t.Errorf("ListRuns(%+v) = %v, next %q; want %v, next %q", tt.f, got, next, tt.want, tt.wantNext)
			}
		})
	}

	// Walking the pages visits every run once, in order, even when a run is created
	// between pages (keyset pagination does not shift).
	var walked []string
	f := Filter{Limit: 3}
	for page := 0; ; page++ {
		runs, next, err := s.ListRuns(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			walked = append(walked, r.ID)
		}
		if page == 0 {
			if err := s.CreateRun(ctx, Run{ID: id(9), DAG: "a", Status: "running", Started: t0.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		if next == "" {
			break
		}
		f.Cursor = next
	}
	want := []string{id(6), id(5), id(4), id(3), id(2), id(1), id(0)}
	if !reflect.DeepEqual(walked, want) {
		t.Errorf("pages walked %v, want %v", walked, want)
	}
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "running", Started: t0}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Opening again changes nothing and keeps the data.
	for range 2 {
		s2, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		if v := count(t, s2, `PRAGMA user_version`); v != len(migrations()) {
			t.Errorf("user_version = %d, want %d", v, len(migrations()))
		}
		if _, _, err := s2.GetRun(ctx, "r1"); err != nil {
			t.Errorf("run lost on reopen: %v", err)
		}
		s2.Close()
	}

	// A store written by a newer seam is refused, and left alone.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	newer := len(migrations()) + 1
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, newer)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	wantMsg := fmt.Sprintf("store %s has schema version %d, this seam knows up to %d: it was written by a newer seam", path, newer, len(migrations()))
	if err == nil || !strings.HasPrefix(err.Error(), wantMsg) {
		t.Fatalf("Open newer store: %v, want %q", err, wantMsg)
	}
}

// TestMigrateSteps applies a later migration to a store at an earlier version, with a list of
// its own, since the real list has one entry.
func TestMigrateSteps(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := sql.Open("sqlite", path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v1 := []string{`CREATE TABLE t (a INTEGER)`}
	v2 := slices.Concat(v1, []string{`ALTER TABLE t ADD COLUMN b INTEGER; INSERT INTO t (a, b) VALUES (1, 2)`})
	bad := slices.Concat(v2, []string{`ALTER TABLE nope ADD COLUMN c INTEGER`})

	steps := []struct {
		migs        []string
		wantVersion int
		wantRows    int
		wantErr     string
	}{
		{v1, 1, 0, ""},
		{v1, 1, 0, ""},
		{v2, 2, 1, ""},
		{v2, 2, 1, ""}, // not applied twice: still one row
		{bad, 2, 1, "migrate to schema version 3"},
	}
	for i, st := range steps {
		_, err := migrateDB(ctx, db, path, st.migs, "")
		if st.wantErr == "" && err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if st.wantErr != "" && (err == nil || !strings.Contains(err.Error(), st.wantErr)) {
			t.Fatalf("step %d: error %v, want one containing %q", i, err, st.wantErr)
		}
		var v, rows int
		if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT count(*) FROM t`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if v != st.wantVersion || rows != st.wantRows {
			t.Errorf("step %d: version %d, %d rows; want %d, %d", i, v, rows, st.wantVersion, st.wantRows)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "corrupt.db")
	garbage := bytes.Repeat([]byte("this is not a sqlite database\x00\xff"), 200)
	if err := os.WriteFile(corrupt, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		contains   []string
	}{
		// Tests run as root, so a read-only directory would not stop them: use a path whose
		// parent is a regular file.
		{"parent is a file", filepath.Join(file, "seam.db"), []string{filepath.Join(file, "seam.db"), "not a directory"}},
		{"grandparent is a file", filepath.Join(file, "sub", "seam.db"), []string{filepath.Join(file, "sub", "seam.db")}},
		{"corrupt file", corrupt, []string{corrupt, "not a database"}},
		{"question mark", filepath.Join(dir, "a?b.db"), []string{"'?'"}},
		{"empty path", "", []string{"empty path"}},
		{"directory", dir, []string{"open store " + dir + ": is a directory, not a database file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(ctx, tt.path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			for _, c := range tt.contains {
				if !strings.Contains(err.Error(), c) {
					t.Errorf("error %q does not mention %q", err, c)
				}
			}
		})
	}
	// The corrupt file is reported, not repaired or overwritten.
	b, err := os.ReadFile(corrupt)
	if err != nil || !bytes.Equal(b, garbage) {
		t.Errorf("corrupt file changed by Open (err %v)", err)
	}
}

// writeAttempts records n attempts with distinct outputs plus one shared one, under run id.
func writeAttempts(ctx context.Context, s Store, id string, n int) error {
	if err := s.CreateRun(ctx, Run{ID: id, DAG: "d", Status: "running", Started: time.Now()}); err != nil {
		return err
	}
	for i := range n {
		out := fmt.Appendf(nil, `{"data":{"run":%q,"i":%d}}`, id, i)
		if i%2 == 0 {
			out = []byte(`{"data":"shared"}`) // both writers race to insert this one
		}
		a := Attempt{RunID: id, Node: fmt.Sprintf("n%03d", i), Attempt: 1, Status: "passed", Started: time.Now(), Ended: time.Now()}
		if err := recordAttempt(ctx, s, a, out); err != nil {
			return err
		}
	}
	return finishRun(ctx, s, id, "success", time.Now())
}

// TestConcurrentHandles writes from two Store handles on one file, as two processes would,
// with several goroutines each.
func TestConcurrentHandles(t *testing.T) { eachBackend(t, testConcurrentHandles) }

func testConcurrentHandles(t *testing.T, b backend) {
	ctx := context.Background()
	s1, path := b.open(t)
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()

	const perWriter, writers = 50, 4
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)
	for i, s := range []Store{s1, s2} {
		for w := range writers {
			wg.Go(func() {
				if err := writeAttempts(ctx, s, fmt.Sprintf("run-%d-%d", i, w), perWriter); err != nil {
					errs <- err
				}
			})
		}
	}
	// Read while writing: WAL readers must not be blocked or see partial runs.
	wg.Go(func() {
		for range 20 {
			if _, _, err := s2.ListRuns(ctx, Filter{}); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := count(t, s1, `SELECT count(*) FROM attempts`); n != 2*writers*perWriter {
		t.Errorf("attempts = %d, want %d", n, 2*writers*perWriter)
	}
	// Half the outputs are distinct per run, the other half one shared row.
	if n := count(t, s1, `SELECT count(*) FROM outputs`); n != 2*writers*perWriter/2+1 {
		t.Errorf("outputs = %d, want %d", n, 2*writers*perWriter/2+1)
	}
}

// TestConcurrentOpen opens a new store from several handles at once: the first open creates
// the schema, and the others must neither fail nor apply the migration a second time.
func TestConcurrentOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "seam.db")
	const handles = 6
	stores := make([]Store, handles)
	errs := make([]error, handles)
	var wg sync.WaitGroup
	for i := range handles {
		wg.Go(func() { stores[i], errs[i] = Open(ctx, path) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("handle %d: %v", i, err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	if v := count(t, stores[0], `PRAGMA user_version`); v != len(migrations()) {
		t.Errorf("user_version = %d, want %d", v, len(migrations()))
	}
	if mode := queryString(t, stores[0].(*sqliteStore), `PRAGMA journal_mode`); mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	if n := count(t, stores[0], `PRAGMA wal_autocheckpoint`); n != walAutocheckpoint {
		t.Errorf("wal_autocheckpoint = %d, want %d", n, walAutocheckpoint)
	}
}

func queryString(t *testing.T, s *sqliteStore, query string) string {
	t.Helper()
	var v string
	if err := s.db.QueryRow(query).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v
}

// TestCanceledContext checks a canceled context stops a write with an error that says so,
// and writes nothing.
func TestCanceledContext(t *testing.T) { eachBackend(t, testCanceledContext) }

func testCanceledContext(t *testing.T, b backend) {
	s, _ := b.open(t)
	if err := s.CreateRun(context.Background(), Run{ID: "r1", DAG: "d", Status: "running", Started: t0}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := recordAttempt(ctx, s, Attempt{RunID: "r1", Node: "n", Attempt: 1, Status: "passed"}, []byte(`1`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("RecordAttempt with a canceled context: %v, want context.Canceled", err)
	}
	if n := count(t, s, `SELECT count(*) FROM attempts`); n != 0 {
		t.Errorf("attempts = %d, want 0", n)
	}
}

const helperEnv = "SEAM_RUNS_TEST_HELPER_STORE"

// TestHelperProcess is not a test: TestTwoProcesses runs the test binary again with only this
// function selected, as a second process writing to the same store.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestTwoProcesses")
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := writeAttempts(context.Background(), s, "child", 200); err != nil {
		t.Fatal(err)
	}
}

func TestTwoProcesses(t *testing.T) { eachBackend(t, testTwoProcesses) }

func testTwoProcesses(t *testing.T, b backend) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	ctx := context.Background()
	s, path := b.open(t)

	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	parentErr := writeAttempts(ctx, s, "parent", 200)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper process: %v\n%s", err, out.String())
	}
	if parentErr != nil {
		t.Fatal(parentErr)
	}
	for _, id := range []string{"parent", "child"} {
		r, attempts, err := s.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "success" || len(attempts) != 200 {
			t.Errorf("run %s: status %s, %d attempts; want success, 200", id, r.Status, len(attempts))
		}
	}
}

// BenchmarkRecordAttempt measures one committed attempt with a new 200-byte output, the
// engine's per-node cost.
func BenchmarkRecordAttempt(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	if err := s.CreateRun(ctx, Run{ID: "bench", DAG: "d", Status: "running", Started: time.Now()}); err != nil {
		b.Fatal(err)
	}
	out := bytes.Repeat([]byte("x"), 200)
	copy(out, `{"data":"`)
	copy(out[len(out)-2:], `"}`)
	i := 0
	for b.Loop() {
		i++
		// Distinct bytes each time, so every attempt inserts an output row as well.
		copy(out[9:], fmt.Sprintf("%012d", i))
		a := Attempt{RunID: "bench", Node: "n", Attempt: i, Status: "passed", Started: t0, Ended: t0}
		if err := recordAttempt(ctx, s, a, out); err != nil {
			b.Fatal(err)
		}
	}
}

// TestResumeRun checks sessions and that of two resumes read at once, the second fails.
func TestResumeRun(t *testing.T) { eachBackend(t, testResumeRun) }

func testResumeRun(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "failed", Started: t0}); err != nil {
		t.Fatal(err)
	}
	session, err := s.ResumeRun(ctx, "r1", 0, 11, "h")
	if err != nil || session != 1 {
		t.Fatalf("first resume: session %d, %v", session, err)
	}
	// A second process that read the run before the first resume.
	_, err = s.ResumeRun(ctx, "r1", 0, 12, "h")
	if !errors.Is(err, ErrResumed) || !strings.Contains(err.Error(), "resume run r1 in ") {
		t.Errorf("second resume: %v", err)
	}
	if _, err := s.ResumeRun(ctx, "nope", 0, 12, "h"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown run: %v", err)
	}
}

// recordAttempt records one attempt and, when output is not nil, the output it produced: a
// batch of one.
func recordAttempt(ctx context.Context, s Store, a Attempt, output []byte) error {
	if output != nil {
		a.Output = output
	}
	return s.RecordAttempts(ctx, []Attempt{a})
}

// finishRun sets a run's final status and end time.
func finishRun(ctx context.Context, s Store, id string, status dag.RunStatus, ended time.Time) error {
	return s.FinishRunWith(ctx, id, Finish{Status: status, Ended: ended})
}

// TestWhoRecorded: a run keeps who started it, and the last cancel and resume with who and
// when, on both backends; an action on a run not in the store is ErrNotFound.
func TestWhoRecorded(t *testing.T) { eachBackend(t, testWhoRecorded) }

func testWhoRecorded(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: "running", Started: t0, StartedBy: "ci-bot"}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRun(ctx, Run{ID: "r2", DAG: "d", Status: "running", Started: t0}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		a        Action
		cBy, rBy string
		c, r     time.Time
	}{
		{Action{Kind: ActionCancel, By: "alice", At: t0.Add(time.Second)}, "alice", "", t0.Add(time.Second), time.Time{}},
		{Action{Kind: ActionResume, By: "os:ops", At: t0.Add(2 * time.Second)}, "alice", "os:ops", t0.Add(time.Second), t0.Add(2 * time.Second)},
		{Action{Kind: ActionCancel, By: "root", At: t0.Add(3 * time.Second)}, "root", "os:ops", t0.Add(3 * time.Second), t0.Add(2 * time.Second)},
	}
	for i, st := range steps {
		if err := s.RecordAction(ctx, "r1", st.a); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		r, _, err := s.GetRun(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if r.StartedBy != "ci-bot" || r.CanceledBy != st.cBy || r.ResumedBy != st.rBy || !r.Canceled.Equal(st.c) || !r.Resumed.Equal(st.r) {
			t.Errorf("step %d: started by %q, canceled by %q at %v, resumed by %q at %v", i, r.StartedBy, r.CanceledBy, r.Canceled, r.ResumedBy, r.Resumed)
		}
	}
	list, _, err := s.ListRuns(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		if want := map[string]string{"r1": "ci-bot", "r2": ""}[r.ID]; r.StartedBy != want {
			t.Errorf("ListRuns: %s started by %q, want %q", r.ID, r.StartedBy, want)
		}
	}
	if err := s.RecordAction(ctx, "nope", Action{Kind: ActionCancel, By: "x", At: t0}); !errors.Is(err, ErrNotFound) {
		t.Errorf("an action on a run not there: %v", err)
	}
}
