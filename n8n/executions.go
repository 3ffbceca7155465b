package n8n

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// ExecutionSummary is an execution as lists show it: n8n's record, with the workflow's name
// and how long it ran.
type ExecutionSummary struct {
	ID           ID         `json:"id"`
	WorkflowID   ID         `json:"workflowId"`
	WorkflowName string     `json:"workflowName,omitempty"` // "" when n8n no longer has the workflow
	Status       string     `json:"status"`                 // as n8n says it: success, error, crashed, new, unknown…
	Mode         string     `json:"mode"`
	StartedAt    *time.Time `json:"startedAt,omitempty"`
	StoppedAt    *time.Time `json:"stoppedAt,omitempty"`
	// ExecutionTime is stoppedAt − startedAt in milliseconds, absent while it runs.
	ExecutionTime  *int64     `json:"executionTime,omitempty"`
	RetryOf        ID         `json:"retryOf,omitempty"`
	RetrySuccessID ID         `json:"retrySuccessId,omitempty"`
	Finished       bool       `json:"finished"`
	WaitTill       *time.Time `json:"waitTill,omitempty"`
}

// Summarize is e as lists show it; name is its workflow's name.
func Summarize(e *Execution, name string) ExecutionSummary {
	s := ExecutionSummary{
		ID: e.ID, WorkflowID: e.WorkflowID, WorkflowName: name, Status: e.Status, Mode: e.Mode,
		StartedAt: e.StartedAt, StoppedAt: e.StoppedAt, RetryOf: e.RetryOf, RetrySuccessID: e.RetrySuccessID,
		Finished: e.Finished, WaitTill: e.WaitTill,
	}
	if e.StartedAt != nil && e.StoppedAt != nil {
		ms := max(e.StoppedAt.Sub(*e.StartedAt).Milliseconds(), 0)
		s.ExecutionTime = &ms
	}
	return s
}

// ExecutionQuery selects executions for ExecutionList: n8n's filters, and the time range
// the executions started in, which n8n cannot filter by.
type ExecutionQuery struct {
	ExecutionFilter
	// Start and End bound startedAt, both included; zero leaves that side open. An execution
	// that has not started is outside any range.
	Start, End time.Time
}

func (q *ExecutionQuery) ranged() bool { return !q.Start.IsZero() || !q.End.IsZero() }

func (q *ExecutionQuery) in(e *Execution) bool {
	if !q.ranged() {
		return true
	}
	if e.StartedAt == nil {
		return false
	}
	return (q.Start.IsZero() || !e.StartedAt.Before(q.Start)) && (q.End.IsZero() || !e.StartedAt.After(q.End))
}

// ExecutionPage is what ExecutionList found.
type ExecutionPage struct {
	Executions []Execution
	// Names are the names of the listed executions' workflows, by id.
	Names      map[ID]string
	NextCursor string
	// Pages is how many pages n8n was asked for.
	Pages int
}

// Summaries are the executions as lists show them.
func (p *ExecutionPage) Summaries() []ExecutionSummary {
	out := make([]ExecutionSummary, len(p.Executions))
	for i := range p.Executions {
		out[i] = Summarize(&p.Executions[i], p.Names[p.Executions[i].WorkflowID])
	}
	return out
}

// MaxScanPages bounds how many pages one ExecutionList call reads (without All) looking for
// executions in its time range; past it, the call returns none with the cursor to go on.
const MaxScanPages = 100

