package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// ApprovalTypeName is the name of the approval node type.
const ApprovalTypeName = "approval"

// The decisions an approval offers unless its `decisions` says otherwise; DecisionReject is
// the one its on_reject applies to.
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
)

// What on_reject does with a reject.
const (
	OnRejectFail     = "fail"     // the node fails (the default)
	OnRejectContinue = "continue" // the node passes with the answer; consumers read the decision
	OnRejectRewind   = "rewind"   // the chain from Rewind runs again, and the node asks again
)

// ErrAwaitingAnswer is what an approval's Run returns while it has no answer: the engine
// leaves the node waiting for one instead of failing it.
var ErrAwaitingAnswer = errors.New("approval: awaiting an answer")

// approvalType pauses a run for a person's typed answer: its form is a JSON Schema, so the
// answer is a contract like any output, and lint proves every edge that reads it.
type approvalType struct{}

// Approval is implemented by the approval type alone: the loader compiles its form, lint
// checks it and the engine waits for its answer instead of running it.
type Approval interface {
	Approval()
}

func (approvalType) Approval() {}

func (approvalType) Name() string { return ApprovalTypeName }
func (approvalType) Doc() string {
	return "Waits for a person's answer to a typed form (approve or reject); the answer is the output's data."
}

func (approvalType) ConfigSchema() []byte { return schema("approval.config.json") }

// OutputSchema is what any approval promises, whatever its form: a decision in data.
func (approvalType) OutputSchema() []byte { return schema("approval.output.json") }

// OutputSchemaFor narrows the output to the form's fields, the decisions offered and the
// comment, so that lint proves what consumers read of the answer. A form given as a file is
// inlined by the loader before it asks; a form that is still unknown promises the general.
func (t approvalType) OutputSchemaFor(with map[string]any) []byte {
	cfg, err := ParseApproval(with)
	form, ok := with["form"].(map[string]any)
	if err != nil || !ok {
		return t.OutputSchema()
	}
	b, err := json.Marshal(cfg.OutputSchema(form))
	if err != nil {
		return t.OutputSchema()
	}
	return b
}

// ApprovalConfig is an approval node's `with`, read.
type ApprovalConfig struct {
	Title, Body     string
	Show            []any
	Form            any // an inline schema (an object) or a file path (a string)
	Prefill         map[string]any
	Decisions       []string // never empty: [approve, reject] when not written
	Approvers       Approvers
	ExcludeStarter  bool
	Timeout         time.Duration // 0: none
	OnTimeout       map[string]any
	OnReject        OnReject
	AgentsMayAnswer bool
}

// Approvers say who may answer.
type Approvers struct {
	Set        bool // approvers is written
	Anyone     bool
	Principals []string
	Groups     []string
}

// OnReject is what a reject does.
type OnReject struct {
	Mode      string // OnRejectFail, OnRejectContinue or OnRejectRewind
	Rewind    string // the node to run again from, under OnRejectRewind
	MaxRounds int    // how often the question is asked at most, under OnRejectRewind (≥ 1)
}

// DefaultMaxRounds bounds a rewind that does not say max_rounds.
const DefaultMaxRounds = 3

type approvalWith struct {
	Title           any `config:"title,required"`
	Body            any `config:"body"`
	Show            any `config:"show"`
	Form            any `config:"form,required"`
	Prefill         any `config:"prefill"`
	Decisions       any `config:"decisions"`
	Approvers       any `config:"approvers"`
	ExcludeStarter  any `config:"exclude_starter"`
	Timeout         any `config:"timeout"`
	OnTimeout       any `config:"on_timeout"`
	OnReject        any `config:"on_reject"`
	AgentsMayAnswer any `config:"agents_may_answer"`
}

