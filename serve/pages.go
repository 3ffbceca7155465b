package serve

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/lint"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
	"github.com/seam-dag/seam/workspace"
)

// page is what every template gets: the frame's data and the page's own (D).
type page struct {
	Lang                i18n.Lang
	CSRF, Title, Nav    string
	ReadOnly, Auth, N8N bool
	Who                 string // who is logged in, when a login is asked
	Principals          bool   // a principals file says who may log in
	D                   any
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, name string, d any) {
	p := page{Lang: s.lang(r), CSRF: s.csrfToken(r), Nav: name, ReadOnly: s.opts.ReadOnly, Auth: s.who != nil, N8N: s.opts.N8N != nil, D: d}
	s.showWho(&p, r)
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, p); err != nil {
		s.opts.Logger.Error("seam serve: render", "page", name, "error", err)
		http.Error(w, i18n.Sprintf(p.Lang, "internal error in %s: %s", "page "+name, err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// fail renders an error page saying err with code.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	s.render(w, r, code, "error", err.Error())
}

// failCode is the status of a service error: 404 for a missing run, 409 for a refusal.
func failCode(err error) int {
	var (
		nf   *service.NotFoundError
		nr   *service.NotRunningError
		nres *service.NotResumableError
		un   *runs.UnknownNodeError
	)
	switch {
	case errors.As(err, &nf), errors.As(err, &un):
		return http.StatusNotFound
	case errors.As(err, &nr), errors.As(err, &nres):
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

func (s *Server) funcs() template.FuncMap {
	return template.FuncMap{
		"t": func(lang i18n.Lang, text string) string {
			if m, ok := s.texts[text]; ok {
				return m.In(lang)
			}
			return text
		},
		"status": func(lang i18n.Lang, st any) string { return runs.StatusText(lang, fmt.Sprint(st)) },
		"when": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.Local().Format("2006-01-02 15:04:05")
		},
		"took": func(a, b time.Time) string {
			if a.IsZero() {
				return ""
			}
			if b.IsZero() {
				b = time.Now()
			}
			return took(b.Sub(a))
		},
		"icon": statusIcon,
		// answerArgs hands a nested template a field and the page's language.
		"answerArgs": func(l i18n.Lang, f answerField) answerArg { return answerArg{Lang: l, F: f} },
		"pathEsc":    func(p string) string { return (&url.URL{Path: p}).EscapedPath() },
		// join lists node ids in a cell, "-" for none, as the text report does.
		"join": func(ids []string) string {
			if len(ids) == 0 {
				return "-"
			}
			return strings.Join(ids, ", ")
		},
		"json": func(v any) string {
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return fmt.Sprint(v)
			}
			return string(b)
		},
	}
}

// took says how long d is: under a millisecond in µs, not as "0s".
func took(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%dµs", d.Microseconds())
	}
	return d.Round(time.Millisecond).String()
}

// statusIcon marks a node's status in the graph by a sign besides its colour, for those who
// do not tell the colours apart (seam.js has the same signs, for live updates).
func statusIcon(status string) string {
	switch dag.NodeStatus(status) {
	case dag.NodePassed:
		return "✓"
	case dag.NodeWarned:
		return "!"
	case dag.NodeFailed:
		return "✗"
	case dag.NodeRunning:
		return "▶"
	case dag.NodeSkipped:
		return "-"
	case dag.NodeCanceled:
		return "⊘"
	case dag.NodeWaiting:
		return "⏸"
	case runs.Unfinished:
		return "?"
	case "":
		return "" // a DAG's page: no run
	}
	return "…" // pending
}

// runRow is a row of the runs page.
type runRow struct {
	runs.Run
	Failing  string // the first node that failed, for a failed run
	Live     bool   // running, and not left so by a process that died: its page follows it
	Progress string // of a live run, its nodes settled of its DAG's ("3/7")
}

type runsData struct {
	Rows                   []runRow
	DAG, Status, Next, Err string
	Statuses               []dag.RunStatus
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := runsData{DAG: q.Get("dag"), Status: q.Get("status"),
		Statuses: []dag.RunStatus{dag.RunRunning, dag.RunWaiting, dag.RunSuccess, dag.RunWarn, dag.RunFailed, dag.RunCanceled}}
	f := runs.Filter{DAG: d.DAG, Status: dag.RunStatus(d.Status), Limit: PageSize, Cursor: q.Get("cursor")}
	list, next, err := s.opts.Service.List(r.Context(), f)
	if err != nil {
		d.Err = err.Error()
		s.render(w, r, http.StatusBadRequest, "runs", d)
		return
	}
	now := time.Now()
	for _, run := range list {
		row := runRow{Run: run, Live: run.Status == dag.RunRunning && !run.InterruptedAt(now)}
		row.Status = run.DisplayStatus(now)
		if run.Status == dag.RunFailed {
			row.Failing = s.failingNode(r.Context(), run.ID)
		}
		if row.Live {
			row.Progress = s.progress(r.Context(), &run, s.lang(r))
		}
		d.Rows = append(d.Rows, row)
	}
	if next != "" {
		v := url.Values{"cursor": {next}}
		if d.DAG != "" {
			v.Set("dag", d.DAG)
		}
		if d.Status != "" {
			v.Set("status", d.Status)
		}
		d.Next = "/runs?" + v.Encode()
	}
	s.render(w, r, http.StatusOK, "runs", d)
}

// failingNode is the first node of run id that failed, or "".
func (s *Server) failingNode(ctx context.Context, id string) string {
	_, as, err := s.opts.Service.Show(ctx, id)
	if err != nil {
		return ""
	}
	for _, n := range runs.Summarize(as) {
		if n.Status() == dag.NodeFailed {
			return n.ID
		}
	}
	return ""
}

type runData struct {
	Run      *runs.Run
	Graph    *graph
	GraphErr string
	Nodes    []*runs.NodeSummary
	Panel    *nodePanel
	// Live is set while the run runs; Interrupted when it is recorded running by a process
	// that is gone (it can be resumed).
	Live, Interrupted bool
	// Cancel offers to cancel the live run: this server's service reaches it. Elsewhere says
	// who runs a live run it does not reach, so that the page offers no button that can only
	// answer 409.
	Cancel    bool
	Elsewhere string
	// Rerun offers to rerun the run from each node: it is not running and its DAG loads.
	Rerun    bool
	Timeline *timeline
	// Approvals are the approvals the run waits for, each with its form.
	Approvals []openApproval
	// Refused says why an answer to an approval the run does not wait for was refused.
	Refused string
}

// withPending is ns followed by the nodes of d no attempt was recorded for (by holds those
// that were), in d's order, as pending: the node table lists every node of the run.
func withPending(ns []*runs.NodeSummary, d *dag.DAG, by map[string]*runs.NodeSummary) []*runs.NodeSummary {
	for _, n := range d.Nodes {
		if by[n.ID] != nil {
			continue
		}
		typ := ""
		if n.Type != nil {
			typ = n.Type.Name()
		}
		ns = append(ns, &runs.NodeSummary{ID: n.ID, Type: typ, Decided: true,
			Final: &runs.Attempt{Node: n.ID, Type: typ, Item: -1, Status: dag.NodePending}})
	}
	return ns
}

// nodePanel is what the run page says of the node picked.
type nodePanel struct {
	Node       *runs.NodeSummary
	Explain    *runs.Explanation
	Attempts   []runs.Attempt
	Output     string
	OutputHash string
	OutputSize int
	Truncated  bool
	LogTail    string
	// LiveLog is set while the node's attempt runs: the page follows its log (runEvents).
	LiveLog bool
	// Follow names the node whose live log the page asks its event stream for, while the
	// run runs, whether it has started or not: seam.js draws the log when one comes.
	Follow      string
	Err         string
	SubRun      string
	HasItems    bool
	ItemsPassed int
	// FailedItems are the outputs of the foreach items that failed (the first few), which
	// say why and which the node's output does not hold.
	FailedItems []itemOutput
}

// itemOutput is the output of one foreach item's last attempt.
type itemOutput struct {
	Item      int
	Reason    string
	Output    string
	Truncated bool
}

// maxFailedItems bounds the failed items whose outputs a node's panel shows, and
// maxItemOutput each output shown (the download link has it whole).
const (
	maxFailedItems = 10
	maxItemOutput  = 4 << 10
)

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	s.showRun(w, r, http.StatusOK, nil)
}

