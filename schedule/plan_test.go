package schedule

import (
	"strings"
	"testing"
	"time"
)

// hourly fires on the hour (UTC); the plans below are made at 10:00:05 after a cursor.
var hourly = Interval(time.Hour)

func at(h, m int) time.Time { return time.Date(2026, 5, 4, h, m, 0, 0, time.UTC) }

func planText(ds []Decision) string {
	var b []string
	for _, d := range ds {
		s := d.Time.UTC().Format("15:04") + " " + string(d.Action)
		if d.Note != "" {
			s += " (" + d.Note + ")"
		}
		b = append(b, s)
	}
	return strings.Join(b, "\n")
}

// TestPlanCatchup: after downtime, the times within the window run by catchup's rule, and
// those outside are missed.
func TestPlanCatchup(t *testing.T) {
	now := at(10, 0).Add(5 * time.Second)
	tests := []struct {
		name   string
		p      Policy
		cursor time.Time
		want   string
	}{
		{"on time", Policy{Window: time.Minute}, at(9, 0), "10:00 start"},
		{"nothing due", Policy{Window: time.Minute}, at(10, 0), ""},
		{"latest within the window", Policy{Window: 3 * time.Hour, Runs: CatchupLatest}, at(5, 30),
			"06:00 miss (seen 4h0m5s late, outside the 3h0m0s window)\n" +
				"07:00 miss (seen 3h0m5s late, outside the 3h0m0s window)\n" +
				"08:00 miss (superseded by 2026-05-04T10:00:00Z (catchup runs latest))\n" +
				"09:00 miss (superseded by 2026-05-04T10:00:00Z (catchup runs latest))\n" +
				"10:00 start"},
		{"all within the window, one at a time under skip", Policy{Window: 3 * time.Hour, Runs: CatchupAll}, at(7, 30),
			"08:00 start\n09:00 skip (a run of the trigger is going)\n10:00 skip (a run of the trigger is going)"},
		{"all within the window, all at once", Policy{Window: 3 * time.Hour, Runs: CatchupAll, Overlap: OverlapAllowAll}, at(7, 30),
			"08:00 start\n09:00 start\n10:00 start"},
		{"all, buffered: one starts, the next waits", Policy{Window: 3 * time.Hour, Runs: CatchupAll, Overlap: OverlapBufferAll}, at(7, 30),
			"08:00 start\n09:00 wait"},
		{"none: only the time on time", Policy{Window: 6 * time.Hour, Runs: CatchupNone}, at(7, 30),
			"08:00 miss (missed while no scheduler ran; catchup runs none)\n09:00 miss (missed while no scheduler ran; catchup runs none)\n10:00 start"},
		{"none: the latest is late too", Policy{Window: 6 * time.Hour, Runs: CatchupNone}, at(8, 30),
			"09:00 miss (missed while no scheduler ran; catchup runs none)\n10:00 start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := planText(Plan(hourly, tt.p, State{Cursor: tt.cursor}, now)); got != tt.want {
				t.Errorf("plan:\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	// catchup none, seen late: nothing runs.
	if got := planText(Plan(hourly, Policy{Window: time.Hour, Runs: CatchupNone}, State{Cursor: at(9, 30)}, at(10, 5))); got != "10:00 miss (missed while no scheduler ran; catchup runs none)" {
		t.Errorf("none, seen 5 minutes late: %s", got)
	}
}

// superseded is the 09:00 time that catchup latest leaves for 10:00.
const superseded = "09:00 miss (superseded by 2026-05-04T10:00:00Z (catchup runs latest))\n"

// TestPlanOverlap: a time due while a run of the trigger is still going, by each policy.
func TestPlanOverlap(t *testing.T) {
	now := at(10, 0).Add(5 * time.Second)
	tests := []struct {
		overlap string
		running int
		runs    string
		want    string
	}{
		{OverlapSkip, 1, CatchupLatest, superseded + "10:00 skip (1 run of the trigger is still going)"},
		{OverlapSkip, 0, CatchupLatest, superseded + "10:00 start"},
		{OverlapAllowAll, 2, CatchupLatest, superseded + "10:00 start"},
		{OverlapBufferOne, 1, CatchupLatest, superseded + "10:00 wait"},
		{OverlapBufferOne, 1, CatchupAll, "09:00 wait\n10:00 skip (1 run of the trigger is still going; the buffer holds 2026-05-04T09:00:00Z already)"},
		{OverlapBufferOne, 0, CatchupAll, "09:00 start\n10:00 wait"},
		{OverlapBufferAll, 1, CatchupAll, "09:00 wait"},
		{OverlapCancelOther, 2, CatchupLatest, superseded + "10:00 cancel (2 runs of the trigger are still going: canceled)"},
		{OverlapCancelOther, 1, CatchupAll, "09:00 skip (superseded: only the latest time runs under cancel_other)\n10:00 cancel (1 run of the trigger is still going: canceled)"},
		{OverlapCancelOther, 0, CatchupLatest, superseded + "10:00 start"},
	}
	for _, tt := range tests {
		t.Run(tt.overlap+"/"+tt.runs, func(t *testing.T) {
			p := Policy{Window: 2 * time.Hour, Runs: tt.runs, Overlap: tt.overlap}
			if got := planText(Plan(hourly, p, State{Cursor: at(8, 30), Running: tt.running}, now)); got != tt.want {
				t.Errorf("running %d:\n%s\nwant\n%s", tt.running, got, tt.want)
			}
		})
	}
}

// TestPlanWaiting: under buffer_one the first time due while a run goes waits, as on
// Temporal: it starts once nothing goes, the times due while it waits are dropped, and it
// still counts against the window.
func TestPlanWaiting(t *testing.T) {
	now := at(11, 0).Add(5 * time.Second)
	st := State{Cursor: at(10, 0), Waiting: at(9, 0)} // 10:00 was skipped while 09:00 waited
	tests := []struct {
		name    string
		p       Policy
		running int
		want    string
	}{
		{"still going", Policy{Window: 3 * time.Hour, Overlap: OverlapBufferOne}, 1,
			"09:00 wait\n11:00 skip (1 run of the trigger is still going; the buffer holds 2026-05-04T09:00:00Z already)"},
		{"ended", Policy{Window: 3 * time.Hour, Overlap: OverlapBufferOne}, 0,
			"09:00 start\n11:00 wait"},
		{"catch-up latest does not supersede it", Policy{Window: 3 * time.Hour, Runs: CatchupLatest, Overlap: OverlapBufferOne}, 0,
			"09:00 start\n11:00 wait"},
		{"past the window", Policy{Window: time.Hour, Overlap: OverlapBufferOne}, 0,
			"09:00 miss (waited 2h0m5s for the run going, past the 1h0m0s window)\n11:00 start"},
		{"no buffer but buffer_one's", Policy{Window: 3 * time.Hour, Overlap: OverlapSkip}, 0, "11:00 start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := st
			st.Running = tt.running
			if got := planText(Plan(hourly, tt.p, st, now)); got != tt.want {
				t.Errorf("plan:\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestPlanDST: across both changes a fixed daily time is planned once, as Next gives it.
func TestPlanDST(t *testing.T) {
	loc := mustLoc(t, "Europe/Berlin")
	c, err := ParseCron("30 2 * * *", loc)
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Window: 48 * time.Hour, Runs: CatchupAll, Overlap: OverlapAllowAll}
	tests := []struct{ name, cursor, now, want string }{
		{"spring forward", "2026-03-28T12:00:00Z", "2026-03-30T12:00:00Z", "01:00 start\n00:30 start"},
		{"fall back", "2026-10-24T12:00:00Z", "2026-10-26T12:00:00Z", "00:30 start\n01:30 start"},
	}
	for _, tt := range tests {
		if got := planText(Plan(c, p, State{Cursor: rfc(t, tt.cursor)}, rfc(t, tt.now))); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

// TestPlanJitter: a time is due only once its jitter passed; the jitter is the same for the
// same time, and within the bound.
func TestPlanJitter(t *testing.T) {
	p := Policy{Window: time.Hour, Jitter: 2 * time.Minute, Key: "nightly/nightly"}
	j := p.JitterOf(at(10, 0))
	if j != p.JitterOf(at(10, 0)) || j < 0 || j >= 2*time.Minute {
		t.Fatalf("jitter %s", j)
	}
	if j == p.JitterOf(at(11, 0)) && j == p.JitterOf(at(12, 0)) {
		t.Errorf("jitter %s for every time", j)
	}
	if got := planText(Plan(hourly, p, State{Cursor: at(9, 30)}, at(10, 0).Add(j-time.Nanosecond))); got != "" {
		t.Errorf("before its jitter: %s", got)
	}
	if got := planText(Plan(hourly, p, State{Cursor: at(9, 30)}, at(10, 0).Add(j))); got != "10:00 start" {
		t.Errorf("at its jitter: %s", got)
	}
}
