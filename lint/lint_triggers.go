package lint

import (
	"errors"
	"strings"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/schedule"
)

// The values trigger.* names, by the kind of trigger that provides each.
const (
	triggerTime = "scheduled_time" // schedules: the time the run is for, RFC 3339
	triggerBody = "body"           // webhooks: the request's JSON body
)

// scheduledTime is what trigger.scheduled_time is: the scheduler formats the time in UTC as
// RFC 3339 without fractions (service.ScheduledParams), "2006-01-02T15:04:05Z", always 20
// characters, so that a params schema's bounds on its length are proved, not guessed.
var scheduledTime = map[string]any{"type": "string", "format": "date-time", "minLength": 20, "maxLength": 20}

// triggers checks the DAG's triggers: that each cron and time zone parses, that each reads
// only the trigger.* values it provides, that a webhook's reads of its body name members its
// contract declares and requires (absent: SEAM-E311, as a node's reads), and that each one's
// params fit the params schema, as an edge whose producer is the trigger.
func (l *linter) triggers() (out, absent []Finding) {
	for _, tr := range l.d.Triggers {
		l.trigger = tr
		out = append(out, l.triggerTimes(tr)...)
		fs, readsTime := l.triggerRefs(tr)
		out = append(out, fs...)
		if len(fs) == 0 {
			// A request whose body lacks what the params or key read is answered 422.
			var es []*dag.Expr
			for _, t := range []*dag.Template{tr.Params, tr.Key} {
				if t != nil {
					t.WalkExprs(func(e *dag.Expr) { es = append(es, e) })
				}
			}
			out = append(out, l.undeclaredRefs(tr.ID, es)...)
			absent = append(absent, l.absentReads(tr.ID, tr.ID, es, guards{}, nil)...)
			out = append(out, l.triggerParams(tr)...)
		}
		if tr.Scheduled() && tr.Catchup.Runs == dag.CatchupAll && !readsTime {
			out = append(out, Finding{Pos: tr.Pos, Severity: SeverityWarning, Code: CodeCatchupAll, Consumer: tr.ID,
				Message: i18n.Sprintf(l.text.lang, "trigger %s catches up every missed time, but its params do not read trigger.scheduled_time: each catch-up run processes the same as a run on time", tr.ID),
				Hint:    i18n.Format(l.text.lang, "pass the time in params, e.g. `params: {since: \"${{ trigger.scheduled_time }}\"}`, or catch up only the latest time: `catchup: {runs: latest}`")})
		}
	}
	l.trigger = nil
	return out, absent
}

// triggerTimes parses a schedule's time zone and cron, as the scheduler will.
func (l *linter) triggerTimes(tr *dag.Trigger) []Finding {
	lang := l.text.lang
	if tr.Timezone == "" && tr.Cron == "" {
		return nil
	}
	loc, err := schedule.LoadLocation(tr.Timezone)
	if err != nil {
		msg := i18n.Sprintf(lang, "trigger %s: unknown time zone %q", tr.ID, tr.Timezone)
		if tr.Timezone == "Local" {
			msg = i18n.Sprintf(lang, "trigger %s: time zone Local is the zone of whichever machine runs the scheduler", tr.ID)
		}
		return []Finding{{Pos: tr.TimezonePos, Severity: SeverityError, Code: CodeTimezone, Consumer: tr.ID, Message: msg,
			Hint: i18n.Format(lang, "name an IANA zone such as Europe/Berlin or America/New_York, or leave timezone out for UTC")}}
	}
	if tr.Cron == "" {
		return nil
	}
	if _, err := schedule.ParseCron(tr.Cron, loc); err != nil {
		// The parser's own words follow seam's, as CEL's and YAML's do.
		why := strings.TrimPrefix(err.Error(), schedule.ErrSyntax.Error()+": ")
		if !errors.Is(err, schedule.ErrSyntax) {
			why = err.Error()
		}
		return []Finding{{Pos: tr.CronPos, Severity: SeverityError, Code: CodeCron, Consumer: tr.ID,
			Message: i18n.Sprintf(lang, "trigger %s: cron %q does not parse: %s", tr.ID, tr.Cron, why),
			Hint:    i18n.Format(lang, "write five fields, minute hour day-of-month month day-of-week (\"0 2 * * *\"), or @hourly, @daily, @weekly, @monthly, @yearly; an interval is every: 10m")}}
	}
	return nil
}