// showRun answers the page of the run the path names with code; sent, when not nil, is an
// answer to one of its approvals that was refused, shown again with why.
func (s *Server) showRun(w http.ResponseWriter, r *http.Request, code int, sent *sentAnswer) {
	ctx := r.Context()
	run, as, err := s.opts.Service.Show(ctx, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, failCode(err), err)
		return
	}
	l := s.lang(r)
	now := time.Now()
	d := runData{Run: run, Nodes: runs.Summarize(as), Interrupted: run.InterruptedAt(now)}
	d.Live = run.Status == dag.RunRunning && !d.Interrupted
	if d.Live {
		d.Cancel = s.opts.Service.CanCancel(run)
		if !d.Cancel {
			d.Elsewhere = runsElsewhere(run, l)
		}
	}
	run.Status = run.DisplayStatus(now) // what the page says; Live and Interrupted decide the rest
	by := map[string]*runs.NodeSummary{}
	for _, n := range d.Nodes {
		by[n.ID] = n
	}
	pick := r.URL.Query().Get("node")
	status := func(id string) (string, string) {
		n := by[id]
		if n == nil {
			return string(dag.NodePending), ""
		}
		if n.Items > 0 {
			return string(n.Status()), i18n.Sprintf(l, "%d items", n.Items)
		}
		return string(n.Status()), ""
	}
	href := func(id string) string {
		return "/runs/" + url.PathEscape(run.ID) + "?node=" + url.QueryEscape(id) + "#panel"
	}
	var deps map[string][]string // unknown when the DAG file cannot be read
	if dg, fs, err := s.runDAG(ctx, run, l); err == nil {
		deps = needsOf(dg)
		d.Graph = layout(dg, verdicts(dg, fs), status, href)
		d.Nodes = withPending(d.Nodes, dg, by)
		d.Rerun = !d.Live
		d.Approvals = s.openApprovals(ctx, dg, as, sent)
	} else {
		d.GraphErr = err.Error()
		d.Graph = layoutNodes(d.Nodes, status, href)
	}
	d.Timeline = buildTimeline(as, deps, now, l)
	if sent != nil && !slices.ContainsFunc(d.Approvals, func(a openApproval) bool { return a.Node == sent.Node }) {
		d.Refused = sent.Refused // an answer to an approval that is not open (any more)
	}
	for i := range d.Graph.Nodes {
		d.Graph.Nodes[i].Selected = d.Graph.Nodes[i].ID == pick
	}
	if pick != "" {
		d.Panel = s.panel(ctx, run, as, by[pick], pick, l)
		if d.Live {
			d.Panel.Follow = pick
		}
	}
	s.render(w, r, code, "run", d)
}

