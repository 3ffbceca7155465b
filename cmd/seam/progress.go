package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
)

// display shows a run as it goes; the engine calls its Event from the scheduler goroutine.
type display interface {
	engine.Observer
	// finish prints the end of the run: what is left of the nodes, the run's line, its outputs.
	finish(res *dag.RunResult)
}

// newDisplay picks a live, redrawn display when w is a terminal and plain lines otherwise,
// in lang. The live display is coloured unless NO_COLOR is set (https://no-color.org). On a
// terminal, the nodes' text is escaped (termText).
func newDisplay(e *env, w io.Writer, d *dag.DAG, lang i18n.Lang) display {
	if e.isTerminal(w) {
		return termDisplay{pickDisplay(e, w, d, lang)}
	}
	return pickDisplay(e, w, d, lang)
}

func pickDisplay(e *env, w io.Writer, d *dag.DAG, lang i18n.Lang) display {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		cols, rows, err := term.GetSize(int(f.Fd()))
		if err != nil {
			cols, rows = 80, 24
		}
		l := newLive(f, d, cols, rows, 100*time.Millisecond)
		l.colour = e.getenv("NO_COLOR") == ""
		l.lang = lang
		return l
	}
	return &plainDisplay{w: w, width: idWidth(d), lang: lang}
}

// plainDisplay prints one line per node as it finishes, for logs and pipes.
type plainDisplay struct {
	w     io.Writer
	width int
	lang  i18n.Lang // "" is English
}

func (p *plainDisplay) Event(ev engine.Event) {
	switch ev.Kind {
	case engine.NodeFinished:
		writeNode(p.w, ev.Node, p.width, false, p.lang)
	case engine.NodeRetrying:
		// Logs show why a node is tried again; the live display shows it on the node's line.
		fmt.Fprintf(p.w, "↻ %-*s  %s  %6s  %s\n", p.width, ev.Node.ID, pad(i18n.Format(p.lang, "retrying"), 8), "", oneLine(ev.Node.Reason, 160))
	}
}

func (p *plainDisplay) finish(res *dag.RunResult) { writeEnd(p.w, res, false, p.lang) }

// liveDisplay redraws a block of lines, one per node, on a terminal: a spinner and the elapsed
// time for running nodes, a mark for finished ones. Events only record state; a ticker
// goroutine draws, so a slow terminal never holds up the scheduler.
type liveDisplay struct {
	w          io.Writer
	width      int // of the id column
	cols, rows int
	colour     bool
	lang       i18n.Lang // "" is English

	mu    sync.Mutex
	nodes []dag.NodeResult
	index map[string]int
	drawn int // lines of the last frame, to move back over
	frame int

	every time.Duration
	start sync.Once
	stop  chan struct{}
	wg    sync.WaitGroup
}

func newLive(w io.Writer, d *dag.DAG, cols, rows int, every time.Duration) *liveDisplay {
	l := &liveDisplay{
		w:      w,
		width:  idWidth(d),
		cols:   cols,
		rows:   rows,
		nodes:  make([]dag.NodeResult, len(d.Nodes)),
		index:  make(map[string]int, len(d.Nodes)),
		every:  every,
		colour: true,
		stop:   make(chan struct{}),
	}
	for i, n := range d.Nodes {
		l.nodes[i] = dag.NodeResult{ID: n.ID, Type: n.Type.Name(), Status: dag.NodePending}
		l.index[n.ID] = i
	}
	return l
}

// Event records the node's state. The first event starts the drawing, so a run that never
// starts (invalid params) leaves the terminal untouched.
func (l *liveDisplay) Event(ev engine.Event) {
	l.start.Do(func() { l.wg.Go(l.tick) })
	l.mu.Lock()
	defer l.mu.Unlock()
	if i, ok := l.index[ev.Node.ID]; ok {
		l.nodes[i] = ev.Node
	}
}

// tick draws a frame now and then at every tick until finish.
func (l *liveDisplay) tick() {
	t := time.NewTicker(l.every)
	defer t.Stop()
	for {
		l.draw(time.Now())
		select {
		case <-t.C:
		case <-l.stop:
			return
		}
	}
}

