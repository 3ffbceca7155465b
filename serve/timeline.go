package serve

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
)

// The timeline's geometry, in SVG units: a column of node ids, then the bars' area.
const (
	tlLabelW = 150 // the node ids' column
	tlBarsW  = 600 // the bars' area
	tlRowH   = 20  // a row's height
	tlBarH   = 14  // a bar's height (run.html says it too)
	tlMinW   = 2   // the narrowest bar drawn, so that an instant attempt still shows
)

// timeline is the run page's Gantt chart, drawn on the server: a row a node, in the order
// the nodes first started, with a bar for each attempt (a retry beside the attempt before
// it) and a foreach node's items collapsed to one bar a session, spanning them.
type timeline struct {
	Lang  i18n.Lang // the template says its words in it
	W, H  int
	Rows  []tlRow
	Total string // how long the chart spans
}

type tlRow struct {
	Node string
	Y    int // the top of the row
	Text int // the baseline of its label
	Bars []tlBar
}

type tlBar struct {
	X, W   string // formatted, so the page says no more digits than it draws
	Y      int
	Status string
	Title  string // said on hover: what the bar is and how long it took
	Retry  bool   // an attempt after the first of its node in its session
	Reused bool   // a resume reused the output: no time spent
	Items  int    // the foreach items the bar spans, 0 for an attempt
	CountX string // where the count of items is written, after the bar
	TextY  int
	// Critical marks a bar on the critical path: the chain of attempts, each waiting for the
	// one before it, that ends with the run's last.
	Critical bool
}

// tlSpan is one bar before it is placed: a node's attempt, or its items in one session.
type tlSpan struct {
	start, end time.Time
	status     dag.NodeStatus
	attempt    int
	session    int
	items      int
	reused     bool
	open       bool // interrupted: how long it ran is not known
}

// buildTimeline lays out the attempts as of now (a running attempt ends now), the critical
// path marked; nil when no attempt has started. deps gives each node's needs, nil when the
// DAG could not be read (then any node may be what an attempt waited for).
func buildTimeline(as []runs.Attempt, deps map[string][]string, now time.Time, l i18n.Lang) *timeline {
	type node struct {
		id    string
		first time.Time
		spans []tlSpan
	}
	var order []*node
	by := map[string]*node{}
	type nodeSession struct {
		node    string
		session int
	}
	items := map[nodeSession]int{} // the index in its node's spans of a session's items' span
	itemSeen := map[nodeSession]map[int]bool{}
	var t0, t1 time.Time
	for i := range as {
		a := &as[i]
		if a.Started.IsZero() {
			continue // settled without starting (skipped, canceled before it ran)
		}
		end, open := a.Ended, false
		switch {
		case !end.IsZero():
		case a.Status == runs.AttemptInterrupted:
			// Its process died: it has no end, and no duration to draw.
			end, open = a.Started, true
		default:
			end = now
		}
		n := by[a.Node]
		if n == nil {
			n = &node{id: a.Node, first: a.Started}
			by[a.Node] = n
			order = append(order, n)
		}
		n.first = minTime(n.first, a.Started)
		if t0.IsZero() || a.Started.Before(t0) {
			t0 = a.Started
		}
		if end.After(t1) {
			t1 = end
		}
		if a.Item >= 0 {
			k := nodeSession{a.Node, a.Session}
			j, ok := items[k]
			if !ok {
				j = len(n.spans)
				n.spans = append(n.spans, tlSpan{start: a.Started, end: end, session: a.Session})
				items[k] = j
				itemSeen[k] = map[int]bool{}
			}
			sp := &n.spans[j]
			sp.start, sp.end = minTime(sp.start, a.Started), maxTime(sp.end, end)
			itemSeen[k][a.Item] = true
			sp.items = len(itemSeen[k])
			sp.status = a.Status // items come in order: the last one's says how they went
			continue
		}
		if j, ok := items[nodeSession{a.Node, a.Session}]; ok {
			// A foreach node's own record combines its items: it settles the span's status.
			n.spans[j].status = a.Status
			continue
		}
		n.spans = append(n.spans, tlSpan{start: a.Started, end: end, status: a.Status, attempt: a.Attempt, session: a.Session, reused: a.Reused, open: open})
	}
	if len(order) == 0 {
		return nil
	}
	spans := map[string][]tlSpan{}
	for _, n := range order {
		spans[n.id] = n.spans
	}
	critical := criticalPath(spans, deps)
	// Stable: nodes that started at the same instant keep the order they were recorded in.
	slices.SortStableFunc(order, func(a, b *node) int { return a.first.Compare(b.first) })
	span := max(t1.Sub(t0), time.Microsecond)
	x := func(t time.Time) float64 { return tlLabelW + float64(tlBarsW)*float64(t.Sub(t0))/float64(span) }
	tl := &timeline{Lang: l, W: tlLabelW + tlBarsW + 40, H: len(order)*tlRowH + 4, Total: took(span)}
	for i, n := range order {
		row := tlRow{Node: n.id, Y: i*tlRowH + 2, Text: i*tlRowH + 2 + tlBarH}
		for j, sp := range n.spans {
			x0 := x(sp.start)
			w := max(x(sp.end)-x0, tlMinW)
			b := tlBar{X: fmt.Sprintf("%.1f", x0), W: fmt.Sprintf("%.1f", w), Y: row.Y + (tlRowH-tlBarH)/2,
				Status: string(sp.status), Retry: sp.attempt > 1, Reused: sp.reused, Items: sp.items,
				CountX: fmt.Sprintf("%.1f", x0+w+3), TextY: row.Text - 1, Critical: critical[spanRef{n.id, j}]}
			status := runs.StatusText(l, sp.status)
			switch {
			case sp.items > 0:
				b.Title = i18n.Sprintf(l, "%s: %d items, %s, %s", n.id, sp.items, status, took(sp.end.Sub(sp.start)))
			case sp.reused:
				b.Title = i18n.Sprintf(l, "%s: reused, %s", n.id, status)
			case sp.open:
				b.Title = i18n.Sprintf(l, "%s: attempt %d, %s", n.id, sp.attempt, status)
			default:
				b.Title = i18n.Sprintf(l, "%s: attempt %d, %s, %s", n.id, sp.attempt, status, took(sp.end.Sub(sp.start)))
			}
			if b.Critical {
				b.Title = i18n.Sprintf(l, "%s (on the critical path)", b.Title)
			}
			row.Bars = append(row.Bars, b)
		}
		tl.Rows = append(tl.Rows, row)
	}
	return tl
}

