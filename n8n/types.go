package n8n

import (
	"github.com/seam-dag/seam/internal/i18n"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/seam-dag/seam/n8n/catalog"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/seam-dag/seam/nodes"
)

// Options configure the n8n node types.
type Options struct {
	// Getenv reads N8N_URL and the API key's variable; nil means none is set. Tests inject it.
	Getenv func(string) string
	// HTTPClient sends every request of these types; nil means one they share.
	HTTPClient *http.Client
	// Client tunes the clients the types make (timeouts, retries); URL and APIKey are ignored.
	Client Config
}

// Default environment variables.
const (
	EnvURL    = "N8N_URL"
	EnvAPIKey = "N8N_API_KEY"
)

// Types returns the n8n node types: n8n.workflows.*, n8n.executions.* and n8n.webhook.
func Types(opts Options) []nodes.Type {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.HTTPClient == nil {
		// One client, so that nodes reuse connections to the same n8n.
		opts.HTTPClient = &http.Client{Transport: NewTransport()}
	}
	f := &family{opts: opts, catalog: &catalog.Loader{}}
	return []nodes.Type{
		&workflowsList{f}, &workflowsGet{f}, &workflowsCreate{f}, &workflowsUpdate{f},
		&workflowsActivate{f, true}, &workflowsActivate{f, false},
		&executionsList{f}, &executionsGet{f},
		&webhookType{f}, &validateType{f},
	}
}

// family is what the types share: how to reach n8n, and the node catalog the validator
// reads (loaded once, on first use).
type family struct {
	opts    Options
	catalog *catalog.Loader
}

// gate validates w with the runtime profile before create or update writes it, and refuses a
// workflow n8n would reject or that would break when it runs, unless with.force is true. It
// returns what the node's output records of the check.
func (f *family) gate(ctx context.Context, lang i18n.Lang, w *Workflow, with map[string]any) (map[string]any, error) {
	force, err := optBool(with, "force")
	if err != nil {
		return nil, err
	}
	cat, err := f.catalog.Get()
	if err != nil {
		return nil, i18n.Errorf(lang, "n8n node catalog: %w", err)
	}
	res, err := Gate(ctx, lang, cat, w, force)
	var ge *GateError
	if errors.As(err, &ge) {
		return nil, &nodes.ConfigError{Path: "/workflow", Offset: -1, Err: ge}
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"valid": res.Valid, "forced": force && !res.Valid,
		"errors": len(res.Errors), "warnings": len(res.Warnings),
	}, nil
}

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// conn reads the connection keys of with: the base URL and whether plain http is allowed.
func (f *family) conn(with map[string]any, lang i18n.Lang) (base string, insecure bool, err error) {
	base, err = optString(with, "url")
	if err != nil {
		return "", false, err
	}
	if base == "" {
		base = f.opts.Getenv(EnvURL)
	}
	if base == "" {
		return "", false, i18n.Errorf(lang, "no n8n URL: set url in the node's with or the DAG's n8n block, or N8N_URL")
	}
	insecure, err = optBool(with, "insecure")
	return base, insecure, err
}

// client makes a client from the node's configuration. The key is read now, from the
// variable api_key_env names, and goes nowhere but the request header. The client says its
// errors in lang, the run's.
func (f *family) client(with map[string]any, lang i18n.Lang) (*Client, error) {
	base, insecure, err := f.conn(with, lang)
	if err != nil {
		return nil, err
	}
	keyEnv, err := optString(with, "api_key_env")
	if err != nil {
		return nil, err
	}
	if keyEnv == "" {
		keyEnv = EnvAPIKey
	}
	if !envName().MatchString(keyEnv) {
		return nil, configErr("/api_key_env", i18n.M("%q is not an environment variable name", keyEnv))
	}
	key := f.opts.Getenv(keyEnv)
	if key == "" {
		return nil, i18n.Errorf(lang, "no n8n API key: the environment variable %s is empty or unset", keyEnv)
	}
	cfg := f.opts.Client
	cfg.URL, cfg.APIKey, cfg.Insecure, cfg.HTTPClient, cfg.Lang = base, key, insecure, f.opts.HTTPClient, lang
	return New(cfg)
}

