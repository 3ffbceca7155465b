package runs

import (
	"io"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// WhoJSON says who started a run and who last cancelled and resumed it, and when: a part of
// the JSON form of a run in every front end (seam runs show --json, runs list --json, MCP
// get_run).
type WhoJSON struct {
	StartedBy  string    `json:"started_by,omitempty"`
	CanceledBy string    `json:"canceled_by,omitempty"`
	CanceledAt time.Time `json:"canceled_at,omitzero"`
	ResumedBy  string    `json:"resumed_by,omitempty"`
	ResumedAt  time.Time `json:"resumed_at,omitzero"`
	// Trigger is the trigger that started the run, absent for one started by hand;
	// ScheduledTime the time a schedule's run is for; TriggerKey a webhook's key.
	Trigger       string    `json:"trigger,omitempty"`
	ScheduledTime time.Time `json:"scheduled_time,omitzero"`
	TriggerKey    string    `json:"trigger_key,omitempty"`
}

// Who is r's WhoJSON.
func (r *Run) Who() WhoJSON {
	return WhoJSON{StartedBy: r.StartedBy, CanceledBy: r.CanceledBy, CanceledAt: r.Canceled, ResumedBy: r.ResumedBy, ResumedAt: r.Resumed,
		Trigger: r.Trigger, ScheduledTime: r.Scheduled, TriggerKey: r.TriggerKey}
}

// WriteWho writes the lines of seam runs show that say who started, cancelled and resumed
// r, and how many times it was resumed (reruns from a node included), in lang; none for
// what nobody known did. Names are as the principals file spells them
// (letters, digits, . _ - @) or os:USER, so they need no escaping on a terminal.
func WriteWho(w io.Writer, r *Run, lang i18n.Lang) {
	at := func(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }
	if r.StartedBy != "" {
		io.WriteString(w, i18n.Sprintf(lang, "by       %s\n", r.StartedBy))
	}
	switch {
	case r.Trigger != "" && !r.Scheduled.IsZero():
		// The scheduled time in UTC, as the trigger's params received it.
		io.WriteString(w, i18n.Sprintf(lang, "trigger  %s, for %s\n", r.Trigger, r.Scheduled.UTC().Format(time.RFC3339)))
	case r.Trigger != "" && r.TriggerKey != "":
		io.WriteString(w, i18n.Sprintf(lang, "trigger  %s, key %q\n", r.Trigger, r.TriggerKey))
	case r.Trigger != "":
		io.WriteString(w, i18n.Sprintf(lang, "trigger  %s\n", r.Trigger))
	}
	if r.CanceledBy != "" {
		io.WriteString(w, i18n.Sprintf(lang, "canceled by %s at %s\n", r.CanceledBy, at(r.Canceled)))
	}
	if r.ResumedBy != "" {
		io.WriteString(w, i18n.Sprintf(lang, "resumed by %s at %s (the last resume)\n", r.ResumedBy, at(r.Resumed)))
	}
	switch {
	case r.Resumes == 1:
		io.WriteString(w, i18n.Sprintf(lang, "resumed  1 time\n"))
	case r.Resumes > 1:
		io.WriteString(w, i18n.Sprintf(lang, "resumed  %d times\n", r.Resumes))
	}
}