// ExecutionList lists executions, newest first, with their workflows' names. Without a time
// range it is one page (or with All every page). With one, it reads n8n's pages from the
// cursor on, skips the pages of executions newer than the range, and stops at the first
// execution older than it: a page holds the executions of one n8n page that are in the range
// (so it may be shorter than Limit), and a range that holds none costs the pages down to it.
func (c *Client) ExecutionList(ctx context.Context, q ExecutionQuery) (*ExecutionPage, error) {
	out := &ExecutionPage{Executions: []Execution{}}
	// The filter's workflow is known before the list: its name is asked for alongside, so that
	// a list of one workflow costs the time of one request, not two.
	type named struct {
		names map[ID]string
		err   error
	}
	filterName := make(chan named, 1)
	ctx, cancel := context.WithCancel(ctx) // so that a failed list stops the lookup too
	defer cancel()
	if q.WorkflowID != "" {
		go func() {
			names, err := c.WorkflowNames(ctx, []ID{q.WorkflowID})
			filterName <- named{names, err}
		}()
	}
	cursor := q.Cursor
	seen := map[string]bool{cursor: true}
	for {
		f := q.ExecutionFilter
		f.Cursor, f.All = cursor, false
		p, err := c.ListExecutions(ctx, f)
		if err != nil {
			return nil, err
		}
		out.Pages++
		past := false
		for i := range p.Data {
			e := &p.Data[i]
			switch {
			case q.in(e):
				out.Executions = append(out.Executions, *e)
			case !q.Start.IsZero() && e.StartedAt != nil && e.StartedAt.Before(q.Start):
				past = true // newest first: the rest are older still
			}
		}
		out.NextCursor = p.NextCursor
		if past || p.NextCursor == "" || len(p.Data) == 0 {
			if past {
				out.NextCursor = ""
			}
			break
		}
		if !q.All && (len(out.Executions) > 0 || out.Pages >= MaxScanPages) {
			break
		}
		if seen[p.NextCursor] {
			return nil, i18n.Errorf(c.cfg.Lang, "list executions: page %d: n8n's cursor does not advance; stopped following it", out.Pages)
		}
		if out.Pages >= maxPages {
			return nil, i18n.Errorf(c.cfg.Lang, "list executions: page %d: stopped after %d pages, seam's limit on one list; narrow it with a filter", out.Pages, maxPages)
		}
		seen[p.NextCursor] = true
		cursor = p.NextCursor
	}
	if q.WorkflowID != "" {
		n := <-filterName
		if n.err != nil {
			return nil, n.err
		}
		out.Names = n.names
		return out, nil
	}
	ids := make([]ID, len(out.Executions))
	for i, e := range out.Executions {
		ids[i] = e.WorkflowID
	}
	names, err := c.WorkflowNames(ctx, ids)
	if err != nil {
		return nil, err
	}
	out.Names = names
	return out, nil
}

// nameLookups is how many workflows WorkflowNames asks n8n for at once.
const nameLookups = 4

// WorkflowNames returns the names of the workflows with these ids, asking n8n once per
// distinct id: n8n's list of executions has no names. A workflow n8n no longer has is left
// out. The names are not kept beyond the call, so a renamed workflow shows its new name.
func (c *Client) WorkflowNames(ctx context.Context, ids []ID) (map[ID]string, error) {
	var distinct []ID
	for _, id := range ids {
		if id != "" && !slices.Contains(distinct, id) {
			distinct = append(distinct, id)
		}
	}
	names := make(map[ID]string, len(distinct))
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		first error
	)
	sem := make(chan struct{}, nameLookups)
	for _, id := range distinct {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			w, err := c.GetWorkflow(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				names[id] = w.Name
			case StatusCode(err) == http.StatusNotFound:
			case first == nil:
				first = i18n.Errorf(c.cfg.Lang, "the name of workflow %s: %w", id, err)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return names, nil
}

// ParseDate reads an ISO 8601 date (2026-01-02) or time with its zone (2026-01-02T15:04:05Z,
// 2026-01-02T15:04:05.5+09:00). A date means the start of that day in UTC, or with end its
// last instant, so that a range of days includes its last day.
func ParseDate(s string, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		if end {
			return d.AddDate(0, 0, 1).Add(-time.Nanosecond), nil
		}
		return d, nil
	}
	return time.Time{}, errors.New("not an ISO 8601 date or time")
}

// ExecutionError is why an execution failed.
type ExecutionError struct {
	Message     string `json:"message"`
	Node        string `json:"node,omitempty"`
	Description string `json:"description,omitempty"`
}

// NodeExecution is what one node did in an execution. A node that ran more than once (in a
// loop) is one entry: its runs' times added up, from the first run's start to the last
// run's end, its items counted over all runs, and the status of its last run, unless one
// failed.
type NodeExecution struct {
	NodeName      string     `json:"nodeName"`
	NodeID        string     `json:"nodeId,omitempty"`
	NodeType      string     `json:"nodeType,omitempty"`
	Status        string     `json:"status"`
	ExecutionTime int64      `json:"executionTime"` // milliseconds
	StartTime     *time.Time `json:"startTime,omitempty"`
	EndTime       *time.Time `json:"endTime,omitempty"`
	Error         string     `json:"error,omitempty"`
	HasData       bool       `json:"hasData"`
	ItemCount     int        `json:"itemCount"` // items on all its outputs
	Runs          int        `json:"runs"`
	order         int64      // n8n's executionIndex of the first run, or its start
}

