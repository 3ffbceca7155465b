package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n"
	"github.com/seam-dag/seam/n8n/catalog"
	"github.com/seam-dag/seam/n8n/validate"
)

// n8nTools are the tools that operate the n8n instance of Options.N8N. They keep their own
// node catalog, loaded on first use, since most sessions never validate a workflow.
type n8nTools struct {
	c   *n8n.Client
	cat *catalog.Loader
}

// Page sizes of the n8n lists: small by default, for a model's context; n8n allows 250.
const (
	defaultN8NList = 20
	maxN8NList     = 250
)

// n8nRead annotates a tool that only reads, from n8n: an outside system, hence open world.
func n8nRead(title string) *sdk.ToolAnnotations {
	a := readOnlyTool(title)
	a.OpenWorldHint = ptr(true)
	return a
}

func (s *server) addN8NTools(srv *sdk.Server) error {
	if s.opts.N8N == nil {
		return nil
	}
	// The client's own errors, which the answers quote, are said in the server's language.
	t := &n8nTools{c: s.opts.N8N.In(s.opts.Lang), cat: &catalog.Loader{}}
	var errs []error
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "list_workflows",
		Description: "List the workflows of the connected n8n instance: id, name, active. Filters: active, tags (workflows " +
			"having all of them), name. Pages of limit (default 20, at most 250); pass next_cursor back as cursor for the " +
			"next page. raw: true adds every workflow's nodes, connections and settings.",
		Annotations: n8nRead("List n8n workflows"),
	}, t.listWorkflows))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "get_workflow",
		Description: "Show one n8n workflow by id: name, active, tags and its nodes' names and types. raw: true returns the " +
			"whole workflow (node parameters, connections, settings), e.g. to edit it and pass it to update_workflow.",
		Annotations: n8nRead("Show an n8n workflow"),
	}, t.getWorkflow))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "validate_workflow",
		Description: "Check an n8n workflow before n8n sees it: structure, node types and versions, required parameters, " +
			"connections, expressions, AI agent rules. Give the workflow JSON (name, nodes, connections) as workflow — " +
			"checked locally, nothing is sent to n8n — or the id of a workflow to fetch from n8n. profile: minimal (what " +
			"n8n refuses), runtime (default: what breaks a run), ai-friendly (plus advice), strict (advice as errors). " +
			"Returns valid, counts, the first errors with their node, and suggestions; raw: true gives all with statistics.",
		Annotations: n8nRead("Validate an n8n workflow"),
	}, t.validateWorkflow))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "list_executions",
		Description: "List n8n executions, newest first: id, status, start, duration, the workflow's name, and counts by " +
			"status. Filters: workflow_id, status (canceled, error, running, success, waiting; crashed, new and unknown " +
			"executions are listed as they are), start_date and end_date (ISO 8601, on when it started). Pages of limit " +
			"(default 20, at most 100); pass next_cursor back as cursor. With dates a page holds the executions of one " +
			"n8n page that are in the range, so it can be shorter. raw: true gives every field (mode, stoppedAt, retries). " +
			"get_execution tells why one failed.",
		Annotations: n8nRead("List n8n executions"),
	}, t.listExecutions))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "get_execution",
		Description: "Show one n8n execution by id: status, workflow, start, duration, the error (node and message) and " +
			"what each node that ran did (status, time, items, error), failed nodes first. raw: true adds node ids and " +
			"types, start and end times, the workflow's settings, and with include_data n8n's data (every node's items).",
		Annotations: n8nRead("Show an n8n execution"),
	}, t.getExecution))
	if s.opts.ReadOnly {
		return errors.Join(errs...)
	}
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "create_workflow",
		Description: "Create an n8n workflow from its JSON (name, nodes, connections, optional settings); it is created " +
			"inactive. It is validated first with the runtime profile and refused, with the first errors, when n8n would " +
			"reject it or it would break when it runs; force: true creates it anyway. Returns the new workflow's id.",
		Annotations: &sdk.ToolAnnotations{Title: "Create an n8n workflow", DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, t.createWorkflow))
	errs = append(errs, addTool(srv, s.opts.Lang, &sdk.Tool{
		Name: "update_workflow",
		Description: "Replace an n8n workflow's name, nodes, connections and settings by the workflow given (get_workflow " +
			"with raw: true gives the current one to edit); what is not given is lost. Validated first with the runtime " +
			"profile and refused, with the first errors, when invalid; force: true writes it anyway.",
		Annotations: &sdk.ToolAnnotations{Title: "Update an n8n workflow", DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(true)},
	}, t.updateWorkflow))
	return errors.Join(errs...)
}

