package contract

import (
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestPatternECMA: patterns are ECMA-262's. Lookaround, which RE2 lacks, compiles with the
// backtracking engine, in pattern and patternProperties; what RE2 compiles keeps RE2.
func TestPatternECMA(t *testing.T) {
	tests := []struct {
		name, schema, value string
		ok                  bool
	}{
		{"RE2 still", `{"pattern": "^[a-z]+$"}`, `"abc"`, true},
		{"RE2 refuses", `{"pattern": "^[a-z]+$"}`, `"ab1"`, false},
		{"negative lookahead", `{"pattern": "^(?!-)[a-z-]+$"}`, `"a-b"`, true},
		{"negative lookahead refuses", `{"pattern": "^(?!-)[a-z-]+$"}`, `"-ab"`, false},
		{"positive lookahead", `{"pattern": "^(?=.*[0-9])\\w+$"}`, `"ab1"`, true},
		{"positive lookahead refuses", `{"pattern": "^(?=.*[0-9])\\w+$"}`, `"abc"`, false},
		{"lookbehind", `{"pattern": "(?<=v)[0-9]"}`, `"v1"`, true},
		{"lookbehind refuses", `{"pattern": "(?<=v)[0-9]"}`, `"x1"`, false},
		{"backreference", `{"pattern": "^(a|b)\\1$"}`, `"aa"`, true},
		{"backreference refuses", `{"pattern": "^(a|b)\\1$"}`, `"ab"`, false},
		{"patternProperties", `{"patternProperties": {"^(?!x-)": {"type": "string"}}}`, `{"a": "s", "x-a": 1}`, true},
		{"patternProperties refuses", `{"patternProperties": {"^(?!x-)": {"type": "string"}}}`, `{"a": 1}`, false},
		// Catastrophic backtracking ends at the match timeout: the value does not match.
		{"backtracking bounded", `{"pattern": "^(?!b)(a+)+$"}`, `"` + strings.Repeat("a", 40) + `b"`, false},
		// Past the input bound a backtracking pattern does not match, however simple.
		{"input bounded", `{"pattern": "^(?!b)"}`, `"` + strings.Repeat("a", maxPatternInput+1) + `"`, false},
		{"input at the bound", `{"pattern": "^(?!b)"}`, `"` + strings.Repeat("a", maxPatternInput) + `"`, true},
	}
	c := newCompiler(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := c.Inline(tt.name, parse(t, tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			vs := s.Validate(parse(t, tt.value), i18n.English)
			if (len(vs) == 0) != tt.ok {
				t.Errorf("violations %v, want ok=%v", vs, tt.ok)
			}
		})
	}
}

// TestPatternInvalid: a pattern neither engine compiles is a schema error naming it.
func TestPatternInvalid(t *testing.T) {
	_, err := newCompiler(t).Inline("bad", parse(t, `{"properties": {"a": {"pattern": "(?<"}}}`))
	if err == nil || !strings.Contains(err.Error(), `schema bad at /properties/a/pattern: '(?<' is not valid regex`) {
		t.Errorf("err = %v", err)
	}
}
