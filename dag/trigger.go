package dag

import (
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

// Trigger starts runs of its DAG by itself: on a schedule (Cron or Every) or on a webhook.
// The loader checks its shape; lint parses its cron and time zone and proves its params
// against the DAG's params schema.
type Trigger struct {
	ID  string // the schedule's stable identity: fires are recorded under it
	Pos Pos    // its key
	// Cron is the cron expression as written ("" for every and webhooks), read in Timezone;
	// CronPos is where it is written.
	Cron    string
	CronPos Pos
	Every   time.Duration // 0 unless an interval
	// Timezone is an IANA zone name; "" is UTC, never the machine's zone.
	Timezone    string
	TimezonePos Pos
	Catchup     Catchup
	Overlap     Overlap
	Jitter      time.Duration
	// Params make the run's params; nil: the run gets none. They read trigger.scheduled_time
	// (schedules) or trigger.body (webhooks), nothing else: the run has not started.
	Params    *Template
	ParamsPos Pos
	Webhook   *Webhook // nil for a schedule
	// Key, on a webhook, names the run a request asks for: at most one run per key.
	Key *Template
}

// Scheduled reports whether t fires on a schedule (cron or every) rather than a webhook.
func (t *Trigger) Scheduled() bool { return t.Webhook == nil }

// Catchup says what runs for times a scheduler missed (it was down, or paused).
type Catchup struct {
	// Window is how late a time may still start a run; later ones are recorded missed.
	Window time.Duration
	Runs   string // CatchupLatest, CatchupAll or CatchupNone
}

// Values of Catchup.Runs.
const (
	CatchupLatest = "latest" // the latest missed time within the window runs
	CatchupAll    = "all"    // every missed time within the window runs, in order
	CatchupNone   = "none"   // missed times do not run
)

// DefaultCatchupWindow is the window of a trigger that does not say: a time seen this late
// still runs, so a scheduler that restarts within it loses nothing.
const DefaultCatchupWindow = time.Minute

// Overlap says what a time does while an earlier run of the same trigger is still going.
type Overlap string

// Values of Overlap (Temporal Schedules' names).
const (
	OverlapSkip        Overlap = "skip"         // the time is skipped (the default)
	OverlapBufferOne   Overlap = "buffer_one"   // it runs when the run ends; later ones skipped
	OverlapBufferAll   Overlap = "buffer_all"   // every time runs, one after the other
	OverlapCancelOther Overlap = "cancel_other" // the running one is canceled
	OverlapAllowAll    Overlap = "allow_all"    // runs at once beside it
)

// Webhook is a trigger that a POST to /hooks/{dag}/{trigger} fires.
type Webhook struct {
	// SecretEnv names the variable holding the HMAC secret ("" : only a bearer token of the
	// operator role authenticates); Header is where the request carries "sha256=<hex>".
	SecretEnv string
	Header    string
	Body      *contract.Schema // the body's contract; nil: any JSON
}

// DefaultSignatureHeader is the header a webhook's HMAC is read from unless it says
// otherwise (GitHub's).
const DefaultSignatureHeader = "X-Hub-Signature-256"

var (
	triggerKeys  = []string{"cron", "every", "timezone", "catchup", "overlap", "jitter", "params", "webhook", "key"}
	catchupKeys  = []string{"window", "runs"}
	catchupRuns  = []string{CatchupLatest, CatchupAll, CatchupNone}
	overlapVals  = []string{string(OverlapSkip), string(OverlapBufferOne), string(OverlapBufferAll), string(OverlapCancelOther), string(OverlapAllowAll)}
	webhookKeys  = []string{"hmac", "body"}
	hmacKeys     = []string{"secret_env", "header"}
	scheduleOnly = []string{"timezone", "catchup", "overlap", "jitter"}
	triggerAlias = map[string]string{"schedule": "cron", "interval": "every", "tz": "timezone", "catch_up": "catchup", "concurrency_policy": "overlap"}
)

// triggers reads the `triggers:` mapping.
func (l *loader) triggers(f field, d *DAG) {
	m := deref(f.val)
	if m.Kind != yaml.MappingNode {
		if m.Tag != "!!null" {
			l.addAt(m, CodeInvalid, i18n.Format(l.lang, "write `<id>: {cron: \"0 2 * * *\"}` lines"),
				i18n.Sprintf(l.lang, "triggers must be a mapping of trigger ids, not %s", kindOf(l.lang, m)))
		}
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || seen[k.Value] {
			continue // checkTree reports it
		}
		seen[k.Value] = true
		if !validID(k.Value) {
			l.addAt(k, CodeBadID, i18n.Sprintf(l.lang, "rename it to %q", suggestID(k.Value)),
				i18n.Sprintf(l.lang, "bad trigger id %q: ids are a lowercase letter followed by lowercase letters, digits, _ or -", k.Value))
		}
		if t := l.trigger(k, v); t != nil {
			d.Triggers = append(d.Triggers, t)
		}
	}
}

func (l *loader) trigger(k, v *yaml.Node) *Trigger {
	t := &Trigger{ID: k.Value, Pos: l.pos(k), Overlap: OverlapSkip, Catchup: Catchup{Window: DefaultCatchupWindow, Runs: CatchupLatest}}
	what := i18n.Sprintf(l.lang, "trigger %q", t.ID)
	fs := l.fields(v, what, triggerKeys, triggerAlias)
	var kinds []string
	for _, kind := range []string{"cron", "every", "webhook"} {
		if _, ok := fs.get(kind); ok {
			kinds = append(kinds, kind)
		}
	}
	if len(kinds) != 1 {
		l.addAt(k, CodeInvalid, i18n.Format(l.lang, "give one of `cron: \"0 2 * * *\"`, `every: 10m` or `webhook: {}`"),
			i18n.Sprintf(l.lang, "%s needs exactly one of cron, every and webhook, got %d", what, len(kinds)))
		return nil
	}
	if f, ok := fs.get("cron"); ok {
		if s, ok := l.str(f, l.of(what, "cron")); ok {
			t.Cron, t.CronPos = s, l.pos(deref(f.val))
		}
	}
	if f, ok := fs.get("every"); ok {
		if dur, ok := l.duration(f, l.of(what, "every")); ok {
			if dur < time.Second || dur%time.Second != 0 {
				l.addAt(f.val, CodeDuration, i18n.Format(l.lang, "use whole seconds, from 1s up, e.g. `every: 10s`"),
					i18n.Sprintf(l.lang, "%s: every must be a whole number of seconds, at least 1s, not %s", what, dur))
			}
			t.Every = dur
		}
	}
	if f, ok := fs.get("webhook"); ok {
		t.Webhook = l.webhook(f, what)
		for _, key := range scheduleOnly {
			if g, ok := fs.get(key); ok {
				l.addAt(g.key, CodeInvalid, i18n.Sprintf(l.lang, "remove %s: a webhook starts a run when a request comes", key),
					i18n.Sprintf(l.lang, "%s: %s applies to schedules (cron or every), not to a webhook", what, key))
			}
		}
	} else if g, ok := fs.get("key"); ok {
		l.addAt(g.key, CodeInvalid, i18n.Format(l.lang, "remove key: a schedule's runs are told apart by their scheduled time"),
			i18n.Sprintf(l.lang, "%s: key applies to webhooks, not to a schedule", what))
	}
	if f, ok := fs.get("timezone"); ok {
		if s, ok := l.str(f, l.of(what, "timezone")); ok {
			t.Timezone, t.TimezonePos = s, l.pos(deref(f.val))
		}
	}
	if f, ok := fs.get("catchup"); ok {
		cf := l.fields(f.val, l.of(what, "catchup"), catchupKeys, nil)
		if w, ok := cf.get("window"); ok {
			if dur, ok := l.duration(w, l.of(what, "catchup.window")); ok {
				t.Catchup.Window = dur
			}
		}
		if r, ok := cf.get("runs"); ok {
			if s, ok := l.enum(r.val, l.of(what, "catchup.runs"), catchupRuns); ok {
				t.Catchup.Runs = s
			}
		}
	}
	if f, ok := fs.get("overlap"); ok {
		if s, ok := l.enum(f.val, l.of(what, "overlap"), overlapVals); ok {
			t.Overlap = Overlap(s)
		}
	}
	if f, ok := fs.get("jitter"); ok {
		if dur, ok := l.duration(f, l.of(what, "jitter")); ok {
			t.Jitter = dur
		}
	}
	if f, ok := fs.get("params"); ok {
		t.Params, t.ParamsPos = l.triggerTemplate(f.val, what), l.pos(f.key)
	}
	if f, ok := fs.get("key"); ok && t.Webhook != nil {
		t.Key = l.triggerTemplate(f.val, what)
	}
	return t
}

func (l *loader) webhook(f field, what string) *Webhook {
	w := &Webhook{}
	fs := l.fields(f.val, l.of(what, "webhook"), webhookKeys, nil)
	if h, ok := fs.get("hmac"); ok {
		hs := l.fields(h.val, l.of(what, "webhook.hmac"), hmacKeys, nil)
		if e, ok := hs.get("secret_env"); ok {
			if s, ok := l.str(e, l.of(what, "webhook.hmac.secret_env")); ok {
				if !validEnvName(s) {
					l.addAt(e.val, CodeInvalid, i18n.Format(l.lang, "name an environment variable: letters, digits and _, not starting with a digit"),
						i18n.Sprintf(l.lang, "%s: %q is not an environment variable's name", what, s))
				}
				w.SecretEnv = s
			}
		} else {
			l.addAt(h.key, CodeInvalid, i18n.Format(l.lang, "add `secret_env: NAME`, the variable that holds the shared secret"),
				i18n.Sprintf(l.lang, "%s: webhook.hmac needs secret_env", what))
		}
		w.Header = DefaultSignatureHeader
		if e, ok := hs.get("header"); ok {
			if s, ok := l.str(e, l.of(what, "webhook.hmac.header")); ok && strings.TrimSpace(s) != "" {
				w.Header = s
			}
		}
	}
	if b, ok := fs.get("body"); ok {
		w.Body = l.schema(b.val, l.of(what, "webhook.body"))
	}
	return w
}

// triggerTemplate compiles a trigger's params or key, which may read only trigger.*: the
// run they make has not started, so there are no params, nodes or env to read yet.
func (l *loader) triggerTemplate(n *yaml.Node, what string) *Template {
	t := l.template(n)
	for _, r := range t.Refs() {
		if r.Root != "trigger" {
			l.add(r.Pos, CodeInvalid, i18n.Format(l.lang, "read trigger.scheduled_time (a schedule) or trigger.body (a webhook)"),
				i18n.Sprintf(l.lang, "%s: %s is not there before the run starts; a trigger reads only trigger.*", what, r.Root))
		}
	}
	return t
}

// noTriggerRefs reports references to trigger.* outside a trigger's params and key.
func (l *loader) noTriggerRefs(where string, refs []Ref) {
	for _, r := range refs {
		if r.Root == "trigger" {
			l.add(r.Pos, CodeInvalid, i18n.Format(l.lang, "pass it through a trigger's params: `params: {since: \"${{ trigger.scheduled_time }}\"}`, then read params.since"),
				i18n.Sprintf(l.lang, "%s: trigger is read only in a trigger's params and key", where))
		}
	}
}
