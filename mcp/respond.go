package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/internal/suggest"
)

// Envelope is every tool's answer: it is the structured content of the result, and its JSON
// the text content.
type Envelope struct {
	Success bool       `json:"success"`
	Message string     `json:"message"`
	Data    any        `json:"data,omitempty"`
	Error   *ErrorInfo `json:"error,omitempty"`
}

// ErrorInfo says why a tool call failed: a stable code and, when there is more to say,
// details (e.g. the diagnostics of a DAG that does not load).
type ErrorInfo struct {
	Code    string `json:"code"`
	Details any    `json:"details,omitempty"`
}

// Error codes of the envelope.
const (
	CodeInvalidArgument = "invalid_argument"
	CodeOutsideRoot     = "path_outside_root"
	CodeNotFound        = "not_found"
	CodeInvalidDAG      = "invalid_dag"
	CodeLintFailed      = "lint_failed"
	CodeInvalidParams   = "invalid_params"
	CodeInvalidSchema   = "invalid_schema"
	CodeRunNotFound     = "run_not_found"
	CodeNoStore         = "no_store"
	CodeNotRunning      = "not_running"
	CodeNotResumable    = "not_resumable"
	CodeUnavailable     = "unavailable"
	CodeInternal        = "internal"
	// n8n tools: n8n refused the API key (401, 403), could not be reached, refused the request
	// (another 4xx), failed (5xx); a workflow the runtime validation refused to write.
	CodeN8NUnauthorized = "n8n_unauthorized"
	CodeN8NUnreachable  = "n8n_unreachable"
	CodeN8NRejected     = "n8n_rejected"
	CodeN8NError        = "n8n_error"
	CodeInvalidWorkflow = "invalid_workflow"
)

// Limits of minimal responses.
const (
	minimalErrors      = 3
	minimalSuggestions = 2
)

// toolError is a failure a handler reports: it becomes the envelope's error.
type toolError struct {
	code    string
	msg     message // formatted in the server's language by respond
	details any     // shaped like data: a minimizer is cut down unless raw
}

func (e *toolError) Error() string { return e.msg.String() }

// fail is a tool error. format is a literal, as for msgf: the catalog translates it.
func fail(code string, details any, format string, a ...any) error {
	return &toolError{code: code, msg: message{format: format, args: a}, details: details}
}

// failVerbatim is a tool error in err's own words, which seam does not write (the n8n
// client's): they read the same in either language.
func failVerbatim(code string, err error) error {
	return &toolError{code: code, msg: verbatim(err.Error())}
}

// minimizer is data with a minimal form for a model's context.
type minimizer interface {
	minimal() any
}

// rawArg is the argument every tool takes.
type rawArg interface{ wantRaw() bool }

// Common holds the arguments every tool takes.
type Common struct {
	Raw bool `json:"raw,omitempty" jsonschema:"return everything (full outputs, statistics, all errors) instead of the minimal answer; default false"`
}

func (c Common) wantRaw() bool { return c.Raw }

// closedSets is an input some of whose arguments take one of a closed set of values: addTool
// writes each set into the input schema as the argument's enum, so that a client sees the
// values instead of reading them in prose, and decodeArgs rejects any other value, listing
// the set.
type closedSets interface{ enums() map[string][]string }

// handler is what a tool implements: a message and the full data, or an error.
type handler[In rawArg] func(ctx context.Context, req *sdk.CallToolRequest, in In) (msg message, data any, err error)

