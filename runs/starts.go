package runs

import "github.com/seam-dag/seam/dag"

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

// dropFinishedStarts removes from as, in place, the start records whose attempt has a
// finished record too, wherever it comes in the order (a worker may commit a start after
// the finish of the same attempt), and the earlier start records of one attempt started
// again (Temporal retrying an activity whose worker died).
func dropFinishedStarts(as []Attempt) []Attempt {
	starts := 0
	for i := range as {
		if as[i].IsStart() {
			starts++
		}
	}
	if starts == 0 {
		return as // the usual case once a run has ended: nothing to look up
	}
	// The last start record of each attempt, or -1 once a finished record of it is found.
	last := make(map[attemptKey]int, starts)
	for i := range as {
		if a := &as[i]; a.IsStart() {
			last[attemptKey{a.Session, a.Item, a.Attempt, a.Node}] = i
		}
	}
	for i := range as {
		if a := &as[i]; !a.IsStart() {
			k := attemptKey{a.Session, a.Item, a.Attempt, a.Node}
			if _, ok := last[k]; ok {
				last[k] = -1
			}
		}
	}
	out := as[:0]
	for i := range as {
		a := &as[i]
		if a.IsStart() && last[attemptKey{a.Session, a.Item, a.Attempt, a.Node}] != i {
			continue
		}
		out = append(out, *a)
	}
	clear(as[len(out):])
	return out
}