// spanRef names one span: its node and its index among the node's spans.
type spanRef struct {
	node string
	i    int
}

// criticalPath is the chain of spans that decided how long the run took, walked back from
// the span that ended last: each one waited for the one before it, which is its node's
// previous try when it is a retry or repair, else, of the spans of the nodes it needs that
// started before it in its session, the one that ended last (the dependency it was waiting
// for; without the DAG, of all the spans that ended before it started). A reused output took no time and an interrupted attempt has no end: neither is on the
// path, which then stops there (a resume starts its own chain).
func criticalPath(spans map[string][]tlSpan, deps map[string][]string) map[spanRef]bool {
	timed := func(sp tlSpan) bool { return !sp.reused && !sp.open }
	var cur spanRef
	found := false
	for node, ss := range spans {
		for i, sp := range ss {
			if !timed(sp) {
				continue
			}
			// Ties go to the node named first, so that the path is the same each time.
			if c := spans[cur.node]; !found || sp.end.After(c[cur.i].end) || (sp.end.Equal(c[cur.i].end) && node < cur.node) {
				cur, found = spanRef{node, i}, true
			}
		}
	}
	on := map[spanRef]bool{}
	for found && !on[cur] {
		on[cur] = true
		sp := spans[cur.node][cur.i]
		found = false
		if prev := cur.i - 1; sp.attempt > 1 && prev >= 0 && timed(spans[cur.node][prev]) && spans[cur.node][prev].session == sp.session {
			cur, found = spanRef{cur.node, cur.i - 1}, true
			continue
		}
		waited := deps[cur.node]
		if deps == nil {
			waited = slices.Sorted(maps.Keys(spans))
		}
		var best spanRef
		for _, d := range waited {
			for i, c := range spans[d] {
				if d == cur.node || !timed(c) || c.session != sp.session || c.start.After(sp.start) || c.end.After(sp.end) ||
					(deps == nil && c.end.After(sp.start)) { // not known to be needed: it must have ended first
					continue
				}
				if !found || c.end.After(spans[best.node][best.i].end) {
					best, found = spanRef{d, i}, true
				}
			}
		}
		cur = best
	}
	return on
}

// needsOf is each node of d's needs, as buildTimeline takes them.
func needsOf(d *dag.DAG) map[string][]string {
	deps := make(map[string][]string, len(d.Nodes))
	for _, n := range d.Nodes {
		deps[n.ID] = n.Deps
	}
	return deps
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
