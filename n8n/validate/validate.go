// Package validate checks n8n workflows before n8n sees them: structure, nodes (known types,
// typeVersion, required parameters under their displayOptions, option values, node
// settings), connections (targets, output and input indexes, connection types including the
// ai_* kinds, reachability, cycles), expressions, patterns (webhook responses, error
// handling) and AI agents. The node knowledge comes from n8n/catalog.
//
// The aim is no false errors on real, working workflows: a check reports an error only when
// n8n would refuse, fail or silently drop what the workflow says; what merely looks wrong is
// a warning, and what depends on an expression n8n evaluates at run time is not reported.
package validate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/n8n/catalog"
)

// Profile chooses which checks report, and how severely.
type Profile string

// The profiles, from the most lenient.
const (
	// Minimal: what makes n8n refuse or mis-load the workflow (structure, node types and
	// versions, connections to missing nodes); no warnings.
	Minimal Profile = "minimal"
	// Runtime (the default): everything that breaks or silently changes a run; warnings for
	// what is likely a mistake.
	Runtime Profile = "runtime"
	// AIFriendly: runtime, plus advice for agents building workflows (system messages, error
	// handling, outdated versions).
	AIFriendly Profile = "ai-friendly"
	// Strict: ai-friendly, with the advice about misplaced settings, credentials and cycles
	// as errors.
	Strict Profile = "strict"
)

// Profiles lists the profiles in order.
func Profiles() []Profile { return []Profile{Minimal, Runtime, AIFriendly, Strict} }

// ParseProfile reads a profile name; "" is Runtime. An unknown one is an i18n.Message, said in
// the language of whoever prints it.
func ParseProfile(s string) (Profile, error) {
	if s == "" {
		return Runtime, nil
	}
	for _, p := range Profiles() {
		if string(p) == s {
			return p, nil
		}
	}
	return "", i18n.M("unknown profile %q (want minimal, runtime, ai-friendly or strict)", s)
}

// Options configure a validation. Nodes, Connections and Expressions choose the groups of
// checks beyond structure; when all three are false (the zero value) all of them run.
type Options struct {
	Profile     Profile
	Nodes       bool
	Connections bool
	Expressions bool
	// Catalog is the node catalog; nil loads the embedded one for this call (keep a
	// catalog.Loader and pass its catalog when validating more than once).
	Catalog *catalog.Catalog
	// Lang is the language of messages and fixes: "en" (default) or "ja".
	Lang i18n.Lang
}

// Workflow is what is validated: an n8n workflow's nodes and connections as decoded JSON.
type Workflow struct {
	Name        string           `json:"name"`
	Nodes       []map[string]any `json:"nodes"`
	Connections map[string]any   `json:"connections"`
	Settings    map[string]any   `json:"settings,omitempty"`
}

// Issue is one finding.
type Issue struct {
	Type     string         `json:"type"` // "error" or "warning"
	NodeID   string         `json:"nodeId,omitempty"`
	NodeName string         `json:"nodeName,omitempty"`
	Message  string         `json:"message"`
	Details  map[string]any `json:"details,omitempty"`
	Code     string         `json:"code"`
	Fix      string         `json:"fix,omitempty"`
}

// Statistics count what was validated.
type Statistics struct {
	TotalNodes           int `json:"totalNodes"`
	EnabledNodes         int `json:"enabledNodes"`
	TriggerNodes         int `json:"triggerNodes"`
	ValidConnections     int `json:"validConnections"`
	InvalidConnections   int `json:"invalidConnections"`
	ExpressionsValidated int `json:"expressionsValidated"`
}

// Result is the outcome: valid when there is no error.
type Result struct {
	Valid       bool       `json:"valid"`
	Profile     Profile    `json:"profile"`
	Errors      []Issue    `json:"errors"`
	Warnings    []Issue    `json:"warnings"`
	Statistics  Statistics `json:"statistics"`
	Suggestions []string   `json:"suggestions"`
}

// ValidateJSON decodes a workflow (an n8n export or an API response) and validates it; a
// document that is not a workflow object is reported as structure errors, not as err.
func ValidateJSON(ctx context.Context, doc []byte, opts Options) (*Result, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, i18n.Errorf(opts.Lang, "workflow is not JSON: %w", err)
	}
	return ValidateValue(ctx, v, opts)
}