// configErr is a ConfigError whose message is said in the language of whoever prints it.
func configErr(path string, msg i18n.Message) *nodes.ConfigError {
	return &nodes.ConfigError{Path: path, Offset: -1, Err: msg}
}

func optString(with map[string]any, k string) (string, error) {
	v, ok := with[k]
	if !ok || v == nil {
		return "", nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", configErr("/"+k, i18n.M("must be a string, got %T", v))
	}
	return s, nil
}

func optBool(with map[string]any, k string) (bool, error) {
	v, ok := with[k]
	if !ok || v == nil {
		return false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, configErr("/"+k, i18n.M("must be a boolean, got %T", v))
	}
	return b, nil
}

func optInt(with map[string]any, k string, lo, hi int64) (int, error) {
	v, ok := with[k]
	if !ok || v == nil {
		return 0, nil
	}
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case float64:
		if x != float64(int64(x)) {
			return 0, configErr("/"+k, i18n.M("must be a whole number, got %v", x))
		}
		n = int64(x)
	case json.Number:
		i, err := x.Int64()
		if err != nil {
			return 0, configErr("/"+k, i18n.M("must be a whole number, got %s", x))
		}
		n = i
	default:
		return 0, configErr("/"+k, i18n.M("must be an integer, got %T", v))
	}
	if n < lo || n > hi {
		return 0, configErr("/"+k, i18n.M("must be between %d and %d, got %d", lo, hi, n))
	}
	return int(n), nil
}

func optDuration(with map[string]any, k string, def time.Duration) (time.Duration, error) {
	s, err := optString(with, k)
	if err != nil || s == "" {
		return def, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, configErr("/"+k, i18n.M("must be a positive duration such as 30s or 2m, got %q", s))
	}
	return d, nil
}

func reqID(with map[string]any, k string) (ID, error) {
	v, ok := with[k]
	if !ok {
		return "", configErr("/"+k, i18n.M("required"))
	}
	id, err := IDOf(v)
	if err != nil {
		return "", &nodes.ConfigError{Path: "/" + k, Offset: -1, Err: err}
	}
	return id, nil
}

func optID(with map[string]any, k string) (ID, error) {
	if v, ok := with[k]; !ok || v == nil {
		return "", nil
	}
	return reqID(with, k)
}

// output encodes a node's output: the standard contract with data.
func output(status, summary string, data any) (*nodes.Result, error) {
	b, err := json.Marshal(map[string]any{"status": status, "summary": summary, "data": data})
	if err != nil {
		return nil, fmt.Errorf("encode output: %w", err)
	}
	return &nodes.Result{Output: b}, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ---- workflows ----

type workflowsList struct{ f *family }

func (*workflowsList) Name() string { return "n8n.workflows.list" }
func (*workflowsList) Doc() string {
	return "Lists n8n workflows (filters: active, tags, name, projectId; one page or all)."
}
func (*workflowsList) ConfigSchema() []byte {
	return configSchema("n8n.workflows.list configuration", nil, obj{
		{"active", desc("Only active (true) or inactive (false) workflows.", boolean)},
		{"tags", desc("Only workflows with all these tag names.", obj{{"type", []string{"array", "string"}}, {"items", str}})},
		{"name", desc("Only workflows with this name.", str)},
		{"projectId", desc("Only workflows of this project.", str)},
		{"limit", limitProp()},
		{"cursor", desc("Start at this page: a nextCursor of an earlier list.", str)},
		{"all", desc("Follow nextCursor to the last page.", obj{{"type", "boolean"}, {"default", false}})},
	})
}
func (*workflowsList) OutputSchema() []byte {
	return outputSchema("n8n.workflows.list output", "The workflows, without their nodes.", obj{
		{"type", "object"},
		{"required", []string{"workflows", "count"}},
		{"properties", obj{
			{"workflows", obj{{"type", "array"}, {"items", workflowSummarySchema}}},
			{"count", integer},
			{"nextCursor", desc("The next page's cursor; absent on the last page.", str)},
		}},
	})
}

func (t *workflowsList) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	w := call.With
	var fl WorkflowFilter
	var err error
	if _, ok := w["active"]; ok {
		a, err := optBool(w, "active")
		if err != nil {
			return nil, err
		}
		fl.Active = &a
	}
	switch tags := w["tags"].(type) {
	case nil:
	case string:
		fl.Tags = splitList(tags)
	case []any:
		for i, tg := range tags {
			s, ok := tg.(string)
			if !ok {
				return nil, configErr(fmt.Sprintf("/tags/%d", i), i18n.M("must be a string, got %T", tg))
			}
			fl.Tags = append(fl.Tags, s)
		}
	default:
		return nil, configErr("/tags", i18n.M("must be a list of tag names, got %T", tags))
	}
	if fl.Name, err = optString(w, "name"); err != nil {
		return nil, err
	}
	if fl.ProjectID, err = optString(w, "projectId"); err != nil {
		return nil, err
	}
	if fl.Limit, fl.Cursor, fl.All, err = paging(w, 250); err != nil {
		return nil, err
	}
	c, err := t.f.client(w, call.Lang)
	if err != nil {
		return nil, err
	}
	p, err := c.ListWorkflows(ctx, fl)
	if err != nil {
		return nil, err
	}
	list := make([]map[string]any, len(p.Data))
	active := 0
	for i := range p.Data {
		list[i] = workflowSummary(&p.Data[i])
		if p.Data[i].Active {
			active++
		}
	}
	data := map[string]any{"workflows": list, "count": len(list)}
	summary := fmt.Sprintf("%s, %d active", plural(len(list), "workflow", "workflows"), active)
	if p.NextCursor != "" {
		data["nextCursor"] = p.NextCursor
		summary += "; more on the next page"
	}
	return output("pass", summary, data)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func tagNames(tags []Tag) []string {
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = t.Name
	}
	return names
}

