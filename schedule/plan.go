package schedule

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// Policy is what a trigger says of the times a scheduler missed and of runs that overlap
// (a DAG file's catchup, overlap and jitter).
type Policy struct {
	Window  time.Duration // how late a time may still start a run
	Runs    string        // CatchupLatest, CatchupAll or CatchupNone
	Overlap string        // one of the Overlap* values
	Jitter  time.Duration // a time is due up to this much after it, the same for the same time
	// Key makes each trigger's jitter its own (DAG and trigger id).
	Key string
	// Lang is the language of the decisions' notes, which are recorded as said.
	Lang i18n.Lang
}

// Catch-up and overlap values, as in the DAG file.
const (
	CatchupLatest      = "latest"
	CatchupAll         = "all"
	CatchupNone        = "none"
	OverlapSkip        = "skip"
	OverlapBufferOne   = "buffer_one"
	OverlapBufferAll   = "buffer_all"
	OverlapCancelOther = "cancel_other"
	OverlapAllowAll    = "allow_all"
)

// OnTime is how late a time may be seen and still be on time: what a scheduler that ticks
// every second, on a loaded machine, may add. catchup: none starts only times seen so.
const OnTime = 30 * time.Second

// MaxDue bounds the times one plan considers: after a long downtime of a frequent trigger,
// only the latest MaxDue are decided one by one (the earlier ones are beyond any useful
// window: the latest decision moves the cursor past them).
const MaxDue = 1000

// Action is what the scheduler does with a due time.
type Action string

// Actions of a Decision. Start, Skip and Miss are recorded (runs.Fire); Wait and Cancel are
// not: the time stays due, and is decided again at the next tick.
const (
	Start Action = "start" // start a run for the time
	// Cancel cancels the runs still going; the time waits until they ended, then starts
	// (Temporal's cancel_other), so that a DAG behaves alike on both engines.
	Cancel Action = "cancel"
	Skip   Action = "skip" // a run is still going (overlap)
	Miss   Action = "miss" // outside the window, superseded, or catch-up none
	Wait   Action = "wait" // buffered until the run still going ends
)

// Decision is what to do with one due time.
type Decision struct {
	Time   time.Time
	Action Action
	Note   string // why, for people (recorded with a skip or a miss)
}

