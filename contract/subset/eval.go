package subset

import (
	"encoding/json"
	"math/big"
	"regexp"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// tri is a three-valued answer: the checker's own evaluation of a schema on a value, exact
// for the keywords the shape models and "maybe" for the rest.
type tri int

const (
	maybe tri = iota
	yes
	no
)

func and(a, b tri) tri {
	switch {
	case a == no || b == no:
		return no
	case a == yes && b == yes:
		return yes
	}
	return maybe
}

// accepts evaluates the conjunction ns on v. The checker uses it to prove that b accepts each
// value of a's enum and to pick counterexamples; the latter are verified by Validate anyway.
func (c *checker) accepts(ns []node, v any, depth int) tri {
	if depth > maxSubsetDepth || !c.spend(stepCost) {
		return maybe // the budget also bounds evaluation, which alternatives can make exponential
	}
	s := c.flatten(ns, false)
	return c.acceptsShape(&s, v, depth)
}

func (c *checker) acceptsShape(s *shape, v any, depth int) tri {
	if s.never {
		return no
	}
	t := typeOf(v)
	if t&s.types == 0 {
		return no
	}
	if s.hasEnum && !s.enumHas(v) {
		return no
	}
	r := yes
	if len(s.unknown) > 0 {
		r = maybe
	}
	switch v := v.(type) {
	case json.Number:
		x, ok := rat(v)
		if !ok {
			return maybe
		}
		r = and(r, s.numberOK(x))
	case string:
		r = and(r, c.stringOK(s, v))
	case map[string]any:
		if len(v) < s.minProps || (s.maxProps >= 0 && len(v) > s.maxProps) {
			return no
		}
		for _, name := range s.required {
			if _, ok := v[name]; !ok {
				return no
			}
		}
		for k, ds := range s.depReq {
			if _, ok := v[k]; ok {
				for _, d := range ds {
					if _, ok := v[d]; !ok {
						return no
					}
				}
			}
		}
		for name, m := range v {
			for _, pn := range s.propNames {
				r = and(r, c.accepts([]node{pn}, name, depth+1))
			}
			if ms := s.memberSchemas(name); len(ms) > 0 {
				r = and(r, c.accepts(ms, m, depth+1))
			}
		}
	case []any:
		if len(v) < s.minItems || (s.maxItems >= 0 && len(v) > s.maxItems) {
			return no
		}
		if s.unique {
			d := distinct(v)
			if d == no {
				return no
			}
			r = and(r, d)
		}
		prefix := s.prefixLen()
		for i, e := range v[:min(prefix, len(v))] {
			if ms := s.itemSchemas(i); len(ms) > 0 {
				r = and(r, c.accepts(ms, e, depth+1))
			}
		}
		if len(v) > prefix {
			if ms := s.itemSchemas(prefix); len(ms) > 0 {
				r = and(r, c.acceptsAll(ms, v[prefix:], func(tri) {}, depth))
			}
		}
		for _, rule := range s.contains {
			r = and(r, c.containsAccepts(rule, v, depth))
		}
	}
	for _, g := range s.groups {
		r = and(r, c.groupAccepts(g, v, depth))
	}
	for _, n := range s.nots {
		r = and(r, not(c.accepts([]node{n}, v, depth)))
	}
	return r
}

func not(t tri) tri {
	switch t {
	case yes:
		return no
	case no:
		return yes
	}
	return maybe
}

// containsAccepts counts the items of v that rule's schema accepts, and those it may.
func (c *checker) containsAccepts(rule containsRule, v []any, depth int) tri {
	yeses, maybes := 0, 0
	c.acceptsAll([]node{rule.n}, v, func(t tri) {
		switch t {
		case yes:
			yeses++
		case maybe:
			maybes++
		}
	}, depth)
	switch {
	case yeses+maybes < rule.min, rule.max >= 0 && yeses > rule.max:
		return no
	case maybes == 0:
		return yes
	}
	return maybe
}

// acceptsAll evaluates the conjunction ns on every item of v, telling each answer to each, and
// returns their conjunction. An array of thousands of items is cheap here (a witness of a's
// minItems: 20000 is one): ns is flattened once, equal items are evaluated once, and each
// other item costs one unit of work, not a step.
func (c *checker) acceptsAll(ns []node, v []any, each func(tri), depth int) tri {
	if depth+1 > maxSubsetDepth || !c.spend(stepCost) {
		for range v {
			each(maybe)
		}
		return maybe
	}
	s := c.flatten(ns, false)
	memo := make(map[string]tri)
	r := yes
	for _, e := range v {
		k, ok := memoKey(e)
		t, seen := memo[k]
		switch {
		case ok && seen:
		case !c.spend(1):
			t = maybe
		default:
			t = c.acceptsShape(&s, e, depth+1)
			if ok {
				memo[k] = t
			}
		}
		each(t)
		r = and(r, t)
	}
	return r
}

// memoKey is a key for v under which equal values usually meet: a number by its text (1 and
// 1.0 miss each other, which costs an evaluation, not an answer), and any other value by
// jsonKey. Reading a number's value is the dear part of jsonKey.
func memoKey(v any) (string, bool) {
	if n, ok := v.(json.Number); ok {
		return "#" + string(n), true
	}
	return jsonKey(v)
}

func (c *checker) groupAccepts(g group, v any, depth int) tri {
	yeses, maybes := 0, 0
	for _, b := range g.branches {
		switch c.accepts([]node{b}, v, depth+1) {
		case yes:
			yeses++
		case maybe:
			maybes++
		}
	}
	if g.kw == "anyOf" {
		switch {
		case yeses > 0:
			return yes
		case maybes > 0:
			return maybe
		}
		return no
	}
	switch {
	case yeses > 1, yeses+maybes == 0:
		return no
	case yeses == 1 && maybes == 0:
		return yes
	}
	return maybe
}

// numberOK checks the numeric keywords; the type was checked already.
func (s *shape) numberOK(x *big.Rat) tri {
	if s.lo != nil && (x.Cmp(s.lo) < 0 || (s.loEx && x.Cmp(s.lo) == 0)) {
		return no
	}
	if s.hi != nil && (x.Cmp(s.hi) > 0 || (s.hiEx && x.Cmp(s.hi) == 0)) {
		return no
	}
	for _, m := range s.mults {
		if !new(big.Rat).Quo(x, m).IsInt() {
			return no
		}
	}
	return yes
}

func (c *checker) stringOK(s *shape, v string) tri {
	n := utf8.RuneCountInString(v)
	if n < s.minLen || (s.maxLen >= 0 && n > s.maxLen) {
		return no
	}
	r := yes
	for _, p := range s.patterns {
		// jsonschema's default engine is Go's regexp, so this agrees with Validate.
		re, err := c.regexp(p)
		if err != nil {
			r = maybe
			continue
		}
		if !re.MatchString(v) {
			return no
		}
	}
	for _, f := range s.formats {
		r = and(r, c.formatOK(f, v))
	}
	return r
}

// regexp compiles a pattern once per Check call.
func (c *checker) regexp(src string) (*regexp.Regexp, error) {
	if re, ok := c.regexps[src]; ok {
		return re, nil
	}
	c.spend(len(src))
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	if c.regexps == nil {
		c.regexps = map[string]*regexp.Regexp{}
	}
	c.regexps[src] = re
	return re, nil
}

// formatOK evaluates format f on v with the validator's own format checks: a schema of that
// format alone, compiled once per Check call (when a format has to be evaluated at all).
func (c *checker) formatOK(f, v string) tri {
	fs, ok := c.formats[f]
	if !ok {
		if !c.spend(formatCost) {
			return maybe
		}
		jc := jsonschema.NewCompiler()
		jc.AssertFormat()
		jc.DefaultDraft(jsonschema.Draft2020)
		// An absolute URL: a relative one is made absolute against the working directory,
		// a system call per format per Generate.
		if err := jc.AddResource("urn:seam:format", map[string]any{"format": f}); err == nil {
			fs, _ = jc.Compile("urn:seam:format")
		}
		if c.formats == nil {
			c.formats = map[string]*jsonschema.Schema{}
		}
		c.formats[f] = fs
	}
	if fs == nil {
		return maybe
	}
	key := [2]string{f, v}
	if r, ok := c.formatted[key]; ok {
		return r
	}
	r := yes
	if fs.Validate(v) != nil {
		r = no
	}
	if c.formatted == nil {
		c.formatted = map[[2]string]tri{}
	}
	c.formatted[key] = r
	return r
}

// distinct tells whether no two items of v are equal JSON values, in one pass.
func distinct(v []any) tri {
	seen := make(map[string]bool, len(v))
	for _, x := range v {
		k, ok := jsonKey(x)
		if !ok {
			return maybe // an unreadable number: equality cannot be shown either way
		}
		if seen[k] {
			return no
		}
		seen[k] = true
	}
	return yes
}