// n8nFail turns an error of the n8n client into the envelope's error. The client's messages
// name the operation and never hold the API key (it masks it), so they are kept whole.
func n8nFail(err error) error {
	var te *toolError
	if errors.As(err, &te) {
		return err
	}
	var ie *n8n.InvalidIDError
	var ae *n8n.APIError
	var ue *url.Error
	switch {
	case errors.As(err, &ie):
		return failVerbatim(CodeInvalidArgument, err)
	case errors.As(err, &ae):
		switch {
		case ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden:
			return fail(CodeN8NUnauthorized, nil, "n8n refused the API key of this server (N8N_API_KEY): %v", err)
		case ae.Status == http.StatusNotFound:
			return failVerbatim(CodeNotFound, err)
		case ae.Status >= 500:
			return fail(CodeN8NError, nil, "n8n failed: %v", err)
		}
		return fail(CodeN8NRejected, nil, "n8n refused the request: %v", err)
	case errors.As(err, &ue), errors.Is(err, context.DeadlineExceeded):
		return fail(CodeN8NUnreachable, nil, "n8n is unreachable: %v", err)
	}
	return failVerbatim(CodeN8NError, err)
}

// checkLimit reads a page size: 0 is the default.
func checkLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return defaultN8NList, nil
	case limit < 0 || limit > maxN8NList:
		return 0, fail(CodeInvalidArgument, nil, "limit %d: want 1 to %d", limit, maxN8NList)
	}
	return limit, nil
}

// needID refuses an empty id before n8n is asked; what names the object and where to find ids.
func needID(id string, what message) error {
	if strings.TrimSpace(id) == "" {
		return fail(CodeInvalidArgument, nil, "id is empty: give the %s", what)
	}
	return nil
}

// ---- workflows ----

// ListWorkflowsInput are list_workflows' arguments.
type ListWorkflowsInput struct {
	Active *bool    `json:"active,omitempty" jsonschema:"only active (true) or inactive (false) workflows"`
	Tags   []string `json:"tags,omitempty" jsonschema:"only workflows having all these tag names"`
	Name   string   `json:"name,omitempty" jsonschema:"only workflows of this name"`
	Limit  int      `json:"limit,omitempty" jsonschema:"page size, 1 to 250 (default 20)"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
	Common
}

// workflowList is list_workflows' data: the workflows as n8n sent them.
type workflowList struct {
	Count      int            `json:"count"`
	Active     int            `json:"active"`
	Workflows  []n8n.Workflow `json:"workflows"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

type workflowBrief struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Active bool   `json:"active"`
}

func (l workflowList) minimal() any {
	m := struct {
		Count      int             `json:"count"`
		Active     int             `json:"active"`
		Workflows  []workflowBrief `json:"workflows"`
		NextCursor string          `json:"next_cursor,omitempty"`
	}{Count: l.Count, Active: l.Active, Workflows: make([]workflowBrief, len(l.Workflows)), NextCursor: l.NextCursor}
	for i, w := range l.Workflows {
		m.Workflows[i] = workflowBrief{ID: string(w.ID), Name: w.Name, Active: w.Active}
	}
	return m
}