func workflowSummary(w *Workflow) map[string]any {
	m := map[string]any{
		"id": string(w.ID), "name": w.Name, "active": w.Active,
		"nodeCount": len(w.Nodes), "tags": tagNames(w.Tags),
	}
	if w.CreatedAt != "" {
		m["createdAt"] = w.CreatedAt
	}
	if w.UpdatedAt != "" {
		m["updatedAt"] = w.UpdatedAt
	}
	return m
}

// workflowOutput is the output of the types that return one workflow; verb says what
// happened ("created", "updated", "" for a plain read).
// workflowOutput is the output of the types that return a workflow; validation, when not
// nil, is what create or update's check found.
func workflowOutput(w *Workflow, verb string, validation map[string]any) (*nodes.Result, error) {
	data := workflowSummary(w)
	if validation != nil {
		data["validation"] = validation
	}
	full, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode workflow: %w", err)
	}
	var wf map[string]any
	if err := json.Unmarshal(full, &wf); err != nil {
		return nil, fmt.Errorf("encode workflow: %w", err)
	}
	data["workflow"] = wf
	state := "inactive"
	if w.Active {
		state = "active"
	}
	summary := fmt.Sprintf("workflow %q (id %s): %s, %s", w.Name, w.ID, plural(len(w.Nodes), "node", "nodes"), state)
	if verb != "" {
		summary = fmt.Sprintf("%s workflow %q (id %s): %s, %s", verb, w.Name, w.ID, plural(len(w.Nodes), "node", "nodes"), state)
	}
	return output("pass", summary, data)
}

type workflowsGet struct{ f *family }

func (*workflowsGet) Name() string { return "n8n.workflows.get" }
func (*workflowsGet) Doc() string  { return "Gets one n8n workflow by id." }
func (*workflowsGet) ConfigSchema() []byte {
	return configSchema("n8n.workflows.get configuration", []string{"id"}, obj{{"id", idProp("The workflow's id.")}})
}
func (*workflowsGet) OutputSchema() []byte {
	return outputSchema("n8n.workflows.get output", "The workflow.", workflowDataSchema)
}

func (t *workflowsGet) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	id, err := reqID(call.With, "id")
	if err != nil {
		return nil, err
	}
	c, err := t.f.client(call.With, call.Lang)
	if err != nil {
		return nil, err
	}
	w, err := c.GetWorkflow(ctx, id)
	if err != nil {
		return nil, err
	}
	return workflowOutput(w, "", nil)
}