// ValidateValue validates a decoded JSON value (objects as map[string]any).
func ValidateValue(ctx context.Context, v any, opts Options) (*Result, error) {
	c, err := newChecker(opts)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		c.add(issue{code: "WORKFLOW_NOT_OBJECT", args: []any{jsonKind(v)}})
		return c.result(), nil
	}
	wf := &Workflow{}
	wf.Name, _ = m["name"].(string)
	wf.Settings, _ = m["settings"].(map[string]any)
	switch ns := m["nodes"].(type) {
	case nil:
		c.add(issue{code: "NODES_MISSING"})
		return c.result(), nil
	case []any:
		wf.Nodes = make([]map[string]any, 0, len(ns))
		for i, n := range ns {
			nm, isObj := n.(map[string]any)
			if !isObj {
				c.add(issue{code: "NODE_NOT_OBJECT", args: []any{i, jsonKind(n)}})
				continue
			}
			wf.Nodes = append(wf.Nodes, nm)
		}
	default:
		c.add(issue{code: "NODES_MISSING"})
		return c.result(), nil
	}
	switch cs := m["connections"].(type) {
	case map[string]any:
		wf.Connections = cs
	default:
		c.add(issue{code: "CONNECTIONS_MISSING", args: []any{jsonKind(m["connections"])}})
	}
	return c.run(ctx, wf)
}

// Validate validates a decoded workflow.
func Validate(ctx context.Context, wf *Workflow, opts Options) (*Result, error) {
	c, err := newChecker(opts)
	if err != nil {
		return nil, err
	}
	if wf == nil {
		c.add(issue{code: "NODES_MISSING"})
		return c.result(), nil
	}
	if !jsonNative(wf.Nodes) || !jsonNative(wf.Connections) {
		// Built in Go ([]int positions, typed slices): read it as n8n would, through JSON.
		b, err := json.Marshal(wf)
		if err != nil {
			return nil, fmt.Errorf("validate workflow: %w", err)
		}
		wf = &Workflow{}
		if err := json.Unmarshal(b, wf); err != nil {
			return nil, fmt.Errorf("validate workflow: %w", err)
		}
	}
	return c.run(ctx, wf)
}

// jsonNative reports whether v holds only what encoding/json decodes into an any.
func jsonNative(v any) bool {
	switch x := v.(type) {
	case nil, string, bool, float64:
		return true
	case map[string]any:
		for _, e := range x {
			if !jsonNative(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !jsonNative(e) {
				return false
			}
		}
		return true
	case []map[string]any:
		for _, e := range x {
			if !jsonNative(e) {
				return false
			}
		}
		return true
	}
	return false
}

func newChecker(opts Options) (*checker, error) {
	if opts.Profile == "" {
		opts.Profile = Runtime
	}
	if _, err := ParseProfile(string(opts.Profile)); err != nil {
		if m, ok := err.(i18n.Message); ok {
			return nil, errors.New(m.In(opts.Lang))
		}
		return nil, err
	}
	if !opts.Nodes && !opts.Connections && !opts.Expressions {
		opts.Nodes, opts.Connections, opts.Expressions = true, true, true
	}
	cat := opts.Catalog
	if cat == nil {
		var l catalog.Loader
		var err error
		if cat, err = l.Get(); err != nil {
			return nil, err
		}
	}
	return &checker{opts: opts, cat: cat}, nil
}

func (c *checker) run(ctx context.Context, wf *Workflow) (*Result, error) {
	phases := []struct {
		on bool
		fn func()
	}{
		{true, func() { c.structure(wf) }},
		{c.opts.Nodes, c.checkNodes},
		{true, c.buildEdges},
		{c.opts.Connections, c.connections},
		{c.opts.Expressions, c.expressions},
		{c.opts.Nodes || c.opts.Connections, c.patterns},
		{c.opts.Nodes || c.opts.Connections, c.agents},
	}
	for _, p := range phases {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("validate workflow: %w", err)
		}
		if p.on {
			p.fn()
		}
	}
	return c.result(), nil
}

func (c *checker) result() *Result {
	r := &Result{Profile: c.opts.Profile, Errors: []Issue{}, Warnings: []Issue{}, Suggestions: []string{}}
	seenFix := map[string]bool{}
	for _, is := range c.issues {
		switch is.Type {
		case "error":
			r.Errors = append(r.Errors, is)
		case "warning":
			r.Warnings = append(r.Warnings, is)
		}
		if is.Fix != "" && !seenFix[is.Fix] {
			seenFix[is.Fix] = true
			r.Suggestions = append(r.Suggestions, is.Fix)
		}
	}
	r.Suggestions = append(r.Suggestions, c.advice...)
	r.Valid = len(r.Errors) == 0
	r.Statistics = c.stats
	return r
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, int, int64, json.Number:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
