package promise_test

import (
	"encoding/json"
	"errors"
	"time"

	"pgregory.net/rapid"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/service"
)

// triggerID is the trigger's id (issue 38): lint reports its params at it, as at a consumer.
const triggerID = "tr"

// trigger starts the DAG: a schedule whose params read trigger.scheduled_time, or a webhook
// whose params read trigger.body (of its contract), or literals; and the DAG's params schema
// they are proved against.
type trigger struct {
	kind   string  // cron ("0 2 * * *"), every (10s) or webhook
	body   *schema // webhook: the body's contract, an object of scalars
	makes  omap    // the trigger's params, as written
	params omap    // the DAG's params schema's properties
	needs  []any
}

// paramSchemas are the params the DAG may declare: some a scheduled time (RFC 3339, UTC)
// always fits, some it never fits, some only a run can tell (pattern, lengths).
var paramSchemas = []map[string]any{
	{"type": "string"},
	{"type": "string", "format": "date-time"},
	{"type": "string", "format": "date"},
	{"type": "integer"},
	{"type": "string", "maxLength": 10},
	{"type": "string", "minLength": 20},
	{"type": "string", "pattern": "^[0-9]{4}-"},
	{"enum": []any{"a"}},
}

// genTrigger draws a trigger and the params schema: one or two params, each required or
// not, each made from the scheduled time, in text around it, as a literal, or not at all.
func genTrigger(t *rapid.T) *trigger {
	tr := &trigger{kind: rapid.SampledFrom([]string{"cron", "every", "webhook"}).Draw(t, "tr.kind")}
	if tr.kind == "webhook" {
		tr.body = &schema{kind: "object"}
		for i := range rapid.IntRange(1, 2).Draw(t, "tr.body.members") {
			name := memberNames[i]
			var ds defs // a scalar draws no $defs
			k := rapid.SampledFrom([]string{"integer", "string", "boolean", "number"}).Draw(t, "tr.body."+name+".kind")
			tr.body.props = append(tr.body.props, prop{name: name, required: rapid.Bool().Draw(t, "tr.body."+name+".required"),
				s: genKind(t, &ds, 0, "tr.body."+name, k)})
		}
	}
	for _, name := range []string{"since", "note"}[:rapid.IntRange(1, 2).Draw(t, "tr.params")] {
		s := paramSchemas[rapid.IntRange(0, len(paramSchemas)-1).Draw(t, "tr."+name+".schema")]
		tr.params = append(tr.params, kv{name, flow{s}})
		if rapid.Bool().Draw(t, "tr."+name+".required") {
			tr.needs = append(tr.needs, name)
		}
		value := "trigger.scheduled_time"
		if tr.body != nil {
			value = "trigger.body." + tr.body.props[rapid.IntRange(0, len(tr.body.props)-1).Draw(t, "tr."+name+".member")].name
			if rapid.IntRange(0, 5).Draw(t, "tr."+name+".undeclared") == 0 {
				value = "trigger.body.zz"
			}
		}
		switch rapid.IntRange(0, 4).Draw(t, "tr."+name+".makes") {
		case 0, 1:
			tr.makes = append(tr.makes, kv{name, "${{ " + value + " }}"})
		case 2:
			tr.makes = append(tr.makes, kv{name, "since ${{ " + value + " }}"})
		case 3:
			tr.makes = append(tr.makes, kv{name, "a"})
		}
	}
	return tr
}

// yaml adds the params schema and the trigger to a DAG's document.
func (tr *trigger) yaml(doc omap) omap {
	params := omap{{"type", "object"}, {"properties", tr.params}}
	if len(tr.needs) > 0 {
		params = append(params, kv{"required", tr.needs})
	}
	t := omap{{"cron", "0 2 * * *"}}
	switch tr.kind {
	case "every":
		t = omap{{"every", "10s"}}
	case "webhook":
		t = omap{{"webhook", omap{{"body", flow{tr.body.render(true)}}}}}
	}
	t = append(t, kv{"params", flow{tr.makes}})
	return append(doc, kv{"params", params}, kv{"triggers", omap{{triggerID, t}}})
}

// fire draws what the trigger fires with: for a schedule, a time (a whole 10 s for every,
// 02:00 UTC for the cron, between 2000 and 2099); for a webhook, a body its contract takes.
func (tr *trigger) fire(t *rapid.T, label string) any {
	if tr.body != nil {
		return genValue(t, tr.body, label+".body")
	}
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	day := rapid.IntRange(0, 36500).Draw(t, label+".day")
	at := base.AddDate(0, 0, day).Add(2 * time.Hour)
	if tr.kind == "every" {
		at = base.AddDate(0, 0, day).Add(time.Duration(rapid.IntRange(0, 8639).Draw(t, label+".tick")) * 10 * time.Second)
	}
	return at.Format(time.RFC3339)
}

// triggerParams are the params the DAG's trigger makes of what it fires with
// (values[triggerID]), as the scheduler (service.ScheduledParams) or the webhook
// (service.HookParams) makes them; refused says why a webhook could not make them of its body
// (it answers 422 and starts nothing).
func (h *harness) triggerParams(d *dag.DAG, values map[string]any) (params map[string]any, refused string) {
	if len(d.Triggers) != 1 {
		h.rt.Fatalf("not one trigger\n%s", h.src)
	}
	tr := d.Triggers[0]
	if !tr.Scheduled() {
		b, err := json.Marshal(values[triggerID])
		if err != nil {
			h.rt.Fatal(err)
		}
		body, err := contract.ParseJSON(b) // as the webhook reads a request's body
		if err != nil {
			h.rt.Fatal(err)
		}
		if vs := tr.Webhook.Body.Validate(body, "en"); len(vs) > 0 {
			h.rt.Fatalf("generated body %s is invalid: %v\n%s", b, vs, h.src)
		}
		p, err := service.HookParams(tr, body, "en")
		if err != nil {
			return nil, err.Error()
		}
		return p, ""
	}
	s, _ := values[triggerID].(string)
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		h.rt.Fatalf("no scheduled time (%q): %v\n%s", s, err, h.src)
	}
	p, err := service.ScheduledParams(tr, at, "en")
	if err != nil {
		h.rt.Fatalf("the trigger makes no params for %s: %v\n%s", s, err, h.src)
	}
	return p, ""
}

// refusedParams reports the run's refusal of its params, "" when err is not one.
func refusedParams(err error) string {
	var pe *engine.ParamsError
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return ""
}