// addTool registers a tool whose every answer goes through respond, with its messages in
// lang. Its input schema is inferred from In, with raw defaulting to false.
//
// The tool is registered with the SDK's low-level AddTool: arguments are checked here, so
// that arguments breaking the input schema get the envelope (invalid_argument) like any other
// failure, and no output schema is declared: the envelope's says nothing a client could use,
// and the SDK would decode every answer again to check it (a fifth of a call's CPU).
func addTool[In rawArg](s *sdk.Server, lang i18n.Lang, t *sdk.Tool, h handler[In]) error {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	raw, ok := in.Properties["raw"]
	if !ok {
		return fmt.Errorf("tool %s: input has no raw argument", t.Name)
	}
	raw.Default = json.RawMessage("false")
	if cs, ok := any(*new(In)).(closedSets); ok {
		for name, values := range cs.enums() {
			p, ok := in.Properties[name]
			if !ok {
				return fmt.Errorf("tool %s: an enum for %s, which is not an argument", t.Name, name)
			}
			for _, v := range values {
				p.Enum = append(p.Enum, v)
			}
		}
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	t.InputSchema = in
	s.AddTool(t, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var (
			in  In
			res *sdk.CallToolResult
			env Envelope
		)
		if err := decodeArgs(req.Params.Arguments, resolved, &in); err != nil {
			res, env = respond(lang, false, message{}, nil, err)
		} else {
			msg, data, err := h(ctx, req, in)
			res, env = respond(lang, in.wantRaw(), msg, data, err)
		}
		b, err := json.Marshal(env)
		if err != nil {
			return nil, fmt.Errorf("tool %s: marshal the answer: %w", t.Name, err)
		}
		res.StructuredContent = json.RawMessage(b)
		res.Content = []sdk.Content{&sdk.TextContent{Text: string(b)}}
		return res, nil
	})
	return nil
}

// decodeArgs checks a call's arguments against the tool's input schema and decodes them.
func decodeArgs(args json.RawMessage, schema *jsonschema.Resolved, in any) error {
	m := map[string]any{}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &m); err != nil {
			return fail(CodeInvalidArgument, nil, "arguments: want a JSON object: %v", err)
		}
	}
	if err := checkArgs(m, schema.Schema()); err != nil {
		return err
	}
	if err := schema.Validate(m); err != nil {
		return fail(CodeInvalidArgument, nil, "arguments: %v (the tool's input schema says what it takes)", err)
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args, in); err != nil {
			return fail(CodeInvalidArgument, nil, "arguments: %v", err)
		}
	}
	return nil
}

// checkArgs reports, in the catalog's words, the argument errors a model makes most: a
// misspelt name (with the name it likely meant), a missing required argument, a value outside
// a closed set (with the set). The input schema's validation reports the rest. An optional
// argument with a closed set given as "" is dropped from m: empty means absent for it as for
// the others.
func checkArgs(m map[string]any, schema *jsonschema.Schema) error {
	names := slices.Sorted(maps.Keys(schema.Properties))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if _, ok := schema.Properties[k]; ok {
			continue
		}
		if s := suggest.Closest(k, names); s != "" {
			return fail(CodeInvalidArgument, nil, "arguments: %q is not an argument; did you mean %q?", k, s)
		}
		return fail(CodeInvalidArgument, nil, "arguments: %q is not an argument: the tool takes %s", k, strings.Join(names, ", "))
	}
	for _, k := range schema.Required {
		if _, ok := m[k]; !ok {
			return fail(CodeInvalidArgument, nil, "arguments: %q is missing (the tool's input schema describes it)", k)
		}
	}
	for _, k := range names {
		p, v := schema.Properties[k], m[k]
		if v == nil || len(p.Enum) == 0 || slices.Contains(p.Enum, v) {
			continue
		}
		if v == "" && !slices.Contains(schema.Required, k) {
			delete(m, k) // an optional argument given empty is absent, as for the others
			continue
		}
		set := make([]string, len(p.Enum))
		for i, e := range p.Enum {
			set[i] = fmt.Sprint(e)
		}
		b, _ := json.Marshal(v) // v was decoded from JSON
		return fail(CodeInvalidArgument, nil, "arguments: %s %s: want one of %s", k, b, strings.Join(set, ", "))
	}
	return nil
}

// respond shapes every response: the envelope, its message in lang ("ja" or English),
// minimal unless raw, and the error flag.
func respond(lang i18n.Lang, raw bool, msg message, data any, err error) (*sdk.CallToolResult, Envelope) {
	shape := func(v any) any {
		if m, ok := v.(minimizer); ok && !raw {
			return m.minimal()
		}
		return v
	}
	if err != nil {
		var te *toolError
		if !errors.As(err, &te) {
			te = &toolError{code: CodeInternal, msg: verbatim(err.Error())}
		}
		return &sdk.CallToolResult{IsError: true}, Envelope{
			Message: te.msg.text(lang),
			Error:   &ErrorInfo{Code: te.code, Details: shape(te.details)},
		}
	}
	return &sdk.CallToolResult{}, Envelope{Success: true, Message: msg.text(lang), Data: shape(data)}
}

// first returns at most n elements of s.
func first[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}