// workflowSchema is what create and update accept as the workflow.
var workflowSchema = obj{
	{"description", "The workflow: name, nodes, connections, settings, staticData (other fields are ignored)."},
	{"type", "object"},
	{"required", []string{"name", "nodes", "connections"}},
	{"properties", obj{
		{"name", obj{{"type", "string"}, {"minLength", 1}}},
		{"nodes", obj{{"type", "array"}, {"items", anyObj}}},
		{"connections", anyObj},
		{"settings", anyObj},
		{"staticData", obj{{"type", []string{"object", "string", "null"}}}},
	}},
}

// workflowOf reads the workflow value of with.
func workflowOf(with map[string]any) (*Workflow, error) {
	v, ok := with["workflow"]
	if !ok {
		return nil, configErr("/workflow", i18n.M("required"))
	}
	if _, isObj := v.(map[string]any); !isObj {
		return nil, configErr("/workflow", i18n.M("must be an object (name, nodes, connections), got %T", v))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &nodes.ConfigError{Path: "/workflow", Offset: -1, Err: err}
	}
	var w Workflow
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, configErr("/workflow", i18n.M("not a workflow: %v", err))
	}
	if strings.TrimSpace(w.Name) == "" {
		return nil, configErr("/workflow/name", i18n.M("required"))
	}
	return &w, nil
}

type workflowsCreate struct{ f *family }

func (*workflowsCreate) Name() string { return "n8n.workflows.create" }
func (*workflowsCreate) Doc() string {
	return "Creates an n8n workflow, optionally activating it."
}
func (*workflowsCreate) ConfigSchema() []byte {
	return configSchema("n8n.workflows.create configuration", []string{"workflow"}, obj{
		{"workflow", workflowSchema},
		{"activate", desc("Activate the workflow once created.", obj{{"type", "boolean"}, {"default", false}})},
		{"force", forceProp},
	})
}
func (*workflowsCreate) OutputSchema() []byte {
	return outputSchema("n8n.workflows.create output", "The workflow as stored.", workflowDataSchema)
}

func (t *workflowsCreate) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	w, err := workflowOf(call.With)
	if err != nil {
		return nil, err
	}
	activate, err := optBool(call.With, "activate")
	if err != nil {
		return nil, err
	}
	c, err := t.f.client(call.With, call.Lang)
	if err != nil {
		return nil, err
	}
	checked, err := t.f.gate(ctx, call.Lang, w, call.With)
	if err != nil {
		return nil, err
	}
	created, err := c.CreateWorkflow(ctx, w)
	if err != nil {
		return nil, err
	}
	if activate {
		a, err := c.ActivateWorkflow(ctx, created.ID)
		if err != nil {
			return nil, i18n.Errorf(call.Lang, "created workflow %s but could not activate it: %w", created.ID, err)
		}
		created = a
	}
	return workflowOutput(created, "created", checked)
}

type workflowsUpdate struct{ f *family }

func (*workflowsUpdate) Name() string { return "n8n.workflows.update" }
func (*workflowsUpdate) Doc() string {
	return "Replaces an n8n workflow's name, nodes, connections, settings and staticData."
}
func (*workflowsUpdate) ConfigSchema() []byte {
	return configSchema("n8n.workflows.update configuration", []string{"id", "workflow"}, obj{
		{"id", idProp("The workflow's id.")},
		{"workflow", workflowSchema},
		{"force", forceProp},
	})
}
func (*workflowsUpdate) OutputSchema() []byte {
	return outputSchema("n8n.workflows.update output", "The workflow as stored.", workflowDataSchema)
}

func (t *workflowsUpdate) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	id, err := reqID(call.With, "id")
	if err != nil {
		return nil, err
	}
	w, err := workflowOf(call.With)
	if err != nil {
		return nil, err
	}
	c, err := t.f.client(call.With, call.Lang)
	if err != nil {
		return nil, err
	}
	checked, err := t.f.gate(ctx, call.Lang, w, call.With)
	if err != nil {
		return nil, err
	}
	updated, err := c.UpdateWorkflow(ctx, id, w)
	if err != nil {
		return nil, err
	}
	return workflowOutput(updated, "updated", checked)
}