// triggerRefs reports trigger.* references the trigger does not provide, and whether its
// params read trigger.scheduled_time.
func (l *linter) triggerRefs(tr *dag.Trigger) (out []Finding, readsTime bool) {
	lang := l.text.lang
	want, has := triggerTime, i18n.Sprintf(lang, "a schedule provides trigger.scheduled_time")
	if !tr.Scheduled() {
		want, has = triggerBody, i18n.Sprintf(lang, "a webhook provides trigger.body")
	}
	for _, t := range []*dag.Template{tr.Params, tr.Key} {
		if t == nil {
			continue
		}
		for _, r := range t.Refs() {
			if r.Root != "trigger" {
				continue // the loader reported it
			}
			if len(r.Path) > 0 && r.Path[0] == want {
				readsTime = readsTime || want == triggerTime
				continue
			}
			name := "trigger"
			if len(r.Path) > 0 {
				name += "." + r.Path[0]
			}
			out = append(out, Finding{Pos: r.Pos, Severity: SeverityError, Code: CodeTriggerRef, Consumer: tr.ID,
				Message: i18n.Sprintf(lang, "trigger %s reads %s, which it does not provide: %s", tr.ID, name, has),
				Hint:    i18n.Sprintf(lang, "read trigger.%s", want)})
		}
	}
	return out, readsTime
}

// triggerParams proves the run's params that tr makes against the DAG's params schema: the
// edge from the trigger (its body's contract, its scheduled time) to the params.
func (l *linter) triggerParams(tr *dag.Trigger) []Finding {
	if l.d.Params == nil {
		return nil // the DAG takes any params
	}
	t, at := tr.Params, tr.ParamsPos
	if t == nil {
		t, at = dag.LiteralTemplate(map[string]any{}), tr.Pos // the run gets {}
	}
	n := &dag.Node{ID: tr.ID, Pos: at}
	fs := l.check(n, t, l.d.Params, place{node: tr.ID, trigger: true}, dag.Pos{}, l.synth(t))
	for i := range fs {
		fs[i].subject = "trigger params"
		if fs[i].Severity != SeverityError {
			continue
		}
		// Said as a run would say it: the params the trigger may make, and the params
		// schema's first objection to them.
		fs[i].Code = CodeTriggerParams
		why := ""
		if vs := l.d.Params.ValidateParams(fs[i].Witness, l.text.lang); len(vs) > 0 {
			why = vs[0].Message
		}
		fs[i].Message = i18n.Sprintf(l.text.lang, "trigger %s may make params %s, which the params schema rejects: %s", tr.ID, clipJSON(fs[i].Witness), why)
		fs[i].Hint = i18n.Format(l.text.lang, "give the trigger params the params schema accepts (the values it reads from trigger.* included), or widen the params schema")
		fs[i].Witness, fs[i].HasWitness = nil, false // the message holds it
	}
	return fs
}

// projectTrigger projects what a trigger.* reference reads: the scheduled time, or the
// webhook body's contract along the path; ok is false for a body without a contract.
func (l *linter) projectTrigger(r dag.Ref) (projection, bool) {
	tr := l.trigger
	if tr == nil || len(r.Path) == 0 {
		return projection{}, false
	}
	switch {
	case r.Path[0] == triggerTime && tr.Scheduled():
		return project(scheduledTime, contract.Doc{Value: scheduledTime}, r.Path[1:], 0), true
	case r.Path[0] == triggerBody && tr.Webhook != nil && tr.Webhook.Body != nil:
		doc := ownDoc(tr.Webhook.Body)
		return project(doc.Value, doc, r.Path[1:], 0), true
	}
	return projection{}, false
}