// ParseApproval reads an approval's `with`. The config schema has checked the shapes of a
// literal `with`; values still holding references are left at their zero values.
func ParseApproval(with map[string]any) (*ApprovalConfig, error) {
	var w approvalWith
	if err := DecodeConfig(with, &w); err != nil {
		return nil, err
	}
	cfg := &ApprovalConfig{Form: w.Form, Decisions: []string{DecisionApprove, DecisionReject},
		OnReject: OnReject{Mode: OnRejectFail}}
	cfg.Title, _ = w.Title.(string)
	cfg.Body, _ = w.Body.(string)
	cfg.Show, _ = w.Show.([]any)
	cfg.Prefill, _ = w.Prefill.(map[string]any)
	cfg.OnTimeout, _ = w.OnTimeout.(map[string]any)
	cfg.ExcludeStarter, _ = w.ExcludeStarter.(bool)
	cfg.AgentsMayAnswer, _ = w.AgentsMayAnswer.(bool)
	if ds, ok := w.Decisions.([]any); ok && len(ds) > 0 {
		cfg.Decisions = cfg.Decisions[:0:0]
		for _, d := range ds {
			if s, ok := d.(string); ok {
				cfg.Decisions = append(cfg.Decisions, s)
			}
		}
	}
	switch a := w.Approvers.(type) {
	case string:
		cfg.Approvers = Approvers{Set: true, Anyone: a == "anyone"}
	case map[string]any:
		cfg.Approvers = Approvers{Set: true, Principals: stringList(a["principals"]), Groups: stringList(a["groups"])}
	}
	if s, ok := w.Timeout.(string); ok && !isRef(s) {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, configErr("/timeout", i18n.M("must be a positive duration such as 30m or 24h, not %q", s))
		}
		cfg.Timeout = d
	}
	switch r := w.OnReject.(type) {
	case string:
		if !isRef(r) {
			cfg.OnReject.Mode = r
		}
	case map[string]any:
		cfg.OnReject = OnReject{Mode: OnRejectRewind, MaxRounds: DefaultMaxRounds}
		cfg.OnReject.Rewind, _ = r["rewind"].(string)
		if n, ok := intValue(r["max_rounds"]); ok {
			cfg.OnReject.MaxRounds = int(n)
		}
	}
	return cfg, nil
}

func stringList(v any) []string {
	xs, _ := v.([]any)
	var out []string
	for _, x := range xs {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Check reads the configuration at load time: the timeout's duration above all.
func (approvalType) Check(with map[string]any) error {
	_, err := ParseApproval(with)
	return err
}

// FailsOn reports whether decision makes the node fail: a reject under on_reject: fail, or
// under rewind once its rounds are spent (the engine decides that, not the type).
func (c *ApprovalConfig) FailsOn(decision string) bool {
	return decision == DecisionReject && c.OnReject.Mode != OnRejectContinue
}

// OutputSchema is the output an approval with this form delivers: data holds the form's
// fields, the decision (one of Decisions) and an optional comment.
func (c *ApprovalConfig) OutputSchema(form map[string]any) map[string]any {
	props := map[string]any{}
	if p, ok := form["properties"].(map[string]any); ok {
		maps.Copy(props, p)
	}
	decisions := make([]any, len(c.Decisions))
	for i, d := range c.Decisions {
		decisions[i] = d
	}
	props["decision"] = map[string]any{"type": "string", "enum": decisions}
	if _, ok := props["comment"]; !ok {
		props["comment"] = map[string]any{"type": "string"}
	}
	required := []any{"decision"}
	r, _ := form["required"].([]any)
	// A prefilled field is in every answer: the run service lays the answer's fields over the
	// prefill (and the deadline's answer too), so no answer can take it away. One the form
	// does not declare stays as open as the form leaves it.
	for _, k := range slices.Sorted(maps.Keys(c.Prefill)) {
		if _, declared := props[k]; declared && k != "decision" && k != "comment" {
			r = append(r, k)
		}
	}
	for _, x := range r {
		if !slices.Contains(required, x) {
			required = append(required, x)
		}
	}
	data := map[string]any{"type": "object", "properties": props, "required": required}
	if ap, ok := form["additionalProperties"]; ok {
		data["additionalProperties"] = ap
	}
	status := []any{"pass"}
	if slices.Contains(c.Decisions, DecisionReject) && c.OnReject.Mode != OnRejectContinue {
		status = append(status, "fail")
	}
	return map[string]any{
		"type":       "object",
		"required":   []any{"status", "summary", "data"},
		"properties": map[string]any{"status": map[string]any{"enum": status}, "data": data},
	}
}

// Run hands on the answer the engine gives it (Call.Answer: the form's fields, decision and
// comment); without one the node is waiting, which the engine knows by ErrAwaitingAnswer.
func (approvalType) Run(ctx context.Context, call *Call) (*Result, error) {
	if call.Answer == nil {
		return nil, ErrAwaitingAnswer
	}
	cfg, err := ParseApproval(call.With)
	if err != nil {
		return nil, err
	}
	decision, _ := call.Answer["decision"].(string)
	status := "pass"
	if cfg.FailsOn(decision) {
		status = "fail"
	}
	out, err := json.Marshal(map[string]any{
		"status":  status,
		"summary": fmt.Sprintf("%s: %s", cfg.Title, decision), // the title is the DAG's words, the decision its own
		"data":    call.Answer,
	})
	if err != nil {
		return nil, fmt.Errorf("approval: encode answer: %w", err)
	}
	return &Result{Output: out}, nil
}