func (t *n8nTools) listWorkflows(ctx context.Context, _ *sdk.CallToolRequest, in ListWorkflowsInput) (message, any, error) {
	limit, err := checkLimit(in.Limit)
	if err != nil {
		return message{}, nil, err
	}
	p, err := t.c.ListWorkflows(ctx, n8n.WorkflowFilter{Active: in.Active, Tags: in.Tags, Name: in.Name, Limit: limit, Cursor: in.Cursor})
	if err != nil {
		return message{}, nil, n8nFail(err)
	}
	l := workflowList{Count: len(p.Data), Workflows: p.Data, NextCursor: p.NextCursor}
	for _, w := range p.Data {
		if w.Active {
			l.Active++
		}
	}
	workflows := howMany(l.Count, "workflow")
	if l.NextCursor != "" {
		return msgf("%v, %d active; more with cursor: next_cursor", workflows, l.Active), l, nil
	}
	return msgf("%v, %d active", workflows, l.Active), l, nil
}

// GetWorkflowInput are get_workflow's arguments.
type GetWorkflowInput struct {
	ID string `json:"id" jsonschema:"the workflow's id (list_workflows shows them)"`
	Common
}

// workflowData is a workflow as n8n stores it: get_workflow's data, whole in raw answers.
type workflowData struct{ *n8n.Workflow }

func (w workflowData) MarshalJSON() ([]byte, error) { return json.Marshal(w.Workflow) }

type nodeBrief struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// workflowMinimal is a workflow without node parameters, connections or settings.
type workflowMinimal struct {
	ID        string      `json:"id"`
	Name      string      `json:"name"`
	Active    bool        `json:"active"`
	Tags      []string    `json:"tags,omitempty"`
	NodeCount int         `json:"node_count"`
	Nodes     []nodeBrief `json:"nodes,omitempty"`
}

func newWorkflowMinimal(w *n8n.Workflow) workflowMinimal {
	m := workflowMinimal{ID: string(w.ID), Name: w.Name, Active: w.Active, NodeCount: len(w.Nodes)}
	for _, tg := range w.Tags {
		m.Tags = append(m.Tags, tg.Name)
	}
	for _, n := range w.Nodes {
		name, _ := n["name"].(string)
		typ, _ := n["type"].(string)
		m.Nodes = append(m.Nodes, nodeBrief{Name: name, Type: typ})
	}
	return m
}

func (w workflowData) minimal() any { return newWorkflowMinimal(w.Workflow) }

// workflowText describes a workflow: `"greet" (id 7): 3 nodes, active`.
func workflowText(w *n8n.Workflow) message {
	nodes := howMany(len(w.Nodes), "node")
	if w.Active {
		return msgf("%q (id %s): %v, active", w.Name, w.ID, nodes)
	}
	return msgf("%q (id %s): %v, inactive", w.Name, w.ID, nodes)
}

func (t *n8nTools) getWorkflow(ctx context.Context, _ *sdk.CallToolRequest, in GetWorkflowInput) (message, any, error) {
	if err := needID(in.ID, msgf("workflow's id (list_workflows shows them)")); err != nil {
		return message{}, nil, err
	}
	w, err := t.c.GetWorkflow(ctx, n8n.ID(in.ID))
	if err != nil {
		return message{}, nil, n8nFail(err)
	}
	return msgf("workflow %v", workflowText(w)), workflowData{w}, nil
}

// ---- validation ----

// ValidateWorkflowInput are validate_workflow's arguments.
type ValidateWorkflowInput struct {
	Workflow map[string]any `json:"workflow,omitempty" jsonschema:"the workflow JSON: {name, nodes, connections, settings}, as n8n exports it"`
	ID       string         `json:"id,omitempty" jsonschema:"instead of workflow: the id of a workflow to fetch from n8n"`
	Profile  string         `json:"profile,omitempty" jsonschema:"the validation profile (default runtime)"`
	Common
}

func (ValidateWorkflowInput) enums() map[string][]string {
	var names []string
	for _, p := range validate.Profiles() {
		names = append(names, string(p))
	}
	return map[string][]string{"profile": names}
}

