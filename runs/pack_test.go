package runs

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
)

// packSample is one of each kind of attempt a pack holds.
func packSample() []Attempt {
	key := strings.Repeat("0123456789abcdef", 4)
	return []Attempt{
		{RunID: "r", Node: "a", Item: -1, Type: "const", Attempt: 1, Status: dag.NodePassed, Final: true,
			Key: key, Output: []byte(`{"status":"pass","summary":"a"}`), Started: t0, Ended: t0.Add(time.Microsecond), Pure: true},
		// A key that is not a hex SHA-256 goes as it is; a foreach item; repaired after
		// violations; a session of a resume.
		{RunID: "r", Node: "each", Item: 3, Type: "transform", Attempt: 2, Session: 2, Status: dag.NodeFailed,
			Repaired: true, Key: "KEY not hex", Reason: "output breaks its contract", Error: "e", Log: "l\n",
			Output: []byte(`{"summary":1}`), Pure: true,
			Violations: []contract.Violation{{Pointer: "/summary", Keyword: "/properties/summary/type", Message: "want a string"}}},
		// Reused by a resume, an empty output, no times.
		{RunID: "r", Node: "b", Item: -1, Type: "const", Attempt: 1, Status: dag.NodeWarned, Final: true, Reused: true,
			Key: strings.ToUpper(key), Output: []byte{}, Pure: true},
		// No output at all (failed before printing one).
		{RunID: "r", Node: "c", Item: -1, Type: "transform", Attempt: 1, Status: dag.NodeFailed, Final: true,
			Reason: "jq: error", Started: time.Unix(0, 1).UTC(), Pure: true},
	}
}

func encodeSample(t *testing.T) ([]Attempt, []byte) {
	t.Helper()
	as := packSample()
	rows := make([]attemptRow, len(as))
	for i := range as {
		if err := rows[i].prepare(&as[i], false); err != nil {
			t.Fatal(err)
		}
	}
	return as, encodePack(nil, as, rows)
}

func TestPackRoundTrip(t *testing.T) {
	want, data := encodeSample(t)
	got, err := decodePack(nil, data, "r")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded:\n got %+v\nwant %+v", got, want)
	}
	// A hex key takes its 32 bytes, not 64 characters.
	if n := bytes.Count(data, []byte("0123456789abcdef")); n != 0 {
		t.Errorf("the hex key is stored as text (%d times)", n)
	}
}