// workflowsActivate is n8n.workflows.activate, or deactivate when !on.
type workflowsActivate struct {
	f  *family
	on bool
}

func (t *workflowsActivate) Name() string {
	if t.on {
		return "n8n.workflows.activate"
	}
	return "n8n.workflows.deactivate"
}
func (t *workflowsActivate) Doc() string {
	if t.on {
		return "Activates an n8n workflow: its triggers and production webhooks start."
	}
	return "Deactivates an n8n workflow."
}
func (t *workflowsActivate) ConfigSchema() []byte {
	return configSchema(t.Name()+" configuration", []string{"id"}, obj{{"id", idProp("The workflow's id.")}})
}
func (t *workflowsActivate) OutputSchema() []byte {
	return outputSchema(t.Name()+" output", "The workflow as stored.", workflowDataSchema)
}

func (t *workflowsActivate) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	id, err := reqID(call.With, "id")
	if err != nil {
		return nil, err
	}
	c, err := t.f.client(call.With, call.Lang)
	if err != nil {
		return nil, err
	}
	var w *Workflow
	verb := "activated"
	if t.on {
		w, err = c.ActivateWorkflow(ctx, id)
	} else {
		w, err = c.DeactivateWorkflow(ctx, id)
		verb = "deactivated"
	}
	if err != nil {
		return nil, err
	}
	return workflowOutput(w, verb, nil)
}

// ---- executions ----

// ExecutionStatuses are the statuses n8n filters executions by.
func ExecutionStatuses() []string {
	return []string{"canceled", "error", "running", "success", "waiting"}
}

type executionsList struct{ f *family }

// MaxExecutionsPage is the largest page of executions a list asks for.
const MaxExecutionsPage = 100

func (*executionsList) Name() string { return "n8n.executions.list" }
func (*executionsList) Doc() string {
	return "Lists n8n executions, newest first, with their workflows' names and durations (filters: workflowId, status, " +
		"projectId, startDate/endDate; one page or all)."
}
func (*executionsList) ConfigSchema() []byte {
	return configSchema("n8n.executions.list configuration", nil, obj{
		{"workflowId", idProp("Only executions of this workflow.")},
		{"status", desc("Only executions with this status.", obj{{"type", "string"}, {"enum", ExecutionStatuses()}})},
		{"projectId", desc("Only executions of this project's workflows.", str)},
		{"startDate", desc("Only executions started at or after this ISO 8601 date or time (2026-01-02, 2026-01-02T15:04:05Z).", str)},
		{"endDate", desc("Only executions started at or before this ISO 8601 date or time; a date includes its whole day.", str)},
		{"includeData", desc("Include each execution's data: its error, last node and items.", obj{{"type", "boolean"}, {"default", false}})},
		{"limit", obj{{"description", "Executions per page (default 100)."}, {"type", "integer"}, {"minimum", 1}, {"maximum", MaxExecutionsPage}}},
		{"cursor", desc("Start at this page: a nextCursor of an earlier list.", str)},
		{"all", desc("Follow nextCursor to the last page (or the start of the date range).", obj{{"type", "boolean"}, {"default", false}})},
	})
}
func (*executionsList) OutputSchema() []byte {
	return outputSchema("n8n.executions.list output", "The executions, newest first, and how many have each status.", obj{
		{"type", "object"},
		{"required", []string{"executions", "count", "failed", "counts"}},
		{"properties", obj{
			{"executions", obj{{"type", "array"}, {"items", executionSchema}}},
			{"count", integer},
			{"failed", desc("How many have status error or crashed.", integer)},
			{"counts", desc("How many have each status.", obj{{"type", "object"}, {"additionalProperties", integer}})},
			{"nextCursor", desc("The next page's cursor; absent on the last page.", str)},
		}},
	})
}

