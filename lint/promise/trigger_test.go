package promise_test

import (
	"errors"
	"time"

	"pgregory.net/rapid"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/service"
)

// triggerID is the trigger's id (issue 38): lint reports its params at it, as at a consumer.
const triggerID = "tr"

// trigger is a schedule that starts the DAG: the params it makes from trigger.scheduled_time
// (or a literal), and the DAG's params schema they are proved against.
type trigger struct {
	every  bool // every: 10s; else cron "0 2 * * *"
	makes  omap // the trigger's params, as written
	params omap // the DAG's params schema's properties
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
	tr := &trigger{every: rapid.Bool().Draw(t, "tr.every")}
	for _, name := range []string{"since", "note"}[:rapid.IntRange(1, 2).Draw(t, "tr.params")] {
		s := paramSchemas[rapid.IntRange(0, len(paramSchemas)-1).Draw(t, "tr."+name+".schema")]
		tr.params = append(tr.params, kv{name, flow{s}})
		if rapid.Bool().Draw(t, "tr."+name+".required") {
			tr.needs = append(tr.needs, name)
		}
		switch rapid.IntRange(0, 4).Draw(t, "tr."+name+".makes") {
		case 0, 1:
			tr.makes = append(tr.makes, kv{name, "${{ trigger.scheduled_time }}"})
		case 2:
			tr.makes = append(tr.makes, kv{name, "since ${{ trigger.scheduled_time }}"})
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
	if tr.every {
		t = omap{{"every", "10s"}}
	}
	t = append(t, kv{"params", flow{tr.makes}})
	return append(doc, kv{"params", params}, kv{"triggers", omap{{triggerID, t}}})
}

// scheduledTime draws a time the trigger fires at: a whole 10 s for every, 02:00 UTC for the
// cron, between 2000 and 2099.
func (tr *trigger) scheduledTime(t *rapid.T, label string) string {
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	day := rapid.IntRange(0, 36500).Draw(t, label+".day")
	at := base.AddDate(0, 0, day).Add(2 * time.Hour)
	if tr.every {
		at = base.AddDate(0, 0, day).Add(time.Duration(rapid.IntRange(0, 8639).Draw(t, label+".tick")) * 10 * time.Second)
	}
	return at.Format(time.RFC3339)
}

// triggerParams are the params the DAG's trigger makes for the run's scheduled time
// (values[triggerID]), as the scheduler makes them (service.ScheduledParams).
func (h *harness) triggerParams(d *dag.DAG, values map[string]any) map[string]any {
	s, _ := values[triggerID].(string)
	at, err := time.Parse(time.RFC3339, s)
	if err != nil || len(d.Triggers) != 1 {
		h.rt.Fatalf("no scheduled time (%q) or not one trigger: %v\n%s", s, err, h.src)
	}
	p, err := service.ScheduledParams(d.Triggers[0], at, "en")
	if err != nil {
		h.rt.Fatalf("the trigger makes no params for %s: %v\n%s", s, err, h.src)
	}
	return p
}

// refusedParams reports the run's refusal of its params, "" when err is not one.
func refusedParams(err error) string {
	var pe *engine.ParamsError
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return ""
}
