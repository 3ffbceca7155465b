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

// Actions of a Decision. Start, Skip and Miss are recorded (runs.Fire); Wait is not: the
// time stays due, and is decided again at the next tick.
const (
	Start  Action = "start"  // start a run for the time
	Cancel Action = "cancel" // cancel the runs still going, then start a run for the time
	Skip   Action = "skip"   // a run is still going (overlap)
	Miss   Action = "miss"   // outside the window, superseded, or catch-up none
	Wait   Action = "wait"   // buffered until the run still going ends
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

// Plan decides, at now, what to do with the times of s after cursor (the latest time
// decided, or when the trigger was first seen), given how many runs of the trigger are still
// going. Decisions come in time order; a time not yet due (its jitter included) ends them.
func Plan(s Schedule, p Policy, cursor, now time.Time, running int) []Decision {
	var due []time.Time
	for t, ok := s.Next(cursor); ok && !t.Add(p.JitterOf(t)).After(now); t, ok = s.Next(t) {
		due = append(due, t)
		if len(due) > MaxDue {
			due = due[1:]
		}
	}
	var out, cands []Decision
	for _, t := range due {
		if now.Sub(t) > max(p.Window, OnTime)+p.JitterOf(t) {
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
	var live []int // the candidates still undecided
	for i, c := range cands {
		if c.Action == "" {
			live = append(live, i)
		}
	}
	overlap(cands, live, p, running)
	out = append(out, cands...)
	// Nothing after a waiting time is decided: a later decision would move the cursor past it.
	for i, d := range out {
		if d.Action == Wait {
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
		// The latest time waits for the run going (or for the one this plan starts); the
		// ones before it are skipped.
		first := 0
		if running == 0 {
			set(live[0], Start, "")
			first = 1
			still = i18n.Format(p.Lang, "a run of the trigger starts before it")
		}
		for k := first; k < len(live); k++ {
			if live[k] == last {
				set(live[k], Wait, "")
			} else {
				set(live[k], Skip, i18n.Sprintf(p.Lang, "%s; the buffer holds one time", still))
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
