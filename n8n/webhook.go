package n8n

import (
	"github.com/seam-dag/seam/internal/i18n"

	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dag/seam/nodes"
)

// RequestHeader carries a random id with each webhook call, so that the execution the call
// caused can be told apart from others of the same workflow: the Webhook node puts request
// headers into its output.
const RequestHeader = "X-Seam-Request-Id"

// Webhook defaults.
const (
	defaultWaitTimeout  = 60 * time.Second
	defaultPollInterval = 250 * time.Millisecond
	// pollPage is how many of the newest executions each poll reads.
	pollPage = 20
)

var webhookMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}

// webhookType calls a workflow's production webhook and can wait for the execution it
// caused: n8n's public API has no endpoint that runs a workflow.
type webhookType struct{ f *family }

func (*webhookType) Name() string { return "n8n.webhook" }
func (*webhookType) Doc() string {
	return "Calls an n8n workflow's production webhook; with wait: true, waits for the execution and returns its result."
}
func (*webhookType) ConfigSchema() []byte {
	return configSchema("n8n.webhook configuration", []string{"path"}, obj{
		{"path", desc("The Webhook node's path: the call goes to {url}/webhook/{path}.", obj{{"type", "string"}, {"minLength", 1}})},
		{"method", desc("HTTP method.", obj{{"type", "string"}, {"enum", webhookMethods}, {"default", "POST"}})},
		{"body", desc("Request body, sent as JSON (not with GET or HEAD).", obj{})},
		{"headers", desc("Request headers.", obj{{"type", "object"}, {"additionalProperties", str}})},
		{"query", desc("Query parameters.", obj{{"type", "object"}, {"additionalProperties", obj{{"type", []string{"string", "number", "boolean"}}}}})},
		{"wait", desc("Wait for the execution the call caused and return its status (needs the API key).", obj{{"type", "boolean"}, {"default", false}})},
		{"workflowId", idProp("The workflow the webhook belongs to; found among the active workflows by path when absent.")},
		{"timeout", desc("How long the call, and with wait the execution, may take.", obj{{"type", "string"}, {"default", "60s"}})},
		{"poll_interval", desc("How often to look for the execution while waiting.", obj{{"type", "string"}, {"default", "250ms"}})},
		{"include_data", desc("With wait: return the items the workflow's last node emitted.", obj{{"type", "boolean"}, {"default", false}})},
	})
}
func (*webhookType) OutputSchema() []byte {
	return outputSchema("n8n.webhook output", "The webhook's answer and, with wait, the execution it caused.", obj{
		{"type", "object"},
		{"required", []string{"statusCode", "response"}},
		{"properties", obj{
			{"statusCode", desc("The webhook's HTTP status.", integer)},
			{"response", desc("The webhook's answer: JSON when it is JSON, else text.", obj{})},
			{"execution", desc("With wait: the execution the call caused.", executionSchema)},
			{"items", desc("With wait and include_data: the json of the items the last node emitted.", obj{{"type", "array"}})},
		}},
	})
}

// webhookConfig is a parsed `with` of n8n.webhook.
type webhookConfig struct {
	path, method string
	body         any
	hasBody      bool
	headers      map[string]string
	query        url.Values
	wait         bool
	workflowID   ID
	timeout      time.Duration
	poll         time.Duration
	includeData  bool
}