// validation is a validation result, with the workflow it is about.
type validation struct {
	Workflow string `json:"workflow,omitempty"` // its name
	ID       string `json:"id,omitempty"`       // when fetched from n8n
	*validate.Result
}

// issueBrief is a finding as minimal answers show it.
type issueBrief struct {
	Severity string `json:"severity"`
	Node     string `json:"node,omitempty"`
	Message  string `json:"message"`
}

// validationMinimal counts the findings and shows the first ones, errors before warnings.
type validationMinimal struct {
	Workflow    string       `json:"workflow,omitempty"`
	ID          string       `json:"id,omitempty"`
	Valid       bool         `json:"valid"`
	Profile     string       `json:"profile"`
	Errors      int          `json:"errors"`
	Warnings    int          `json:"warnings"`
	Forced      bool         `json:"forced,omitempty"`
	First       []issueBrief `json:"first,omitempty"`
	Suggestions []string     `json:"suggestions,omitempty"`
}

func newValidationMinimal(r *validate.Result) validationMinimal {
	m := validationMinimal{Valid: r.Valid, Profile: string(r.Profile), Errors: len(r.Errors), Warnings: len(r.Warnings),
		Suggestions: first(r.Suggestions, minimalSuggestions)}
	for _, is := range first(slices.Concat(r.Errors, r.Warnings), minimalErrors) {
		m.First = append(m.First, issueBrief{Severity: is.Type, Node: is.NodeName, Message: is.Message})
	}
	return m
}

func (v validation) minimal() any {
	m := newValidationMinimal(v.Result)
	m.Workflow, m.ID = v.Workflow, v.ID
	return m
}

// validationSentence: `workflow "x" is invalid (runtime): 2 errors, 1 warning; first: node "Set": ...`.
// A result is valid exactly when it has no errors.
func validationSentence(name string, r *validate.Result) message {
	shown := verbatim(name)
	if name == "" {
		shown = msgf("(unnamed)")
	}
	errs, warnings := howMany(len(r.Errors), "error"), howMany(len(r.Warnings), "warning")
	if r.Valid {
		return msgf("workflow %q is valid (%s): %v, %v", shown, r.Profile, errs, warnings)
	}
	return msgf("workflow %q is invalid (%s): %v, %v; first: %v", shown, r.Profile, errs, warnings, issueText(r.Errors[0]))
}

// issueText is a validation finding; its message is the validator's, in English.
func issueText(is validate.Issue) message {
	if is.NodeName != "" {
		return msgf("node %q: %s", is.NodeName, is.Message)
	}
	return verbatim(is.Message)
}

func (t *n8nTools) catalog() (*catalog.Catalog, error) {
	cat, err := t.cat.Get()
	if err != nil {
		return nil, fail(CodeInternal, nil, "load the n8n node catalog: %v", err)
	}
	return cat, nil
}

func (t *n8nTools) validateWorkflow(ctx context.Context, _ *sdk.CallToolRequest, in ValidateWorkflowInput) (message, any, error) {
	profile, err := validate.ParseProfile(in.Profile)
	if err != nil {
		return message{}, nil, fail(CodeInvalidArgument, nil, "profile: %v", err)
	}
	if (in.Workflow == nil) == (in.ID == "") {
		return message{}, nil, fail(CodeInvalidArgument, nil, "give workflow (the workflow JSON) or id (of a workflow in n8n), not both nor neither")
	}
	cat, err := t.catalog()
	if err != nil {
		return message{}, nil, err
	}
	opts := validate.Options{Profile: profile, Catalog: cat}
	v := validation{ID: in.ID}
	if in.ID != "" {
		w, err := t.c.GetWorkflow(ctx, n8n.ID(in.ID))
		if err != nil {
			return message{}, nil, n8nFail(err)
		}
		v.Workflow = w.Name
		v.Result, err = validate.Validate(ctx, &validate.Workflow{Name: w.Name, Nodes: w.Nodes, Connections: w.Connections, Settings: w.Settings}, opts)
		if err != nil {
			return message{}, nil, fail(CodeInternal, nil, "validate workflow %s: %v", in.ID, err)
		}
	} else {
		// The value as given, so that what is not a workflow is reported as findings.
		v.Workflow, _ = in.Workflow["name"].(string)
		v.Result, err = validate.ValidateValue(ctx, in.Workflow, opts)
		if err != nil {
			return message{}, nil, fail(CodeInternal, nil, "validate workflow: %v", err)
		}
	}
	return validationSentence(v.Workflow, v.Result), v, nil
}

