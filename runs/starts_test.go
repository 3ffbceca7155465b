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
