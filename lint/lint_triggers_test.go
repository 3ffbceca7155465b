package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// trigDAG has a params schema (lines 3-7: since, a date-time, required; limit, an integer)
// and one node; its triggers start on line 10.
const trigDAG = `version: 1
name: t
params:
  type: object
  required: [since]
  properties:
    since: {type: string, format: date-time}
    limit: {type: integer}
nodes:
  a: {type: const, with: {value: {status: pass, summary: ok}}}
triggers:
`

// TestLintTriggers: a trigger's cron and zone parse, it reads what it provides, and its
// params are proved against the params schema with the trigger as the producer.
func TestLintTriggers(t *testing.T) {
	tests := []struct {
		name, trigger string
		want          []string
	}{
		{"scheduled time fits a date-time", `  n: {cron: "0 2 * * *", timezone: Europe/Berlin, params: {since: "${{ trigger.scheduled_time }}"}}`, nil},
		{"an interval", `  n: {every: 10s, params: {since: "${{ trigger.scheduled_time }}", limit: 5}}`, nil},
		{"a body whose contract fits", `  w:
    webhook: {body: {type: object, required: [after], properties: {after: {type: string, format: date-time}}}}
    key: "${{ trigger.body.after }}"
    params: {since: "${{ trigger.body.after }}"}`, nil},
		{"cron that does not parse", `  n: {cron: "0 25 * * *", params: {since: "${{ trigger.scheduled_time }}"}}`, []string{
			`testdata/t.yaml:12:13: error SEAM-E330 trigger n: cron "0 25 * * *" does not parse: "0 25 * * *": end of range (25) above maximum (23): 25` +
				"\n  fix: write five fields, minute hour day-of-month month day-of-week (\"0 2 * * *\"), or @hourly, @daily, @weekly, @monthly, @yearly; an interval is every: 10m"}},
		{"four fields", `  n: {cron: "0 2 * *", params: {since: "${{ trigger.scheduled_time }}"}}`, []string{
			`testdata/t.yaml:12:13: error SEAM-E330 trigger n: cron "0 2 * *" does not parse: want 5 fields (minute hour day-of-month month day-of-week), got 4 in "0 2 * *"` +
				"\n  fix: write five fields, minute hour day-of-month month day-of-week (\"0 2 * * *\"), or @hourly, @daily, @weekly, @monthly, @yearly; an interval is every: 10m"}},
		{"unknown zone", `  n: {cron: "0 2 * * *", timezone: Europe/Berlim, params: {since: "${{ trigger.scheduled_time }}"}}`, []string{
			`testdata/t.yaml:12:36: error SEAM-E331 trigger n: unknown time zone "Europe/Berlim"` +
				"\n  fix: name an IANA zone such as Europe/Berlin or America/New_York, or leave timezone out for UTC"}},
		{"the machine's zone", `  n: {every: 1m, timezone: Local, params: {since: "${{ trigger.scheduled_time }}"}}`, []string{
			`testdata/t.yaml:12:28: error SEAM-E331 trigger n: time zone Local is the zone of whichever machine runs the scheduler` +
				"\n  fix: name an IANA zone such as Europe/Berlin or America/New_York, or leave timezone out for UTC"}},
		{"a required param missing", `  n: {cron: "0 2 * * *", params: {limit: 5}}`, []string{
			`testdata/t.yaml:12:26: error SEAM-E332 trigger n may make params {"limit":5}, which the params schema rejects: missing required field: since` +
				"\n  fix: give the trigger params the params schema accepts (the values it reads from trigger.* included), or widen the params schema"}},
		{"no params at all", `  n: {cron: "0 2 * * *"}`, []string{
			`testdata/t.yaml:12:3: error SEAM-E332 trigger n may make params {}, which the params schema rejects: missing required field: since` +
				"\n  fix: give the trigger params the params schema accepts (the values it reads from trigger.* included), or widen the params schema"}},
		{"a literal of the wrong type", `  n: {cron: "0 2 * * *", params: {since: "${{ trigger.scheduled_time }}", limit: "5"}}`, []string{
			`testdata/t.yaml:12:47: error SEAM-E332 trigger n may make params {"limit":"5","since":"2024-01-02T03:04:05Z"}, which the params schema rejects: field 'limit' must be an integer, got string` +
				"\n  fix: give the trigger params the params schema accepts (the values it reads from trigger.* included), or widen the params schema"}},
		{"a body field of the wrong type", `  w:
    webhook: {body: {type: object, required: [n], properties: {n: {type: string}}}}
    params: {since: "2026-01-01T00:00:00Z", limit: "${{ trigger.body.n }}"}`, []string{
			`testdata/t.yaml:14:57: error SEAM-E332 trigger w may make params {"limit":"","since":"2026-01-01T00:00:00Z"}, which the params schema rejects: field 'limit' must be an integer, got string` +
				"\n  fix: give the trigger params the params schema accepts (the values it reads from trigger.* included), or widen the params schema"}},
		{"a webhook reads the scheduled time", `  w: {webhook: {}, params: {since: "${{ trigger.scheduled_time }}"}}`, []string{
			`testdata/t.yaml:12:41: error SEAM-E333 trigger w reads trigger.scheduled_time, which it does not provide: a webhook provides trigger.body` +
				"\n  fix: read trigger.body"}},
		{"a schedule reads a body", `  n: {every: 1m, params: {since: "${{ trigger.body.x }}"}}`, []string{
			`testdata/t.yaml:12:39: error SEAM-E333 trigger n reads trigger.body, which it does not provide: a schedule provides trigger.scheduled_time` +
				"\n  fix: read trigger.scheduled_time"}},
		{"catch up all without the time", `  n: {cron: "0 2 * * *", catchup: {runs: all}, params: {since: "2026-01-01T00:00:00Z"}}`, []string{
			`testdata/t.yaml:12:3: warning SEAM-W313 trigger n catches up every missed time, but its params do not read trigger.scheduled_time: each catch-up run processes the same as a run on time` +
				"\n  fix: pass the time in params, e.g. `params: {since: \"${{ trigger.scheduled_time }}\"}`, or catch up only the latest time: `catchup: {runs: latest}`"}},
		{"catch up all, reading the time", `  n: {cron: "0 2 * * *", catchup: {runs: all}, params: {since: "${{ trigger.scheduled_time }}"}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ds := loadTest(t, trigDAG+tt.trigger+"\n")
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Code != CodeNoContract && f.Code != CodeAllReq && f.Code != CodeContent {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLintTriggersJapanese: trigger findings are said in the language asked for.
func TestLintTriggersJapanese(t *testing.T) {
	d, ds := loadTest(t, trigDAG+`  n: {cron: "0 2 * *", timezone: Mars/Base, catchup: {runs: all}, params: {since: "x"}}`+"\n")
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	var got []string
	for _, f := range Lint(context.Background(), d, Options{Lang: i18n.Japanese}) {
		if f.Code == CodeTimezone || f.Code == CodeCatchupAll {
			got = append(got, f.Message)
		}
	}
	want := []string{"トリガー n は見逃した時刻をすべて実行しますが、その params は trigger.scheduled_time を読みません。追いつきのための実行はどれも定刻の実行と同じものを処理します",
		`トリガー n: 不明なタイムゾーン "Mars/Base"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLintTriggerScheduledTime: trigger.scheduled_time is proved as the scheduler makes it,
// a UTC RFC 3339 time of 20 characters, against a params schema's constraints.
func TestLintTriggerScheduledTime(t *testing.T) {
	tests := []struct {
		name, since string
		want        []string
	}{
		{"a date-time", "{type: string, format: date-time}", nil},
		{"as long as the time", "{type: string, minLength: 20, maxLength: 20}", nil},
		{"shorter than the time", "{type: string, maxLength: 19}", []string{
			`testdata/t.yaml:7:40: error SEAM-E332 trigger n may make params {"since":"2024-01-02T03:04:05Z"}, which the params schema rejects: field 'since' must have maxLength 19` +
				"\n  fix: give the trigger params the params schema accepts (the values it reads from trigger.* included), or widen the params schema"}},
		{"longer than the time", "{type: string, minLength: 21}", []string{
			`testdata/t.yaml:7:40: error SEAM-E332 trigger n may make params {"since":"2024-01-02T03:04:05Z"}, which the params schema rejects: field 'since' must have minLength 21` +
				"\n  fix: give the trigger params the params schema accepts (the values it reads from trigger.* included), or widen the params schema"}},
		{"a date", "{type: string, format: date}", []string{
			`testdata/t.yaml:7:40: error SEAM-E332 trigger n may make params {"since":"2024-01-02T03:04:05Z"}, which the params schema rejects: field 'since' must be a valid date` +
				"\n  fix: give the trigger params the params schema accepts (the values it reads from trigger.* included), or widen the params schema"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "version: 1\nname: t\nparams: {type: object, properties: {since: " + tt.since + "}}\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: ok}}}\ntriggers:\n  n: {every: 10s, params: {since: \"${{ trigger.scheduled_time }}\"}}\n"
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{Lang: i18n.English}) {
				got = append(got, f.String())
			}
			if strings.Join(got, "\n---\n") != strings.Join(tt.want, "\n---\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(tt.want, "\n---\n"))
			}
		})
	}
}

// TestLintTriggerBodyReads: a webhook's params and key read its body as a node's input reads
// a producer's output: a member the body contract may leave out is SEAM-E311 (the webhook
// answers 422) unless a has() or != null guard covers it, one it does not declare is
// SEAM-E305 when the contract is closed and SEAM-W301 when it is open.
func TestLintTriggerBodyReads(t *testing.T) {
	const body = "{type: object, required: [a], properties: {a: {type: string}, b: {type: string}, o: {type: [object, 'null'], properties: {c: {type: string}}}}}"
	tests := []struct {
		name, body, key, limit string
		want                   []string
	}{
		{"a required member", body, "", `"${{ size(trigger.body.a) }}"`, nil},
		{"a member not required", body, "", `"${{ size(trigger.body.b) }}"`, []string{
			"testdata/t.yaml:12:226: error SEAM-E311 trigger w reads trigger.body.b, but its body contract accepts a request body without it; the webhook answers such a request 422 and starts no run" +
				"\n  witness: {\"a\":\"\"}\n  fix: require it in the body contract of trigger w, or guard the read: `has(trigger.body.b) ? trigger.body.b : <default>`"}},
		{"the key reads a member not required", body, `"${{ trigger.body.b }}"`, `3`, []string{
			"testdata/t.yaml:12:179: error SEAM-E311 trigger w reads trigger.body.b, but its body contract accepts a request body without it; the webhook answers such a request 422 and starts no run" +
				"\n  witness: {\"a\":\"\"}\n  fix: require it in the body contract of trigger w, or guard the read: `has(trigger.body.b) ? trigger.body.b : <default>`"}},
		{"a member one anyOf branch declares", "{type: object, anyOf: [{required: [x], properties: {x: {type: string}}}, {required: [y], properties: {y: {type: string}}}]}", "", `"${{ size(trigger.body.x) }}"`, []string{
			"testdata/t.yaml:12:206: error SEAM-E311 trigger w reads trigger.body.x, but its body contract accepts a request body without it; the webhook answers such a request 422 and starts no run" +
				"\n  witness: {\"y\":\"\"}" +
				"\n  fix: require it in the body contract of trigger w, or guard the read: `has(trigger.body.x) ? trigger.body.x : <default>`"}},
		{"guarded by has()", body, "", `"${{ has(trigger.body.b) ? size(trigger.body.b) : 0 }}"`, nil},
		{"a member of a member that may be null", body, "", `"${{ has(trigger.body.o) ? size(trigger.body.o.c) : 0 }}"`, []string{
			"testdata/t.yaml:12:248: error SEAM-E311 trigger w reads trigger.body.o.c, but its body contract accepts a request body without it; the webhook answers such a request 422 and starts no run" +
				"\n  witness: {\"a\":\"\",\"o\":null}\n  fix: require it in the body contract of trigger w, or guard the read: `has(trigger.body.o.c) ? trigger.body.o.c : <default>`"}},
		{"guarded by != null and has()", body, "", `"${{ has(trigger.body.o) && trigger.body.o != null && has(trigger.body.o.c) ? size(trigger.body.o.c) : 0 }}"`, nil},
		{"undeclared in a closed contract", "{type: object, additionalProperties: false, required: [a], properties: {a: {type: string}}}", "", `"${{ size(trigger.body.ab) }}"`, []string{
			"testdata/t.yaml:12:174: error SEAM-E305 trigger.body.ab: the body contract of trigger w does not declare ab; did you mean trigger.body.a?" +
				"\n  fix: write trigger.body.a, or declare it in the body contract of trigger w, or reference a field it declares."}},
		{"undeclared in an open contract", "{type: object, required: [a], properties: {a: {type: string}}}", "", `"${{ size(trigger.body.zz) }}"`, []string{
			"testdata/t.yaml:12:145: warning SEAM-W301 trigger.body.zz: the body contract of trigger w does not declare zz (it allows other fields, so it may be there)" +
				"\n  fix: declare it in the body contract of trigger w, or correct the reference."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := ""
			if tt.key != "" {
				key = ", key: " + tt.key
			}
			src := trigDAG + "  w: {webhook: {body: " + tt.body + "}" + key + ", params: {since: \"2026-01-01T00:00:00Z\", limit: " + tt.limit + "}}\n"
			d, ds := loadTest(t, src)
			if ds != nil {
				t.Fatalf("load: %v", ds)
			}
			var got []string
			for _, f := range Lint(context.Background(), d, Options{}) {
				if f.Code != CodeNoContract && f.Code != CodeAllReq && f.Code != CodeContent {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLintTriggerBodyReadsJapanese: the findings on a webhook's body reads are said in the
// language asked for.
func TestLintTriggerBodyReadsJapanese(t *testing.T) {
	d, ds := loadTest(t, trigDAG+`  w: {webhook: {body: {type: object, additionalProperties: false, properties: {a: {type: string}}}}, key: "${{ trigger.body.a }}", params: {since: "${{ trigger.body.b }}"}}`+"\n")
	if ds != nil {
		t.Fatalf("load: %v", ds)
	}
	var got []string
	for _, f := range Lint(context.Background(), d, Options{Lang: i18n.Japanese}) {
		if f.Code == CodeAbsent || f.Code == CodeUndeclared {
			got = append(got, f.Message+"\n"+f.Hint)
		}
	}
	want := []string{
		"トリガー w は trigger.body.a を読みますが、その本文の契約はそれを含まないリクエスト本文を受け付けます。そのようなリクエストに webhook は 422 を返し、実行を開始しません\n" +
			"トリガー w の本文の契約でそれを必須にするか、読み出しをガードしてください: `has(trigger.body.a) ? trigger.body.a : <既定値>`",
		"trigger.body.b: トリガー w の本文の契約は b を宣言していません。trigger.body.a のことですか？\n" +
			"trigger.body.a と書くか、トリガー w の本文の契約で宣言するか、宣言されたフィールドを参照してください。",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
