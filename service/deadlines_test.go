package service

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// deadlineDAG waits an hour for its approval, then rejects on its own.
var deadlineDAG = strings.Replace(gateDAG, "      exclude_starter: true\n",
	"      exclude_starter: true\n      timeout: 1h\n      on_timeout: {decision: reject, reply: none, comment: late}\n", 1)

// openedAt is when run id's approval review opened.
func openedAt(t *testing.T, st runs.Store, id string) time.Time {
	t.Helper()
	_, as, err := st.GetRun(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := lastQuestion(as, "review")
	if q == nil {
		t.Fatalf("run %s asked nothing", id)
	}
	return q.Opened
}

// TestContinue: Continue, at the clock it is given, records the deadline's answer of a
// question past it and resumes the run with it, and resumes a run whose answer was recorded
// Untaken ago without a resume taking it (its process died between the two); before either,
// it does nothing.
func TestContinue(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		tests := []struct {
			name    string
			answer  bool          // an answer recorded, not taken
			after   time.Duration // from the opening (or the answer)
			run     dag.RunStatus // "": not resumed
			through string
			warned  string
		}{
			{"before the deadline", false, 59 * time.Minute, "", "", ""},
			{"past the deadline", false, time.Hour, dag.RunFailed, ThroughTimeout, "approval review of run RUN passed its deadline"},
			{"an answer just recorded is its process's", true, Untaken - time.Second, "", ThroughCLI, ""},
			{"an answer left untaken", true, Untaken, dag.RunSuccess, ThroughCLI, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s := newService(t, st, i18n.English)
				d := load(t, t.TempDir(), "gate.yaml", deadlineDAG)
				run, err := s.Start(t.Context(), d, Request{})
				if err != nil {
					t.Fatal(err)
				}
				wait(t, run)
				from := openedAt(t, st, run.ID)
				if tt.answer {
					from = from.Add(time.Minute)
					_, ok, err := st.AnswerApproval(t.Context(), run.ID, "review", dag.ApprovalRecord{
						Answer: map[string]any{"decision": "approve", "reply": "Hi"}, By: "alice", At: from, Through: ThroughCLI})
					if err != nil || !ok {
						t.Fatalf("record the answer: %v, %v", ok, err)
					}
				}
				var warned []string
				res, err := s.Continue(t.Context(), run.ID, d, from.Add(tt.after), Request{Warn: func(w error) { warned = append(warned, w.Error()) }})
				if err != nil {
					t.Fatal(err)
				}
				if (res == nil) != (tt.run == "") {
					t.Fatalf("resumed %v, want a run %q", res, tt.run)
				}
				if res != nil {
					if got := wait(t, res).Status; got != tt.run {
						t.Errorf("run %s, want %s", got, tt.run)
					}
				}
				_, as, _ := st.GetRun(t.Context(), run.ID)
				q, taken := lastQuestion(as, "review")
				if q.Through != tt.through || taken != (tt.run != "") {
					t.Errorf("answer through %q, taken %v; want %q, %v", q.Through, taken, tt.through, tt.run != "")
				}
				want := strings.ReplaceAll(tt.warned, "RUN", run.ID)
				if len(warned) != min(len(want), 1) || want != "" && !strings.HasPrefix(warned[0], want) {
					t.Errorf("warned %q, want %q", warned, want)
				}
			})
		}
	})
}

// TestSchedulerContinuesWaiting: the scheduler holding the lease applies the deadlines of the
// waiting runs of its DAGs at its clock's now, with no command touching them; a run of a DAG
// it does not schedule is left alone.
func TestSchedulerContinuesWaiting(t *testing.T) {
	st := openStore(t, t.TempDir()+"/seam.db")
	s := newService(t, st, i18n.English)
	dir := t.TempDir()
	d := load(t, dir, "gate.yaml", deadlineDAG)
	other := load(t, dir, "other.yaml", strings.Replace(deadlineDAG, "name: gate", "name: other", 1))
	var ids []string
	for _, d := range []*dag.DAG{d, other} {
		run, err := s.Start(t.Context(), d, Request{})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, run)
		ids = append(ids, run.ID)
	}
	clock := &testClock{t: openedAt(t, st, ids[0]).Add(30 * time.Minute)}
	sc := newScheduler(t, s, "one", clock, d)
	tests := []struct {
		name       string
		at         time.Duration // past the opening
		gate, othr dag.RunStatus
	}{
		{"before the deadline", 30 * time.Minute, dag.RunWaiting, dag.RunWaiting},
		{"past it", 2 * time.Hour, dag.RunFailed, dag.RunWaiting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock.set(openedAt(t, st, ids[0]).Add(tt.at))
			if active, _ := tick(t, sc); !active {
				t.Fatal("the scheduler did not take the lease")
			}
			if got := becomes(t, st, ids[0], tt.gate); got != tt.gate {
				t.Errorf("gate's run %s, want %s", got, tt.gate)
			}
			if got := becomes(t, st, ids[1], tt.othr); got != tt.othr {
				t.Errorf("other's run %s, want %s", got, tt.othr)
			}
		})
	}
}

// becomes is run id's status once it is want, or what it is after a while: the run a tick
// resumed goes on, on a goroutine of its own.
func becomes(t *testing.T, st runs.Store, id string, want dag.RunStatus) dag.RunStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		r, _, err := st.GetRun(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == want {
			return r.Status
		}
		select {
		case <-ctx.Done():
			return r.Status
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestObserveApprovals: the gauge seam.approvals.open counts the open approvals of the
// store's waiting runs by their age at collection; an answered one is no longer counted.
func TestObserveApprovals(t *testing.T) {
	st := openStore(t, t.TempDir()+"/seam.db")
	s := newService(t, st, i18n.English)
	d := load(t, t.TempDir(), "gate.yaml", deadlineDAG)
	run, err := s.Start(t.Context(), d, Request{})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, run)
	clock := &testClock{}
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	stop, err := s.ObserveApprovals(mp.Meter("seam"), clock)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	tests := []struct {
		name   string
		after  time.Duration
		answer bool
		want   map[string]int64
	}{
		{"just opened", time.Minute, false, map[string]int64{"under_1h": 1, "under_1d": 0, "under_1w": 0, "over_1w": 0}},
		{"a day old", 30 * time.Hour, false, map[string]int64{"under_1h": 0, "under_1d": 0, "under_1w": 1, "over_1w": 0}},
		{"answered", time.Minute, true, map[string]int64{"under_1h": 0, "under_1d": 0, "under_1w": 0, "over_1w": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.answer {
				if _, _, err := st.AnswerApproval(t.Context(), run.ID, "review", dag.ApprovalRecord{Answer: map[string]any{"decision": "approve"}}); err != nil {
					t.Fatal(err)
				}
			}
			clock.set(openedAt(t, st, run.ID).Add(tt.after))
			var rm metricdata.ResourceMetrics
			if err := reader.Collect(t.Context(), &rm); err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if g, ok := m.Data.(metricdata.Gauge[int64]); ok && m.Name == "seam.approvals.open" {
						for _, p := range g.DataPoints {
							age, _ := p.Attributes.Value("seam.age")
							got[age.AsString()] = p.Value
						}
					}
				}
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("seam.approvals.open %v, want %v", got, tt.want)
			}
		})
	}
}
