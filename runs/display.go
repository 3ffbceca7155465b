package runs

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// What the front ends (the CLI, MCP) say of stored runs alike: the states a filter takes,
// the times a filter reads, a node's notes, a run's document.

// States are the states a recorded run can be in, which filters take.
func States() []string {
	return []string{string(dag.RunRunning), string(dag.RunWaiting), string(dag.RunSuccess), string(dag.RunWarn), string(dag.RunFailed), string(dag.RunCanceled)}
}

// ParseSince reads --since: a duration before now (24h, 30m), a date in the local time zone
// or an RFC 3339 time; its error is said in lang.
func ParseSince(lang i18n.Lang, s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, i18n.Errorf(lang, "--since %s: want a positive duration", s)
		}
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, i18n.Errorf(lang, "--since %q: want a duration (24h, 30m), a date (2026-03-09) or an RFC 3339 time", s)
}

// Notes are the node's attempts, items, reuse and repair, for its line, in lang.
func (n *NodeSummary) Notes(lang i18n.Lang) string {
	var notes []string
	switch {
	case n.Items == 1:
		notes = append(notes, i18n.Sprintf(lang, "1 item"))
	case n.Items > 1:
		notes = append(notes, i18n.Sprintf(lang, "%d items", n.Items))
	case n.Attempts == 1:
		notes = append(notes, i18n.Sprintf(lang, "1 attempt"))
	case n.Attempts > 1:
		notes = append(notes, i18n.Sprintf(lang, "%d attempts", n.Attempts))
	}
	if n.Items > 0 && n.Attempts > 1 {
		// Each item is tried on its own: the most attempts one item took, not their sum.
		notes = append(notes, i18n.Sprintf(lang, "up to %d attempts per item", n.Attempts))
	}
	if n.Final.Reused {
		notes = append(notes, i18n.Sprintf(lang, "reused"))
	}
	if n.Final.Repaired {
		notes = append(notes, i18n.Sprintf(lang, "repaired"))
	}
	return strings.Join(notes, i18n.Format(lang, ", "))
}

// ShowJSON is a run as `seam runs show --json` prints it: the run, its nodes and its
// attempts.
type ShowJSON struct {
	RunJSON
	Nodes    []NodeJSON    `json:"nodes"`
	Attempts []AttemptJSON `json:"attempts"`
}

// ShowDocument is run r with its attempts as (GetRun's) and its nodes (Summarize's) as ShowJSON.
func ShowDocument(r *Run, as []Attempt, nodes []*NodeSummary) ShowJSON {
	doc := ShowJSON{RunJSON: r.JSON(), Nodes: make([]NodeJSON, len(nodes)), Attempts: make([]AttemptJSON, len(as))}
	for i, n := range nodes {
		doc.Nodes[i] = n.JSON()
	}
	for i := range as {
		doc.Attempts[i] = as[i].JSON()
	}
	return doc
}

// ParseAge reads a duration of time.ParseDuration's form or a number of days (30d), positive,
// for --older-than; its error is said in lang.
func ParseAge(lang i18n.Lang, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if days, ok := strings.CutSuffix(s, "d"); ok && err != nil {
		n, aerr := strconv.Atoi(days)
		d, err = time.Duration(n)*24*time.Hour, aerr
	}
	if err != nil || d <= 0 {
		return 0, i18n.Errorf(lang, "--older-than %q: want a positive duration (30d, 12h, 90m)", s)
	}
	return d, nil
}

// WatchLine is a's line in `seam runs watch`, in lang: its time (of its end, or its start
// while it runs), node (and item), status, attempt past the first, and why.
func (a *Attempt) WatchLine(lang i18n.Lang) string {
	node := a.Node
	if a.Item >= 0 {
		node = fmt.Sprintf("%s[%d]", a.Node, a.Item)
	}
	text, _, _ := strings.Cut(a.Reason, "\n")
	if text == "" {
		text, _, _ = strings.Cut(a.Error, "\n")
	}
	at := a.Ended
	if at.IsZero() {
		at = a.Started
	}
	stamp := "        "
	if !at.IsZero() {
		stamp = at.Local().Format("15:04:05")
	}
	line := fmt.Sprintf("%s  %s  %s  %s", stamp, node, StatusText(lang, a.Status), text)
	if a.Attempt > 1 {
		line = fmt.Sprintf("%s  %s  %s  %s  %s", stamp, node, StatusText(lang, a.Status), i18n.Sprintf(lang, "attempt %d", a.Attempt), text)
	}
	return strings.TrimRight(line, " ")
}

// FirstFailed is the id of the first of nodes that failed, "" when none did.
func FirstFailed(nodes []*NodeSummary) string {
	for _, n := range nodes {
		if n.Status() == dag.NodeFailed {
			return n.ID
		}
	}
	return ""
}

// SubRunNote marks a sub-run in a list, in lang: " (sub-run of RUN/NODE)"; "" for a run
// that is not one.
func (r *Run) SubRunNote(lang i18n.Lang) string {
	if r.Parent == "" {
		return ""
	}
	return i18n.Sprintf(lang, " (sub-run of %s/%s)", r.Parent, r.ParentNode)
}

// Follower prints a watched run for people (WatchRun's fn is its See): the run's first line,
// then each attempt once, as it is recorded. An attempt's finish takes the place of its
// start record in what the store returns, so what was printed is told by identity rather
// than by position. Run and Attempts are the last state seen.
type Follower struct {
	W        io.Writer
	Lang     i18n.Lang
	Run      *Run
	Attempts []Attempt
	shown    map[followed]bool
}

type followed struct {
	session, item, attempt int
	node                   string
	start                  bool
}

// See prints what is new in run r and its attempts as.
func (f *Follower) See(r *Run, as []Attempt) error {
	if f.Run == nil {
		fmt.Fprint(f.W, i18n.Sprintf(f.Lang, "run %s  %s\n", r.ID, r.DAG))
		f.shown = map[followed]bool{}
	}
	f.Run, f.Attempts = r, as
	for _, a := range as {
		k := followed{a.Session, a.Item, a.Attempt, a.Node, a.IsStart()}
		if f.shown[k] {
			continue
		}
		f.shown[k] = true
		if _, err := fmt.Fprintln(f.W, a.WatchLine(f.Lang)); err != nil {
			return err
		}
	}
	return nil
}

// StatusFor is the run's status for people, in lang: a run whose process died shows as
// such.
func (r *Run) StatusFor(lang i18n.Lang) string {
	if r.Interrupted() {
		return StatusText(lang, "interrupted")
	}
	return StatusText(lang, r.Status)
}
