package runs

import (
	"fmt"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

// TestStartRecords checks that a start record shows its node running until the attempt's
// finish is recorded, which then takes its place whichever was committed first, and that a
// watcher sees the node go from running to passed.
func TestStartRecords(t *testing.T) { eachBackend(t, testStartRecords) }

func testStartRecords(t *testing.T, b backend) {
	ctx := t.Context()
	s, _ := b.open(t)
	if err := s.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: dag.RunRunning, Started: t0}); err != nil {
		t.Fatal(err)
	}
	start := func(node string, item, attempt int) Attempt {
		return Attempt{RunID: "r1", Node: node, Item: item, Type: "exec", Attempt: attempt, Status: dag.NodeRunning, Started: t0}
	}
	done := func(node string, item, attempt int, st dag.NodeStatus, final bool) Attempt {
		return Attempt{RunID: "r1", Node: node, Item: item, Type: "exec", Attempt: attempt, Status: st, Final: final,
			Started: t0, Ended: t0.Add(time.Second)}
	}
	statuses := func() string {
		t.Helper()
		_, as, err := s.GetRun(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range Summarize(as) {
			out = append(out, fmt.Sprintf("%s:%s/%d", n.ID, n.Status(), n.Attempts))
		}
		return fmt.Sprintf("%d %v", len(as), out)
	}
	steps := []struct {
		name  string
		batch []Attempt
		want  string
	}{
		{"a starts", []Attempt{start("a", -1, 1)}, "1 [a:running/1]"},
		{"a fails, to be retried", []Attempt{done("a", -1, 1, dag.NodeFailed, false)}, "1 [a:unfinished/1]"},
		{"a's retry starts", []Attempt{start("a", -1, 2)}, "2 [a:running/2]"},
		{"a passes", []Attempt{done("a", -1, 2, dag.NodePassed, true)}, "2 [a:passed/2]"},
		// A worker's start record may land after the workflow recorded the finish.
		{"b finishes before its start lands", []Attempt{done("b", -1, 1, dag.NodePassed, true)}, "3 [a:passed/2 b:passed/1]"},
		{"b's start lands", []Attempt{start("b", -1, 1)}, "3 [a:passed/2 b:passed/1]"},
		{"an item of c starts", []Attempt{start("c", 0, 1)}, "4 [a:passed/2 b:passed/1 c:running/1]"},
		{"the same start again (an activity retried)", []Attempt{start("c", 0, 1)}, "4 [a:passed/2 b:passed/1 c:running/1]"},
	}
	for _, st := range steps {
		if err := s.RecordAttempts(ctx, st.batch); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := statuses(); got != st.want {
			t.Errorf("%s: attempts and nodes %s, want %s", st.name, got, st.want)
		}
	}
}

// TestWatchSeesStartAndFinish checks that a watcher is called when a start record is
// replaced by its finish, though the number of attempts stays the same.
func TestWatchSeesStartAndFinish(t *testing.T) { eachBackend(t, testWatchSeesStartAndFinish) }

func testWatchSeesStartAndFinish(t *testing.T, b backend) {
	ctx := t.Context()
	s, loc := b.open(t)
	w, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: dag.RunRunning, Started: t0}); err != nil {
		t.Fatal(err)
	}
	if err := w.RecordAttempts(ctx, []Attempt{{RunID: "r1", Node: "a", Item: -1, Attempt: 1, Status: dag.NodeRunning, Started: t0}}); err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 10)
	go s.WatchRun(ctx, "r1", func(r *Run, as []Attempt) error {
		var st []string
		for _, a := range as {
			st = append(st, string(a.Status))
		}
		seen <- fmt.Sprint(st)
		return nil
	})
	next := func() string {
		select {
		case s := <-seen:
			return s
		case <-time.After(30 * time.Second):
			t.Fatal("the watcher saw no change within 30s")
			return ""
		}
	}
	if got := next(); got != "[running]" {
		t.Fatalf("first state %s, want [running]", got)
	}
	if err := w.RecordAttempts(ctx, []Attempt{{RunID: "r1", Node: "a", Item: -1, Attempt: 1, Status: dag.NodePassed, Final: true, Started: t0, Ended: t0}}); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != "[passed]" {
		t.Fatalf("state after the finish %s, want [passed]", got)
	}
	if err := finishRun(ctx, w, "r1", dag.RunSuccess, t0); err != nil {
		t.Fatal(err)
	}
}

