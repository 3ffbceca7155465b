package service

import (
	"fmt"
	"testing"
)

// TestHookParams: the params a webhook makes of a body, as Hook starts its run with them, and
// why it cannot make them (a body without the member they read, params that are not an object).
func TestHookParams(t *testing.T) {
	const hook = "version: 1\nname: h\nnodes:\n  a: {type: const, with: {value: {status: pass, summary: ok}}}\ntriggers:\n  push:\n    webhook: {body: {type: object, properties: {after: {type: string}}}}\n"
	tests := []struct {
		name, params string
		body         map[string]any
		want         string
	}{
		{"none", "", map[string]any{"after": "x"}, "map[] <nil>"},
		{"a member of the body", "    params: {sha: \"${{ trigger.body.after }}\"}\n", map[string]any{"after": "x"}, "map[sha:x] <nil>"},
		{"a member the body lacks", "    params: {sha: \"${{ trigger.body.after }}\"}\n", map[string]any{}, "map[] ${{ trigger.body.after }}: no field \"after\""},
		{"not an object", "    params: \"${{ trigger.body.after }}\"\n", map[string]any{"after": "x"}, "map[] params must make an object, not string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := load(t, t.TempDir(), "h.yaml", hook+tt.params)
			p, err := HookParams(d.Triggers[0], tt.body, "en")
			if got := fmt.Sprintf("%v %v", p, err); got != tt.want {
				t.Errorf("HookParams = %s, want %s", got, tt.want)
			}
		})
	}
}
