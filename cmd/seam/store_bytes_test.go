package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/pgtest"
	"github.com/seam-dag/seam/runs"
)

// bytesDAG prints a 0xff byte and a NUL to stderr, and in a text field of its output; gate
// fails, with such bytes on its stderr, until the file ok exists.
const bytesDAG = `version: 1
name: bytes
nodes:
  noisy:
    type: exec
    with: {command: 'printf "bad \377 byte, nul \000 here\n" >&2; printf "{\"status\":\"pass\",\"summary\":\"odd bytes\",\"data\":{\"text\":\"ff \377 nul \\\\u0000 end\"}}"', shell: true}
  echo:
    type: transform
    input: "${{ nodes.noisy.output.data }}"
    with:
      program: '{status: "pass", summary: "echo", data: {text: .text}}'
  gate:
    type: exec
    input: "${{ nodes.echo.output.data }}"
    with: {command: 'test -f ok || { printf "no ok \377\000\n" >&2; exit 1; }; echo "{\"status\":\"pass\",\"summary\":\"gate\",\"data\":{}}"', shell: true}
outputs:
  text: "${{ nodes.echo.output.data.text }}"
`

// TestOddBytesBothStores runs a DAG whose nodes print bytes that are not UTF-8, and NUL, on
// an SQLite and a PostgreSQL store: both record every attempt and the run's end, show the
// same thing (those bytes as \xHH), and resume the run to success.
func TestOddBytesBothStores(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	dsn := pgtest.Database(t)
	var shows []string
	for _, store := range []string{filepath.Join(t.TempDir(), "s.db"), dsn} {
		dir := writeDAGs(t, map[string]string{"bytes.yaml": bytesDAG})
		out, errOut, code := seamEnv(t, dir, nil, "run", "--no-lint", "--store", store, "bytes.yaml")
		if code != 1 || !strings.Contains(out, "✗ gate") {
			t.Fatalf("seam run on %s: exit %d, want 1 (gate fails)\n%s%s", runs.Redact(store), code, out, errOut)
		}
		r, as := latestRun(t, store)
		if r == nil || r.Status != dag.RunFailed || len(as) != 3 {
			t.Fatalf("run on %s: %+v, %d attempts; want failed with 3 attempts\n%s", runs.Redact(store), r, len(as), errOut)
		}
		for _, a := range as {
			want := map[string]string{"noisy": `bad \xff byte, nul \x00 here` + "\n", "echo": "", "gate": `no ok \xff\x00` + "\n"}[a.Node]
			if a.Log != want || a.Status == dag.NodeFailed && !strings.Contains(a.Error, `\xff\x00`) {
				t.Errorf("%s on %s: log %q, error %q; want log %q", a.Node, runs.Redact(store), a.Log, a.Error, want)
			}
		}
		show, errOut, code := seamEnv(t, dir, nil, "runs", "show", "latest", "--json", "--store", store)
		if code != 0 {
			t.Fatalf("runs show on %s: exit %d\n%s", runs.Redact(store), code, errOut)
		}
		shows = append(shows, normalRun(t, strings.ReplaceAll(show, dir, "DIR")))

		if err := os.WriteFile(filepath.Join(dir, "ok"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code = seamEnv(t, dir, nil, "run", "--no-lint", "--store", store, "--resume", r.ID)
		if code != 0 {
			t.Fatalf("seam run --resume on %s: exit %d\n%s%s", runs.Redact(store), code, out, errOut)
		}
		r, _ = latestRun(t, store)
		if r.Status != dag.RunSuccess || !strings.Contains(string(r.Outputs), "ff \ufffd nul \\u0000 end") {
			t.Errorf("resumed run on %s: %s, outputs %s; want success with the text", runs.Redact(store), r.Status, r.Outputs)
		}
	}
	if len(shows) == 2 && shows[0] != shows[1] {
		t.Errorf("SQLite and PostgreSQL disagree:\nSQLite:\n%s\nPostgreSQL:\n%s", shows[0], shows[1])
	}
}

// TestStoreRefusesWrite: a store that refuses a write (here a trigger refuses node two's
// attempts, as a store refuses a value it cannot hold) stops the run, which is recorded
// failed, not left running, and says why, in English and Japanese.
func TestStoreRefusesWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam as a process")
	}
	ctx := t.Context()
	dsn := pgtest.Database(t)
	sqlitePath := filepath.Join(t.TempDir(), "s.db")
	refuse := map[string]func(t *testing.T){
		sqlitePath: func(t *testing.T) {
			db, err := sql.Open("sqlite", sqlitePath)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(ctx, `CREATE TRIGGER refuse_two BEFORE INSERT ON attempts WHEN NEW.node = 'two'
				BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`); err != nil {
				t.Fatal(err)
			}
		},
		dsn: func(t *testing.T) {
			c, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(context.Background())
			if _, err := c.Exec(ctx, `CREATE FUNCTION refuse_two() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN IF NEW.node = 'two' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
				CREATE TRIGGER refuse_two BEFORE INSERT ON attempts FOR EACH ROW EXECUTE FUNCTION refuse_two()`); err != nil {
				t.Fatal(err)
			}
		},
	}
	for _, store := range []string{sqlitePath, dsn} {
		for _, lang := range []struct{ name, said string }{
			{"en", "; the run is recorded as failed, without its last attempts"},
			{"ja", "。実行は最後の試行を除いて、失敗として記録されました"},
		} {
			dir := writeDAGs(t, map[string]string{"steps.yaml": stepsDAG})
			if _, errOut, code := seamEnv(t, dir, nil, "store", "migrate", "--store", store); code != 0 {
				t.Fatalf("store migrate: exit %d\n%s", code, errOut)
			}
			if lang.name == "en" {
				refuse[store](t)
			}
			_, errOut, code := seamEnv(t, dir, []string{"SEAM_LANG=" + lang.name}, "run", "--no-lint", "--store", store, "steps.yaml")
			if code != 1 || !strings.Contains(errOut, "refused by the test") || !strings.Contains(errOut, lang.said) {
				t.Errorf("seam run on %s (%s): exit %d; want 1, saying %q\n%s", runs.Redact(store), lang.name, code, lang.said, errOut)
			}
			r, as := latestRun(t, store)
			if r == nil || r.Status != dag.RunFailed || r.Ended.IsZero() {
				t.Fatalf("run on %s (%s): %+v; want failed and ended", runs.Redact(store), lang.name, r)
			}
			if len(as) != 1 || as[0].Node != "one" {
				t.Errorf("run on %s (%s): attempts %+v; want one's only", runs.Redact(store), lang.name, as)
			}
		}
	}
}