// TestPackDamaged: a pack that does not decode is an error that says so, never a panic or a
// huge allocation.
func TestPackDamaged(t *testing.T) {
	_, data := encodeSample(t)
	// Every cut of a pack fails.
	for n := range len(data) {
		if _, err := decodePack(nil, data[:n], "r"); !errors.Is(err, errPack) {
			t.Fatalf("pack cut at %d of %d bytes: %v, want errPack", n, len(data), err)
		}
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"another version", append([]byte{9}, data[1:]...), "damaged attempt pack: version 9, this seam reads 1"},
		{"a huge count", []byte{packVersion, 0xff, 0xff, 0xff, 0xff, 0x0f}, "damaged attempt pack: 4294967295 attempts in 6 bytes"},
		{"bytes after the last attempt", append(append([]byte{}, data...), 0), "damaged attempt pack: 1 bytes after its last attempt"},
		{"cut short", data[:len(data)-1], "damaged attempt pack: cut short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodePack(nil, tc.data, "r")
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestPacksInOrder: a batch that mixes pure nodes' attempts with others, across a run and
// its sub-run, reads back in the order it was recorded, each with its output. The runs of
// pure attempts are packs but for a large output and an output stored before (by
// reference), which stay rows.
func TestPacksInOrder(t *testing.T) { eachBackend(t, testPacksInOrder) }

func testPacksInOrder(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	for _, r := range []Run{
		{ID: "p", DAG: "d", Status: dag.RunRunning, Started: t0},
		{ID: "q", DAG: "sub", Status: dag.RunRunning, Started: t0, Parent: "p", ParentNode: "s"},
	} {
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	big := []byte(`{"status":"pass","summary":"` + strings.Repeat("x", packOutputMax) + `"}`)
	stored := []byte(`{"status":"pass","summary":"by reference"}`)
	ref, err := s.PutOutput(ctx, stored)
	if err != nil {
		t.Fatal(err)
	}
	out := func(s string) []byte { return []byte(`{"status":"pass","summary":"` + s + `"}`) }
	at := func(run, node string, pure bool, output []byte) Attempt {
		return Attempt{RunID: run, Node: node, Item: -1, Type: "t", Attempt: 1, Status: dag.NodePassed,
			Final: true, Output: output, Pure: pure}
	}
	batch := []Attempt{
		at("p", "p1", true, out("p1")), at("p", "p2", true, out("p2")),
		at("p", "x1", false, out("x1")),
		at("p", "p3", true, out("p3")),
		at("q", "q1", true, out("q1")), at("q", "q2", true, out("q2")),
		at("p", "big", true, big),
		at("p", "ref", true, nil),
		at("p", "p4", true, out("p4")),
	}
	batch[7].OutputHash = ref
	if err := s.RecordAttempts(ctx, batch); err != nil {
		t.Fatal(err)
	}
	// A second batch goes after the first.
	if err := s.RecordAttempts(ctx, []Attempt{at("p", "p5", true, out("p5")), at("p", "x2", false, out("x2"))}); err != nil {
		t.Fatal(err)
	}
	for run, want := range map[string][]string{
		"p": {"p1", "p2", "x1", "p3", "big", "ref", "p4", "p5", "x2"},
		"q": {"q1", "q2"},
	} {
		_, as, err := s.GetRun(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := range as {
			got = append(got, as[i].Node)
			o, err := AttemptOutput(ctx, s, &as[i])
			want := out(as[i].Node)
			switch as[i].Node {
			case "big":
				want = big
			case "ref":
				want = stored
			}
			if err != nil || !bytes.Equal(o, want) || as[i].OutputHash != HashOutput(want) {
				t.Errorf("output of %s/%s: %.40q (hash %s), %v; want %.40q", run, as[i].Node, o, as[i].OutputHash, err, want)
			}
			// RunOutput finds it by hash, packed or not.
			if o, err := RunOutput(ctx, s, run, as[i].OutputHash); err != nil || !bytes.Equal(o, want) {
				t.Errorf("RunOutput of %s/%s: %.40q, %v", run, as[i].Node, o, err)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("attempts of %s: %q, want %q", run, got, want)
		}
	}
	if _, err := RunOutput(ctx, s, "p", HashOutput([]byte("none"))); !errors.Is(err, ErrNotFound) {
		t.Errorf("RunOutput of an unknown output: %v, want ErrNotFound", err)
	}
	// p1 p2 | p3 | q1 q2 | p4 | p5: five packs; x1, big, ref, x2 are rows.
	if n := count(t, s, `SELECT count(*) FROM attempt_packs`); n != 5 {
		t.Errorf("packs = %d, want 5", n)
	}
	if n := count(t, s, `SELECT count(*) FROM attempts`); n != 4 {
		t.Errorf("rows = %d, want 4", n)
	}
}

// FuzzDecodePack: whatever a damaged store holds, decoding it returns attempts or an error,
// never a panic; and what decodes encodes back to the same attempts.
func FuzzDecodePack(f *testing.F) {
	f.Add([]byte{packVersion, 0})
	as := packSample()
	rows := make([]attemptRow, len(as))
	for i := range as {
		if err := rows[i].prepare(&as[i], false); err != nil {
			f.Fatal(err)
		}
	}
	f.Add(encodePack(nil, as, rows))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodePack(nil, data, "r")
		if err != nil {
			if !errors.Is(err, errPack) {
				t.Fatalf("error %v is not errPack", err)
			}
			return
		}
		rows := make([]attemptRow, len(got))
		for i := range got {
			if len(got[i].Violations) == 0 {
				got[i].Violations = nil // "[]" and none are both no violations
			}
			if err := rows[i].prepare(&got[i], true); err != nil {
				return // decoded, but not what a store would be given (no node, no status)
			}
		}
		again, err := decodePack(nil, encodePack(nil, got, rows), "r")
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, again, got)
		}
	})
}

// TestDamagedPackInStore: a pack the store holds that does not decode fails the reading of
// its run, saying which run and which pack, rather than leaving its attempts out.
func TestDamagedPackInStore(t *testing.T) { eachBackend(t, testDamagedPackInStore) }

func testDamagedPackInStore(t *testing.T, b backend) {
	ctx := context.Background()
	s, where := b.open(t)
	if err := s.CreateRun(ctx, Run{ID: "p", DAG: "d", Status: dag.RunRunning, Started: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordAttempts(ctx, []Attempt{{RunID: "p", Node: "a", Item: -1, Attempt: 1, Status: dag.NodePassed, Output: []byte(`{}`), Pure: true}}); err != nil {
		t.Fatal(err)
	}
	switch s := s.(type) {
	case *sqliteStore:
		_, err := s.db.ExecContext(ctx, `UPDATE attempt_packs SET data = X'09'`)
		if err != nil {
			t.Fatal(err)
		}
	case *pgStore:
		if _, err := s.pool.Exec(ctx, `UPDATE attempt_packs SET data = '\x09'`); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := s.GetRun(ctx, "p")
	want := "get run p from " + Redact(where) + ": attempts #1: damaged attempt pack: version 9, this seam reads 1"
	if err == nil || err.Error() != want {
		t.Errorf("GetRun of a damaged pack: %v, want %q", err, want)
	}
	if _, err := s.Reusable(ctx, "p"); err == nil || !strings.Contains(err.Error(), "damaged attempt pack") {
		t.Errorf("Reusable of a damaged pack: %v, want it said", err)
	}
}
