package subset

import "testing"

// TestPatternsRE2Cannot: a pattern RE2 cannot compile (lookaround, backreferences: ECMA-262,
// compiled by contract's backtracking engine) is opaque to the checker: an edge it decides is
// unknown, never wrong, and the rest of a schema is still decided.
func TestPatternsRE2Cannot(t *testing.T) {
	tests := []struct {
		name, a, b string
		want       Verdict
	}{
		{"lookahead in a", `{"type":"string","pattern":"^(?!x)[a-z]+$"}`, `{"type":"string","pattern":"^[a-z]+$"}`, Unknown},
		{"lookahead in b", `{"type":"string","pattern":"^[a-z]+$"}`, `{"type":"string","pattern":"^(?!x)[a-z]+$"}`, Unknown},
		{"backreference", `{"type":"string","pattern":"^(a)\\1$"}`, `{"type":"string","maxLength":2}`, Unknown},
		{"patternProperties", `{"type":"object","patternProperties":{"^(?!x-)":{"type":"string"}}}`, `{"type":"object","additionalProperties":{"type":"string"}}`, Unknown},
		{"types still decide", `{"type":"integer"}`, `{"type":"string","pattern":"^(?!x)"}`, Incompatible},
		{"no pattern to meet", `{"type":"string","pattern":"^(?!x)"}`, `{"type":"string"}`, Compatible},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := compileBoth(t, tt.a, tt.b)
			r := Check(a, b)
			if r.Verdict != tt.want {
				t.Errorf("verdict %v (%s), want %v", r.Verdict, r.Reason, tt.want)
			}
			if r.Verdict == Incompatible {
				checkWitness(t, a, b, r)
			}
		})
	}
}
