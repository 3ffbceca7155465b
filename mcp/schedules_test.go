package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// scheduledDAG fires every hour with its time as params, and on a webhook.
const scheduledDAG = `version: 1
name: hourly
params:
  type: object
  required: [since]
  properties:
    since: {type: string}
nodes:
  a:
    type: transform
    input: {since: "${{ params.since }}"}
    with: {program: '{status: "pass", summary: .since}'}
triggers:
  tick:
    every: 1h
    params: {since: "${{ trigger.scheduled_time }}"}
  push:
    webhook: {body: {type: object, required: [since], properties: {since: {type: string}}}}
    params: {since: "${{ trigger.body.since }}"}
`

// scheduleRoot is a root holding hourly.yaml.
func scheduleRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hourly.yaml"), []byte(scheduledDAG), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestScheduleTools: every schedule tool over a client session, compact and raw, and each
// of their refusals with its message.
func TestScheduleTools(t *testing.T) {
	_, cs := serve(t, Options{Root: scheduleRoot(t), Store: tempStore(t), Lang: i18n.English}, nil)
	tick := func(more map[string]any) map[string]any {
		args := map[string]any{"path": "hourly.yaml", "trigger": "tick"}
		for k, v := range more {
			args[k] = v
		}
		return args
	}
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		code    string // "" for success
		message string // the whole message
		check   func(t *testing.T, d map[string]any)
	}{
		{"list", "list_schedules", map[string]any{}, "", "2 triggers under the root", func(t *testing.T, d map[string]any) {
			ss, _ := d["schedules"].([]any)
			if num(d, "count") != 2 || len(ss) != 2 {
				t.Fatalf("data %v", d)
			}
			tick, push := ss[0].(map[string]any), ss[1].(map[string]any)
			if push["kind"] != "webhook" || push["next"] != nil || tick["kind"] != "every" || tick["next"] == nil || tick["file"] != nil {
				t.Errorf("compact: %v %v", push, tick)
			}
		}},
		{"list raw", "list_schedules", map[string]any{"raw": true}, "", "2 triggers under the root", func(t *testing.T, d map[string]any) {
			tick := d["schedules"].([]any)[0].(map[string]any)
			if tick["file"] != "hourly.yaml" || tick["spec"] != "1h0m0s" {
				t.Errorf("raw: %v", tick)
			}
		}},
		{"next", "next_fires", tick(map[string]any{"count": 2, "after": "2026-05-04T10:30:00Z"}), "", "the next 2 times of hourly tick", func(t *testing.T, d map[string]any) {
			if ts, _ := d["times"].([]any); !slices.Equal(ts, []any{"2026-05-04T11:00:00Z", "2026-05-04T12:00:00Z"}) {
				t.Errorf("times %v", d["times"])
			}
		}},
		{"next, count too large", "next_fires", tick(map[string]any{"count": 101}), CodeInvalidArgument, "count 101: want 1 to 100", nil},
		{"next, after not a time", "next_fires", tick(map[string]any{"after": "tomorrow"}), CodeInvalidArgument, `after "tomorrow": want an RFC 3339 time such as 2026-03-01T00:00:00Z`, nil},
		{"next of a webhook", "next_fires", map[string]any{"path": "hourly.yaml", "trigger": "push"}, CodeInvalidArgument, "trigger push is a webhook: it has no times", nil},
		{"unknown trigger", "next_fires", map[string]any{"path": "hourly.yaml", "trigger": "nope"}, CodeNotFound, `DAG hourly has no trigger "nope" (it has: push, tick)`, nil},
		{"no path", "schedule_history", map[string]any{"path": "", "trigger": "tick"}, CodeInvalidArgument, "path is empty: give a DAG file under the root (list_schedules lists the triggers)", nil},
		{"no trigger", "schedule_history", map[string]any{"path": "hourly.yaml", "trigger": ""}, CodeInvalidArgument, "trigger is empty: give the id of one of the DAG's triggers (list_schedules lists them)", nil},
		{"file outside the root", "pause_schedule", map[string]any{"path": "../x.yaml", "trigger": "tick", "note": "n"}, CodeOutsideRoot, `path "../x.yaml" is outside the root: name a file under it`, nil},
		{"pause without a note", "pause_schedule", tick(map[string]any{"note": ""}), CodeInvalidArgument, "note is empty: say why the schedule is paused (it is recorded with its missed times)", nil},
		{"pause", "pause_schedule", tick(map[string]any{"note": "warehouse migration"}), "", "hourly tick paused: its times are missed until resume_schedule", nil},
		{"listed paused", "list_schedules", map[string]any{"raw": true}, "", "2 triggers under the root", func(t *testing.T, d map[string]any) {
			tick := d["schedules"].([]any)[0].(map[string]any)
			if tick["paused"] != true || tick["note"] != "warehouse migration" || tick["paused_by"] == "" {
				t.Errorf("paused: %v", tick)
			}
		}},
		{"resume", "resume_schedule", tick(nil), "", "hourly tick resumed", nil},
		{"trigger", "trigger_schedule", tick(nil), "", "", func(t *testing.T, d map[string]any) {
			if d["run_id"] == "" || d["status"] != "success" {
				t.Errorf("data %v", d)
			}
		}},
		{"trigger a webhook", "trigger_schedule", map[string]any{"path": "hourly.yaml", "trigger": "push"}, CodeInvalidArgument, "trigger push is a webhook: POST its body to /hooks/hourly/push on seam serve", nil},
		{"backfill", "backfill_schedule", tick(map[string]any{"from": "2026-05-04T06:00:00Z", "to": "2026-05-04T09:00:00Z"}), "", "hourly tick backfilled: 4 runs started, 0 decided already", func(t *testing.T, d map[string]any) {
			if fired, _ := d["fired"].([]any); num(d, "started") != 4 || len(fired) != minimalFired {
				t.Errorf("compact: %v", d)
			}
		}},
		{"backfill again, raw", "backfill_schedule", tick(map[string]any{"from": "2026-05-04T06:00:00Z", "to": "2026-05-04T09:00:00Z", "raw": true}), "", "hourly tick backfilled: 0 runs started, 4 decided already", func(t *testing.T, d map[string]any) {
			if fired, _ := d["fired"].([]any); len(fired) != 4 {
				t.Errorf("raw: %v", d)
			}
		}},
		{"backfill bad from", "backfill_schedule", tick(map[string]any{"from": "monday", "to": "2026-05-04T09:00:00Z"}), CodeInvalidArgument, `--from "monday": want an RFC 3339 time such as 2026-03-01T00:00:00Z`, nil},
		{"backfill into the future", "backfill_schedule", tick(map[string]any{"from": "2026-05-04T06:00:00Z", "to": "2999-01-01T00:00:00Z"}), CodeInvalidArgument, "--to 2999-01-01T00:00:00Z is in the future: a backfill starts past times, the scheduler the ones to come", nil},
		{"history", "schedule_history", tick(nil), "", "5 decisions of hourly tick", func(t *testing.T, d map[string]any) {
			fs, _ := d["fires"].([]any)
			first, _ := fs[0].(map[string]any)
			if len(fs) != 5 || first["decision"] != "manual" || first["run"] == nil || first["note"] != nil || first["decided_at"] != nil {
				t.Errorf("compact: %v", d)
			}
		}},
		{"history raw", "schedule_history", tick(map[string]any{"raw": true, "limit": 2}), "", "2 decisions of hourly tick", func(t *testing.T, d map[string]any) {
			first := d["fires"].([]any)[0].(map[string]any)
			if !strings.HasPrefix(first["note"].(string), "triggered by ") || first["decided_at"] == nil {
				t.Errorf("raw: %v", first)
			}
		}},
		{"history limit", "schedule_history", tick(map[string]any{"limit": 1001}), CodeInvalidArgument, "limit 1001: want 1 to 1000", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, tc.tool, tc.args)
			if got := errCode(r); got != tc.code {
				t.Fatalf("code %q, want %q: %v", got, tc.code, r.env)
			}
			if msg := r.env["message"].(string); tc.message != "" && msg != tc.message {
				t.Errorf("message %q, want %q", msg, tc.message)
			}
			if tc.check != nil {
				tc.check(t, r.data())
			}
		})
	}
}

// TestScheduleToolsReadOnly: a read-only server lists schedules, their times and history,
// and offers none of the tools that pause, resume, fire or backfill; without a store every
// schedule tool says so.
func TestScheduleToolsReadOnly(t *testing.T) {
	_, cs := serve(t, Options{Root: scheduleRoot(t), Store: tempStore(t), ReadOnly: true}, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		if strings.Contains(tool.Name, "schedule") || tool.Name == "next_fires" {
			names = append(names, tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"list_schedules", "next_fires", "schedule_history"}; !slices.Equal(names, want) {
		t.Errorf("read-only schedule tools %v, want %v", names, want)
	}
	_, none := serve(t, Options{Root: scheduleRoot(t)}, nil)
	for tool, args := range map[string]map[string]any{
		"list_schedules":   {},
		"schedule_history": {"path": "hourly.yaml", "trigger": "tick"},
		"pause_schedule":   {"path": "hourly.yaml", "trigger": "tick", "note": "n"},
	} {
		r := call(t, none, tool, args)
		if errCode(r) != CodeNoStore || r.env["message"] != "this server has no run store: start it with --store" {
			t.Errorf("%s without a store: %v", tool, r.env)
		}
	}
}