// dateRange reads startDate and endDate.
func dateRange(w map[string]any) (start, end time.Time, err error) {
	for _, k := range []string{"startDate", "endDate"} {
		s, err := optString(w, k)
		if err != nil || s == "" {
			if err != nil {
				return start, end, err
			}
			continue
		}
		t, perr := ParseDate(s, k == "endDate")
		if perr != nil {
			return start, end, configErr("/"+k, i18n.M("%q is not an ISO 8601 date or time: want e.g. 2026-01-02 or 2026-01-02T15:04:05Z", s))
		}
		if k == "startDate" {
			start = t
		} else {
			end = t
		}
	}
	if !start.IsZero() && !end.IsZero() && start.After(end) {
		return start, end, configErr("/startDate", i18n.M("startDate %s is after endDate %s", start.Format(time.RFC3339), end.Format(time.RFC3339)))
	}
	return start, end, nil
}

func (t *executionsList) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	w := call.With
	var q ExecutionQuery
	fl := &q.ExecutionFilter
	var err error
	if fl.WorkflowID, err = optID(w, "workflowId"); err != nil {
		return nil, err
	}
	if fl.Status, err = optString(w, "status"); err != nil {
		return nil, err
	}
	if fl.Status != "" && !slices.Contains(ExecutionStatuses(), fl.Status) {
		return nil, configErr("/status", i18n.M("must be one of %s, got %q", strings.Join(ExecutionStatuses(), ", "), fl.Status))
	}
	if fl.ProjectID, err = optString(w, "projectId"); err != nil {
		return nil, err
	}
	if fl.IncludeData, err = optBool(w, "includeData"); err != nil {
		return nil, err
	}
	if q.Start, q.End, err = dateRange(w); err != nil {
		return nil, err
	}
	if fl.Limit, fl.Cursor, fl.All, err = paging(w, MaxExecutionsPage); err != nil {
		return nil, err
	}
	c, err := t.f.client(w, call.Lang)
	if err != nil {
		return nil, err
	}
	p, err := c.ExecutionList(ctx, q)
	if err != nil {
		return nil, err
	}
	list := make([]map[string]any, len(p.Executions))
	counts := map[string]int{}
	failed := 0
	for i := range p.Executions {
		e := &p.Executions[i]
		list[i] = executionSummary(e, p.Names[e.WorkflowID], fl.IncludeData)
		counts[e.Status]++
		if e.Status == "error" || e.Status == "crashed" {
			failed++
		}
	}
	data := map[string]any{"executions": list, "count": len(list), "failed": failed, "counts": counts}
	summary := executionsSentence(len(list), failed, counts, fl.Status)
	if p.NextCursor != "" {
		data["nextCursor"] = p.NextCursor
		summary += "; more on the next page"
	}
	return output("pass", summary, data)
}

// executionsSentence says what a list holds: "12 executions, 3 failed".
func executionsSentence(n, failed int, counts map[string]int, status string) string {
	if n == 0 {
		if status != "" {
			return fmt.Sprintf("no executions with status %s", status)
		}
		return "no executions"
	}
	s := plural(n, "execution", "executions")
	if status != "" {
		return fmt.Sprintf("%s with status %s", s, status)
	}
	s += fmt.Sprintf(", %d failed", failed)
	var others []string
	for st, k := range counts {
		if st != "success" && st != "error" && st != "crashed" {
			others = append(others, fmt.Sprintf("%d %s", k, st))
		}
	}
	sort.Strings(others)
	if len(others) > 0 {
		s += ", " + strings.Join(others, ", ")
	}
	return s
}

