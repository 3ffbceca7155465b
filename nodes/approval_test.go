package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestApprovalOutputSchema: the output an approval promises holds its form's fields, the
// decisions it offers and a comment, so that lint proves what consumers read of the answer.
func TestApprovalOutputSchema(t *testing.T) {
	form := map[string]any{"type": "object", "required": []any{"reply"},
		"properties": map[string]any{"reply": map[string]any{"type": "string"}}, "additionalProperties": false}
	// The prefill's extra field is one the form does not declare: as open as the form leaves it.
	open := map[string]any{"type": "object", "properties": map[string]any{"tone": map[string]any{"type": "string"}}}
	tests := []struct {
		name string
		with map[string]any
		want string
	}{
		{"the defaults", map[string]any{"title": "t", "form": form},
			`{"properties":{"data":{"additionalProperties":false,"properties":{"comment":{"type":"string"},"decision":{"enum":["approve","reject"],"type":"string"},"reply":{"type":"string"}},"required":["decision","reply"],"type":"object"},"status":{"enum":["pass","fail"]}},"required":["status","summary","data"],"type":"object"}`},
		{"continue on reject never fails", map[string]any{"title": "t", "form": form, "on_reject": "continue", "decisions": []any{"ship", "reject"}},
			`{"properties":{"data":{"additionalProperties":false,"properties":{"comment":{"type":"string"},"decision":{"enum":["ship","reject"],"type":"string"},"reply":{"type":"string"}},"required":["decision","reply"],"type":"object"},"status":{"enum":["pass"]}},"required":["status","summary","data"],"type":"object"}`},
		{"a prefilled field is in every answer", map[string]any{"title": "t", "form": open, "prefill": map[string]any{"tone": "${{ nodes.d.output.data.t }}", "extra": 1}},
			`{"properties":{"data":{"properties":{"comment":{"type":"string"},"decision":{"enum":["approve","reject"],"type":"string"},"tone":{"type":"string"}},"required":["decision","tone"],"type":"object"},"status":{"enum":["pass","fail"]}},"required":["status","summary","data"],"type":"object"}`},
		{"a form not yet inlined", map[string]any{"title": "t", "form": "form.json"}, string(approvalType{}.OutputSchema())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := approvalType{}.OutputSchemaFor(tt.with)
			if string(got) != tt.want {
				t.Errorf("OutputSchemaFor =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestApprovalConfigErrors: what Check refuses at load time, with its message in both
// languages.
func TestApprovalConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		with   map[string]any
		en, ja string
	}{
		{"a timeout that is no duration", map[string]any{"title": "t", "form": map[string]any{}, "timeout": "a day"},
			`with/timeout: must be a positive duration such as 30m or 24h, not "a day"`,
			`with/timeout: 30m や 24h のような正の期間で指定してください（"a day" ではありません）`},
		{"a negative timeout", map[string]any{"title": "t", "form": map[string]any{}, "timeout": "-1h"},
			`with/timeout: must be a positive duration such as 30m or 24h, not "-1h"`,
			`with/timeout: 30m や 24h のような正の期間で指定してください（"-1h" ではありません）`},
		{"an unknown key", map[string]any{"title": "t", "form": map[string]any{}, "aprovers": "anyone"},
			`with/aprovers: unknown key "aprovers" (did you mean "approvers"?)`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := approvalType{}.Check(tt.with)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Check = %v, want a ConfigError", err)
			}
			if got := ce.Text(i18n.English); got != tt.en {
				t.Errorf("en: %s\nwant %s", got, tt.en)
			}
			if got := ce.Text(i18n.Japanese); tt.ja != "" && got != tt.ja {
				t.Errorf("ja: %s\nwant %s", got, tt.ja)
			}
		})
	}
}

// TestApprovalRun: without an answer the node is waiting (ErrAwaitingAnswer); with one, the
// answer is the output's data and a reject fails the node unless on_reject says continue.
func TestApprovalRun(t *testing.T) {
	tests := []struct {
		name   string
		with   map[string]any
		answer map[string]any
		want   string
	}{
		{"approve", map[string]any{"title": "Send?", "form": map[string]any{}},
			map[string]any{"decision": "approve", "reply": "hi"}, `{"data":{"decision":"approve","reply":"hi"},"status":"pass","summary":"Send?: approve"}`},
		{"reject fails", map[string]any{"title": "Send?", "form": map[string]any{}},
			map[string]any{"decision": "reject", "comment": "no"}, `{"data":{"comment":"no","decision":"reject"},"status":"fail","summary":"Send?: reject"}`},
		{"reject continues", map[string]any{"title": "Send?", "form": map[string]any{}, "on_reject": "continue"},
			map[string]any{"decision": "reject"}, `{"data":{"decision":"reject"},"status":"pass","summary":"Send?: reject"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := approvalType{}.Run(context.Background(), &Call{With: tt.with, Answer: tt.answer})
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(res.Output, &v); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(v)
			if string(got) != tt.want {
				t.Errorf("output %s\nwant   %s", got, tt.want)
			}
		})
	}
	if _, err := (approvalType{}).Run(context.Background(), &Call{With: map[string]any{"title": "t", "form": map[string]any{}}}); !errors.Is(err, ErrAwaitingAnswer) {
		t.Errorf("Run without an answer = %v, want ErrAwaitingAnswer", err)
	}
}