// TestRecordLog checks that RecordLog writes the log of a start record only, and that a
// watcher is told of each change of it.
func TestRecordLog(t *testing.T) { eachBackend(t, testRecordLog) }

func testRecordLog(t *testing.T, b backend) {
	ctx := t.Context()
	s, loc := b.open(t)
	w, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.CreateRun(ctx, Run{ID: "r1", DAG: "d", Status: dag.RunRunning, Started: t0}); err != nil {
		t.Fatal(err)
	}
	start := Attempt{RunID: "r1", Node: "a", Item: -1, Attempt: 1, Status: dag.NodeRunning, Started: t0}
	done := Attempt{RunID: "r1", Node: "b", Item: -1, Attempt: 1, Status: dag.NodePassed, Final: true, Log: "b's own", Started: t0, Ended: t0}
	if err := w.RecordAttempts(ctx, []Attempt{start, done}); err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 10)
	go s.WatchRun(ctx, "r1", func(r *Run, as []Attempt) error {
		var st []string
		for _, a := range as {
			st = append(st, fmt.Sprintf("%s %s %q", a.Node, a.Status, a.Log))
		}
		seen <- fmt.Sprint(st)
		return nil
	})
	next := func() string {
		select {
		case s := <-seen:
			return s
		case <-time.After(30 * time.Second):
			t.Fatal("the watcher saw no change within 30s")
			return ""
		}
	}
	if got, want := next(), `[a running "" b passed "b's own"]`; got != want {
		t.Fatalf("first state %s, want %s", got, want)
	}
	with := func(a Attempt, f func(*Attempt)) Attempt { f(&a); return a }
	tests := []struct {
		name  string
		a     Attempt
		found bool
		state string // what the watcher sees next; "" for nothing new
	}{
		{"the start record", with(start, func(a *Attempt) { a.Log = "line 1\n" }), true, `[a running "line 1\n" b passed "b's own"]`},
		{"again, longer", with(start, func(a *Attempt) { a.Log = "line 1\nline 2 ***\n" }), true, `[a running "line 1\nline 2 ***\n" b passed "b's own"]`},
		{"bytes no text holds", with(start, func(a *Attempt) { a.Log = "x\x00\xff" }), true, `[a running "x\\x00\\xff" b passed "b's own"]`},
		{"a finished attempt", with(done, func(a *Attempt) { a.Log = "changed" }), false, ""},
		{"an attempt not started", with(start, func(a *Attempt) { a.Attempt = 2; a.Log = "changed" }), false, ""},
		{"another session", with(start, func(a *Attempt) { a.Session = 1; a.Log = "changed" }), false, ""},
	}
	for _, tt := range tests {
		found, err := w.RecordLog(ctx, tt.a)
		if err != nil || found != tt.found {
			t.Errorf("%s: RecordLog = %v, %v; want %v", tt.name, found, err, tt.found)
		}
		if tt.state != "" {
			if got := next(); got != tt.state {
				t.Errorf("%s: the watcher saw %s, want %s", tt.name, got, tt.state)
			}
		}
	}
	_, as, err := w.GetRun(ctx, "r1")
	if err != nil || len(as) != 2 || as[1].Log != "b's own" {
		t.Errorf("GetRun = %+v, %v; want b's log unchanged", as, err)
	}
	if err := finishRun(ctx, w, "r1", dag.RunSuccess, t0); err != nil {
		t.Fatal(err)
	}
}

// TestRecordLogError checks what RecordLog says when the store cannot write.
func TestRecordLogError(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir+"/runs.db")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = s.RecordLog(t.Context(), Attempt{RunID: "r1", Node: "a", Item: -1, Attempt: 1, Log: "x"})
	if want := "record the log of node a of run r1 in " + dir + "/runs.db: sql: database is closed"; fmt.Sprint(err) != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}