// panel reads what the node panel shows of node id of run.
func (s *Server) panel(ctx context.Context, run *runs.Run, as []runs.Attempt, n *runs.NodeSummary, id string, l i18n.Lang) *nodePanel {
	p := &nodePanel{Node: n}
	if n == nil {
		p.Err = i18n.Sprintf(l, "node %s has not run yet", id)
		return p
	}
	// An item's attempts are never final (the node's own record is): an item passed when its
	// last attempt did, across sessions, since a resume keeps the items that passed.
	itemPassed := map[int]bool{}
	for _, a := range as {
		if a.Node != id {
			continue
		}
		p.Attempts = append(p.Attempts, a)
		if a.Item >= 0 {
			p.HasItems = true
			itemPassed[a.Item] = a.Status == dag.NodePassed || a.Status == dag.NodeWarned
		}
	}
	for _, passed := range itemPassed {
		if passed {
			p.ItemsPassed++
		}
	}
	for _, a := range runs.FailedItems(as, id) {
		if len(p.FailedItems) == maxFailedItems {
			break
		}
		it := itemOutput{Item: a.Item, Reason: a.Reason}
		if out, err := s.opts.Service.AttemptOutput(ctx, a); err != nil {
			it.Output = err.Error()
		} else {
			if len(out) > maxItemOutput {
				out, it.Truncated = out[:maxItemOutput], true
			}
			it.Output = string(out)
			if !it.Truncated {
				it.Output = pretty(out)
			}
		}
		p.FailedItems = append(p.FailedItems, it)
	}
	x, err := s.opts.Service.Explain(ctx, run.ID, id, runs.ExplainOptions{Lang: l, ShowPath: s.rel, ReadFile: s.files.ReadFile})
	if err != nil {
		p.Err = err.Error()
	} else {
		p.Explain = x
		if x.SubRun != nil {
			p.SubRun = x.SubRun.Run
		}
	}
	if log, live := runningLog(as, id, l); live {
		p.LogTail, p.LiveLog = log, true
	} else if n.Final != nil {
		p.LogTail = logTail(n.Final.Log)
	}
	if f := n.Final; f != nil {
		if f.OutputHash != "" {
			p.OutputHash = f.OutputHash
			out, err := s.opts.Service.AttemptOutput(ctx, f)
			if err != nil {
				p.Err = err.Error()
			} else {
				p.OutputSize = len(out)
				if len(out) > MaxShownOutput {
					out, p.Truncated = out[:MaxShownOutput], true
				}
				p.Output = string(out)
				if !p.Truncated {
					p.Output = pretty(out)
				}
			}
		}
	}
	return p
}