// ---- create and update ----

// CreateWorkflowInput are create_workflow's arguments.
type CreateWorkflowInput struct {
	Workflow map[string]any `json:"workflow" jsonschema:"the workflow JSON: {name, nodes, connections, settings}; other fields are ignored"`
	Force    bool           `json:"force,omitempty" jsonschema:"create it even when the runtime validation finds errors"`
	Common
}

// UpdateWorkflowInput are update_workflow's arguments.
type UpdateWorkflowInput struct {
	ID       string         `json:"id" jsonschema:"the id of the workflow to replace"`
	Workflow map[string]any `json:"workflow" jsonschema:"the whole new workflow: {name, nodes, connections, settings}; other fields are ignored"`
	Force    bool           `json:"force,omitempty" jsonschema:"write it even when the runtime validation finds errors"`
	Common
}

// written is create_workflow's and update_workflow's data: the workflow as n8n stored it,
// and the validation it passed (or was forced past).
type written struct {
	Workflow   *n8n.Workflow    `json:"workflow"`
	Validation *validate.Result `json:"validation"`
	Forced     bool             `json:"forced"`
}

func (w written) minimal() any {
	v := newValidationMinimal(w.Validation)
	v.Forced = w.Forced
	m := newWorkflowMinimal(w.Workflow)
	m.Nodes = nil // the caller just sent them
	return struct {
		workflowMinimal
		Validation validationMinimal `json:"validation"`
	}{m, v}
}

// gateDetails is the validation of a refused workflow, as the error's details.
type gateDetails struct{ *validate.Result }

func (g gateDetails) MarshalJSON() ([]byte, error) { return json.Marshal(g.Result) }
func (g gateDetails) minimal() any                 { return newValidationMinimal(g.Result) }

// workflowArg reads the workflow argument as create and update send it.
func workflowArg(v map[string]any) (*n8n.Workflow, error) {
	if v == nil {
		return nil, fail(CodeInvalidArgument, nil, "workflow is missing: give the workflow JSON {name, nodes, connections}")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fail(CodeInvalidArgument, nil, "workflow: %v", err)
	}
	var w n8n.Workflow
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fail(CodeInvalidArgument, nil, "workflow is not an n8n workflow: %v", err)
	}
	if strings.TrimSpace(w.Name) == "" {
		return nil, fail(CodeInvalidArgument, nil, "workflow has no name: n8n requires one")
	}
	return &w, nil
}

// gate validates w as the n8n.workflows.create and update node types do (n8n.Gate), and
// refuses it with its first errors unless force.
func (t *n8nTools) gate(ctx context.Context, w *n8n.Workflow, force bool) (*validate.Result, error) {
	cat, err := t.catalog()
	if err != nil {
		return nil, err
	}
	// The findings stay in English, as validate_workflow gives them: they are data.
	res, err := n8n.Gate(ctx, i18n.English, cat, w, force)
	var ge *n8n.GateError
	if errors.As(err, &ge) {
		errs, first := howMany(len(res.Errors), "error"), issueText(res.Errors[0])
		if fix := res.Errors[0].Fix; fix != "" {
			return nil, fail(CodeInvalidWorkflow, gateDetails{res}, "workflow %q was not written: the runtime validation found %v "+
				"(n8n would reject it or it would break when it runs); first: %v (fix: %s); force: true writes it anyway", w.Name, errs, first, fix)
		}
		return nil, fail(CodeInvalidWorkflow, gateDetails{res}, "workflow %q was not written: the runtime validation found %v "+
			"(n8n would reject it or it would break when it runs); first: %v; force: true writes it anyway", w.Name, errs, first)
	}
	if err != nil {
		return nil, failVerbatim(CodeInternal, err)
	}
	return res, nil
}

