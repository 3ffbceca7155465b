package subset

import (
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

// checker holds one Check call's state; it lives on Check's stack.
type checker struct {
	// assumed maps a pair being checked to the instance depth where the check began: meeting
	// the same pair strictly deeper, the pair may be assumed to hold (coinduction), since
	// every instance is finite.
	assumed map[string]int
	work    int      // units of work done, against maxSubsetWork
	ignored []string // producer keywords dropped, for the reason of an unverified witness
	// annotated says, for the producer and the consumer, whether format is an annotation
	// there (contract.Options.AnnotateFormat): then it constrains nothing and flatten drops
	// it.
	annotated [2]bool
	// variant numbers the search for a counterexample: 0 makes the plainest choices, and each
	// later one other choices, after a candidate failed verification.
	variant int
	langs   map[string]*langProg // patterns compiled to automata, by source
	regexps map[string]*regexp.Regexp
	formats map[string]*jsonschema.Schema // a schema of each format evaluated, nil when none compiles
	// formatted remembers formatOK's answers by format and string: a value is built of
	// many members of one format (a webhook's hundreds of uri members), each candidate
	// evaluated more than once, and the validator builds its state anew for each call.
	formatted map[[2]string]tri
	// deadline, when set, ends the budget at that time (maxSubsetTime after Check began);
	// spend looks at the clock on its first call and every timeCheckEvery calls after.
	deadline time.Time
	spends   int
}

// timeCheckEvery is how many calls of spend go between two looks at the clock.
const timeCheckEvery = 16

// choose picks one of n choices for the current variant, the first in variant 0.
func (c *checker) choose(n int) int {
	if n <= 0 {
		return 0
	}
	return c.variant % n
}

// spend charges n units of work and reports whether the budget still holds. Past it every
// comparison is Unknown, every evaluation maybe and no value is built: answers already given
// stay sound, and Check says the budget ran out.
func (c *checker) spend(n int) bool {
	c.work += n
	if c.spends++; c.spends%timeCheckEvery == 1 && !c.deadline.IsZero() && time.Now().After(c.deadline) {
		c.work = max(c.work, maxSubsetWork+1)
	}
	return c.work <= maxSubsetWork
}

func unknown(rule, format string, args ...any) Result {
	r := Result{Verdict: Unknown, Rule: rule}
	r.say(format, args...)
	return r
}

func incompatible(rule string, w any, path, format string, args ...any) Result {
	r := Result{Verdict: Incompatible, Rule: rule, Witness: w, Path: path}
	r.say(format, args...)
	return r
}

// sub decides as ⊆ bs at instance depth depth.
func (c *checker) sub(as, bs []node, depth int) Result {
	if c.work > maxSubsetWork {
		// Flattening costs too: with the budget spent, not even that.
		return unknown("", "the comparison exceeded the checker's budget")
	}
	return c.shapes(c.flatten(as, true), c.flatten(bs, false), depth)
}

func (c *checker) shapes(a, b shape, depth int) Result {
	if depth > maxSubsetDepth {
		return unknown("", "the schemas nest or recurse too deeply to compare")
	}
	if !c.spend(stepCost) {
		return unknown("", "the comparison exceeded the checker's budget")
	}
	if a.never {
		return Result{Verdict: Compatible} // a accepts nothing here
	}
	key := shapeKey(a) + " ⊆ " + shapeKey(b)
	if d, ok := c.assumed[key]; ok && d < depth {
		return Result{Verdict: Compatible}
	}
	if _, ok := c.assumed[key]; !ok {
		c.assumed[key] = depth
		defer delete(c.assumed, key)
	}
	for _, k := range a.unknown {
		if !slices.Contains(c.ignored, k) {
			c.ignored = append(c.ignored, k)
		}
	}
	// The producer's alternatives: a ⊆ b when every branch is.
	if len(a.groups) > 0 {
		return c.splitProducer(a, b, depth)
	}
	if c.empty(a, depth) {
		return Result{Verdict: Compatible} // a accepts nothing: a subset of anything
	}
	if len(b.unknown) > 0 {
		return unknown("", "⟨b⟩ uses %s, which seam does not compare yet", strings.Join(b.unknown, ", "))
	}
	if len(b.groups) > 0 || b.hasEnum || len(b.nots) > 0 {
		if e, ok := c.enumerate(a); ok {
			a = e // finitely many values: each is checked
		}
	}
	if len(b.groups) > 0 && !a.hasEnum {
		return c.splitConsumer(a, b, depth)
	}
	return c.compare(a, b, depth)
}

// empty reports, from sufficient conditions only, that a (without alternatives) accepts
// nothing: each of its types is emptied by contradictory bounds or lengths, a required member
// that accepts nothing, or, for an enum, a not or other keyword that rejects every value.
func (c *checker) empty(a shape, depth int) bool {
	if a.never {
		return true
	}
	if depth > maxSubsetDepth || !c.spend(1) {
		return false
	}
	if a.hasEnum {
		if len(a.nots) == 0 {
			// flatten kept the values within a's bounds; values keeps those of a's types:
			// none left (const null under a type that is not null) is nothing.
			return len(a.values()) == 0
		}
		for _, v := range a.values() {
			if c.acceptsShape(&a, v, depth) != no {
				return false
			}
		}
		return true
	}
	for t := types(1); t <= tFraction; t <<= 1 {
		if a.types&t != 0 && !c.emptyOf(a, t, depth) {
			return false
		}
	}
	return true
}

// emptyOf reports that a has no value of type t, from its keywords of t.
func (c *checker) emptyOf(a shape, t types, depth int) bool {
	switch t {
	case tInteger, tFraction:
		if a.lo == nil || a.hi == nil {
			return false
		}
		if t == tInteger {
			return ceilBound(a.lo, a.loEx).Cmp(floorBound(a.hi, a.hiEx)) > 0
		}
		// A fraction lies between any two bounds apart; at one point, only if it is one.
		d := a.lo.Cmp(a.hi)
		return d > 0 || d == 0 && (a.loEx || a.hiEx || a.lo.IsInt())
	case tString:
		return a.maxLen >= 0 && a.minLen > a.maxLen
	case tArray:
		return a.maxItems >= 0 && a.minItems > a.maxItems
	case tObject:
		if most := a.maxMembers(); most >= 0 && max(a.minProps, len(a.required)) > most {
			return true
		}
		for _, name := range a.required {
			if c.empty(c.flatten(a.memberSchemas(name), true), depth+1) {
				return true
			}
		}
	}
	return false
}

// shapeKey names the set a shape stands for: the nodes it flattened and the alternatives
// already split away.
func shapeKey(s shape) string {
	keys := slices.Clone(s.keys)
	slices.Sort(keys)
	return strings.Join(slices.Compact(keys), "&")
}

// splitFirst takes s's first anyOf/oneOf group out of it: the group, and s without it.
func splitFirst(s shape) (group, shape) {
	g := s.groups[0]
	rest := s
	rest.groups = slices.Clone(s.groups[1:])
	rest.splits++
	// Split-away groups are marked in the key: the shape no longer holds them.
	rest.keys = append(slices.Clone(s.keys), "-"+g.branches[0].key)
	return g, rest
}

func (c *checker) splitProducer(a, b shape, depth int) Result {
	if a.splits+b.splits >= maxSplits {
		return unknown("", "too many nested anyOf/oneOf alternatives to compare")
	}
	g, rest := splitFirst(a)
	return every(g.branches, func(br node) Result {
		part := c.merge(rest, c.flatten([]node{br}, true))
		if g.kw == "oneOf" {
			// Exactly one branch: this one, and none of the others. Each other branch is
			// negated as a not is, so that a not of a bound or of a type narrows part (the
			// exclusivity of overlapping branches empties part of it).
			for _, other := range g.branches {
				if other.key != br.key {
					part = c.merge(part, c.flatten([]node{other.synthetic(map[string]any{"not": other.v}, "~not")}, true))
				}
			}
		}
		return c.shapes(part, b, depth)
	})
}

func (c *checker) splitConsumer(a, b shape, depth int) Result {
	if a.splits+b.splits >= maxSplits {
		return unknown("", "too many nested anyOf/oneOf alternatives to compare")
	}
	if parts, ok := c.splitA(a, b); ok {
		return c.splitAndProve(parts, b, depth)
	}
	g, rest := splitFirst(b)
	branches := make([]shape, len(g.branches))
	for i, br := range g.branches {
		branches[i] = c.flatten([]node{br}, false)
	}
	var witnesses []Result
	for i, br := range branches {
		r := c.shapes(a, c.merge(rest, br), depth)
		switch r.Verdict {
		case Compatible:
			if g.kw == "anyOf" {
				return r
			}
			// oneOf also needs a to miss every other branch; a value of a that another
			// branch takes too matches two, which oneOf rejects.
			disjoint := true
			for j, other := range branches {
				if j == i || c.disjoint(a, other, depth) {
					continue
				}
				disjoint = false
				if w, ok := c.within(a, other, b, depth); ok {
					return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which matches more than one of ⟨b⟩'s oneOf branches", contract.Excerpt(w))
				}
			}
			if disjoint {
				return r
			}
		case Incompatible:
			witnesses = append(witnesses, r)
		}
	}
	// A branch's counterexample may still pass another branch: keep one b as a whole
	// rejects, as far as the checker can tell; Check verifies it.
	for _, w := range witnesses {
		if c.acceptsShape(&b, w.Witness, depth) == no {
			w.say("the value matches none of ⟨b⟩'s %s branches", g.kw)
			return w
		}
	}
	// Values of a built for telling any a from any b (arrays mixing a's alternatives among
	// them), judged by b whole.
	for t := types(1); t <= tFraction; t <<= 1 {
		if a.types&t == 0 {
			continue
		}
		if w, ok := c.pick(a, b, t, depth); ok && c.acceptsShape(&b, w, depth) == no {
			return incompatible(RuleConstraint, w, "", "the value matches none of ⟨b⟩'s %s branches", g.kw)
		}
	}
	return unknown("", "⟨a⟩ fits no single branch of ⟨b⟩'s %s", g.kw)
}

// allowedTypes is the types b allows, its alternatives' included.
func (c *checker) allowedTypes(b shape) types {
	t := b.types
	for _, g := range b.groups {
		var u types
		for _, br := range g.branches {
			u |= c.flatten([]node{br}, false).types
		}
		t &= u
	}
	return t
}

// within builds a value of both a and other that b rejects, as far as the checker can tell.
func (c *checker) within(a, other, b shape, depth int) (any, bool) {
	both, ok := c.resolveGroups(c.merge(a, other))
	for t := types(1); ok && t <= tFraction; t <<= 1 {
		if both.types&t == 0 {
			continue
		}
		cands := c.candidates(both, shape{}, t, depth)
		if w, ok := c.minimalOf(both, t, depth); ok {
			cands = append([]any{w}, cands...)
		}
		for _, w := range cands {
			if c.acceptsShape(&a, w, depth) != no && c.acceptsShape(&b, w, depth) == no {
				return w, true
			}
		}
	}
	return nil, false
}

// disjoint reports, from sufficient conditions only, that no instance satisfies both a and b.
// Keywords either side does not model are left out: that widens it, so disjointness from the
// wider set still holds.
func (c *checker) disjoint(a, b shape, depth int) bool {
	if a.never || b.never || a.types&b.types == 0 {
		return true
	}
	if depth > maxSubsetDepth || !c.spend(stepCost) {
		return false
	}
	// Alternatives: disjoint from every branch.
	for _, x := range []*shape{&a, &b} {
		if len(x.groups) == 0 {
			continue
		}
		if x.splits >= maxSplits {
			return false
		}
		g, rest := splitFirst(*x)
		for _, br := range g.branches {
			part := c.merge(rest, c.flatten([]node{br}, true))
			if x == &a && !c.disjoint(part, b, depth) || x == &b && !c.disjoint(a, part, depth) {
				return false
			}
		}
		return true
	}
	if a.hasEnum {
		for _, v := range a.values() {
			if c.acceptsShape(&b, v, depth) != no {
				return false
			}
		}
		return true
	}
	if b.hasEnum {
		return !slices.ContainsFunc(b.values(), func(v any) bool { return c.acceptsShape(&a, v, depth) != no })
	}
	common := a.types & b.types
	for _, t := range []types{tNull, tBoolean, tObject, tArray, tString, tNumber} {
		if common&t != 0 && !c.disjointOn(a, b, t, common&t, depth) {
			return false
		}
	}
	return true
}

// disjointOn reports that a and b share no value of type t (both allow some: common).
func (c *checker) disjointOn(a, b shape, t, common types, depth int) bool {
	switch t {
	case tNumber:
		lo, loEx, hi, hiEx := a.lo, a.loEx, a.hi, a.hiEx
		if b.lo != nil && (lo == nil || b.lo.Cmp(lo) > 0 || (b.lo.Cmp(lo) == 0 && b.loEx)) {
			lo, loEx = b.lo, b.loEx
		}
		if b.hi != nil && (hi == nil || b.hi.Cmp(hi) < 0 || (b.hi.Cmp(hi) == 0 && b.hiEx)) {
			hi, hiEx = b.hi, b.hiEx
		}
		if lo == nil || hi == nil {
			return false
		}
		if common == tInteger {
			lo, hi = ceilBound(lo, loEx), floorBound(hi, hiEx)
			return lo.Cmp(hi) > 0
		}
		return lo.Cmp(hi) > 0 || (lo.Cmp(hi) == 0 && (loEx || hiEx))
	case tString:
		if max(a.minLen, b.minLen) > minLimit(a.maxLen, b.maxLen) && minLimit(a.maxLen, b.maxLen) >= 0 {
			return true
		}
		if len(a.patterns)+len(b.patterns) == 0 {
			return false
		}
		_, found, decided := c.langSearchBoth(a, b)
		return decided && !found
	case tArray:
		return minLimit(a.maxItems, b.maxItems) >= 0 && max(a.minItems, b.minItems) > minLimit(a.maxItems, b.maxItems)
	case tObject:
		hi := minLimit(a.maxMembers(), b.maxMembers())
		if hi >= 0 && max(a.minProps, len(a.required), b.minProps, len(b.required)) > hi {
			return true
		}
		// A discriminator: a member one requires whose values the other's schema for it
		// rejects.
		for _, x := range [][2]*shape{{&a, &b}, {&b, &a}} {
			p, q := x[0], x[1]
			for _, name := range p.required {
				qm := q.memberSchemas(name)
				if len(qm) > 0 && c.disjoint(c.flatten(p.memberSchemas(name), true), c.flatten(qm, true), depth+1) {
					return true
				}
				// A member p requires that q forbids.
				if len(qm) > 0 && c.flatten(qm, true).never {
					return true
				}
			}
		}
	}
	return false
}

// merge is the conjunction of two shapes.
func (c *checker) merge(a, b shape) shape {
	c.spend(len(a.props) + len(b.props) + len(a.enum) + len(b.enum) + len(a.keys) + len(b.keys))
	m := a
	m.never = a.never || b.never
	m.types = a.types & b.types
	m.enum = slices.Clone(a.enum)
	if b.hasEnum {
		m.intersectEnum(b.enum)
	}
	if b.lo != nil && (m.lo == nil || b.lo.Cmp(m.lo) > 0 || (b.lo.Cmp(m.lo) == 0 && b.loEx)) {
		m.lo, m.loEx = b.lo, b.loEx
	}
	if b.hi != nil && (m.hi == nil || b.hi.Cmp(m.hi) < 0 || (b.hi.Cmp(m.hi) == 0 && b.hiEx)) {
		m.hi, m.hiEx = b.hi, b.hiEx
	}
	m.mults = slices.Concat(a.mults, b.mults)
	m.minLen = max(a.minLen, b.minLen)
	m.maxLen = minLimit(a.maxLen, b.maxLen)
	m.patterns = slices.Concat(a.patterns, b.patterns)
	m.formats = slices.Concat(a.formats, b.formats)
	m.props = make(map[string][]node, len(a.props)+len(b.props))
	for k, v := range a.props {
		m.props[k] = slices.Clone(v)
	}
	for k, v := range b.props {
		m.props[k] = append(m.props[k], v...)
	}
	if len(b.depReq) > 0 {
		m.depReq = maps.Clone(a.depReq)
		if m.depReq == nil {
			m.depReq = map[string][]string{}
		}
		for k, ds := range b.depReq {
			for _, d := range ds {
				if !slices.Contains(m.depReq[k], d) {
					m.depReq[k] = append(slices.Clone(m.depReq[k]), d)
				}
			}
		}
	}
	m.propNames = slices.Concat(a.propNames, b.propNames)
	m.minProps = max(a.minProps, b.minProps)
	m.maxProps = minLimit(a.maxProps, b.maxProps)
	m.required = slices.Clone(a.required)
	for _, r := range b.required {
		if !slices.Contains(m.required, r) {
			m.required = append(m.required, r)
		}
	}
	m.pprops = slices.Concat(a.pprops, b.pprops)
	m.addls = slices.Concat(a.addls, b.addls)
	m.items = slices.Concat(a.items, b.items)
	m.tuples = slices.Concat(a.tuples, b.tuples)
	m.minItems = max(a.minItems, b.minItems)
	m.maxItems = minLimit(a.maxItems, b.maxItems)
	m.unique = a.unique || b.unique
	m.contains = slices.Concat(a.contains, b.contains)
	m.nots = slices.Concat(a.nots, b.nots)
	m.groups = slices.Concat(a.groups, b.groups)
	m.unknown = slices.Concat(a.unknown, b.unknown)
	m.keys = slices.Concat(a.keys, b.keys)
	slices.Sort(m.keys)
	m.keys = slices.Compact(m.keys)
	if m.types == 0 || (m.hasEnum && len(m.enum) == 0) {
		m.never = true
	}
	return m
}

// minLimit is the tighter of two upper limits where -1 means none.
func minLimit(x, y int) int {
	switch {
	case x < 0:
		return y
	case y < 0:
		return x
	}
	return min(x, y)
}

// compare decides a ⊆ b for shapes without alternatives.
func (c *checker) compare(a, b shape, depth int) Result {
	if b.never {
		if w, ok := c.minimalOf(a, pickType(a), depth); ok {
			return incompatible(RuleConstraint, w, "", "⟨b⟩ accepts nothing here but ⟨a⟩ produces a value")
		}
		return unknown(RuleConstraint, "⟨b⟩ accepts nothing here and no value of ⟨a⟩ could be built")
	}
	if a.hasEnum {
		return c.compareValues(a, b, depth)
	}
	ta := a.types
	if integral(a) {
		ta &^= tFraction // an integer multipleOf leaves only integers
	}
	if missing := ta &^ b.types; missing != 0 {
		if r, ok := c.missingType(a, b, missing, depth); ok {
			return r
		}
	}
	if b.hasEnum {
		if r, ok := c.outsideEnum(a, b, ta, depth); ok {
			return r
		}
	}
	return c.compareTypes(a, b, ta, depth)
}

// compareValues decides a ⊆ b when a's values are finite (an enum).
func (c *checker) compareValues(a, b shape, depth int) Result {
	// a's values are finite: check each one.
	for _, v := range a.values() {
		if c.acceptsShape(&a, v, depth) == no {
			continue
		}
		switch c.acceptsShape(&b, v, depth) {
		case no:
			rule := RuleConstraint
			if typeOf(v)&c.allowedTypes(b) == 0 {
				rule = RuleType
			}
			return incompatible(rule, deepCopy(v), "", "⟨a⟩ may produce %s, which ⟨b⟩ rejects", contract.Excerpt(v))
		case maybe:
			return unknown(RuleConstraint, "cannot tell whether ⟨b⟩ accepts ⟨a⟩'s value %s", contract.Excerpt(v))
		}
	}
	return Result{Verdict: Compatible}
}

// missingType answers when a may produce a type b does not allow (missing: a's types less
// b's): a value of the first such type, or Unknown when none can be built.
func (c *checker) missingType(a, b shape, missing types, depth int) (_ Result, ok bool) {
	for t := types(1); t <= tFraction; t <<= 1 {
		if missing&t == 0 {
			continue
		}
		name := t.String()
		if t == tFraction {
			name = "non-integer number"
		}
		if w, ok := c.pick(a, b, t, depth); ok {
			return incompatible(RuleType, w, "", "⟨a⟩ may produce %s where ⟨b⟩ requires %s", article(name), b.types.String()), true
		}
		return unknown(RuleType, "⟨a⟩ may produce %s where ⟨b⟩ requires %s, but no such value could be built", article(name), b.types.String()), true
	}
	return Result{}, false
}

// outsideEnum checks a's types ta against b's enum, type by type: null and booleans, strings
// as languages, numbers one by one when finitely many; a value outside the enum of any type
// answers, else the first type not shown inside it. ok is false when every type is.
func (c *checker) outsideEnum(a, b shape, ta types, depth int) (_ Result, ok bool) {
	var pending *Result
	for t := types(1); t <= tFraction; t <<= 1 {
		if ta&t == 0 {
			continue
		}
		if t == tNull || t == tBoolean {
			for _, v := range c.candidates(a, b, t, depth) {
				if c.acceptsShape(&a, v, depth) != no && c.acceptsShape(&b, v, depth) != yes {
					return incompatible(RuleConstraint, v, "", "⟨a⟩ may produce %s, which ⟨b⟩'s enum rejects", contract.Excerpt(v)), true
				}
			}
			continue
		}
		if t == tString {
			if r := c.stringsInEnum(a, b, depth); r.Verdict == Incompatible {
				return r, true
			} else if r.Verdict == Compatible {
				continue
			}
		}
		if w, ok := c.pick(a, b, t, depth); ok {
			return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which is not in ⟨b⟩'s enum", contract.Excerpt(w)), true
		}
		if t&tNumber != 0 {
			switch r := c.eachNumber(a, b, t, depth); r.Verdict {
			case Incompatible:
				return r, true
			case Compatible:
				continue
			}
		}
		// Another type may still show a value outside the enum.
		if pending == nil {
			u := unknown(RuleConstraint, "⟨b⟩ restricts %s values to an enum, ⟨a⟩ does not", t.String())
			pending = &u
		}
	}
	if pending != nil {
		return *pending, true
	}
	return Result{}, false
}

// eachNumber compares a's numbers of types t with b one by one when they are finitely many
// (a bounded range of multiples, as a's other keywords, its nots, leave it); Unknown when
// they are not.
func (c *checker) eachNumber(a, b shape, t types, depth int) Result {
	a.types &= t
	e, ok := c.enumerate(a)
	if !ok {
		return Result{Verdict: Unknown}
	}
	return c.compareValues(e, b, depth)
}

// compareTypes decides a ⊆ b type by type over a's types ta, once the types and enums fit
// (missingType and outsideEnum decided nothing): the first counterexample found is the
// answer, else the first Unknown.
func (c *checker) compareTypes(a, b shape, ta types, depth int) Result {
	var pending *Result
	keep := func(r Result) {
		if pending == nil {
			pending = &r
		}
	}
	if ta&tNumber != 0 && !numbersFit(a, b, ta&tFraction == 0) {
		t := ta & tNumber
		if t == tNumber {
			t = tInteger // an integer first, then a fraction
		}
		w, ok := c.pick(a, b, t, depth)
		if !ok && ta&tNumber == tNumber {
			w, ok = c.pick(a, b, tFraction, depth)
		}
		if ok {
			return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, outside ⟨b⟩'s numeric bounds or multipleOf", contract.Excerpt(w))
		}
		switch r := c.eachNumber(a, b, tNumber, depth); r.Verdict {
		case Incompatible:
			return r
		case Compatible:
			ta &^= tNumber
		}
		if ta&tNumber != 0 {
			keep(unknown(RuleConstraint, "cannot show ⟨a⟩'s numbers fit ⟨b⟩'s bounds or multipleOf"))
		}
	}
	if ta&tString != 0 {
		if kw := stringsFit(a, b); kw != "" {
			kw, r := c.languages(a, b, kw, depth)
			if r.Verdict == Incompatible {
				return r
			}
			if kw != "" {
				if w, ok := c.pick(a, b, tString, depth); ok {
					return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which breaks ⟨b⟩'s %s", contract.Excerpt(w), kw)
				}
				keep(unknown(RuleConstraint, "cannot show ⟨a⟩'s strings satisfy ⟨b⟩'s %s", kw))
			}
		}
	}
	if ta&tObject != 0 {
		r := c.objects(a, b, depth)
		if r.Verdict == Incompatible {
			return r
		}
		if r.Verdict == Unknown {
			keep(r)
		}
	}
	if ta&tArray != 0 {
		r := c.arrays(a, b, depth)
		if r.Verdict == Incompatible {
			return r
		}
		if r.Verdict == Unknown {
			keep(r)
		}
	}
	for _, n := range b.nots {
		r := c.outside(a, b, n, depth)
		if r.Verdict == Incompatible {
			return r
		}
		if r.Verdict == Unknown {
			keep(r)
		}
	}
	if pending != nil {
		return *pending
	}
	return Result{Verdict: Compatible}
}

// outside decides a ⊆ b's "not n": a and n have no instance in common. The counterexample is
// an instance of both, built from their conjunction.
func (c *checker) outside(a, b shape, n node, depth int) Result {
	ns := c.flatten([]node{n}, false)
	if c.disjoint(a, ns, depth) {
		return Result{Verdict: Compatible}
	}
	// a's own "not m" with n ⊆ m: a ⊆ not m ⊆ not n.
	for _, m := range a.nots {
		if c.sub([]node{n}, []node{m}, depth).Verdict == Compatible {
			return Result{Verdict: Compatible}
		}
	}
	both, ok := c.resolveGroups(c.merge(a, c.flatten([]node{n}, true)))
	for t := types(1); ok && t <= tFraction; t <<= 1 {
		if both.types&t == 0 {
			continue
		}
		cands := c.candidates(both, b, t, depth)
		if w, ok := c.minimalOf(both, t, depth); ok {
			cands = append([]any{w}, cands...)
		}
		for _, w := range cands {
			if c.acceptsShape(&a, w, depth) != no && c.acceptsShape(&b, w, depth) == no {
				return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which ⟨b⟩'s not excludes", contract.Excerpt(w))
			}
		}
	}
	return unknown(RuleConstraint, "cannot show ⟨a⟩'s values avoid ⟨b⟩'s not")
}

// pick finds a value of type t that a may accept and b rejects (as far as the checker can
// evaluate; Check verifies the final witness).
func (c *checker) pick(a, b shape, t types, depth int) (any, bool) {
	cands := c.candidates(a, b, t, depth)
	c.spend(2 * len(cands)) // each is judged by both, once (an array may be long)
	ras, rbs := make([]tri, len(cands)), make([]tri, len(cands))
	for i, v := range cands {
		ras[i], rbs[i] = c.acceptsShape(&a, v, depth), c.acceptsShape(&b, v, depth)
	}
	for _, strict := range []bool{true, false} {
		var fit []any
		for i, v := range cands {
			ra, rb := ras[i], rbs[i]
			if strict && ra == yes && rb == no || !strict && ra != no && rb != yes {
				fit = append(fit, v)
			}
		}
		if len(fit) > 0 {
			return fit[c.choose(len(fit))], true
		}
	}
	return nil, false
}

// integral reports whether a's numbers are all integers because of an integer multipleOf.
func integral(a shape) bool {
	return slices.ContainsFunc(a.mults, (*big.Rat).IsInt)
}

// numbersFit proves that a's numbers satisfy b's bounds and multipleOf; intOnly says a's
// numbers are integers.
func numbersFit(a, b shape, intOnly bool) bool {
	lo, loEx, hi, hiEx := a.lo, a.loEx, a.hi, a.hiEx
	if intOnly {
		// Over the integers every bound is an inclusive integer bound.
		if lo != nil {
			lo, loEx = ceilBound(lo, loEx), false
		}
		if hi != nil {
			hi, hiEx = floorBound(hi, hiEx), false
		}
	}
	if lo != nil && hi != nil && (lo.Cmp(hi) > 0 || (lo.Cmp(hi) == 0 && (loEx || hiEx))) {
		return true // no number at all
	}
	if b.lo != nil && (lo == nil || lo.Cmp(b.lo) < 0 || (lo.Cmp(b.lo) == 0 && b.loEx && !loEx)) {
		if !(lo != nil && hi != nil && lo.Cmp(hi) == 0 && b.numberOK(lo) == yes) {
			return false
		}
	}
	if b.hi != nil && (hi == nil || hi.Cmp(b.hi) > 0 || (hi.Cmp(b.hi) == 0 && b.hiEx && !hiEx)) {
		return false
	}
	step := lcmRats(a.mults) // a's numbers are its multiples
	if intOnly {
		step = lcmRats(append(slices.Clone(a.mults), big.NewRat(1, 1)))
	}
	for _, m := range b.mults {
		ok := step != nil && new(big.Rat).Quo(step, m).IsInt()
		if !ok {
			return false
		}
	}
	return true
}

// ceilBound is the least integer satisfying x > r (ex) or x ≥ r.
func ceilBound(r *big.Rat, ex bool) *big.Rat {
	f := floorRat(r)
	if f.Cmp(r) < 0 || ex {
		f.Add(f, big.NewRat(1, 1))
	}
	return f
}

// floorBound is the greatest integer satisfying x < r (ex) or x ≤ r.
func floorBound(r *big.Rat, ex bool) *big.Rat {
	f := floorRat(r)
	if ex && f.Cmp(r) == 0 {
		f.Sub(f, big.NewRat(1, 1))
	}
	return f
}

func floorRat(r *big.Rat) *big.Rat {
	// Euclidean division rounds down for a positive divisor, and denominators are positive.
	q, _ := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	return new(big.Rat).SetInt(q)
}

// languages compares a's and b's strings as regular languages (patterns and lengths): a
// string a accepts and b rejects is a counterexample; none proves those keywords, and then
// the keyword left to show is b's format, if a does not name it ("" when none is).
func (c *checker) languages(a, b shape, kw string, depth int) (string, Result) {
	if kw == "format" {
		return kw, Result{Verdict: Unknown}
	}
	if len(a.formats) > 0 {
		// a's strings are also of its format: the automaton knows nothing of that.
		if w, ok := c.pick(a, b, tString, depth); ok {
			return kw, incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which breaks ⟨b⟩'s %s", contract.Excerpt(w), kw)
		}
	}
	w, found, decided := c.langSearch(a, b, false)
	switch {
	case found:
		if c.acceptsShape(&a, w, depth) != no && c.acceptsShape(&b, w, depth) == no {
			n := utf8.RuneCountInString(w)
			kw = "pattern"
			if n < b.minLen {
				kw = "minLength"
			} else if b.maxLen >= 0 && n > b.maxLen {
				kw = "maxLength"
			}
			return kw, incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which breaks ⟨b⟩'s %s", contract.Excerpt(w), kw)
		}
	case decided:
		for _, f := range b.formats {
			if !slices.Contains(a.formats, f) {
				return "format", Result{Verdict: Unknown}
			}
		}
		return "", Result{Verdict: Compatible}
	}
	return kw, Result{Verdict: Unknown}
}

// stringsInEnum decides whether a's strings are among b's enum values: the enum's strings are
// a regular language too (a pattern of their quoted alternation), and once a's strings are
// shown to be among them, each one is checked against b whole.
func (c *checker) stringsInEnum(a, b shape, depth int) Result {
	var alts []string
	var vals []string
	size := 0
	for _, v := range b.values() {
		if x, ok := v.(string); ok {
			alts = append(alts, regexp.QuoteMeta(x))
			vals = append(vals, x)
			size += len(x)
		}
	}
	if len(alts) > maxEnumLanguage || size > maxLangLength {
		return Result{Verdict: Unknown}
	}
	bb := b
	bb.patterns = append(slices.Clone(b.patterns), "^(?:"+strings.Join(alts, "|")+")$")
	if len(alts) == 0 {
		bb.maxLen, bb.minLen = 0, 1 // no string at all
	}
	w, found, decided := c.langSearch(a, bb, false)
	switch {
	case found:
		if c.acceptsShape(&a, w, depth) != no && c.acceptsShape(&b, w, depth) == no {
			return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which is not in ⟨b⟩'s enum", contract.Excerpt(w))
		}
	case decided:
		for _, v := range vals {
			if c.acceptsShape(&b, v, depth) != yes && c.acceptsShape(&a, v, depth) != no {
				return Result{Verdict: Unknown}
			}
		}
		return Result{Verdict: Compatible}
	}
	return Result{Verdict: Unknown}
}

// stringsFit names the first keyword of b that a's strings are not shown to satisfy.
func stringsFit(a, b shape) string {
	if a.maxLen >= 0 && a.maxLen < a.minLen {
		return "" // no string at all
	}
	switch {
	case a.minLen < b.minLen:
		return "minLength"
	case b.maxLen >= 0 && (a.maxLen < 0 || a.maxLen > b.maxLen):
		return "maxLength"
	}
	for _, p := range b.patterns {
		if !slices.Contains(a.patterns, p) {
			return "pattern"
		}
	}
	for _, f := range b.formats {
		if !slices.Contains(a.formats, f) {
			return "format"
		}
	}
	return ""
}

func (c *checker) objects(a, b shape, depth int) Result {
	a.required = requiredClosure(a)
	for _, name := range b.required {
		if slices.Contains(a.required, name) {
			continue
		}
		w, ok := c.minimalOf(a, tObject, depth)
		if !ok {
			return unknown(RuleRequired, "⟨b⟩ requires '%s' but ⟨a⟩ does not guarantee it, and no object of ⟨a⟩ could be built", name)
		}
		path := "/" + contract.EscapeToken(name)
		if len(a.props[name]) > 0 {
			return incompatible(RuleOptional, w, path, "⟨b⟩ requires '%s' but ⟨a⟩ only may emit it: it is optional in ⟨a⟩", name)
		}
		return incompatible(RuleRequired, w, path, "⟨b⟩ requires '%s' but ⟨a⟩ does not guarantee it", name)
	}
	var pending *Result
	if r := c.memberCounts(a, b, depth); r.Verdict == Incompatible {
		return r
	} else if r.Verdict == Unknown {
		pending = &r
	}
	if r := c.dependencies(a, b, depth); r.Verdict == Incompatible {
		return r
	} else if r.Verdict == Unknown && pending == nil {
		pending = &r
	}
	if r := c.memberNames(a, b, depth); r.Verdict == Incompatible {
		return r
	} else if r.Verdict == Unknown && pending == nil {
		pending = &r
	}
	check := func(name string, am, bm []node) *Result {
		r := c.sub(am, bm, depth+1)
		switch r.Verdict {
		case Incompatible:
			w, ok := c.minimalOf(a, tObject, depth)
			if !ok {
				r = unknown(r.Rule, "%s (and no object of ⟨a⟩ could be built around it)", r.why)
				break
			}
			w.(map[string]any)[name] = r.Witness
			r.Witness, r.Path = w, "/"+contract.EscapeToken(name)+r.Path
			return &r
		case Unknown:
			r.Path = "/" + contract.EscapeToken(name) + r.Path
		}
		if r.Verdict == Unknown && pending == nil {
			pending = &r
		}
		return nil
	}
	names := a.names()
	for _, n := range b.names() {
		if _, ok := a.props[n]; !ok {
			names = append(names, n)
		}
	}
	c.spend(len(names))
	for _, name := range names {
		bm := b.memberSchemas(name)
		if len(bm) == 0 {
			continue
		}
		if r := check(name, a.memberSchemas(name), bm); r != nil {
			return *r
		}
	}
	// Members neither names: b's patternProperties and additionalProperties, each for the
	// names it applies to.
	var parts []nameClass
	for _, p := range b.pprops {
		parts = append(parts, nameClass{in: &p, n: p.n})
	}
	for _, ad := range b.addls {
		parts = append(parts, nameClass{out: ad.patterns, n: ad.n})
	}
	if hi := a.maxMembers(); hi >= 0 && hi <= len(a.required) {
		// a's objects have exactly its required members: those are all the names to check.
		for _, name := range a.required {
			if !slices.Contains(names, name) {
				if r := check(name, a.memberSchemas(name), b.memberSchemas(name)); r != nil {
					return *r
				}
			}
		}
		parts = nil
	}
	for _, part := range parts {
		if c.classFits(a, part, depth) {
			continue
		}
		// Not proved: look for a name of the class where a's member breaks b's.
		for _, name := range part.names(a, b, names, c.allowedNames(a)) {
			if slices.ContainsFunc(a.propNames, func(pn node) bool { return c.accepts([]node{pn}, name, depth+1) == no }) {
				continue // a has no member of that name
			}
			if r := check(name, a.memberSchemas(name), b.memberSchemas(name)); r != nil {
				return *r
			}
		}
		if pending == nil {
			r := unknown(RuleConstraint, "cannot show ⟨a⟩'s other members fit ⟨b⟩'s %s", part.keyword())
			pending = &r
		}
	}
	if pending != nil {
		return *pending
	}
	return Result{Verdict: Compatible}
}

// memberCounts decides b's minProperties and maxProperties: a's objects have at least its
// minProperties or required members, and at most its maxProperties or the names a closed a
// allows.
func (c *checker) memberCounts(a, b shape, depth int) Result {
	lo, hi := max(a.minProps, len(a.required)), a.maxMembers()
	if b.minProps <= lo && (b.maxProps < 0 || (hi >= 0 && hi <= b.maxProps)) {
		return Result{Verdict: Compatible}
	}
	var cands []any
	for _, n := range []int{lo, b.minProps - 1, b.maxProps + 1, hi} {
		if w, ok := c.objectSized(a, n, depth); ok && len(w) == n {
			cands = append(cands, w)
		}
	}
	var fit []any
	for _, w := range cands {
		if c.acceptsShape(&a, w, depth) != no && c.acceptsShape(&b, w, depth) == no {
			fit = append(fit, w)
		}
	}
	if len(fit) > 0 {
		w := fit[c.choose(len(fit))]
		return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce an object with %d members, outside ⟨b⟩'s minProperties or maxProperties", len(w.(map[string]any)))
	}
	return unknown(RuleConstraint, "cannot show ⟨a⟩'s objects satisfy ⟨b⟩'s minProperties or maxProperties")
}

// requiredClosure is the members s's objects all have: the required ones, and those a
// dependentRequired of theirs requires.
func requiredClosure(s shape) []string {
	out := slices.Clone(s.required)
	for i := 0; i < len(out); i++ {
		for _, d := range s.depReq[out[i]] {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// memberNames decides b's propertyNames: every name a's objects may have is one b's
// propertyNames accept. The names a allows are its named members, and, when a is not closed,
// the strings its own propertyNames accept — only those matching its patterns when an
// additionalProperties false closes it to them. A name a allows and b rejects makes the
// counterexample, an object of a with that member.
func (c *checker) memberNames(a, b shape, depth int) Result {
	if len(b.propNames) == 0 || a.maxMembers() == 0 {
		return Result{Verdict: Compatible} // (an object without members has no names to judge)
	}
	var closed *addl
	for i, ad := range a.addls {
		if ad.n.v == false {
			closed = &a.addls[i]
			break
		}
	}
	// Each set of names a allows, as a conjunction of string schemas.
	var sets [][]node
	for _, name := range a.names() {
		if closed == nil || !closed.applies(name) {
			sets = append(sets, []node{{v: map[string]any{"const": name}, key: "~name:" + name}})
		}
	}
	names := func(extra map[string]any, key string) []node {
		return append([]node{{v: extra, key: key}}, a.propNames...)
	}
	if closed == nil {
		sets = append(sets, names(map[string]any{"type": "string"}, "~names"))
	} else {
		for _, p := range closed.patterns {
			sets = append(sets, names(map[string]any{"type": "string", "pattern": p.src}, "~names:"+p.src))
		}
	}
	var pending *Result
	for _, set := range sets {
		for _, pn := range b.propNames {
			r := c.sub(set, []node{pn}, depth+1)
			switch r.Verdict {
			case Compatible:
				continue
			case Incompatible:
				if name, isStr := r.Witness.(string); isStr {
					if m, ok := c.objectWith(a, name, depth); ok && c.acceptsShape(&a, m, depth) != no && c.acceptsShape(&b, m, depth) == no {
						return incompatible(RuleConstraint, m, "", "⟨a⟩ may produce a member named %s, which ⟨b⟩'s propertyNames rejects", contract.Excerpt(name))
					}
				}
			}
			if pending == nil {
				u := unknown(RuleConstraint, "cannot show the member names of ⟨a⟩ satisfy ⟨b⟩'s propertyNames")
				pending = &u
			}
		}
	}
	if pending != nil {
		return *pending
	}
	return Result{Verdict: Compatible}
}

// dependencies decides b's dependentRequired: where a member k is there, so are its
// dependents — because a forbids k, requires them, or says so itself.
func (c *checker) dependencies(a, b shape, depth int) Result {
	for _, k := range slices.Sorted(maps.Keys(b.depReq)) {
		if c.flatten(a.memberSchemas(k), true).never {
			continue
		}
		for _, d := range b.depReq[k] {
			if slices.Contains(a.required, d) || slices.Contains(a.depReq[k], d) {
				continue
			}
			// An object of a with k and without d.
			if m, ok := c.objectWith(a, k, depth); ok && c.acceptsShape(&a, m, depth) != no && c.acceptsShape(&b, m, depth) == no {
				return incompatible(RuleRequired, m, "/"+contract.EscapeToken(d), "⟨b⟩ requires '%s' where '%s' is there, but ⟨a⟩ does not guarantee it", d, k)
			}
			return unknown(RuleRequired, "⟨b⟩ requires '%s' where '%s' is there, but ⟨a⟩ does not guarantee it, and no object of ⟨a⟩ shows it", d, k)
		}
	}
	return Result{Verdict: Compatible}
}

// objectWith builds a minimal object of a with member name (a value of a's schemas of it,
// when one can be built), for a counterexample; ok is false when no object is built.
func (c *checker) objectWith(a shape, name string, depth int) (map[string]any, bool) {
	w, ok := c.minimalOf(a, tObject, depth)
	m, isMap := w.(map[string]any)
	if !ok || !isMap {
		return nil, false
	}
	if _, has := m[name]; !has {
		if v, ok := c.minimal(a.memberSchemas(name), depth+1); ok {
			m[name] = v
		}
	}
	return m, true
}

// allowedNames lists a few names a's propertyNames allow, for a counterexample: the strings
// of their enums, a string of their patterns.
func (c *checker) allowedNames(a shape) []string {
	if len(a.propNames) == 0 {
		return nil
	}
	s := c.flatten(a.propNames, true)
	var out []string
	for _, v := range s.values() {
		if name, ok := v.(string); ok && len(out) < 8 {
			out = append(out, name)
		}
	}
	if w, ok := c.stringOf(s); ok {
		out = append(out, w.(string))
	}
	return out
}

// nameClass is the set of member names (not named in properties) one schema of b applies
// to: the names pattern in matches, or those no pattern of out matches.
type nameClass struct {
	in  *patternProp
	out []patternProp
	n   node
}

func (k nameClass) keyword() string {
	if k.in != nil {
		return "patternProperties '" + k.in.src + "'"
	}
	return "additionalProperties"
}

// decides is whether every name of k matches pattern src (yes), none does (no), or some may:
// by their sources, else by their languages — k's pattern within src's, or the two disjoint;
// src's within one k leaves out.
func (c *checker) decides(k nameClass, src string) tri {
	switch {
	case k.in != nil && k.in.src == src:
		return yes
	case slices.ContainsFunc(k.out, func(p patternProp) bool { return p.src == src }):
		return no
	case k.in != nil && c.patternWithin(k.in.src, src):
		return yes
	case k.in != nil && c.patternsDisjoint(k.in.src, src):
		return no
	case slices.ContainsFunc(k.out, func(p patternProp) bool { return c.patternWithin(src, p.src) }):
		return no
	}
	return maybe
}

// namesOutside proves that a's propertyNames allow no name of class k: every name they allow
// matches one of k's out patterns, or none matches k's pattern.
func (c *checker) namesOutside(a shape, k nameClass, depth int) bool {
	if len(a.propNames) == 0 {
		return false
	}
	names := append([]node{{v: map[string]any{"type": "string"}, key: "~names"}}, a.propNames...)
	if k.in != nil {
		s := c.flatten(names, true)
		s.patterns = append(slices.Clone(s.patterns), k.in.src)
		_, found, decided := c.langSearch(s, shape{}, true)
		return decided && !found // other keywords of theirs only narrow the names further
	}
	return slices.ContainsFunc(k.out, func(p patternProp) bool {
		return c.sub(names, []node{{v: map[string]any{"pattern": p.src}, key: "~pattern:" + p.src}}, depth+1).Verdict == Compatible
	})
}

// nameShape is the strings pattern src matches, as a shape to search languages with.
func nameShape(src string) shape {
	return shape{types: tString, maxLen: -1, maxItems: -1, maxProps: -1, patterns: []string{src}}
}

// patternWithin proves every string p matches, q matches.
func (c *checker) patternWithin(p, q string) bool {
	_, found, decided := c.langSearch(nameShape(p), nameShape(q), false)
	return decided && !found
}

// patternsDisjoint proves no string matches both p and q.
func (c *checker) patternsDisjoint(p, q string) bool {
	_, found, decided := c.langSearchBoth(nameShape(p), nameShape(q))
	return decided && !found
}

// maxPatternSplits bounds the patterns of a whose match a class leaves open and classFits
// splits on (2^n cases each).
const maxPatternSplits = 3

// classFits proves that every member a allows under a name of class k fits k's schema. Which
// of a's schemas constrain such a name depends on which of a's patterns it matches: a
// pattern that is k's own (by its source) matches, one of k's out does not, and up to
// maxPatternSplits others are split on, both ways; past them, a schema that depends on one is
// left out, which only widens a.
func (c *checker) classFits(a shape, k nameClass, depth int) bool {
	if c.namesOutside(a, k, depth) {
		return true // a has no member of the class
	}
	var open []string
	for _, p := range a.pprops {
		if c.decides(k, p.src) == maybe && !slices.Contains(open, p.src) {
			open = append(open, p.src)
		}
	}
	splits := min(len(open), maxPatternSplits)
	for mask := 0; mask < 1<<splits; mask++ {
		matches := func(src string) tri {
			if t := c.decides(k, src); t != maybe {
				return t
			}
			if i := slices.Index(open, src); i >= 0 && i < splits {
				if mask&(1<<i) != 0 {
					return yes
				}
				return no
			}
			return maybe
		}
		var known []node
		for _, p := range a.pprops {
			if matches(p.src) == yes {
				known = append(known, p.n)
			}
		}
		for _, ad := range a.addls {
			if !slices.ContainsFunc(ad.patterns, func(p patternProp) bool { return matches(p.src) != no }) {
				known = append(known, ad.n)
			}
		}
		if c.sub(known, []node{k.n}, depth+1).Verdict != Compatible {
			return false
		}
	}
	return true
}

// names lists a few member names of class k that neither a nor b names in properties (taken
// from names), for a counterexample: plain ones, and a sample match of every pattern, also
// behind a letter (which an unanchored pattern still matches and an anchored one may not).
func (k nameClass) names(a, b shape, named, extra []string) []string {
	cands := append([]string{"x", "y", "x1", "_", "0"}, extra...)
	for _, p := range slices.Concat(a.pprops, b.pprops) {
		if w, ok := sampleMatch(p.re); ok {
			cands = append(cands, w, "x"+w)
		}
	}
	var out []string
	for _, name := range cands {
		if slices.Contains(named, name) || slices.Contains(out, name) {
			continue
		}
		if k.in != nil && !k.in.re.MatchString(name) {
			continue
		}
		if slices.ContainsFunc(k.out, func(p patternProp) bool { return p.re.MatchString(name) }) {
			continue
		}
		out = append(out, name)
	}
	return out
}

func (c *checker) arrays(a, b shape, depth int) Result {
	if n, ok := c.distinctItems(a); ok {
		a.maxItems = minLimit(a.maxItems, n) // unique items from a finite set
	}
	if a.maxItems >= 0 && a.maxItems < a.minItems {
		return Result{Verdict: Compatible} // no array at all
	}
	var pending *Result
	if a.minItems < b.minItems || (b.maxItems >= 0 && (a.maxItems < 0 || a.maxItems > b.maxItems)) ||
		(b.unique && !a.unique && (a.maxItems < 0 || a.maxItems > 1)) {
		if w, ok := c.pick(a, b, tArray, depth); ok {
			return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which breaks ⟨b⟩'s item count or uniqueness", contract.Excerpt(w))
		}
		r := unknown(RuleConstraint, "cannot show ⟨a⟩'s arrays satisfy ⟨b⟩'s minItems, maxItems or uniqueItems")
		pending = &r
	}
	// Index by index up to the longer prefixItems; the last one stands for all after it.
	last := max(a.prefixLen(), b.prefixLen())
	for i := 0; i <= last && (a.maxItems < 0 || i < a.maxItems); i++ {
		bi := b.itemSchemas(i)
		if len(bi) == 0 {
			continue
		}
		r := c.sub(a.itemSchemas(i), bi, depth+1)
		path := fmt.Sprintf("/%d", i)
		switch r.Verdict {
		case Incompatible:
			w, ok := c.arrayAround(a, i, r.Witness, depth)
			if (!ok || a.maxItems >= 0 && len(w.([]any)) > a.maxItems) && len(a.contains) > 0 {
				// Too short for the items contains needs besides it: a counterexample that
				// is one of them.
				ns := a.itemSchemas(i)
				for _, rule := range a.contains {
					ns = append(ns, rule.n)
				}
				if r2 := c.sub(ns, bi, depth+1); r2.Verdict == Incompatible {
					if w2, ok2 := c.arrayAround(a, i, r2.Witness, depth); ok2 {
						r, w, ok = r2, w2, true
					}
				}
			}
			if !ok {
				return unknown(r.Rule, "%s (and no array of ⟨a⟩ could be built around it)", r.why)
			}
			r.Witness, r.Path = w, path+r.Path
			return r
		case Unknown:
			r.Path = path + r.Path
			if pending == nil {
				pending = &r
			}
		}
	}
	for _, rule := range b.contains {
		if c.containsFits(a, rule, depth) {
			continue
		}
		if w, ok := c.pick(a, b, tArray, depth); ok {
			return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which breaks ⟨b⟩'s contains", contract.Excerpt(w))
		}
		if w, ok := c.tooManyContained(a, rule, depth); ok && c.acceptsShape(&a, w, depth) != no && c.acceptsShape(&b, w, depth) == no {
			return incompatible(RuleConstraint, w, "", "⟨a⟩ may produce %s, which breaks ⟨b⟩'s contains", contract.Excerpt(w))
		}
		if pending == nil {
			r := unknown(RuleConstraint, "cannot show ⟨a⟩'s arrays satisfy ⟨b⟩'s contains")
			pending = &r
		}
	}
	if pending != nil {
		return *pending
	}
	return Result{Verdict: Compatible}
}

// distinctItems is how many distinct values a's items can take when a's items are unique
// and of finitely many values (an enum, booleans, null): the most items its arrays have.
func (c *checker) distinctItems(a shape) (int, bool) {
	if !a.unique || len(a.tuples) > 0 || len(a.items) == 0 {
		return 0, false
	}
	s := c.flatten(a.items, true)
	switch {
	case s.never:
		return 0, true
	case s.hasEnum:
		return len(s.values()), true
	case s.types == tInteger && s.lo != nil && s.hi != nil:
		// Integers within bounds: at most the integers between them.
		lo, hi := ceilBound(s.lo, s.loEx), floorBound(s.hi, s.hiEx)
		n := new(big.Int).Sub(hi.Num(), lo.Num())
		if n.Sign() < 0 {
			return 0, true
		}
		if n.Cmp(big.NewInt(maxWitnessItems)) >= 0 {
			return 0, false
		}
		return int(n.Int64()) + 1, true
	case s.types&^(tNull|tBoolean) == 0:
		n := 0
		if s.types&tNull != 0 {
			n++
		}
		if s.types&tBoolean != 0 {
			n += 2
		}
		return n, true
	}
	return 0, false
}

// arrayAround builds an array of a with v at index i: minimal items before it, and after it
// as many as a's minItems need, the first ones also matching a's contains (v need not).
func (c *checker) arrayAround(a shape, i int, v any, depth int) (any, bool) {
	extra := a.containsMin()
	if extra > 0 && !slices.ContainsFunc(a.contains, func(r containsRule) bool { return c.accepts([]node{r.n}, v, depth+1) != yes }) {
		extra-- // v itself is one of the items every contains needs
	}
	n := max(a.minItems, i+1+extra)
	if n > maxWitnessItems {
		return nil, false
	}
	arr := make([]any, n)
	arr[i] = v
	f := c.newFiller(a.unique, depth)
	f.keep(v)
	for j := range arr {
		if j == i {
			continue
		}
		ns := a.itemSchemas(j)
		if j > i && j <= i+extra {
			for _, r := range a.contains {
				ns = append(ns, r.n)
			}
		}
		x, ok := f.item(ns)
		if !ok {
			return nil, false
		}
		arr[j] = x
	}
	return arr, true
}

// containsFits proves that every array of a has between rule.min and rule.max items rule's
// schema accepts: from a contains of a's own that is within it, or from every item of a
// being within it and a's item counts.
func (c *checker) containsFits(a shape, rule containsRule, depth int) bool {
	if rule.max >= 0 && (a.maxItems < 0 || a.maxItems > rule.max) {
		return false // at most maxItems items match: the only bound proved here
	}
	if rule.min == 0 {
		return true
	}
	for _, r := range a.contains {
		if r.min >= rule.min && c.sub([]node{r.n}, []node{rule.n}, depth+1).Verdict == Compatible {
			return true
		}
	}
	// The items every array of a has (its first minItems) that rule's schema takes: those
	// of a prefix index whose schemas fit it, and every one from the prefix on when the
	// schema there fits.
	last, sure := a.prefixLen(), 0
	for i := 0; i <= last && i < a.minItems; i++ {
		if c.sub(a.itemSchemas(i), []node{rule.n}, depth+1).Verdict != Compatible {
			continue
		}
		if i == last {
			sure += a.minItems - last
		} else {
			sure++
		}
	}
	return sure >= rule.min
}

// tooManyContained builds an array of a with one item more than rule's maxContains allows,
// each one both an item of a and one rule's schema takes, distinct, as far as the checker
// can tell.
func (c *checker) tooManyContained(a shape, rule containsRule, depth int) (any, bool) {
	n := max(rule.max+1, a.minItems)
	if rule.max < 0 || n > maxWitnessItems || (a.maxItems >= 0 && n > a.maxItems) {
		return nil, false
	}
	out := make([]any, n)
	f := c.newFiller(true, depth)
	for i := range out {
		ns := a.itemSchemas(i)
		if i <= rule.max {
			ns = append(ns, rule.n)
		}
		v, ok := f.item(ns)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// article puts "a" or "an" before a type name (in English; Japanese has none).
func article(name string) bilingual {
	if strings.IndexByte("aeiou", name[0]) >= 0 {
		return bilingual{i18n.English: "an " + name, i18n.Japanese: name}
	}
	return bilingual{i18n.English: "a " + name, i18n.Japanese: name}
}