// ExecutionDetail is one execution: its summary, why it failed, what each node did, the
// workflow's settings and, when asked for, n8n's data.
type ExecutionDetail struct {
	ExecutionSummary
	Error          *ExecutionError `json:"error,omitempty"`
	NodeExecutions []NodeExecution `json:"nodeExecutions"`
	Settings       map[string]any  `json:"settings,omitempty"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// ExecutionDetail gets an execution with what each node did. n8n keeps that only in the
// execution's data, so the data is always fetched; includeData keeps it in the answer.
func (c *Client) ExecutionDetail(ctx context.Context, id ID, includeData bool) (*ExecutionDetail, error) {
	e, err := c.GetExecution(ctx, id, true)
	if err != nil {
		return nil, err
	}
	d, err := Detail(c.cfg.Lang, e)
	if err != nil {
		return nil, err
	}
	if !includeData {
		d.Data = nil
	}
	return d, nil
}

// Detail reads an execution fetched with its data (includeData) into an ExecutionDetail; its
// errors are said in lang.
func Detail(lang i18n.Lang, e *Execution) (*ExecutionDetail, error) {
	d := &ExecutionDetail{NodeExecutions: []NodeExecution{}, Data: e.Data}
	name := ""
	nodes := map[string]WorkflowNode{}
	if w := e.WorkflowData; w != nil {
		name, d.Settings = w.Name, w.Settings
		for _, n := range w.Nodes {
			nodes[n.Name] = n
		}
	}
	d.ExecutionSummary = Summarize(e, name)
	if !e.hasData() {
		return d, nil
	}
	rd, err := e.readData(lang)
	if err != nil {
		return nil, err
	}
	r := rd.ResultData
	for nodeName, runs := range r.RunData {
		if len(runs) == 0 {
			continue
		}
		n := NodeExecution{NodeName: nodeName, NodeID: nodes[nodeName].ID, NodeType: nodes[nodeName].Type, Runs: len(runs)}
		for i, run := range runs {
			n.ExecutionTime += run.ExecutionTime
			if i == 0 {
				n.order = run.StartTime
				if run.ExecutionIndex != nil {
					n.order = *run.ExecutionIndex
				}
				if run.StartTime > 0 {
					n.StartTime = ptrTime(time.UnixMilli(run.StartTime).UTC())
				}
			}
			if run.StartTime > 0 {
				n.EndTime = ptrTime(time.UnixMilli(run.StartTime + run.ExecutionTime).UTC())
			}
			status := run.ExecutionStatus
			if run.Error != nil {
				n.Error = run.Error.Message
				if status == "" {
					status = "error"
				}
			}
			if status == "" {
				status = "success" // n8n before 1.x says nothing when a node succeeds
			}
			if n.Status != "error" {
				n.Status = status
			}
			for _, outputs := range run.Data {
				for _, items := range outputs {
					n.ItemCount += len(items)
				}
			}
		}
		n.HasData = n.ItemCount > 0
		d.NodeExecutions = append(d.NodeExecutions, n)
	}
	slices.SortFunc(d.NodeExecutions, func(a, b NodeExecution) int {
		if c := cmp.Compare(a.order, b.order); c != 0 {
			return c
		}
		return strings.Compare(a.NodeName, b.NodeName)
	})
	if r.Error != nil {
		d.Error = &ExecutionError{Message: r.Error.Message, Description: r.Error.Description}
		if r.Error.Node != nil {
			d.Error.Node = r.Error.Node.Name
		}
	}
	// n8n 2.x does not name the failed node in the execution's error: it is the node whose
	// run failed, else the one that ran last (a failure stops the execution).
	for _, n := range d.NodeExecutions {
		if n.Status != "error" {
			continue
		}
		if d.Error == nil {
			d.Error = &ExecutionError{Message: n.Error}
		}
		if d.Error.Node == "" {
			d.Error.Node = n.NodeName
		}
		break
	}
	if d.Error != nil && d.Error.Node == "" {
		d.Error.Node = r.LastNodeExecuted
	}
	return d, nil
}

func ptrTime(t time.Time) *time.Time { return &t }

// FailedFirst is the nodes with failed ones first, each group in the order they ran.
func FailedFirst(nodes []NodeExecution) []NodeExecution {
	out := slices.Clone(nodes)
	slices.SortStableFunc(out, func(a, b NodeExecution) int {
		af, bf := a.Status == "error", b.Status == "error"
		switch {
		case af && !bf:
			return -1
		case bf && !af:
			return 1
		}
		return 0
	})
	return out
}

// ---- minimal shapes, for a model's context and for people ----

// ExecutionBrief is an execution in a minimal list: the workflow's name only when the list
// spans workflows (it is said once above a list of one), the start to the second (the
// duration is in milliseconds).
type ExecutionBrief struct {
	ID         string     `json:"id"`
	Status     string     `json:"status"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	DurationMS *int64     `json:"duration_ms,omitempty"`
	Workflow   string     `json:"workflow,omitempty"`
}

