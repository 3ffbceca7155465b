package runs

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/nodes"
)

const recorderDAG = `version: 1
name: rec
params:
  type: object
  properties: {list: {type: array}}
nodes:
  a:
    type: exec
    with: {command: ["true"]}
  each:
    type: const
    foreach: "${{ params.list }}"
    with: {value: {status: pass, summary: item}}
  b:
    type: const
    input: {x: "${{ nodes.a.output.summary }}"}
    with: {value: {status: pass, summary: b}}
  c:
    type: const
    needs: [b]
    with: {value: {status: pass, summary: c}}
`

func loadRecorderDAG(t testing.TB) *dag.DAG {
	t.Helper()
	d, err := dag.LoadBytes(context.Background(), "rec.yaml", []byte(recorderDAG), dag.LoadOptions{Types: nodes.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRecorder plays the engine's side of dag.Recorder: a run, then a resume of it.
func TestRecorder(t *testing.T) { eachBackend(t, testRecorder) }

func testRecorder(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	d := loadRecorderDAG(t)
	const id = "20260309T101500.123-3fa2c1d0"

	rec := NewRecorder(s, d, RecorderOptions{PID: 42, Host: "h"})
	if err := rec.BeginRun(ctx, dag.RunRecord{ID: id, DAG: "rec", File: "rec.yaml", FileHash: "fh",
		Params: map[string]any{"list": []any{"x", "y"}}, Started: t0}); err != nil {
		t.Fatal(err)
	}
	outA := []byte(`{"status":"pass","summary":"a"}`)
	viol := []contract.Violation{{Pointer: "/summary", Keyword: "/properties/summary/type", Message: "want a string"}}
	batch := []dag.AttemptRecord{
		// The engine may give a node without foreach item 0 or -1: both are the node itself.
		{RunID: id, Node: "a", Type: "exec", Attempt: 1, Item: 0, Status: dag.NodeFailed, Output: []byte(`{"summary":1}`), Violations: viol, Key: "ka", Started: t0, Ended: t0},
		{RunID: id, Node: "a", Type: "exec", Attempt: 2, Item: -1, Status: dag.NodePassed, Final: true, Repaired: true, Output: outA, Key: "ka", Started: t0, Ended: t0},
		{RunID: id, Node: "each", Type: "const", Attempt: 1, Item: 0, Status: dag.NodePassed, Final: true, Output: outA, Key: "ke0"},
		{RunID: id, Node: "each", Type: "const", Attempt: 1, Item: 1, Status: dag.NodePassed, Final: true, Output: outA, Key: "ke1"},
		{RunID: id, Node: "each", Type: "const", Attempt: 1, Item: -1, Status: dag.NodePassed, Final: true, Output: []byte(`{"status":"pass","summary":"2 items"}`), Key: "ke"},
	}
	if err := rec.RecordAttempts(ctx, batch); err != nil {
		t.Fatal(err)
	}
	// b fails on its input before it runs, c is skipped: neither has an attempt until the run
	// finishes. The run's context is canceled by then, which must not stop the writes.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	res := &dag.RunResult{ID: id, DAG: "rec", Status: dag.RunFailed, Ended: t0.Add(time.Second), Nodes: []dag.NodeResult{
		{ID: "a", Type: "exec", Status: dag.NodePassed},
		{ID: "each", Type: "const", Status: dag.NodePassed},
		{ID: "b", Type: "const", Status: dag.NodeFailed, Reason: "input breaks its contract", Violations: viol},
		{ID: "c", Type: "const", Status: dag.NodeSkipped, Reason: "upstream b failed"},
	}}
	if err := rec.FinishRun(cctx, res); err != nil {
		t.Fatal(err)
	}

	r, as, err := s.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("rec.yaml")
	if r.Status != "failed" || r.File != abs || r.PID != 42 || r.Host != "h" || string(r.Params) != `{"list":["x","y"]}` || !r.Ended.Equal(t0.Add(time.Second)) {
		t.Errorf("run = %+v", r)
	}
	type row struct {
		node                    string
		item, attempt           int
		status                  string
		final, repaired, reused bool
	}
	var got []row
	for _, a := range as {
		got = append(got, row{a.Node, a.Item, a.Attempt, string(a.Status), a.Final, a.Repaired, a.Reused})
	}
	want := []row{
		{"a", -1, 1, "failed", false, false, false},
		{"a", -1, 2, "passed", true, true, false},
		{"each", 0, 1, "passed", true, false, false},
		{"each", 1, 1, "passed", true, false, false},
		{"each", -1, 1, "passed", true, false, false},
		{"b", -1, 0, "failed", true, false, false},
		{"c", -1, 0, "skipped", true, false, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("attempts:\n got %v\nwant %v", got, want)
	}
	if !reflect.DeepEqual(as[0].Violations, viol) || !reflect.DeepEqual(as[5].Violations, viol) || as[5].Reason != "input breaks its contract" {
		t.Errorf("violations not kept: %+v / %+v", as[0], as[5])
	}

	reuse, err := s.Reusable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(reuse) != 2 || reuse["a"].Key != "ka" || string(reuse["a"].Output) != string(outA) || reuse["each"].Key != "ke" {
		t.Errorf("Reusable = %v, want a and each", reuse)
	}

	// The resume numbers its attempts from 1 again, in session 1; a reuses its output.
	rec2 := NewRecorder(s, d, RecorderOptions{Resume: true})
	if err := rec2.BeginRun(ctx, dag.RunRecord{ID: id, DAG: "rec", Started: time.Now(), Resumed: true}); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := s.GetRun(ctx, id); r.Status != "running" || r.Resumes != 1 || !r.Ended.IsZero() {
		t.Errorf("resumed run = %+v, want running, 1 resume, no end", r)
	}
	if err := rec2.RecordAttempts(ctx, []dag.AttemptRecord{
		{RunID: id, Node: "a", Attempt: 1, Status: dag.NodePassed, Final: true, Reused: true, Key: "ka", Output: outA},
		{RunID: id, Node: "b", Attempt: 1, Status: dag.NodePassed, Final: true, Key: "kb", Output: []byte(`{"status":"pass","summary":"b"}`)},
	}); err != nil {
		t.Fatal(err)
	}
	if err := rec2.FinishRun(ctx, &dag.RunResult{ID: id, Status: dag.RunSuccess, Outputs: map[string]any{"o": "v"}, Nodes: []dag.NodeResult{
		{ID: "a", Status: dag.NodePassed}, {ID: "b", Status: dag.NodePassed}, {ID: "c", Status: dag.NodeSkipped},
	}}); err != nil {
		t.Fatal(err)
	}
	r, as, err = s.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "success" || string(r.Outputs) != `{"o":"v"}` {
		t.Errorf("run after resume = %+v", r)
	}
	last := as[len(as)-3:]
	if last[0].Session != 1 || !last[0].Reused || last[1].Node != "b" || last[2].Node != "c" || last[2].Attempt != 0 {
		t.Errorf("resume attempts = %+v", last)
	}
	// Outputs are stored once however often they are recorded; those of the pure nodes
	// (each, b) are in their packs instead: a's two are left.
	if n := count(t, s, `SELECT count(*) FROM attempt_packs`); n != 2 {
		t.Errorf("packs = %d, want 2 (each, then b)", n)
	}
	if n := count(t, s, `SELECT count(*) FROM outputs`); n != 2 {
		t.Errorf("outputs = %d, want 2", n)
	}
	reuse, err = s.Reusable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(reuse) != 3 || reuse["b"].Key != "kb" {
		t.Errorf("Reusable after resume = %v, want a, each and b", reuse)
	}
}

func TestRecorderErrors(t *testing.T) { eachBackend(t, testRecorderErrors) }

func testRecorderErrors(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	path := s.Path() // for PostgreSQL, the DSN without its password
	d := loadRecorderDAG(t)
	if err := NewRecorder(s, d, RecorderOptions{}).BeginRun(ctx, dag.RunRecord{ID: "r1", DAG: "rec", Started: t0}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func(r *Recorder) error
		want string
	}{
		{"run exists", func(r *Recorder) error {
			return r.BeginRun(ctx, dag.RunRecord{ID: "r1", DAG: "rec", Started: t0})
		}, "create run r1 in " + path + ": a run with this id exists already"},
		{"resume of an unknown run", func(r *Recorder) error {
			r.resume = true
			return r.BeginRun(ctx, dag.RunRecord{ID: "nope", Started: t0})
		}, "resume run nope in " + path + ": run nope: not found"},
		{"resume of a run resumed meanwhile", func(r *Recorder) error {
			r.resume, r.resumes = true, 3 // it has 0
			return r.BeginRun(ctx, dag.RunRecord{ID: "r1", Started: t0})
		}, "resume run r1 in " + path + ": run r1: resumed by another process meanwhile"},
		{"attempt of an unknown run", func(r *Recorder) error {
			return r.RecordAttempts(ctx, []dag.AttemptRecord{{RunID: "nope", Node: "a", Attempt: 1, Status: dag.NodePassed}})
		}, "record attempt nope/a #1 in " + path + ": run nope: not found"},
		{"batch with an unknown run", func(r *Recorder) error {
			return r.RecordAttempts(ctx, []dag.AttemptRecord{{RunID: "nope", Node: "a", Attempt: 1, Status: dag.NodePassed}, {RunID: "nope", Node: "b", Attempt: 1, Status: dag.NodePassed}})
		}, "record 2 attempts of run nope in " + path + ": run nope: not found"},
		{"attempt without a status", func(r *Recorder) error {
			return r.RecordAttempts(ctx, []dag.AttemptRecord{{RunID: "r1", Node: "a", Attempt: 1}})
		}, "record attempt r1/a: run id, node and status are required"},
		{"batch failing on its second attempt", func(r *Recorder) error {
			return r.RecordAttempts(ctx, []dag.AttemptRecord{
				{RunID: "r1", Node: "a", Attempt: 1, Status: dag.NodePassed, Output: []byte(`1`)},
				{RunID: "nope", Node: "b", Attempt: 1, Status: dag.NodePassed},
			})
		}, "record 2 attempts of run r1 in " + path + ": run nope: not found"},
		{"finish an unknown run", func(r *Recorder) error {
			return r.FinishRun(ctx, &dag.RunResult{ID: "nope", Status: dag.RunSuccess})
		}, "finish run nope in " + path + ": run nope: not found"},
		{"params that are not JSON", func(r *Recorder) error {
			return r.BeginRun(ctx, dag.RunRecord{ID: "r2", Params: map[string]any{"f": func() {}}, Started: t0})
		}, "record run r2: encode params: json: unsupported type: func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(NewRecorder(s, d, RecorderOptions{}))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
	// A failed batch writes nothing: it is one transaction.
	if n := count(t, s, `SELECT count(*) FROM attempts`); n != 0 {
		t.Errorf("attempts = %d after failed batches, want 0", n)
	}
	if _, err := s.Reusable(ctx, "nope"); err == nil || err.Error() != "read reusable outputs of run nope from "+path+": run nope: not found" {
		t.Errorf("Reusable of an unknown run: %v", err)
	}
}

// TestMigrateV1 opens a store written by schema version 1 and checks its runs survive
// migration 2 with the attempt that decided each node marked final.
func TestMigrateV1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", path+"?_txlock=immediate&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrateDB(ctx, db, path, migrations()[:1], ""); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO runs (id, dag, status, started) VALUES ('r1', 'd', 'failed', 1)`,
		`INSERT INTO outputs (hash, size, data) VALUES ('h', 2, '{}')`,
		`INSERT INTO attempts (run_id, node, attempt, status, output_hash) VALUES ('r1', 'a', 1, 'failed', 'h')`,
		`INSERT INTO attempts (run_id, node, attempt, status, output_hash) VALUES ('r1', 'a', 2, 'passed', 'h')`,
		`INSERT INTO attempts (run_id, node, attempt, status) VALUES ('r1', 'b', 1, 'failed')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s, err := openSQLite(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, as, err := s.GetRun(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range as {
		got = append(got, strings.Join([]string{a.Node, string(a.Status), map[bool]string{true: "final"}[a.Final], a.OutputHash}, " "))
	}
	want := []string{"a failed  h", "a passed final h", "b failed final "}
	if r.Resumes != 0 || !reflect.DeepEqual(got, want) || as[0].Item != -1 {
		t.Errorf("after migration: run %+v, attempts %q (item %d), want %q", r, got, as[0].Item, want)
	}
	// The rebuilt table keeps the foreign keys.
	_, err = s.db.ExecContext(ctx, `INSERT INTO attempts (run_id, seq, node, attempt, status) VALUES ('nope', 1, 'a', 1, 'passed')`)
	if err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
		t.Errorf("insert for an unknown run: %v, want a foreign key error", err)
	}
	if err := s.RecordAttempts(ctx, []Attempt{{RunID: "r1", Node: "a", Attempt: 1, Session: 1, Item: -1, Status: "passed"}}); err != nil {
		t.Errorf("record after migration: %v", err)
	}
	var fk int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_foreign_key_check`).Scan(&fk); err != nil || fk != 0 {
		t.Errorf("foreign key check: %d rows, %v", fk, err)
	}
}

// TestRecordAttemptsEmpty: an empty batch is no transaction at all.
func TestRecordAttemptsEmpty(t *testing.T) { eachBackend(t, testRecordAttemptsEmpty) }

func testRecordAttemptsEmpty(t *testing.T, b backend) {
	s, _ := b.open(t)
	if err := s.RecordAttempts(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Output(context.Background(), "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Output: %v", err)
	}
}

// TestReusableItems: a foreach node that failed as a whole offers the items whose last attempt
// passed or warned, so a resume runs only the others; its attempts are counted per item.
func TestReusableItems(t *testing.T) { eachBackend(t, testReusableItems) }

func testReusableItems(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	d := loadRecorderDAG(t)
	const id = "20260309T101500.123-3fa2c1d1"
	rec := NewRecorder(s, d, RecorderOptions{PID: 42, Host: "h"})
	if err := rec.BeginRun(ctx, dag.RunRecord{ID: id, DAG: "rec", Started: t0}); err != nil {
		t.Fatal(err)
	}
	pass := []byte(`{"status":"pass","summary":"p"}`)
	warn := []byte(`{"status":"warn","summary":"w"}`)
	bad := []byte(`{"status":"pass"}`)
	each := func(item, attempt int, status dag.NodeStatus, out []byte) dag.AttemptRecord {
		return dag.AttemptRecord{RunID: id, Node: "each", Type: "const", Attempt: attempt, Item: item, Status: status, Output: out, Key: "ke"}
	}
	if err := rec.RecordAttempts(ctx, []dag.AttemptRecord{
		{RunID: id, Node: "a", Type: "const", Attempt: 1, Item: -1, Status: dag.NodePassed, Final: true, Output: pass, Key: "ka"},
		each(0, 1, dag.NodePassed, pass),
		each(1, 1, dag.NodeFailed, bad),
		each(1, 2, dag.NodeFailed, bad), // a retry that failed again
		each(1, 3, dag.NodeFailed, bad),
		each(2, 1, dag.NodeWarned, warn),
		each(3, 1, dag.NodeFailed, nil),
		{RunID: id, Node: "each", Type: "const", Attempt: 3, Item: -1, Status: dag.NodeFailed, Final: true, Key: "ke",
			Reason: "item 1 failed after 3 attempts: output breaks its contract"},
	}); err != nil {
		t.Fatal(err)
	}
	reuse, err := s.Reusable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r := reuse["a"]; r.Output == nil || r.Items != nil {
		t.Errorf("a = %+v, want its output and no items", r)
	}
	e := reuse["each"]
	if e.Output != nil || len(e.Items) != 2 || string(e.Items[0].Output) != string(pass) ||
		string(e.Items[2].Output) != string(warn) || e.Items[0].Key != "ke" {
		t.Errorf("each = %+v, want items 0 and 2 only", e)
	}

	_, as, err := s.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range Summarize(as) {
		if n.ID == "each" && (n.Attempts != 3 || n.Items != 4) {
			t.Errorf("each: %d attempts, %d items; want 3 (item 1's, not the sum 6) and 4", n.Attempts, n.Items)
		}
	}
}
