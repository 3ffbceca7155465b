package dag

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// trigHead is a DAG with one node; triggers start on line 5.
const trigHead = "version: 1\nname: t\nnodes:\n  a: {type: echo, with: {text: x}}\ntriggers:\n"

func TestLoadTriggers(t *testing.T) {
	d, ds := loadTest(t, trigHead+
		"  nightly:\n    cron: \"0 2 * * *\"\n    timezone: Europe/Berlin\n    catchup: {window: 6h, runs: all}\n    overlap: buffer_one\n    jitter: 2m\n    params: {since: \"${{ trigger.scheduled_time }}\"}\n"+
		"  tick: {every: 10s}\n"+
		"  push:\n    webhook:\n      hmac: {secret_env: GITHUB_SECRET}\n      body: {type: object, required: [after], properties: {after: {type: string}}}\n    key: \"${{ trigger.body.after }}\"\n")
	if ds != nil {
		t.Fatal(ds)
	}
	if len(d.Triggers) != 3 {
		t.Fatalf("Triggers = %d, want 3", len(d.Triggers))
	}
	n, tick, push := d.Triggers[0], d.Triggers[1], d.Triggers[2]
	got := []any{n.ID, n.Pos, n.Cron, n.CronPos, n.Timezone, n.Catchup, n.Overlap, n.Jitter, n.Scheduled(),
		tick.Every, tick.Catchup, tick.Overlap, push.Webhook.SecretEnv, push.Webhook.Header, push.Webhook.Body != nil, push.Scheduled()}
	want := []any{"nightly", Pos{"testdata/t.yaml", 6, 3}, "0 2 * * *", Pos{"testdata/t.yaml", 7, 11}, "Europe/Berlin",
		Catchup{Window: 6 * time.Hour, Runs: CatchupAll}, OverlapBufferOne, 2 * time.Minute, true,
		10 * time.Second, Catchup{Window: DefaultCatchupWindow, Runs: CatchupLatest}, OverlapSkip, "GITHUB_SECRET", "X-Hub-Signature-256", true, false}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("triggers:\n got %v\nwant %v", got, want)
	}
	v, err := n.Params.Eval(&Scope{Trigger: map[string]any{"scheduled_time": "2026-01-01T02:00:00Z"}})
	if err != nil || !reflect.DeepEqual(v, map[string]any{"since": "2026-01-01T02:00:00Z"}) {
		t.Errorf("params = %v, %v", v, err)
	}
	k, err := push.Key.Eval(&Scope{Trigger: map[string]any{"body": map[string]any{"after": "abc"}}})
	if err != nil || k != "abc" {
		t.Errorf("key = %v, %v", k, err)
	}
}

func TestLoadTriggerErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{{
		name: "neither cron nor every nor webhook",
		src:  trigHead + "  x: {timezone: UTC}\n",
		want: []string{"6:3 SEAM-E113 trigger \"x\" needs exactly one of cron, every and webhook, got 0\n" +
			"  fix: give one of `cron: \"0 2 * * *\"`, `every: 10m` or `webhook: {}`"},
	}, {
		name: "two kinds",
		src:  trigHead + "  x: {cron: \"* * * * *\", every: 1m}\n",
		want: []string{"6:3 SEAM-E113 trigger \"x\" needs exactly one of cron, every and webhook, got 2\n" +
			"  fix: give one of `cron: \"0 2 * * *\"`, `every: 10m` or `webhook: {}`"},
	}, {
		name: "every below a second",
		src:  trigHead + "  x: {every: 500ms}\n",
		want: []string{"6:14 SEAM-E108 trigger \"x\": every must be a whole number of seconds, at least 1s, not 500ms\n" +
			"  fix: use whole seconds, from 1s up, e.g. `every: 10s`"},
	}, {
		name: "a bad id and an unknown key",
		src:  trigHead + "  Nightly: {cron: \"0 2 * * *\", tz: UTC}\n",
		want: []string{"6:3 SEAM-E103 bad trigger id \"Nightly\": ids are a lowercase letter followed by lowercase letters, digits, _ or -\n  fix: rename it to \"nightly\"",
			"6:32 SEAM-E101 unknown key \"tz\" in trigger \"Nightly\"; did you mean \"timezone\"?\n  fix: rename it to \"timezone\""},
	}, {
		name: "bad overlap and catchup",
		src:  trigHead + "  x:\n    cron: \"0 2 * * *\"\n    overlap: queue\n    catchup: {runs: every}\n",
		want: []string{"8:14 SEAM-E113 trigger \"x\" overlap must be one of skip, buffer_one, buffer_all, cancel_other, allow_all, not \"queue\"\n  fix: use one of: skip, buffer_one, buffer_all, cancel_other, allow_all",
			"9:21 SEAM-E113 trigger \"x\" catchup.runs must be one of latest, all, none, not \"every\"\n  fix: use one of: latest, all, none"},
	}, {
		name: "schedule keys on a webhook, key on a schedule",
		src:  trigHead + "  w: {webhook: {}, jitter: 1m}\n  s: {every: 1m, key: x}\n",
		want: []string{"6:20 SEAM-E113 trigger \"w\": jitter applies to schedules (cron or every), not to a webhook\n  fix: remove jitter: a webhook starts a run when a request comes",
			"7:18 SEAM-E113 trigger \"s\": key applies to webhooks, not to a schedule\n  fix: remove key: a schedule's runs are told apart by their scheduled time"},
	}, {
		name: "hmac without a secret, a bad variable name",
		src:  trigHead + "  w: {webhook: {hmac: {header: X-Sig}}}\n  v: {webhook: {hmac: {secret_env: 9X}}}\n",
		want: []string{"6:17 SEAM-E113 trigger \"w\": webhook.hmac needs secret_env\n  fix: add `secret_env: NAME`, the variable that holds the shared secret",
			"7:36 SEAM-E113 trigger \"v\": \"9X\" is not an environment variable's name\n  fix: name an environment variable: letters, digits and _, not starting with a digit"},
	}, {
		name: "a trigger's params read params",
		src:  "version: 1\nname: t\nparams: {type: object}\nnodes:\n  a: {type: echo, with: {text: x}}\ntriggers:\n  x: {every: 1m, params: {p: \"${{ params.p }}\"}}\n",
		want: []string{"7:35 SEAM-E113 trigger \"x\": params is not there before the run starts; a trigger reads only trigger.*\n  fix: read trigger.scheduled_time (a schedule) or trigger.body (a webhook)"},
	}, {
		name: "a node reads trigger",
		src:  head + "  a: {type: echo, with: {text: \"${{ trigger.scheduled_time }}\"}}\n",
		want: []string{"4:37 SEAM-E113 node \"a\": trigger is read only in a trigger's params and key\n  fix: pass it through a trigger's params: `params: {since: \"${{ trigger.scheduled_time }}\"}`, then read params.since"},
	}, {
		name: "an output reads trigger",
		src:  head + "  a: {type: echo, with: {text: x}}\noutputs:\n  o: \"${{ trigger.body }}\"\n",
		want: []string{"6:11 SEAM-E113 output \"o\": trigger is read only in a trigger's params and key\n  fix: pass it through a trigger's params: `params: {since: \"${{ trigger.scheduled_time }}\"}`, then read params.since"},
	}, {
		name: "not a mapping",
		src:  trigHead[:len(trigHead)-1] + " [a]\n",
		want: []string{"5:11 SEAM-E113 triggers must be a mapping of trigger ids, not a list\n  fix: write `<id>: {cron: \"0 2 * * *\"}` lines"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := loadTest(t, tt.src)
			var got []string
			for _, d := range ds {
				got = append(got, brief(d)+"\n  fix: "+d.Hint)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