// draw replaces the last frame with the current state.
func (l *liveDisplay) draw(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	l.rewind(&b)
	lines := l.lines(now)
	for _, line := range lines {
		if l.cols > 0 { // a terminal may say it has 0 columns (a pty nobody sized): width unknown
			line = truncate(line, l.cols-1)
		}
		b.WriteString(line)
		b.WriteString("\x1b[K\n")
	}
	l.drawn = len(lines)
	l.frame++
	io.WriteString(l.w, b.String())
}

// rewind moves the cursor back to the top of the last frame and clears it.
func (l *liveDisplay) rewind(b *strings.Builder) {
	if l.drawn > 0 {
		fmt.Fprintf(b, "\x1b[%dA\r\x1b[J", l.drawn)
	}
}

// lines is the frame: a line per node when they fit the terminal, else a count of each
// status followed by the running nodes.
func (l *liveDisplay) lines(now time.Time) []string {
	limit := max(l.rows-2, 3)
	var out []string
	if len(l.nodes) > limit {
		out = append(out, counts(l.nodes, l.lang))
		limit--
	}
	for _, n := range l.nodes {
		if len(out) >= limit {
			break
		}
		if len(l.nodes) > limit && n.Status != dag.NodeRunning {
			continue
		}
		out = append(out, l.line(n, now))
	}
	return out
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (l *liveDisplay) line(n dag.NodeResult, now time.Time) string {
	switch n.Status {
	case dag.NodePending:
		return fmt.Sprintf("%s %-*s  %s", colour("·", "2", l.colour), l.width, n.ID, n.Status.Text(l.lang))
	case dag.NodeRunning:
		line := fmt.Sprintf("%s %-*s  %s  %6s", colour(spinner[l.frame%len(spinner)], "36", l.colour),
			l.width, n.ID, pad(n.Status.Text(l.lang), 8), duration(now.Sub(n.Started)))
		switch {
		case n.Items > 0:
			line += i18n.Sprintf(l.lang, "  %d/%d items", n.ItemsDone, n.Items)
		case n.Attempts > 0:
			line += "  " + firstLine(n.Reason)
		}
		return line
	default:
		return nodeLine(n, l.width, l.colour, l.lang)
	}
}

// finish draws the last frame in full, violations included, then the run's end.
func (l *liveDisplay) finish(res *dag.RunResult) {
	close(l.stop)
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	l.rewind(&b)
	l.drawn = 0
	// A large DAG keeps only what needs attention on screen.
	big := len(res.Nodes) > max(l.rows-2, 3)
	if big {
		fmt.Fprintln(&b, counts(res.Nodes, l.lang))
	}
	for _, n := range res.Nodes {
		if !big || (n.Status != dag.NodePassed && n.Status != dag.NodeSkipped) {
			writeNode(&b, n, l.width, l.colour, l.lang)
		}
	}
	writeEnd(&b, res, l.colour, l.lang)
	io.WriteString(l.w, b.String())
}

// counts is a line such as "3 passed · 1 running · 12 pending".
func counts(ns []dag.NodeResult, lang i18n.Lang) string {
	order := []dag.NodeStatus{dag.NodePassed, dag.NodeWarned, dag.NodeFailed, dag.NodeSkipped,
		dag.NodeCanceled, dag.NodeRunning, dag.NodePending}
	n := map[dag.NodeStatus]int{}
	for _, r := range ns {
		n[r.Status]++
	}
	var parts []string
	for _, s := range order {
		if n[s] > 0 {
			parts = append(parts, i18n.Sprintf(lang, "%[1]d %[2]s", n[s], s.Text(lang)))
		}
	}
	return strings.Join(parts, " · ")
}

// writeNode prints a finished node's line and, for a broken contract, one indented line per
// violation, so the output is visibly stopped at its edge.
func writeNode(w io.Writer, n dag.NodeResult, width int, tty bool, lang i18n.Lang) {
	fmt.Fprintln(w, nodeLine(n, width, tty, lang))
	for _, v := range n.Violations {
		p := v.Pointer
		if p == "" {
			p = "/"
		}
		if v.Value != "" {
			// "value", as seam validate says it: the message may say "got" already
			// ("must be an object, got array").
			fmt.Fprint(w, i18n.Sprintf(lang, "    %s: %s (value %s)\n", p, v.Message, v.Value))
		} else {
			fmt.Fprintf(w, "    %s: %s\n", p, v.Message)
		}
	}
	if n.Status == dag.NodeFailed && n.Log != "" {
		for _, line := range lastLines(n.Log, 5) {
			fmt.Fprintf(w, "    | %s\n", line)
		}
	}
}

// nodeLine is `✓ greet  passed    3ms  <summary or reason>`.
func nodeLine(n dag.NodeResult, width int, tty bool, lang i18n.Lang) string {
	mark, code := "?", ""
	switch n.Status {
	case dag.NodePassed:
		mark, code = "✓", "32"
	case dag.NodeWarned:
		mark, code = "!", "33"
	case dag.NodeFailed:
		mark, code = "✗", "31"
	case dag.NodeSkipped:
		mark, code = "-", "2"
	case dag.NodeCanceled:
		mark, code = "⊘", "2"
	}
	text := firstLine(n.Reason)
	if text == "" {
		text = firstLine(n.Summary)
	}
	switch {
	case n.Reused:
		text += i18n.Sprintf(lang, " (reused)")
	case n.Repaired:
		text += i18n.Sprintf(lang, " (repaired, %d attempts)", n.Attempts)
	case n.Attempts > 1 && n.Reason != "":
		// As explain says it, the count first: a reason's first line may end where more
		// starts ("…; stderr:"), and a count after it would stand where that should.
		text = i18n.Sprintf(lang, "after %d attempts: %s", n.Attempts, text)
	case n.Attempts > 1:
		text += i18n.Sprintf(lang, " (%d attempts)", n.Attempts)
	}
	took := ""
	if !n.Started.IsZero() {
		took = duration(n.Elapsed)
	}
	return strings.TrimRight(fmt.Sprintf("%s %-*s  %s  %6s  %s",
		colour(mark, code, tty), width, n.ID, pad(n.Status.Text(lang), 8), took, text), " ")
}

// writeEnd prints `run <id> <status> in <duration>`, then the outputs, one per line as JSON.
func writeEnd(w io.Writer, res *dag.RunResult, tty bool, lang i18n.Lang) {
	code := map[dag.RunStatus]string{dag.RunSuccess: "32", dag.RunWarn: "33", dag.RunFailed: "31"}[res.Status]
	fmt.Fprint(w, i18n.Sprintf(lang, "run %s %s in %s\n", res.ID, colour(res.Status.Text(lang), code, tty && code != ""), duration(res.Elapsed)))
	if len(res.Outputs)+len(res.OutputErrors) == 0 {
		return
	}
	fmt.Fprintln(w, i18n.Sprintf(lang, "outputs:"))
	names := make([]string, 0, len(res.Outputs)+len(res.OutputErrors))
	for k := range res.Outputs {
		names = append(names, k)
	}
	for k := range res.OutputErrors {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if msg, bad := res.OutputErrors[k]; bad {
			fmt.Fprint(w, i18n.Sprintf(lang, "  %s: (not evaluated: %s)\n", k, msg))
			continue
		}
		b, err := json.Marshal(res.Outputs[k])
		if err != nil {
			b = []byte(i18n.Sprintf(lang, "(not printable: %v)", err))
		}
		fmt.Fprintf(w, "  %s: %s\n", k, b)
	}
}

// duration is short and human: 3ms, 1.2s, 2m05s.
func duration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
}

// pad fills s with spaces to n columns of a terminal (as %-*s does for ASCII).
func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(n-columns(s), 0))
}

// columns counts the columns s takes on a terminal, where a CJK character takes two.
func columns(s string) int {
	w := 0
	for _, r := range s {
		w++
		if r >= 0x2E80 && r <= 0xFFDC { // CJK, kana and full-width forms
			w++
		}
	}
	return w
}

func colour(s, code string, on bool) string {
	if !on || code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func idWidth(d *dag.DAG) int {
	w := 0
	for _, n := range d.Nodes {
		w = max(w, len(n.ID))
	}
	return w
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[max(len(lines)-n, 0):]
}

// truncate cuts s to n visible characters, not counting ANSI colour sequences.
func truncate(s string, n int) string {
	visible, inEsc := 0, false
	for i, r := range s {
		switch {
		case r == '\x1b':
			inEsc = true
		case inEsc:
			inEsc = r != 'm'
		default:
			visible++
			if visible > n {
				return s[:i] + "\x1b[0m"
			}
		}
	}
	return s
}

// oneLine folds s onto one line of at most limit runes: a reason whose details (an exec
// node's stderr) follow on later lines keeps them.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit-1]) + "…"
	}
	return s
}