// Briefs are the executions of a minimal list. A workflow n8n no longer has is shown by id.
func Briefs(es []ExecutionSummary, spansWorkflows bool) []ExecutionBrief {
	out := make([]ExecutionBrief, len(es))
	for i, e := range es {
		out[i] = ExecutionBrief{ID: string(e.ID), Status: e.Status, StartedAt: seconds(e.StartedAt), DurationMS: e.ExecutionTime}
		if spansWorkflows {
			out[i].Workflow = e.WorkflowName
			if out[i].Workflow == "" {
				out[i].Workflow = string(e.WorkflowID)
			}
		}
	}
	return out
}

// seconds is t to the second, for minimal answers.
func seconds(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	s := t.UTC().Truncate(time.Second)
	return &s
}

// NodeBrief is what a node did, in a minimal answer.
type NodeBrief struct {
	Name       string `json:"name"`
	Status     string `json:"status"`
	DurationMS int64  `json:"duration_ms"`
	Items      int    `json:"items"`
	Runs       int    `json:"runs,omitempty"` // when more than one
	Error      string `json:"error,omitempty"`
}

// DetailMinimal is an execution in a minimal answer: no data, no settings, the nodes failed
// first.
type DetailMinimal struct {
	ID         string          `json:"id"`
	WorkflowID string          `json:"workflow_id"`
	Workflow   string          `json:"workflow,omitempty"`
	Status     string          `json:"status"`
	Mode       string          `json:"mode,omitempty"`
	StartedAt  *time.Time      `json:"started_at,omitempty"`
	DurationMS *int64          `json:"duration_ms,omitempty"`
	RetryOf    string          `json:"retry_of,omitempty"`
	Error      *ExecutionError `json:"error,omitempty"`
	Nodes      []NodeBrief     `json:"nodes"`
}

// Minimal is d in a minimal answer.
func (d *ExecutionDetail) Minimal() DetailMinimal {
	m := DetailMinimal{
		ID: string(d.ID), WorkflowID: string(d.WorkflowID), Workflow: d.WorkflowName, Status: d.Status, Mode: d.Mode,
		StartedAt: seconds(d.StartedAt), DurationMS: d.ExecutionTime, RetryOf: string(d.RetryOf), Nodes: []NodeBrief{},
	}
	if d.Error != nil {
		m.Error = &ExecutionError{Message: d.Error.Message, Node: d.Error.Node}
	}
	for _, n := range FailedFirst(d.NodeExecutions) {
		b := NodeBrief{Name: n.NodeName, Status: n.Status, DurationMS: n.ExecutionTime, Items: n.ItemCount, Error: n.Error}
		if n.Runs > 1 {
			b.Runs = n.Runs
		}
		m.Nodes = append(m.Nodes, b)
	}
	return m
}

// ExecutionListing is a page of executions as list answers give it: the filter's workflow
// (its name said once), counts by status, the executions and the next page's cursor.
type ExecutionListing struct {
	WorkflowID string             `json:"workflow_id,omitempty"`
	Workflow   string             `json:"workflow,omitempty"`
	Count      int                `json:"count"`
	Counts     map[string]int     `json:"counts"`
	Executions []ExecutionSummary `json:"executions"`
	NextCursor string             `json:"next_cursor,omitempty"`
}

// Listing is p as list answers give it; workflowID is the filter's, if any.
func Listing(p *ExecutionPage, workflowID ID) ExecutionListing {
	l := ExecutionListing{WorkflowID: string(workflowID), Workflow: p.Names[workflowID], Counts: map[string]int{},
		Executions: p.Summaries(), NextCursor: p.NextCursor}
	l.Count = len(l.Executions)
	for _, e := range l.Executions {
		l.Counts[e.Status]++
	}
	return l
}

// ListingMinimal is a listing in a minimal answer.
type ListingMinimal struct {
	WorkflowID string           `json:"workflow_id,omitempty"`
	Workflow   string           `json:"workflow,omitempty"`
	Count      int              `json:"count"`
	Counts     map[string]int   `json:"counts"`
	Executions []ExecutionBrief `json:"executions"`
	NextCursor string           `json:"next_cursor,omitempty"`
}

// Minimal is l in a minimal answer: each execution's workflow is named only when the
// listing spans workflows.
func (l ExecutionListing) Minimal() ListingMinimal {
	return ListingMinimal{WorkflowID: l.WorkflowID, Workflow: l.Workflow, Count: l.Count, Counts: l.Counts,
		Executions: Briefs(l.Executions, l.WorkflowID == ""), NextCursor: l.NextCursor}
}
