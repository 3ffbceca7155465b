package contract

import (
	"regexp"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// JSON Schema's patterns are ECMA-262 regular expressions. Go's RE2 reads most of them the
// same way and matches in linear time, so it is kept wherever it compiles a pattern; the rest
// (lookahead, lookbehind, backreferences) go to a backtracking engine in ECMAScript mode,
// whose matching can take exponential time: it is bounded by the input's size and a timeout.
const (
	// maxPatternInput bounds the bytes a backtracking pattern is matched against.
	maxPatternInput = 64 << 10
	// patternTimeout bounds one backtracking match.
	patternTimeout = 100 * time.Millisecond
)

// compilePattern is jsonschema's regexp engine: RE2 first, else ECMAScript.
func compilePattern(src string) (jsonschema.Regexp, error) {
	if re, err := regexp.Compile(src); err == nil {
		return re, nil
	}
	re, err := regexp2.Compile(src, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = patternTimeout
	return ecmaPattern{re}, nil
}

// ecmaPattern is a backtracking pattern. A value past maxPatternInput, or whose match runs
// past patternTimeout, does not match: a contract is never met by a value it could not check.
type ecmaPattern struct{ re *regexp2.Regexp }

func (p ecmaPattern) MatchString(s string) bool {
	if len(s) > maxPatternInput {
		return false
	}
	ok, err := p.re.MatchString(s)
	return err == nil && ok
}

func (p ecmaPattern) String() string { return p.re.String() }
