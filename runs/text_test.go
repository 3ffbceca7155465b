package runs

import (
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

func TestStorableText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"plain text\n", "plain text\n"},
		{"日本語 ok", "日本語 ok"},
		{"a \xff b", `a \xff b`},
		{"nul \x00 here", `nul \x00 here`},
		{"\xe6\x97", `\xe6\x97`},         // a rune cut short
		{"\xe6\x97\xa5\xe6", `日\xe6`},    // cut after a whole rune
		{"\xed\xa0\x80", `\xed\xa0\x80`}, // a surrogate is not UTF-8
		{"\ufffd stays", "\ufffd stays"}, // U+FFFD spelled in UTF-8 is valid
		{`already \xff`, `already \xff`}, // a backslash is kept as it is
		{"\x00\xff\x00", `\x00\xff\x00`},
	} {
		if got := storableText(tt.in); got != tt.want {
			t.Errorf("storableText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestBytesStored: text that is not UTF-8 or holds NUL (a node's log, error and reason, a
// run's file) is recorded on both stores, in a row and in a pack, at a run's end too, and
// reads back the same on both, its odd bytes as \xHH; the run ends as it should.
func TestBytesStored(t *testing.T) { eachBackend(t, testBytesStored) }

func testBytesStored(t *testing.T, b backend) {
	ctx := t.Context()
	s, _ := b.open(t)
	now := time.Now().UTC()
	const raw, shown = "bad \xff byte, nul \x00 here\n", `bad \xff byte, nul \x00 here` + "\n"
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "bytes", File: "/tmp/d\xff/bytes.yaml", Status: dag.RunRunning, Started: now}); err != nil {
		t.Fatal(err)
	}
	attempt := func(node string, pure bool) Attempt {
		return Attempt{RunID: "r1", Node: node, Item: -1, Type: "exec", Attempt: 1, Status: dag.NodeFailed,
			Final: true, Pure: pure, Key: "k", Reason: "exit 1: " + raw, Error: raw, Log: raw,
			Output: []byte(`{"text":"\u0000"}`), Started: now, Ended: now}
	}
	if err := s.RecordAttempts(ctx, []Attempt{attempt("row", false), attempt("packed", true)}); err != nil {
		t.Fatalf("record attempts: %v", err)
	}
	if err := s.FinishRunWith(ctx, "r1", Finish{Status: dag.RunFailed, Ended: now, Attempts: []Attempt{attempt("last", false)}}); err != nil {
		t.Fatalf("finish run: %v", err)
	}
	r, as, err := s.GetRun(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != dag.RunFailed || r.File != `/tmp/d\xff/bytes.yaml` {
		t.Errorf("run: status %s, file %q; want failed, %q", r.Status, r.File, `/tmp/d\xff/bytes.yaml`)
	}
	if len(as) != 3 {
		t.Fatalf("%d attempts, want 3", len(as))
	}
	for _, a := range as {
		if a.Log != shown || a.Error != shown || a.Reason != "exit 1: "+shown {
			t.Errorf("attempt %s: log %q, error %q, reason %q; want %q", a.Node, a.Log, a.Error, a.Reason, shown)
		}
		out, err := AttemptOutput(ctx, s, &a)
		if err != nil || string(out) != `{"text":"\u0000"}` {
			t.Errorf("attempt %s: output %q, %v; want the bytes as given", a.Node, out, err)
		}
	}
}