func parseWebhook(w map[string]any) (webhookConfig, error) {
	var c webhookConfig
	var err error
	if c.path, err = optString(w, "path"); err != nil {
		return c, err
	}
	c.path = strings.Trim(c.path, "/")
	if c.path == "" {
		return c, configErr("/path", i18n.M("required: the Webhook node's path"))
	}
	if c.method, err = optString(w, "method"); err != nil {
		return c, err
	}
	if c.method == "" {
		c.method = "POST"
	}
	c.method = strings.ToUpper(c.method)
	if !slices.Contains(webhookMethods, c.method) {
		return c, configErr("/method", i18n.M("must be one of %s, got %q", strings.Join(webhookMethods, ", "), c.method))
	}
	c.body, c.hasBody = w["body"]
	if c.hasBody && (c.method == "GET" || c.method == "HEAD") {
		return c, configErr("/body", i18n.M("a %s request has no body; use query", c.method))
	}
	if h, ok := w["headers"]; ok && h != nil {
		m, isObj := h.(map[string]any)
		if !isObj {
			return c, configErr("/headers", i18n.M("must be a mapping of header names to strings, got %T", h))
		}
		c.headers = make(map[string]string, len(m))
		for k, v := range m {
			s, isStr := v.(string)
			if !isStr {
				return c, configErr("/headers/"+k, i18n.M("must be a string, got %T", v))
			}
			c.headers[k] = s
		}
	}
	if q, ok := w["query"]; ok && q != nil {
		m, isObj := q.(map[string]any)
		if !isObj {
			return c, configErr("/query", i18n.M("must be a mapping of names to values, got %T", q))
		}
		c.query = url.Values{}
		for k, v := range m {
			switch v.(type) {
			case string, bool, float64, int, int64, json.Number:
				c.query.Set(k, fmt.Sprint(v))
			default:
				return c, configErr("/query/"+k, i18n.M("must be a string, number or boolean, got %T", v))
			}
		}
	}
	if c.wait, err = optBool(w, "wait"); err != nil {
		return c, err
	}
	if c.workflowID, err = optID(w, "workflowId"); err != nil {
		return c, err
	}
	if c.timeout, err = optDuration(w, "timeout", defaultWaitTimeout); err != nil {
		return c, err
	}
	if c.poll, err = optDuration(w, "poll_interval", defaultPollInterval); err != nil {
		return c, err
	}
	if c.includeData, err = optBool(w, "include_data"); err != nil {
		return c, err
	}
	if c.includeData && !c.wait {
		return c, configErr("/include_data", i18n.M("needs wait: true (the items come from the execution)"))
	}
	return c, nil
}

// Check catches what the schema cannot: durations, and include_data without wait.
func (*webhookType) Check(with map[string]any) error {
	for _, v := range with {
		if s, ok := v.(string); ok && strings.Contains(s, "${{") {
			return nil // a reference decides at run time
		}
	}
	_, err := parseWebhook(with)
	return err
}

func (t *webhookType) Run(ctx context.Context, call *nodes.Call) (*nodes.Result, error) {
	cfg, err := parseWebhook(call.With)
	if err != nil {
		return nil, err
	}
	lang := call.Lang
	base, insecure, err := t.f.conn(call.With, lang)
	if err != nil {
		return nil, err
	}
	what := i18n.Sprintf(lang, "webhook %s %s", cfg.method, cfg.path)
	// timeout bounds everything: finding the workflow, the call, and waiting.
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	var c *Client
	var baseline map[ID]bool
	var newest int64 = -1
	if cfg.wait {
		// The API key is needed to find the execution; the webhook itself needs none.
		if c, err = t.f.client(call.With, lang); err != nil {
			return nil, err
		}
		if cfg.workflowID == "" {
			if cfg.workflowID, err = findWebhookWorkflow(ctx, c, cfg.method, cfg.path); err != nil {
				return nil, i18n.Errorf(lang, "%s: %w", what, err)
			}
		}
		// What exists before the call is not ours.
		p, err := c.ListExecutions(ctx, ExecutionFilter{WorkflowID: cfg.workflowID, Limit: pollPage})
		if err != nil {
			return nil, i18n.Errorf(lang, "%s: %w", what, err)
		}
		baseline = make(map[ID]bool, len(p.Data))
		for _, e := range p.Data {
			baseline[e.ID] = true
			if n, err := strconv.ParseInt(string(e.ID), 10, 64); err == nil && n > newest {
				newest = n
			}
		}
	}
	// Checked like the API's URL: a webhook call may carry secrets too.
	u, err := baseURL(lang, base, insecure, FromDAG)
	if err != nil {
		return nil, err
	}

	reqID := newRequestID()
	status, resp, err := t.send(ctx, lang, u.String(), cfg, reqID, call.OutputLimit)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, i18n.Errorf(lang, "%s: no answer within %s; raise timeout to wait longer", what, cfg.timeout)
		}
		return nil, i18n.Errorf(lang, "%s: %w", what, err)
	}
	data := map[string]any{"statusCode": status, "response": resp}
	if status >= 400 && (!cfg.wait || status < 500) {
		// A 4xx means no execution ran (not registered, refused); a 5xx with wait is
		// explained better by the execution's own error.
		return nil, fmt.Errorf("%s: HTTP %d %s: %s", what, status, http.StatusText(status), responseMessage(resp))
	}
	if !cfg.wait {
		return output("pass", fmt.Sprintf("%s answered %d: %s", what, status, responseMessage(resp)), data)
	}

	e, err := t.await(ctx, c, cfg, reqID, baseline, newest)
	if err != nil {
		return nil, i18n.Errorf(lang, "%s: %w", what, err)
	}
	name := ""
	if e.WorkflowData != nil {
		name = e.WorkflowData.Name
	}
	m := executionSummary(e, name, false)
	o, err := e.Outcome(lang)
	if err != nil {
		return nil, i18n.Errorf(lang, "%s: %w", what, err)
	}
	if o.LastNode != "" {
		m["lastNode"] = o.LastNode
	}
	if o.Error != "" {
		m["error"] = o.Error
	}
	data["execution"] = m
	if Failed(e.Status) {
		msg := o.Error
		if msg == "" {
			msg = "n8n gave no error message"
		}
		where := ""
		if o.ErrorNode != "" {
			where = " in node " + strconv.Quote(o.ErrorNode)
		} else if o.LastNode != "" {
			where = " in node " + strconv.Quote(o.LastNode)
		}
		return output("fail", fmt.Sprintf("n8n execution %s of workflow %s %s%s: %s", e.ID, e.WorkflowID, statusVerb(e.Status), where, msg), data)
	}
	summary := fmt.Sprintf("%s: execution %s %s", what, e.ID, statusVerb(e.Status))
	if cfg.includeData {
		items := o.Items
		if items == nil {
			items = []any{}
		}
		data["items"] = items
		summary += fmt.Sprintf("; %s returned %s", o.LastNode, plural(len(items), "item", "items"))
	}
	return output("pass", summary, data)
}