func (t *n8nTools) createWorkflow(ctx context.Context, _ *sdk.CallToolRequest, in CreateWorkflowInput) (message, any, error) {
	w, err := workflowArg(in.Workflow)
	if err != nil {
		return message{}, nil, err
	}
	res, err := t.gate(ctx, w, in.Force)
	if err != nil {
		return message{}, nil, err
	}
	created, err := t.c.CreateWorkflow(ctx, w)
	if err != nil {
		return message{}, nil, n8nFail(err)
	}
	data := written{Workflow: created, Validation: res, Forced: in.Force && !res.Valid}
	if data.Forced {
		return msgf("created workflow %v; forced past %v", workflowText(created), howMany(len(res.Errors), "validation error")), data, nil
	}
	return msgf("created workflow %v", workflowText(created)), data, nil
}

func (t *n8nTools) updateWorkflow(ctx context.Context, _ *sdk.CallToolRequest, in UpdateWorkflowInput) (message, any, error) {
	if err := needID(in.ID, msgf("id of the workflow to replace (list_workflows shows them)")); err != nil {
		return message{}, nil, err
	}
	w, err := workflowArg(in.Workflow)
	if err != nil {
		return message{}, nil, err
	}
	res, err := t.gate(ctx, w, in.Force)
	if err != nil {
		return message{}, nil, err
	}
	updated, err := t.c.UpdateWorkflow(ctx, n8n.ID(in.ID), w)
	if err != nil {
		return message{}, nil, n8nFail(err)
	}
	data := written{Workflow: updated, Validation: res, Forced: in.Force && !res.Valid}
	if data.Forced {
		return msgf("updated workflow %v; forced past %v", workflowText(updated), howMany(len(res.Errors), "validation error")), data, nil
	}
	return msgf("updated workflow %v", workflowText(updated)), data, nil
}

// ---- executions ----

