package n8n

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// ID is an n8n id. n8n sends workflow ids as strings and execution ids as strings or
// numbers depending on the version and the endpoint, so both decode.
type ID string

// UnmarshalJSON accepts a string, a number or null.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*id = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = ID(s)
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("id must be a string or a number, got %s", b)
		}
		*id = ID(n.String())
	}
	return nil
}

// IDOf turns a configuration value (string, integer, json.Number) into an id. Its errors are
// i18n.Messages, said in the language of whoever prints them.
func IDOf(v any) (ID, error) {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return "", i18n.M("id is empty")
		}
		return ID(x), nil
	case json.Number:
		return ID(x.String()), nil
	case int:
		return ID(strconv.Itoa(x)), nil
	case int64:
		return ID(strconv.FormatInt(x, 10)), nil
	case uint64:
		return ID(strconv.FormatUint(x, 10)), nil
	case float64:
		if x != float64(int64(x)) {
			return "", i18n.M("id must be a whole number, got %v", x)
		}
		return ID(strconv.FormatInt(int64(x), 10)), nil
	case nil:
		return "", i18n.M("id is missing")
	}
	return "", i18n.M("id must be a string or a number, got %T", v)
}

// Tag is a workflow tag.
type Tag struct {
	ID   ID     `json:"id,omitempty"`
	Name string `json:"name"`
}

// Workflow is an n8n workflow as the API returns it. Nodes, connections and settings are
// kept as JSON values: seam hands them on without needing their structure.
type Workflow struct {
	ID          ID               `json:"id,omitempty"`
	Name        string           `json:"name"`
	Active      bool             `json:"active"`
	Nodes       []map[string]any `json:"nodes"`
	Connections map[string]any   `json:"connections"`
	Settings    map[string]any   `json:"settings,omitempty"`
	StaticData  any              `json:"staticData,omitempty"`
	Tags        []Tag            `json:"tags,omitempty"`
	CreatedAt   string           `json:"createdAt,omitempty"`
	UpdatedAt   string           `json:"updatedAt,omitempty"`
}

// writable is what create and update send: n8n rejects read-only fields (id, active, tags)
// in the body.
func (w *Workflow) writable() map[string]any {
	m := map[string]any{"name": w.Name, "nodes": w.Nodes, "connections": w.Connections}
	if w.Nodes == nil {
		m["nodes"] = []any{}
	}
	if w.Connections == nil {
		m["connections"] = map[string]any{}
	}
	// settings is required by the API; an empty object takes n8n's defaults.
	if w.Settings != nil {
		m["settings"] = w.Settings
	} else {
		m["settings"] = map[string]any{}
	}
	if w.StaticData != nil {
		m["staticData"] = w.StaticData
	}
	return m
}

// Execution is an n8n execution. Data is present when asked for (includeData).
type Execution struct {
	ID             ID              `json:"id"`
	Finished       bool            `json:"finished"`
	Mode           string          `json:"mode"`
	RetryOf        ID              `json:"retryOf"`
	RetrySuccessID ID              `json:"retrySuccessId"`
	Status         string          `json:"status"`
	StartedAt      *time.Time      `json:"startedAt"`
	StoppedAt      *time.Time      `json:"stoppedAt"`
	WorkflowID     ID              `json:"workflowId"`
	WaitTill       *time.Time      `json:"waitTill"`
	Data           json.RawMessage `json:"data,omitempty"`
	// WorkflowData is the workflow as it ran, which n8n sends with the data.
	WorkflowData *ExecutionWorkflow `json:"workflowData,omitempty"`
}

// ExecutionWorkflow is the part of an execution's workflow that seam reads.
type ExecutionWorkflow struct {
	ID       ID             `json:"id"`
	Name     string         `json:"name"`
	Nodes    []WorkflowNode `json:"nodes"`
	Settings map[string]any `json:"settings,omitempty"`
}

// WorkflowNode is a node of an execution's workflow, without its parameters.
type WorkflowNode struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// Page is one page of a list, and the cursor of the next ("" on the last).
type Page[T any] struct {
	Data       []T    `json:"data"`
	NextCursor string `json:"nextCursor"`
}

// WorkflowFilter selects workflows to list.
type WorkflowFilter struct {
	Active    *bool
	Tags      []string // workflows having all these tag names
	Name      string
	ProjectID string
	Limit     int    // per page; 0 means n8n's default (100), at most 250
	Cursor    string // a page's NextCursor
	All       bool   // follow NextCursor to the end
}

// ExecutionFilter selects executions to list. n8n lists the newest first.
type ExecutionFilter struct {
	Status      string // canceled, error, running, success, waiting
	WorkflowID  ID
	ProjectID   string
	IncludeData bool
	Limit       int
	Cursor      string
	All         bool
}