// executionSummary is an execution as outputs show it: its ExecutionSummary (name is its
// workflow's), and with data its outcome too.
func executionSummary(e *Execution, name string, withData bool) map[string]any {
	s := Summarize(e, name)
	m := map[string]any{
		"id": string(s.ID), "workflowId": string(s.WorkflowID), "status": s.Status,
		"mode": s.Mode, "finished": s.Finished,
	}
	if s.WorkflowName != "" {
		m["workflowName"] = s.WorkflowName
	}
	if s.StartedAt != nil {
		m["startedAt"] = s.StartedAt.UTC().Format(time.RFC3339Nano)
	}
	if s.StoppedAt != nil {
		m["stoppedAt"] = s.StoppedAt.UTC().Format(time.RFC3339Nano)
	}
	if s.ExecutionTime != nil {
		m["executionTime"] = *s.ExecutionTime
	}
	if s.RetryOf != "" {
		m["retryOf"] = string(s.RetryOf)
	}
	if s.RetrySuccessID != "" {
		m["retrySuccessId"] = string(s.RetrySuccessID)
	}
	if withData && e.hasData() {
		if o, err := e.Outcome(i18n.English); err == nil { // its error is not shown
			if o.LastNode != "" {
				m["lastNode"] = o.LastNode
			}
			if o.Error != "" {
				m["error"] = o.Error
			}
			if o.Items != nil {
				m["items"] = o.Items
			}
		}
		var raw map[string]any
		if json.Unmarshal(e.Data, &raw) == nil {
			m["executionData"] = raw
		}
	}
	return m
}

type executionsGet struct{ f *family }

func (*executionsGet) Name() string { return "n8n.executions.get" }
func (*executionsGet) Doc() string {
	return "Gets one n8n execution by id: what each node did (status, time, items, error), the error, the workflow's " +
		"settings; with includeData also n8n's data and the last node's items."
}
func (*executionsGet) ConfigSchema() []byte {
	return configSchema("n8n.executions.get configuration", []string{"id"}, obj{
		{"id", idProp("The execution's id.")},
		{"includeData", desc("Include the execution's data: n8n's record, and the last node's items.", obj{{"type", "boolean"}, {"default", false}})},
	})
}
func (*executionsGet) OutputSchema() []byte {
	return outputSchema("n8n.executions.get output", "The execution.", obj{
		{"type", "object"},
		{"required", []string{"execution"}},
		{"properties", obj{{"execution", executionDetailSchema}}},
	})
}

func (t *executionsGet) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	id, err := reqID(call.With, "id")
	if err != nil {
		return nil, err
	}
	withData, err := optBool(call.With, "includeData")
	if err != nil {
		return nil, err
	}
	c, err := t.f.client(call.With, call.Lang)
	if err != nil {
		return nil, err
	}
	e, err := c.GetExecution(ctx, id, true) // what each node did is in the data
	if err != nil {
		return nil, err
	}
	d, err := Detail(call.Lang, e)
	if err != nil {
		return nil, err
	}
	m := executionSummary(e, d.WorkflowName, withData)
	if d.Error != nil {
		m["error"] = d.Error.Message
		if d.Error.Node != "" {
			m["errorNode"] = d.Error.Node
		}
	}
	m["nodeExecutions"] = d.NodeExecutions
	if d.Settings != nil {
		m["settings"] = d.Settings
	}
	return output("pass", executionSentence(d, m), map[string]any{"execution": m})
}

// executionSentence: "execution 42 of workflow abc: error in 12ms, in node Code: boom".
func executionSentence(d *ExecutionDetail, m map[string]any) string {
	s := fmt.Sprintf("execution %s of workflow %s: %s", d.ID, d.WorkflowID, d.Status)
	if d.ExecutionTime != nil {
		s += fmt.Sprintf(" in %dms", *d.ExecutionTime)
	}
	switch items, ok := m["items"].([]any); {
	case d.Error != nil && d.Error.Node != "":
		s += fmt.Sprintf(", in node %s: %s", d.Error.Node, d.Error.Message)
	case d.Error != nil:
		s += ": " + d.Error.Message
	case ok:
		s += fmt.Sprintf("; %s returned %s", m["lastNode"], plural(len(items), "item", "items"))
	default:
		s += fmt.Sprintf("; %s ran", plural(len(d.NodeExecutions), "node", "nodes"))
	}
	return s
}

// paging reads the keys every list type shares: limit (a page of 1 to maxLimit), cursor (the page
// after a previous one) and all (follow the cursors to the end).
func paging(w map[string]any, maxLimit int64) (limit int, cursor string, all bool, err error) {
	if limit, err = optInt(w, "limit", 1, maxLimit); err != nil {
		return 0, "", false, err
	}
	if cursor, err = optString(w, "cursor"); err != nil {
		return 0, "", false, err
	}
	all, err = optBool(w, "all")
	return limit, cursor, all, err
}