// layoutNodes lays out a run whose DAG file cannot be read: its recorded nodes in a column.
func layoutNodes(ns []*runs.NodeSummary, status func(string) (string, string), href func(string) string) *graph {
	d := &dag.DAG{ByID: map[string]*dag.Node{}}
	for _, n := range ns {
		dn := &dag.Node{ID: n.ID}
		d.Nodes = append(d.Nodes, dn)
	}
	d.Order = d.Nodes
	g := layout(d, nil, status, href)
	for i := range g.Nodes {
		g.Nodes[i].Type = ns[i].Type
	}
	return g
}

// runDAG loads the DAG file of run, when it is under the root, and lints it.
func (s *Server) runDAG(ctx context.Context, run *runs.Run, l i18n.Lang) (*dag.DAG, []lint.Finding, error) {
	if run.File == "" {
		return nil, nil, errors.New(i18n.Sprintf(l, "run %s has no DAG file recorded", run.ID))
	}
	d, err := s.runFile(ctx, run, l)
	if err != nil {
		return nil, nil, err
	}
	return d, lint.Lint(ctx, d, lint.Options{Lang: l}), nil
}

// runFile loads the DAG file of run, when it is under the root.
func (s *Server) runFile(ctx context.Context, run *runs.Run, l i18n.Lang) (*dag.DAG, error) {
	p, err := s.resolve(run.File, l)
	if err != nil {
		return nil, err
	}
	return s.load(ctx, p, l)
}

