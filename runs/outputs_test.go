package runs

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/seam-dag/seam/dag"
)

func TestEachDecidedOutput(t *testing.T) { eachBackend(t, testEachDecidedOutput) }

// testEachDecidedOutput stores runs of a DAG that succeeded, warned and failed, one resumed and
// one with a foreach node, and reads the outputs of the last ones that succeeded or warned.
func testEachDecidedOutput(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := b.open(t)
	type attempt struct {
		session, item int
		node          string
		status        dag.NodeStatus
		final         bool
		out           string
	}
	store := func(id, name string, at time.Time, status dag.RunStatus, as ...attempt) {
		t.Helper()
		if err := s.CreateRun(ctx, Run{ID: id, DAG: name, File: "dags/" + name + ".yaml", Status: dag.RunRunning, Started: at}); err != nil {
			t.Fatal(err)
		}
		for i, a := range as {
			rec := Attempt{RunID: id, Session: a.session, Node: a.node, Item: a.item, Type: "const", Attempt: i + 1,
				Status: a.status, Final: a.final, Started: at, Ended: at.Add(time.Millisecond)}
			if a.out != "" {
				rec.Output = []byte(a.out)
			}
			if err := s.RecordAttempts(ctx, []Attempt{rec}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.FinishRunWith(ctx, id, Finish{Status: status, Ended: at.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	store("r1", "pipe", t0, dag.RunSuccess,
		attempt{0, -1, "a", dag.NodeFailed, false, `{"n":0}`},
		attempt{0, -1, "a", dag.NodePassed, true, `{"n":1}`},
		attempt{0, -1, "b", dag.NodePassed, true, `{"b":1}`})
	store("r2", "pipe", t0.Add(time.Minute), dag.RunFailed,
		attempt{0, -1, "a", dag.NodePassed, true, `{"n":2}`})
	store("other", "other", t0.Add(2*time.Minute), dag.RunSuccess,
		attempt{0, -1, "a", dag.NodePassed, true, `{"n":"other"}`})
	// Resumed: the first session's failure is superseded by the resume's pass; the items of
	// a foreach node are not the node's output.
	store("r3", "pipe", t0.Add(3*time.Minute), dag.RunWarn,
		attempt{0, -1, "a", dag.NodeFailed, true, `{"n":"bad"}`},
		attempt{0, 0, "b", dag.NodePassed, true, `{"item":0}`},
		attempt{1, -1, "a", dag.NodeWarned, true, `{"n":3}`},
		attempt{1, -1, "b", dag.NodeFailed, true, `{"b":"failed"}`})
	tests := []struct {
		n    int
		want map[string][][]byte
	}{
		{1, map[string][][]byte{"a": {[]byte(`{"n":3}`)}}},
		{2, map[string][][]byte{"a": {[]byte(`{"n":3}`), []byte(`{"n":1}`)}, "b": {[]byte(`{"b":1}`)}}},
		{5, map[string][][]byte{"a": {[]byte(`{"n":3}`), []byte(`{"n":1}`)}, "b": {[]byte(`{"b":1}`)}}},
	}
	for _, tt := range tests {
		got := map[string][][]byte{}
		err := EachDecidedOutput(ctx, s, "pipe", []string{"a", "b", "missing"}, tt.n, "en", func(node string, out []byte) {
			got[node] = append(got[node], out)
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("last %d runs: %q, want %q", tt.n, got, tt.want)
		}
	}
}
