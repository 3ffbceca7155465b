package service

import (
	"strings"
	"testing"
	"time"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/runs"
)

// scheduledHourly is hourlyDAG with params made of the scheduled time, and a webhook.
const scheduledHourly = hourlyDAG + `    params: {since: "${{ trigger.scheduled_time }}"}
  push:
    webhook: {}
    params: {since: "${{ trigger.body.since }}"}
`

// TestBackfill: a backfill starts each time of the range that has no decision, one after the
// other, each recorded with who backfilled; a time the scheduler decided, or a backfill
// repeated, starts nothing.
func TestBackfill(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		d := load(t, t.TempDir(), "hourly.yaml", scheduledHourly)
		clock := &testClock{t: hour(9).Add(30 * time.Minute)}
		svc := newService(t, st, "en")
		sc := newScheduler(t, svc, "a", clock, d)
		tick(t, sc)
		clock.set(hour(10).Add(5 * time.Second))
		if _, made := tick(t, sc); made != "10:00 start" {
			t.Fatalf("scheduler made %q", made)
		}
		ctx := auth.With(t.Context(), &auth.Principal{Name: "alice"})
		_, text, err := svc.BackfillText(ctx, d, "tick", "2026-05-04T07:00:00Z", "2026-05-04T10:00:00Z", hour(10).Add(30*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(text), "\n")
		want := []string{"2026-05-04T07:00:00Z  run ", "2026-05-04T08:00:00Z  run ", "2026-05-04T09:00:00Z  run ", "2026-05-04T10:00:00Z  decided already: nothing started"}
		if len(lines) != len(want) {
			t.Fatalf("backfill said:\n%s", text)
		}
		for i, w := range want {
			if !strings.HasPrefix(lines[i], w) || (strings.HasSuffix(w, "run ") && !strings.HasSuffix(lines[i], " success")) {
				t.Errorf("line %d: %q, want %q…", i, lines[i], w)
			}
		}
		_, again, err := svc.BackfillText(ctx, d, "tick", "2026-05-04T07:00:00Z", "2026-05-04T09:00:00Z", hour(10).Add(30*time.Minute))
		if err != nil || strings.Count(again, "decided already") != 3 {
			t.Errorf("repeated backfill: %v\n%s", err, again)
		}
		wantHistory := `10:00 started {"since":"2026-05-04T10:00:00Z"}
09:00 started {"since":"2026-05-04T09:00:00Z"} (backfill by alice)
08:00 started {"since":"2026-05-04T08:00:00Z"} (backfill by alice)
07:00 started {"since":"2026-05-04T07:00:00Z"} (backfill by alice)`
		if got := history(t, st, "hourly", "tick"); got != wantHistory {
			t.Errorf("history:\n%s\nwant\n%s", got, wantHistory)
		}
	})
}

// TestFireNow: a trigger fired by hand runs with the params of its time, is recorded as a
// manual fire naming who asked, and leaves the schedule's times to the scheduler, the one
// just before it included.
func TestFireNow(t *testing.T) {
	eachBackend(t, func(t *testing.T, st runs.Store) {
		d := load(t, t.TempDir(), "hourly.yaml", scheduledHourly)
		clock := &testClock{t: hour(9).Add(30 * time.Minute)}
		svc := newService(t, st, "en")
		sc := newScheduler(t, svc, "a", clock, d)
		tick(t, sc)
		ctx := auth.With(t.Context(), &auth.Principal{Name: "alice"})
		f, err := svc.FireNow(ctx, d, "tick", hour(10).Add(2*time.Second))
		if err != nil || f.Status != "success" || f.RunID == "" {
			t.Fatalf("fire: %+v %v", f, err)
		}
		clock.set(hour(10).Add(5 * time.Second))
		if _, made := tick(t, sc); made != "10:00 start" {
			t.Errorf("scheduler after a manual fire made %q, want 10:00 start", made)
		}
		want := `10:00 manual {"since":"2026-05-04T10:00:02Z"} (triggered by alice)
10:00 started {"since":"2026-05-04T10:00:00Z"}`
		if got := history(t, st, "hourly", "tick"); got != want {
			t.Errorf("history:\n%s\nwant\n%s", got, want)
		}
	})
}

// TestFireRefused: what a trigger by hand or a backfill refuses, and why.
func TestFireRefused(t *testing.T) {
	st := backends[0].open(t)
	d := load(t, t.TempDir(), "hourly.yaml", scheduledHourly)
	svc := newService(t, st, "en")
	now := hour(12)
	cases := []struct {
		name     string
		id       string
		from, to string
		want     string
	}{
		{"a webhook", "push", "2026-05-04T07:00:00Z", "2026-05-04T08:00:00Z", "trigger push is a webhook: POST its body to /hooks/hourly/push on seam serve"},
		{"no trigger", "nope", "2026-05-04T07:00:00Z", "2026-05-04T08:00:00Z", `DAG hourly has no trigger "nope" (it has: push, tick)`},
		{"bad from", "tick", "yesterday", "2026-05-04T08:00:00Z", `--from "yesterday": want an RFC 3339 time such as 2026-03-01T00:00:00Z`},
		{"bad to", "tick", "2026-05-04T07:00:00Z", "8am", `--to "8am": want an RFC 3339 time such as 2026-03-01T00:00:00Z`},
		{"reversed", "tick", "2026-05-04T08:00:00Z", "2026-05-04T07:00:00Z", "--to 2026-05-04T07:00:00Z is before --from 2026-05-04T08:00:00Z"},
		{"future", "tick", "2026-05-04T07:00:00Z", "2026-05-04T13:00:00Z", "--to 2026-05-04T13:00:00Z is in the future: a backfill starts past times, the scheduler the ones to come"},
		{"too many", "tick", "2026-01-01T00:00:00Z", "2026-05-04T08:00:00Z", "from 2026-01-01T00:00:00Z to 2026-05-04T08:00:00Z trigger tick has more than 1000 times: backfill a shorter range at a time"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := svc.BackfillText(t.Context(), d, c.id, c.from, c.to, now)
			if err == nil || err.Error() != c.want {
				t.Errorf("backfill: %v\nwant %s", err, c.want)
			}
		})
	}
	if _, err := svc.FireNow(t.Context(), d, "push", now); err == nil || err.Error() != "trigger push is a webhook: POST its body to /hooks/hourly/push on seam serve" {
		t.Errorf("trigger a webhook: %v", err)
	}
	if n := len(history(t, st, "hourly", "tick")); n != 0 {
		t.Errorf("a refusal recorded fires")
	}
}