// runTimeline answers run id's timeline section alone, as the run page draws it: a live page
// fetches it again as the run goes (seam.js), at most once a second.
func (s *Server) runTimeline(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	run, as, err := s.opts.Service.Show(ctx, r.PathValue("id"))
	if err != nil {
		http.Error(w, err.Error(), failCode(err))
		return
	}
	l := s.lang(r)
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, "timeline", buildTimeline(as, s.timelineNeeds(ctx, run, l), time.Now(), l)); err != nil {
		s.opts.Logger.Error("seam serve: render", "page", "timeline", "error", err)
		http.Error(w, i18n.Sprintf(l, "internal error in %s: %s", "page timeline", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b.Bytes())
}

// timelineNeeds is what each node of run's DAG file needs, for its timeline's critical
// path; nil when the file cannot be read or does not load. A live page fetches the timeline
// every second: the file is read each time, and loaded only when its content is new
// (needsCache), since loading it (contracts compiled, references checked) costs the most.
func (s *Server) timelineNeeds(ctx context.Context, run *runs.Run, l i18n.Lang) map[string][]string {
	if run.File == "" {
		return nil
	}
	p, err := s.resolve(run.File, l)
	if err != nil {
		return nil
	}
	src, err := s.files.ReadFile(p)
	if err != nil || !workspace.IsDAG(src) {
		return nil
	}
	key := sha256.Sum256(src)
	if deps, ok := s.needs.get(key); ok {
		return deps
	}
	dg, err := s.loadBytes(ctx, p, src, l, s.files.ReadFile)
	if err != nil {
		return nil
	}
	deps := needsOf(dg)
	s.needs.put(key, deps)
	return deps
}

// maxNeedsCache caps the DAG files whose needs the timeline remembers.
const maxNeedsCache = 64

// needsCache remembers what each node needs in a DAG file, by the SHA-256 of the file's
// content: the edges are the file's own (a contract or a sub-DAG changes none), so the same
// content has the same needs wherever it lies.
type needsCache struct {
	mu   sync.Mutex
	byID map[[sha256.Size]byte]map[string][]string
}

func (c *needsCache) get(key [sha256.Size]byte) (map[string][]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	deps, ok := c.byID[key]
	return deps, ok
}

// put remembers deps as key's, forgetting another file's once maxNeedsCache are kept.
func (c *needsCache) put(key [sha256.Size]byte, deps map[string][]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[key]; !ok && len(c.byID) >= maxNeedsCache {
		for k := range c.byID {
			delete(c.byID, k)
			break
		}
	}
	c.byID[key] = deps
}

// logTail is the end of log the node panel shows: at most MaxLogTail bytes, from a character.
func logTail(log string) string {
	if len(log) <= MaxLogTail {
		return log
	}
	log = log[len(log)-MaxLogTail:]
	for len(log) > 0 && !utf8.RuneStart(log[0]) {
		log = log[1:]
	}
	return "…" + log
}

// nodeLog sends every log the store keeps of a node of a run, as a text download: each
// attempt's (a foreach node's items' included) by session, item and attempt, under a line
// naming it when there are several. The store holds them masked (the engine masks a log
// before it records it) and bounded: a finished exec attempt keeps the end of its stderr
// (stderr_limit, 64 KiB unless the node says), one running the end of what it has printed
// so far (engine.LiveLogLimit); the panel shows the last MaxLogTail bytes of one.
func (s *Server) nodeLog(w http.ResponseWriter, r *http.Request) {
	l := s.lang(r)
	id, node := r.PathValue("id"), r.PathValue("node")
	_, as, err := s.opts.Service.Show(r.Context(), id)
	if err != nil {
		s.fail(w, r, failCode(err), err)
		return
	}
	var logs []*runs.Attempt
	for i := range as {
		if as[i].Node == node && as[i].Log != "" {
			logs = append(logs, &as[i])
		}
	}
	if len(logs) == 0 {
		s.fail(w, r, http.StatusNotFound, errors.New(i18n.Sprintf(l, "node %s of run %s has no log", node, id)))
		return
	}
	// Items run side by side, so they are recorded in any order: read in order.
	slices.SortStableFunc(logs, func(a, b *runs.Attempt) int {
		return cmp.Or(cmp.Compare(a.Session, b.Session), cmp.Compare(a.Item, b.Item), cmp.Compare(a.Attempt, b.Attempt))
	})
	var b strings.Builder
	for _, a := range logs {
		if len(logs) > 1 {
			if a.Item >= 0 {
				b.WriteString(i18n.Sprintf(l, "── item %d · attempt %d · session %d ──", a.Item, a.Attempt, a.Session))
			} else {
				b.WriteString(i18n.Sprintf(l, "── attempt %d · session %d ──", a.Attempt, a.Session))
			}
			b.WriteByte('\n')
		}
		b.WriteString(a.Log)
		if !strings.HasSuffix(a.Log, "\n") {
			b.WriteByte('\n')
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "log-"+id+"-"+node+".txt"))
	io.WriteString(w, b.String())
}

// runningLog is what node's running attempts (as GetRun reads them, settled) have logged
// so far, the end of it as the panel shows it, and whether one runs: the node's own attempt,
// or, for a foreach node, the items running, each under a line naming it, in item order.
// The items running are those a watcher can follow; an item that ended keeps its log in its
// attempt (the download has every one).
func runningLog(as []runs.Attempt, node string, l i18n.Lang) (string, bool) {
	var b strings.Builder
	live := false
	for i := range as {
		a := &as[i]
		if a.Node != node || !a.IsStart() {
			continue
		}
		live = true
		if a.Item < 0 {
			return logTail(a.Log), true
		}
		if a.Log != "" {
			b.WriteString(i18n.Sprintf(l, "── item %d ──", a.Item))
			b.WriteByte('\n')
			b.WriteString(logTail(a.Log))
		}
	}
	return logTail(b.String()), live
}

// runEvents streams run id's status and its nodes' as server-sent events, one "data" event
// (a JSON object) each time they change, then an "end" event once the run has ended. With
// ?node=ID, the event says the log that node's running attempt has printed so far (the
// page's open panel): one node's, so that an event stays small however many nodes run.
func (s *Server) runEvents(w http.ResponseWriter, r *http.Request) {
	select {
	case s.streams <- struct{}{}:
		defer func() { <-s.streams }()
	default:
		http.Error(w, i18n.Sprintf(s.lang(r), "too many event streams open (%d): retry later", MaxEventStreams), http.StatusServiceUnavailable)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	l := s.lang(r)
	logNode := r.URL.Query().Get("node")
	started := false
	err := s.opts.Service.Watch(r.Context(), r.PathValue("id"), func(run *runs.Run, as []runs.Attempt) error {
		started = true
		// Said as the page says it: a run whose owner is gone is interrupted, and so are the
		// attempts it left running (the watch's last event, once its lease expired).
		now := time.Now()
		runs.SettleStarts(run, as, now)
		status := run.DisplayStatus(now)
		ev := runEvent{Status: string(status), StatusText: runs.StatusText(l, status), Nodes: map[string]nodeEvent{}}
		for _, n := range runs.Summarize(as) {
			ne := nodeEvent{Status: string(n.Status()), StatusText: runs.StatusText(l, n.Status())}
			if n.Items > 0 {
				ne.Note = i18n.Sprintf(l, "%d items", n.Items)
			}
			if n.ID == logNode {
				ne.Log, _ = runningLog(as, n.ID, l)
			}
			ev.Nodes[n.ID] = ne
		}
		b, _ := json.Marshal(ev) // strings only
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
		fl.Flush()
		return nil
	})
	if err != nil && !started {
		http.Error(w, err.Error(), failCode(err))
		return
	}
	if r.Context().Err() == nil {
		fmt.Fprint(w, "event: end\ndata: {}\n\n")
		fl.Flush()
	}
}

type runEvent struct {
	Status     string               `json:"status"`
	StatusText string               `json:"statusText"`
	Nodes      map[string]nodeEvent `json:"nodes"`
}

type nodeEvent struct {
	Status     string `json:"status"`
	StatusText string `json:"statusText"`
	Note       string `json:"note,omitempty"`
	Log        string `json:"log,omitempty"` // of the node asked for, while it runs
}

// output sends a stored output as a JSON download.
func (s *Server) output(w http.ResponseWriter, r *http.Request) {
	h := r.PathValue("hash")
	out, err := s.opts.Service.Output(r.Context(), r.PathValue("id"), h)
	if err != nil {
		s.fail(w, r, http.StatusNotFound, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "output-"+h[:min(12, len(h))]+".json"))
	w.Write(out)
}

// runsElsewhere says, in l, who runs run, which this server cannot cancel, and where to stop it.
func runsElsewhere(run *runs.Run, l i18n.Lang) string {
	switch {
	case run.Host == runs.HostTemporal:
		return i18n.Sprintf(l, "This run runs on Temporal, which this server does not reach: cancel it with seam runs cancel %s, from any machine that reaches Temporal.", run.ID)
	case run.PID > 0 && run.Host != "":
		return i18n.Sprintf(l, "Another process runs this run (pid %d on %s): this server cannot cancel it; stop that process (Ctrl-C where it runs).", run.PID, run.Host)
	default:
		return i18n.Sprintf(l, "Another process runs this run: this server cannot cancel it; stop it where it runs.")
	}
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request) {
	if s.refuseReadOnly(w, r) {
		return
	}
	id := r.PathValue("id")
	if err := s.opts.Service.Cancel(r.Context(), id); err != nil {
		s.fail(w, r, failCode(err), err)
		return
	}
	http.Redirect(w, r, "/runs/"+url.PathEscape(id), http.StatusSeeOther)
}

func (s *Server) resume(w http.ResponseWriter, r *http.Request) {
	if s.refuseReadOnly(w, r) {
		return
	}
	ctx, l := r.Context(), s.lang(r)
	// from, sent by a node's "Rerun from here", reruns the run from that node.
	rs, err := s.opts.Service.Resumable(ctx, r.PathValue("id"), service.ResumeCheck{From: r.PostFormValue("from")})
	if err != nil {
		s.fail(w, r, failCode(err), err)
		return
	}
	p, err := s.resolve(rs.File, l)
	if err != nil {
		s.fail(w, r, http.StatusConflict, err)
		return
	}
	d, err := s.load(ctx, p, l)
	if err != nil {
		s.fail(w, r, http.StatusConflict, err)
		return
	}
	// The run outlives the request; the Service's Close stops it.
	run, err := s.opts.Service.Resume(context.WithoutCancel(ctx), rs, d, service.Request{})
	if err != nil {
		s.fail(w, r, http.StatusConflict, err)
		return
	}
	s.started(w, r, run)
}

// started redirects to the page of run once it is in the store.
func (s *Server) started(w http.ResponseWriter, r *http.Request, run *service.Run) {
	select {
	case <-run.Recorded():
	case <-run.Done():
		if _, err := run.Wait(); err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
	case <-r.Context().Done():
		return
	}
	http.Redirect(w, r, "/runs/"+url.PathEscape(run.ID), http.StatusSeeOther)
}

func (s *Server) refuseReadOnly(w http.ResponseWriter, r *http.Request) bool {
	if !s.opts.ReadOnly {
		return false
	}
	s.fail(w, r, http.StatusForbidden, errors.New(i18n.Sprintf(s.lang(r), "this server is read-only (seam serve --read-only): it starts, cancels and resumes nothing")))
	return true
}

type dagData struct {
	Path       string
	DAG        *dag.DAG
	Graph      *graph
	Findings   []lint.Finding
	LoadErrors []string
	Fields     []field
	FormErrors []string
	NoLint     bool // the form asked to run despite lint's errors
	// Engines name the engines the form offers when there is a choice, "embedded" first;
	// Engine is the one chosen.
	Engines []string
	Engine  string
	// History is the DAG's latest runs; HistoryErr says why they cannot be read.
	History     *dagHistory
	HistoryErr  string
	HistorySize int // HistorySize, for the page to say when there are more
	// Sim is the simulation the Simulate button asked for; nil when none was.
	Sim *simView
}

func (s *Server) dagPage(w http.ResponseWriter, r *http.Request) {
	d, code := s.dagData(r)
	if d.DAG != nil && wantsSimulation(r) {
		d.Sim = s.simulation(r.Context(), d.DAG, s.lang(r))
	}
	s.render(w, r, code, "dag", d)
}

// dagData reads the DAG file the request's path names and what its page shows.
func (s *Server) dagData(r *http.Request) (*dagData, int) {
	ctx, l := r.Context(), s.lang(r)
	d := &dagData{Path: r.PathValue("path"), HistorySize: HistorySize}
	if len(s.opts.Engines) > 0 {
		d.Engines = service.Offered(s.opts.Engines)
	}
	p, err := s.resolve(d.Path, l)
	if err != nil {
		d.LoadErrors = []string{err.Error()}
		return d, http.StatusNotFound
	}
	d.Path = s.rel(p)
	dg, err := s.load(ctx, p, l)
	if err != nil {
		var ds dag.Diagnostics
		if errors.As(err, &ds) {
			for _, x := range ds {
				d.LoadErrors = append(d.LoadErrors, x.String())
			}
		} else {
			d.LoadErrors = []string{err.Error()}
		}
		return d, http.StatusUnprocessableEntity
	}
	d.DAG = dg
	d.Findings = lint.Lint(ctx, dg, lint.Options{Lang: l})
	for i := range d.Findings {
		d.Findings[i].Pos.File = s.rel(d.Findings[i].Pos.File)
	}
	d.Graph = layout(dg, verdicts(dg, d.Findings), nil, nil)
	d.Fields = fields(dg)
	if d.History, err = s.history(ctx, dg.Name); err != nil {
		d.HistoryErr = err.Error()
	}
	return d, http.StatusOK
}

// startRun starts the DAG file the path names with the params its form holds, checked
// again here against the params schema, and redirects to the run's page.
func (s *Server) startRun(w http.ResponseWriter, r *http.Request) {
	if s.refuseReadOnly(w, r) {
		return
	}
	d, code := s.dagData(r)
	if d.DAG == nil {
		s.render(w, r, code, "dag", d)
		return
	}
	l := s.lang(r)
	params, errs := formParams(d.Fields, r.PostForm, l)
	for i := range d.Fields {
		v := r.PostForm.Get("p." + d.Fields[i].Name)
		if d.Fields[i].Type == kindBoolean {
			v = strconv.FormatBool(checked(v)) // the box stays as it was sent
		}
		d.Fields[i].Value = v
	}
	if len(errs) > 0 {
		d.FormErrors = errs
		s.render(w, r, http.StatusBadRequest, "dag", d)
		return
	}
	d.NoLint = r.PostForm.Get("nolint") == "on"
	req := service.Request{Params: params, NoLint: d.NoLint}
	if d.Engine = r.PostForm.Get("engine"); d.Engine != "" && d.Engine != "embedded" {
		eng, ok := s.opts.Engines[d.Engine]
		if !ok {
			d.FormErrors = []string{i18n.Sprintf(l, "unknown engine %q: this server offers %s", d.Engine, strings.Join(d.Engines, ", "))}
			s.render(w, r, http.StatusBadRequest, "dag", d)
			return
		}
		req.Engine = eng
	}
	run, err := s.opts.Service.Start(context.WithoutCancel(r.Context()), d.DAG, req)
	if err != nil {
		var pe *engine.ParamsError
		if errors.As(err, &pe) {
			for _, v := range pe.Violations {
				d.FormErrors = append(d.FormErrors, strings.TrimPrefix(v.Pointer+": ", "/")+v.Message)
			}
		} else {
			d.FormErrors = []string{err.Error()}
		}
		s.render(w, r, http.StatusBadRequest, "dag", d)
		return
	}
	s.started(w, r, run)
}

// pretty indents a JSON output and unescapes what encoding/json escapes for HTML (\u003c):
// the page shows the output as text, and html/template escapes it once, for the page.
func pretty(out []byte) string {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(out)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return string(out)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
