package runs

import (
	"strconv"
	"time"

	"github.com/seam-dag/seam/dag"
)

// A start record is an attempt with status running, recorded while the attempt runs (no
// output, no end), so that a reader sees a node running that no finished attempt shows yet.
// The attempt's finished record supersedes it whenever the two were committed: GetRun leaves
// out every start record whose attempt has finished, so readers see an attempt once, and a
// start record only while its attempt runs (or when its process died while it ran).

// IsStart reports whether a is a start record: an attempt still running.
func (a *Attempt) IsStart() bool { return a.Status == dag.NodeRunning }

// attemptKey names one attempt of one node or item within a run.
type attemptKey struct {
	session, item, attempt int
	node                   string
}

// attemptKey names the attempt a records (its Key is the cache key, another thing).
func (a *Attempt) attemptKey() attemptKey { return attemptKey{a.Session, a.Item, a.Attempt, a.Node} }

// dropFinishedStarts removes from as, in place, the start records whose attempt has a
// finished record too, wherever it comes in the order (a worker may commit a start after
// the finish of the same attempt), and the earlier start records of one attempt started
// again (Temporal retrying an activity whose worker died).
func dropFinishedStarts(as []Attempt) []Attempt {
	// The last start record of each attempt, or -1 once a finished record of it is found;
	// nil when there is none, the usual case once a run has ended.
	var last map[attemptKey]int
	for i := range as {
		if as[i].IsStart() {
			if last == nil {
				last = map[attemptKey]int{}
			}
			last[as[i].attemptKey()] = i
		}
	}
	if last == nil {
		return as
	}
	for i := range as {
		if a := &as[i]; !a.IsStart() {
			if _, ok := last[a.attemptKey()]; ok {
				last[a.attemptKey()] = -1
			}
		}
	}
	out := as[:0]
	for i := range as {
		if as[i].IsStart() && last[as[i].attemptKey()] != i {
			continue
		}
		out = append(out, as[i])
	}
	clear(as[len(out):])
	return out
}

// AttemptInterrupted is the status shown, never stored, for a start record whose attempt no
// longer runs: its process died, in an earlier session of a resumed run or in a run that
// ended or was interrupted since. It has no end, and no duration.
const AttemptInterrupted dag.NodeStatus = "interrupted"

// SettleStarts shows, in place, the start records of r's attempts as (GetRun's) that are
// no longer running at now as AttemptInterrupted: those of a session before r's last, and
// all of them once r is not running or is interrupted. A reader would otherwise show them
// running, with a duration that grows for ever.
func SettleStarts(r *Run, as []Attempt, now time.Time) {
	over := r.Status != dag.RunRunning || r.InterruptedAt(now)
	for i := range as {
		if as[i].IsStart() && (over || as[i].Session < r.Resumes) {
			as[i].Status = AttemptInterrupted
		}
	}
}

// recordLogSQL is the statement of RecordLog, its arguments numbered from 1 (PostgreSQL)
// or not (SQLite). Only a start record changes: a finished attempt's log is its own.
func recordLogSQL(numbered bool) string {
	q := `UPDATE attempts SET log = ? WHERE run_id = ? AND session = ? AND node = ? AND item = ? AND attempt = ? AND status = 'running'`
	if !numbered {
		return q
	}
	var b []byte
	n := 0
	for i := range len(q) {
		if q[i] == '?' {
			n++
			b = strconv.AppendInt(append(b, '$'), int64(n), 10)
			continue
		}
		b = append(b, q[i])
	}
	return string(b)
}

// recordLogArgs are the arguments of recordLogSQL for a.
func recordLogArgs(a *Attempt) []any {
	return []any{a.Log, a.RunID, a.Session, a.Node, a.Item, a.Attempt}
}