// JitterOf is the delay of time t under p: the same for the same trigger and time, so that
// every scheduler (and a restarted one) agrees.
func (p Policy) JitterOf(t time.Time) time.Duration {
	if p.Jitter <= 0 {
		return 0
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", p.Key, t.UnixNano())
	return time.Duration(h.Sum64() % uint64(p.Jitter))
}

// State is what a scheduler knows of a trigger as it plans.
type State struct {
	// Cursor is the latest time decided, or when the trigger was first seen: the times
	// after it are due.
	Cursor time.Time
	// Waiting is a time overlap buffer_one keeps waiting (zero: none): the times after it
	// may have been decided (skipped) while it waited, moving Cursor past it.
	Waiting time.Time
	// Running counts the runs of the trigger still going.
	Running int
}

// Plan decides, at now, what to do with the times of s after st.Cursor and with the time
// st.Waiting. Decisions come in time order; a time not yet due (its jitter included) ends
// them.
func Plan(s Schedule, p Policy, st State, now time.Time) []Decision {
	waiting := !st.Waiting.IsZero() && p.Overlap == OverlapBufferOne
	cursor := st.Cursor
	if waiting && st.Waiting.After(cursor) {
		cursor = st.Waiting
	}
	var due []time.Time
	for t, ok := s.Next(cursor); ok && !t.Add(p.JitterOf(t)).After(now); t, ok = s.Next(t) {
		due = append(due, t)
		if len(due) > MaxDue {
			due = due[1:]
		}
	}
	late := func(t time.Time) bool { return now.Sub(t) > max(p.Window, OnTime)+p.JitterOf(t) }
	var out, cands []Decision
	// The waiting time came first; catch-up does not supersede it (it was seen on time).
	if waiting && late(st.Waiting) {
		out = append(out, Decision{st.Waiting, Miss, i18n.Sprintf(p.Lang, "waited %s for the run going, past the %s window", now.Sub(st.Waiting).Round(time.Second), p.Window)})
		waiting = false
	}
	for _, t := range due {
		if late(t) {
			out = append(out, Decision{t, Miss, i18n.Sprintf(p.Lang, "seen %s late, outside the %s window", now.Sub(t).Round(time.Second), p.Window)})
			continue
		}
		cands = append(cands, Decision{Time: t})
	}
	// Catch-up: which of the times within the window run.
	switch p.Runs {
	case CatchupAll:
	case CatchupNone:
		for i := range cands {
			if i < len(cands)-1 || now.Sub(cands[i].Time) > OnTime+p.JitterOf(cands[i].Time) {
				cands[i] = Decision{cands[i].Time, Miss, i18n.Format(p.Lang, "missed while no scheduler ran; catchup runs none")}
			}
		}
	default: // latest
		for i := range len(cands) - 1 {
			cands[i] = Decision{cands[i].Time, Miss, i18n.Sprintf(p.Lang, "superseded by %s (catchup runs latest)", cands[len(cands)-1].Time.UTC().Format(time.RFC3339))}
		}
	}
	if waiting {
		cands = append([]Decision{{Time: st.Waiting}}, cands...)
	}
	var live []int // the candidates still undecided
	for i, c := range cands {
		if c.Action == "" {
			live = append(live, i)
		}
	}
	overlap(cands, live, p, st.Running)
	out = append(out, cands...)
	// Nothing after a waiting time is decided (a later decision would move the cursor past
	// it), but under buffer_one, whose waiting time is kept apart (State.Waiting).
	for i, d := range out {
		if (d.Action == Wait && p.Overlap != OverlapBufferOne) || d.Action == Cancel {
			return out[:i+1]
		}
	}
	return out
}

// overlap decides the live candidates (indexes into cands, in time order) by the overlap
// policy, with running runs of the trigger still going.
func overlap(cands []Decision, live []int, p Policy, running int) {
	if len(live) == 0 {
		return
	}
	set := func(i int, a Action, note string) { cands[i].Action, cands[i].Note = a, note }
	still := i18n.Plural(p.Lang, running, "%d run of the trigger is still going", "%d runs of the trigger are still going", running)
	last := live[len(live)-1]
	switch p.Overlap {
	case OverlapAllowAll:
		for _, i := range live {
			set(i, Start, "")
		}
	case OverlapBufferAll:
		for k, i := range live {
			if k == 0 && running == 0 {
				set(i, Start, "")
			} else {
				set(i, Wait, "")
			}
		}
	case OverlapBufferOne:
		// Temporal's rule: the first time due while a run goes waits for it (or for the one
		// this plan starts); a time due while one waits is dropped.
		k := 0
		if running == 0 {
			set(live[0], Start, "")
			k = 1
			still = i18n.Format(p.Lang, "a run of the trigger starts before it")
		}
		if k < len(live) {
			set(live[k], Wait, "")
			held := cands[live[k]].Time.UTC().Format(time.RFC3339)
			for _, i := range live[k+1:] {
				set(i, Skip, i18n.Sprintf(p.Lang, "%s; the buffer holds %s already", still, held))
			}
		}
	case OverlapCancelOther:
		for _, i := range live[:len(live)-1] {
			set(i, Skip, i18n.Format(p.Lang, "superseded: only the latest time runs under cancel_other"))
		}
		if running > 0 {
			set(last, Cancel, i18n.Sprintf(p.Lang, "%s: canceled", still))
		} else {
			set(last, Start, "")
		}
	default: // skip
		for k, i := range live {
			if k == 0 && running == 0 {
				set(i, Start, "")
				still = i18n.Format(p.Lang, "a run of the trigger is going")
				continue
			}
			set(i, Skip, still)
		}
	}
}