// maxPages bounds how many pages All follows, so that a cursor that never ends (a server
// bug) cannot loop forever.
const maxPages = 10_000

// ListWorkflows lists workflows: one page, or with All every page.
func (c *Client) ListWorkflows(ctx context.Context, f WorkflowFilter) (*Page[Workflow], error) {
	q := url.Values{}
	if f.Active != nil {
		q.Set("active", strconv.FormatBool(*f.Active))
	}
	if len(f.Tags) > 0 {
		q.Set("tags", strings.Join(f.Tags, ","))
	}
	setIf(q, "name", f.Name)
	setIf(q, "projectId", f.ProjectID)
	p, err := listAll[Workflow](ctx, c, "/workflows", q, f.Limit, f.Cursor, f.All)
	if err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "list workflows: %w", err)
	}
	return p, nil
}

// ListExecutions lists executions, newest first: one page, or with All every page.
func (c *Client) ListExecutions(ctx context.Context, f ExecutionFilter) (*Page[Execution], error) {
	q := url.Values{}
	setIf(q, "status", f.Status)
	setIf(q, "workflowId", string(f.WorkflowID))
	setIf(q, "projectId", f.ProjectID)
	if f.IncludeData {
		q.Set("includeData", "true")
	}
	p, err := listAll[Execution](ctx, c, "/executions", q, f.Limit, f.Cursor, f.All)
	if err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "list executions: %w", err)
	}
	return p, nil
}

func setIf(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// listAll fetches the page at cursor, and with all the pages after it.
func listAll[T any](ctx context.Context, c *Client, path string, q url.Values, limit int, cursor string, all bool) (*Page[T], error) {
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	out := &Page[T]{Data: []T{}}
	seen := map[string]bool{cursor: true}
	for page := 0; ; page++ {
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var p Page[T]
		if err := c.do(ctx, call{method: "GET", path: path, query: q, idempotent: true}, &p); err != nil {
			if page > 0 {
				return nil, i18n.Errorf(c.cfg.Lang, "page %d: %w", page+1, err)
			}
			return nil, err
		}
		out.Data = append(out.Data, p.Data...)
		out.NextCursor = p.NextCursor
		if !all || p.NextCursor == "" || len(p.Data) == 0 {
			return out, nil
		}
		if seen[p.NextCursor] {
			return nil, i18n.Errorf(c.cfg.Lang, "page %d: n8n's cursor does not advance; stopped following it", page+1)
		}
		if page+1 >= maxPages {
			return nil, i18n.Errorf(c.cfg.Lang, "page %d: stopped after %d pages, seam's limit on one list; narrow it with a filter", page+1, maxPages)
		}
		seen[p.NextCursor] = true
		cursor = p.NextCursor
	}
}

// InvalidIDError is an id refused before any request: empty, or one that would name another
// path. Callers tell it from n8n's answers to report it as their caller's mistake.
type InvalidIDError struct {
	ID   ID
	Lang i18n.Lang // the language Error says it in
}

func (e *InvalidIDError) Error() string {
	if strings.TrimSpace(string(e.ID)) == "" {
		return i18n.Sprintf(e.Lang, "id is empty")
	}
	return i18n.Sprintf(e.Lang, "id %q is not an n8n id", string(e.ID))
}

func (c *Client) idPath(prefix string, id ID, suffix string) (string, error) {
	if strings.TrimSpace(string(id)) == "" {
		return "", &InvalidIDError{ID: id, Lang: c.cfg.Lang}
	}
	// The path is escaped once, when the request's URL is written; an id that would name
	// another path (a/b, .., ?x) is refused rather than sent with the API key.
	if s := string(id); s == "." || s == ".." || strings.ContainsAny(s, "/?#%\\") {
		return "", &InvalidIDError{ID: id, Lang: c.cfg.Lang}
	}
	return prefix + "/" + string(id) + suffix, nil
}

// GetWorkflow returns a workflow.
func (c *Client) GetWorkflow(ctx context.Context, id ID) (*Workflow, error) {
	return c.workflowCall(ctx, i18n.Key("get workflow"), "GET", id, "", nil, true)
}

// CreateWorkflow creates w (name, nodes, connections, settings, staticData) and returns it
// as stored, with its id.
func (c *Client) CreateWorkflow(ctx context.Context, w *Workflow) (*Workflow, error) {
	var out Workflow
	if err := c.do(ctx, call{method: "POST", path: "/workflows", body: w.writable()}, &out); err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "create workflow %q: %w", w.Name, err)
	}
	return &out, nil
}

// UpdateWorkflow replaces workflow id by w. Only name, nodes, connections, settings and
// staticData are sent: the rest is read-only and n8n refuses it.
func (c *Client) UpdateWorkflow(ctx context.Context, id ID, w *Workflow) (*Workflow, error) {
	return c.workflowCall(ctx, i18n.Key("update workflow"), "PUT", id, "", w.writable(), true)
}