// ListExecutionsInput are list_executions' arguments.
type ListExecutionsInput struct {
	WorkflowID string `json:"workflow_id,omitempty" jsonschema:"only executions of this workflow"`
	Status     string `json:"status,omitempty" jsonschema:"only executions with this status"`
	StartDate  string `json:"start_date,omitempty" jsonschema:"only executions started at or after this ISO 8601 date or time, e.g. 2026-01-02 or 2026-01-02T15:04:05Z"`
	EndDate    string `json:"end_date,omitempty" jsonschema:"only executions started at or before this ISO 8601 date or time (a date includes its whole day)"`
	Limit      *int   `json:"limit,omitempty" jsonschema:"page size, 1 to 100 (default 20)"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
	Common
}

func (ListExecutionsInput) enums() map[string][]string {
	return map[string][]string{"status": n8n.ExecutionStatuses()}
}

// executionList is list_executions' data: each execution's summary, whole in raw answers.
type executionList struct{ n8n.ExecutionListing }

func (l executionList) minimal() any { return l.Minimal() }

// dateArg reads start_date or end_date.
func dateArg(name, s string, end bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := n8n.ParseDate(s, end)
	if err != nil {
		return time.Time{}, fail(CodeInvalidArgument, nil, "%s %q is not an ISO 8601 date or time: want e.g. 2026-01-02 or 2026-01-02T15:04:05Z", name, s)
	}
	return t, nil
}

func (t *n8nTools) listExecutions(ctx context.Context, _ *sdk.CallToolRequest, in ListExecutionsInput) (message, any, error) {
	limit := defaultN8NList
	if in.Limit != nil {
		if limit = *in.Limit; limit < 1 || limit > n8n.MaxExecutionsPage {
			return message{}, nil, fail(CodeInvalidArgument, nil, "limit %d: want 1 to %d", limit, n8n.MaxExecutionsPage)
		}
	}
	start, err := dateArg("start_date", in.StartDate, false)
	if err != nil {
		return message{}, nil, err
	}
	end, err := dateArg("end_date", in.EndDate, true)
	if err != nil {
		return message{}, nil, err
	}
	if !start.IsZero() && !end.IsZero() && start.After(end) {
		return message{}, nil, fail(CodeInvalidArgument, nil, "start_date %s is after end_date %s: no execution can be in between", in.StartDate, in.EndDate)
	}
	q := n8n.ExecutionQuery{
		ExecutionFilter: n8n.ExecutionFilter{WorkflowID: n8n.ID(in.WorkflowID), Status: in.Status, Limit: limit, Cursor: in.Cursor},
		Start:           start, End: end,
	}
	p, err := t.c.ExecutionList(ctx, q)
	if err != nil {
		return message{}, nil, n8nFail(err)
	}
	l := executionList{n8n.Listing(p, q.WorkflowID)}
	executions := howMany(l.Count, "execution")
	statuses := make([]message, 0, len(l.Counts))
	for st, n := range l.Counts {
		statuses = append(statuses, msgf("%d %s", n, st))
	}
	// In the order of the English text, in either language.
	slices.SortFunc(statuses, func(a, b message) int { return strings.Compare(a.String(), b.String()) })
	switch {
	case l.Count > 0 && l.NextCursor != "":
		return msgf("%v: %v; more with cursor: next_cursor", executions, statuses), l, nil
	case l.Count > 0:
		return msgf("%v: %v", executions, statuses), l, nil
	case l.NextCursor != "":
		return msgf("%v; more with cursor: next_cursor", executions), l, nil
	}
	return msgf("%v", executions), l, nil
}

// GetExecutionInput are get_execution's arguments.
type GetExecutionInput struct {
	ID          string `json:"id" jsonschema:"the execution's id (list_executions shows them)"`
	IncludeData bool   `json:"include_data,omitempty" jsonschema:"with raw: true, also return n8n's data of the execution: every node's items"`
	Common
}

// executionData is get_execution's data: the execution with what each node did, whole in
// raw answers (n8n's data too with include_data).
type executionData struct{ *n8n.ExecutionDetail }

func (e executionData) MarshalJSON() ([]byte, error) { return json.Marshal(e.ExecutionDetail) }

func (e executionData) minimal() any { return e.Minimal() }

func (t *n8nTools) getExecution(ctx context.Context, _ *sdk.CallToolRequest, in GetExecutionInput) (message, any, error) {
	if err := needID(in.ID, msgf("execution's id (list_executions shows them)")); err != nil {
		return message{}, nil, err
	}
	d, err := t.c.ExecutionDetail(ctx, n8n.ID(in.ID), in.IncludeData)
	if err != nil {
		return message{}, nil, n8nFail(err)
	}
	msg := msgf("execution %s of workflow %s: %s", d.ID, d.WorkflowID, d.Status)
	switch nodes := d.NodeExecutions; {
	case d.Error != nil && d.Error.Node != "":
		msg = msgf("execution %s of workflow %s: %s in %s: %s", d.ID, d.WorkflowID, d.Status, d.Error.Node, d.Error.Message)
	case d.Error != nil:
		msg = msgf("execution %s of workflow %s: %s: %s", d.ID, d.WorkflowID, d.Status, d.Error.Message)
	case len(nodes) > 0:
		last := nodes[len(nodes)-1]
		msg = msgf("execution %s of workflow %s: %s; %s returned %v", d.ID, d.WorkflowID, d.Status, last.NodeName, howMany(last.ItemCount, "item"))
	}
	return msg, executionData{d}, nil
}