func statusVerb(status string) string {
	switch status {
	case "success":
		return "succeeded"
	case "error":
		return "failed"
	case "crashed":
		return "crashed"
	case "canceled":
		return "was canceled"
	}
	return "ended with status " + status
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// send calls the webhook and reads its answer.
func (t *webhookType) send(ctx context.Context, lang i18n.Lang, base string, cfg webhookConfig, reqID string, limit int64) (int, any, error) {
	u := base + "/webhook/" + cfg.path
	if len(cfg.query) > 0 {
		u += "?" + cfg.query.Encode()
	}
	var body io.Reader
	if cfg.hasBody {
		b, err := json.Marshal(cfg.body)
		if err != nil {
			return 0, nil, i18n.Errorf(lang, "encode body: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, cfg.method, u, body)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range cfg.headers {
		req.Header.Set(k, v)
	}
	if cfg.hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set(RequestHeader, reqID)
	// Not retried: a webhook call starts a workflow, and a second call would start another.
	res, err := t.f.opts.HTTPClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	if limit <= 0 {
		limit = nodes.DefaultOutputLimit
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return 0, nil, i18n.Errorf(lang, "read answer: %w", err)
	}
	if int64(len(raw)) > limit {
		return 0, nil, &nodes.OutputLimitError{Limit: limit, Lang: lang}
	}
	var v any
	if len(bytes.TrimSpace(raw)) > 0 && json.Unmarshal(raw, &v) == nil {
		return res.StatusCode, v, nil
	}
	return res.StatusCode, string(raw), nil
}

// responseMessage is the gist of a webhook's answer for a summary or an error.
func responseMessage(resp any) string {
	switch r := resp.(type) {
	case map[string]any:
		if m, ok := r["message"].(string); ok && m != "" {
			return m
		}
	case string:
		s := strings.TrimSpace(r)
		if s == "" {
			return "no body"
		}
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		return s
	}
	b, _ := json.Marshal(resp)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// findWebhookWorkflow finds the active workflow with a Webhook node at path and method.
func findWebhookWorkflow(ctx context.Context, c *Client, method, path string) (ID, error) {
	active := true
	p, err := c.ListWorkflows(ctx, WorkflowFilter{Active: &active, All: true, Limit: 250})
	if err != nil {
		return "", i18n.Errorf(c.Lang(), "find the workflow of the webhook: %w", err)
	}
	var found []ID
	for _, w := range p.Data {
		for _, n := range w.Nodes {
			if webhookMatches(n, method, path) {
				found = append(found, w.ID)
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return "", i18n.Errorf(c.Lang(), "no active workflow has a Webhook node for %s %s; activate it, or set workflowId", method, path)
	case 1:
		return found[0], nil
	}
	return "", i18n.Errorf(c.Lang(), "%d active workflows have a Webhook node for %s %s; set workflowId", len(found), method, path)
}

func webhookMatches(n map[string]any, method, path string) bool {
	if typ, _ := n["type"].(string); typ != "n8n-nodes-base.webhook" {
		return false
	}
	if disabled, _ := n["disabled"].(bool); disabled {
		return false
	}
	params, _ := n["parameters"].(map[string]any)
	p, _ := params["path"].(string)
	if strings.Trim(p, "/") != path {
		return false
	}
	m, _ := params["httpMethod"].(string)
	if m == "" {
		m = "GET" // the Webhook node's default
	}
	if multi, _ := params["multipleMethods"].(bool); multi {
		if ms, ok := params["httpMethod"].([]any); ok {
			for _, x := range ms {
				if s, _ := x.(string); strings.EqualFold(s, method) {
					return true
				}
			}
			return false
		}
	}
	return strings.EqualFold(m, method)
}

// await polls the workflow's executions, newest first, for the one the call with reqID
// caused, until it has finished or the timeout passes.
func (t *webhookType) await(ctx context.Context, c *Client, cfg webhookConfig, reqID string, baseline map[ID]bool, newest int64) (*Execution, error) {
	checked := map[ID]bool{}
	var pending []string
	var unmarked []*Execution // finished new executions without our header, oldest last
	for {
		p, err := c.ListExecutions(ctx, ExecutionFilter{WorkflowID: cfg.workflowID, Limit: pollPage})
		if err != nil {
			return nil, waitErr(ctx, c.Lang(), cfg, pending, err)
		}
		pending = pending[:0]
		for i := range p.Data {
			e := &p.Data[i]
			if baseline[e.ID] || checked[e.ID] || !newer(e.ID, newest) {
				continue
			}
			if !Done(e.Status) {
				pending = append(pending, i18n.Sprintf(c.Lang(), "execution %s is %s", e.ID, e.Status))
				continue
			}
			full, err := c.GetExecution(ctx, e.ID, true)
			if err != nil {
				return nil, waitErr(ctx, c.Lang(), cfg, pending, err)
			}
			checked[e.ID] = true
			switch carriesRequest(full, reqID) {
			case marked:
				return full, nil
			case unmarkedExec:
				unmarked = append(unmarked, full)
			}
		}
		// A trigger that does not show headers cannot be matched; when nothing else can be
		// ours, the oldest new execution is.
		if len(pending) == 0 && len(unmarked) > 0 {
			return unmarked[len(unmarked)-1], nil
		}
		tm := time.NewTimer(cfg.poll)
		select {
		case <-ctx.Done():
			tm.Stop()
			return nil, waitErr(ctx, c.Lang(), cfg, pending, ctx.Err())
		case <-tm.C:
		}
	}
}

func waitErr(ctx context.Context, lang i18n.Lang, cfg webhookConfig, pending []string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		if len(pending) > 0 {
			return i18n.Errorf(lang, "no finished execution of workflow %s within %s (%s); raise timeout to wait longer",
				cfg.workflowID, cfg.timeout, strings.Join(pending, i18n.Sprintf(lang, ", ")))
		}
		return i18n.Errorf(lang, "no finished execution of workflow %s within %s; raise timeout to wait longer", cfg.workflowID, cfg.timeout)
	}
	return i18n.Errorf(lang, "wait for the execution of workflow %s: %w", cfg.workflowID, err)
}

// newer reports whether id is above the newest id seen before the call, when both are
// numbers (n8n's execution ids are increasing integers).
func newer(id ID, newest int64) bool {
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err != nil || newest < 0 || n > newest
}

type mark int

const (
	notOurs mark = iota
	marked
	unmarkedExec
)

// carriesRequest says whether an execution's trigger saw the request id: it did, it saw
// another (or none while showing headers), or it shows no headers at all.
func carriesRequest(e *Execution, reqID string) mark {
	var d struct {
		ResultData struct {
			RunData map[string][]struct {
				Data struct {
					Main [][]struct {
						JSON struct {
							Headers map[string]any `json:"headers"`
						} `json:"json"`
					} `json:"main"`
				} `json:"data"`
			} `json:"runData"`
		} `json:"resultData"`
	}
	if json.Unmarshal(e.Data, &d) != nil {
		return unmarkedExec
	}
	sawHeaders := false
	want := strings.ToLower(RequestHeader)
	for _, runs := range d.ResultData.RunData {
		for _, r := range runs {
			for _, out := range r.Data.Main {
				for _, it := range out {
					if it.JSON.Headers == nil {
						continue
					}
					sawHeaders = true
					for k, v := range it.JSON.Headers {
						if strings.ToLower(k) == want && v == reqID {
							return marked
						}
					}
				}
			}
		}
	}
	if sawHeaders {
		return notOurs
	}
	return unmarkedExec
}