// DeleteWorkflow deletes a workflow and returns it as it was.
func (c *Client) DeleteWorkflow(ctx context.Context, id ID) (*Workflow, error) {
	return c.workflowCall(ctx, i18n.Key("delete workflow"), "DELETE", id, "", nil, true)
}

// ActivateWorkflow activates a workflow: its triggers and production webhooks start.
// Activating an active workflow changes nothing, so the call is retried like a GET.
func (c *Client) ActivateWorkflow(ctx context.Context, id ID) (*Workflow, error) {
	return c.workflowCall(ctx, i18n.Key("activate workflow"), "POST", id, "/activate", nil, true)
}

// DeactivateWorkflow deactivates a workflow.
func (c *Client) DeactivateWorkflow(ctx context.Context, id ID) (*Workflow, error) {
	return c.workflowCall(ctx, i18n.Key("deactivate workflow"), "POST", id, "/deactivate", nil, true)
}

func (c *Client) workflowCall(ctx context.Context, what, method string, id ID, suffix string, body any, idempotent bool) (*Workflow, error) {
	p, err := c.idPath("/workflows", id, suffix)
	if err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "%s: %w", i18n.Format(c.cfg.Lang, what), err)
	}
	var out Workflow
	if err := c.do(ctx, call{method: method, path: p, body: body, idempotent: idempotent}, &out); err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "%s %s: %w", i18n.Format(c.cfg.Lang, what), id, err)
	}
	return &out, nil
}

// WorkflowTags returns a workflow's tags.
func (c *Client) WorkflowTags(ctx context.Context, id ID) ([]Tag, error) {
	return c.tagsCall(ctx, i18n.Key("get tags of workflow"), "GET", id, nil)
}

// SetWorkflowTags replaces a workflow's tags by the tags with these ids.
func (c *Client) SetWorkflowTags(ctx context.Context, id ID, tagIDs []ID) ([]Tag, error) {
	body := make([]map[string]ID, len(tagIDs))
	for i, t := range tagIDs {
		body[i] = map[string]ID{"id": t}
	}
	return c.tagsCall(ctx, i18n.Key("set tags of workflow"), "PUT", id, body)
}

func (c *Client) tagsCall(ctx context.Context, what, method string, id ID, body any) ([]Tag, error) {
	p, err := c.idPath("/workflows", id, "/tags")
	if err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "%s: %w", i18n.Format(c.cfg.Lang, what), err)
	}
	tags := []Tag{}
	if err := c.do(ctx, call{method: method, path: p, body: body, idempotent: true}, &tags); err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "%s %s: %w", i18n.Format(c.cfg.Lang, what), id, err)
	}
	return tags, nil
}

// CreateTag creates a tag.
func (c *Client) CreateTag(ctx context.Context, name string) (*Tag, error) {
	var t Tag
	if err := c.do(ctx, call{method: "POST", path: "/tags", body: map[string]string{"name": name}}, &t); err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "create tag %q: %w", name, err)
	}
	return &t, nil
}

// GetExecution returns an execution, with its data when includeData.
func (c *Client) GetExecution(ctx context.Context, id ID, includeData bool) (*Execution, error) {
	p, err := c.idPath("/executions", id, "")
	if err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "get execution: %w", err)
	}
	var q url.Values
	if includeData {
		q = url.Values{"includeData": {"true"}}
	}
	var e Execution
	if err := c.do(ctx, call{method: "GET", path: p, query: q, idempotent: true}, &e); err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "get execution %s: %w", id, err)
	}
	return &e, nil
}

// DeleteExecution deletes an execution and returns it as it was.
func (c *Client) DeleteExecution(ctx context.Context, id ID) (*Execution, error) {
	p, err := c.idPath("/executions", id, "")
	if err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "delete execution: %w", err)
	}
	var e Execution
	if err := c.do(ctx, call{method: "DELETE", path: p, idempotent: true}, &e); err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "delete execution %s: %w", id, err)
	}
	return &e, nil
}

// RetryExecution retries a failed execution; loadWorkflow runs the workflow as saved now
// instead of as it was. Not retried itself: a second call would run it twice.
func (c *Client) RetryExecution(ctx context.Context, id ID, loadWorkflow bool) (*Execution, error) {
	p, err := c.idPath("/executions", id, "/retry")
	if err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "retry execution: %w", err)
	}
	var e Execution
	if err := c.do(ctx, call{method: "POST", path: p, body: map[string]bool{"loadWorkflow": loadWorkflow}}, &e); err != nil {
		return nil, i18n.Errorf(c.cfg.Lang, "retry execution %s: %w", id, err)
	}
	return &e, nil
}
