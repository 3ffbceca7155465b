package contract

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// checker holds one Subset call's state; it lives on Subset's stack.
type checker struct {
	// assumed maps a pair being checked to the instance depth where the check began: meeting
	// the same pair strictly deeper, the pair may be assumed to hold (coinduction), since
	// every instance is finite.
	assumed map[string]int
	steps   int
	ignored []string // producer keywords dropped, for the reason of an unverified witness
}

func unknown(rule, format string, args ...any) Result {
	return Result{Verdict: Unknown, Rule: rule, Reason: fmt.Sprintf(format, args...)}
}

func incompatible(rule string, w any, path, format string, args ...any) Result {
	return Result{Verdict: Incompatible, Rule: rule, Witness: w, Path: path, Reason: fmt.Sprintf(format, args...)}
}

// sub decides as ⊆ bs at instance depth depth.
func (c *checker) sub(as, bs []node, depth int) Result {
	return c.shapes(flatten(as, true), flatten(bs, false), depth)
}

func (c *checker) shapes(a, b shape, depth int) Result {
	c.steps++
	if depth > maxSubsetDepth || c.steps > maxSubsetSteps {
		return unknown("", "the schemas nest or recurse too deeply to compare")
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
	if len(b.unknown) > 0 {
		return unknown("", "b uses %s, which the checker does not model", strings.Join(b.unknown, ", "))
	}
	if len(b.groups) > 0 {
		return c.splitConsumer(a, b, depth)
	}
	return c.compare(a, b, depth)
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
	var first *Result
	for _, br := range g.branches {
		// For oneOf this drops the "only one" condition, which widens a: still sound.
		r := c.shapes(merge(rest, flatten([]node{br}, true)), b, depth)
		switch r.Verdict {
		case Incompatible:
			return r
		case Unknown:
			if first == nil {
				first = &r
			}
		}
	}
	if first != nil {
		return *first
	}
	return Result{Verdict: Compatible}
}

func (c *checker) splitConsumer(a, b shape, depth int) Result {
	if a.splits+b.splits >= maxSplits {
		return unknown("", "too many nested anyOf/oneOf alternatives to compare")
	}
	g, rest := splitFirst(b)
	branches := make([]shape, len(g.branches))
	for i, br := range g.branches {
		branches[i] = flatten([]node{br}, false)
	}
	var witnesses []Result
	for i, br := range branches {
		r := c.shapes(a, merge(rest, br), depth)
		switch r.Verdict {
		case Compatible:
			if g.kw == "anyOf" {
				return r
			}
			// oneOf also needs a to miss every other branch.
			disjoint := true
			for j, other := range branches {
				if j != i && !c.disjoint(a, other, depth) {
					disjoint = false
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
	// rejects, as far as the checker can tell; Subset verifies it.
	for _, w := range witnesses {
		if c.acceptsShape(&b, w.Witness, depth) == no {
			w.Reason = fmt.Sprintf("the value matches none of b's %s branches", g.kw)
			return w
		}
	}
	return unknown("", "a fits no single branch of b's %s", g.kw)
}

// disjoint reports, from sufficient conditions only, that no instance satisfies both a and b.
func (c *checker) disjoint(a, b shape, depth int) bool {
	if a.never || b.never || a.types&b.types == 0 {
		return true
	}
	if len(b.unknown) > 0 || len(b.groups) > 0 {
		return false
	}
	if a.hasEnum {
		for _, v := range a.values() {
			if c.acceptsShape(&b, v, depth) != no {
				return false
			}
		}
		return true
	}
	// A discriminator: a member a requires whose values b's schema for it rejects.
	if a.types&^tObject == 0 && depth < maxSubsetDepth {
		for _, name := range a.required {
			bm := b.memberSchemas(name)
			if len(bm) > 0 && c.disjoint(flatten(a.memberSchemas(name), true), flatten(bm, false), depth+1) {
				return true
			}
		}
	}
	return false
}

// merge is the conjunction of two shapes.
func merge(a, b shape) shape {
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
	m.required = slices.Clone(a.required)
	for _, r := range b.required {
		if !slices.Contains(m.required, r) {
			m.required = append(m.required, r)
		}
	}
	m.addls = slices.Concat(a.addls, b.addls)
	m.items = slices.Concat(a.items, b.items)
	m.minItems = max(a.minItems, b.minItems)
	m.maxItems = minLimit(a.maxItems, b.maxItems)
	m.unique = a.unique || b.unique
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
			return incompatible(RuleConstraint, w, "", "b accepts nothing here but a produces a value")
		}
		return unknown(RuleConstraint, "b accepts nothing here and no value of a could be built")
	}
	if a.hasEnum {
		// a's values are finite: check each one.
		for _, v := range a.values() {
			if c.acceptsShape(&a, v, depth) == no {
				continue
			}
			switch c.acceptsShape(&b, v, depth) {
			case no:
				rule := RuleConstraint
				if typeOf(v)&b.types == 0 {
					rule = RuleType
				}
				return incompatible(rule, deepCopy(v), "", "a may produce %s, which b rejects", excerpt(v))
			case maybe:
				return unknown(RuleConstraint, "cannot tell whether b accepts a's value %s", excerpt(v))
			}
		}
		return Result{Verdict: Compatible}
	}
	ta := a.types
	if integral(a) {
		ta &^= tFraction // an integer multipleOf leaves only integers
	}
	if missing := ta &^ b.types; missing != 0 {
		for t := types(1); t <= tFraction; t <<= 1 {
			if missing&t == 0 {
				continue
			}
			name := t.String()
			if t == tFraction {
				name = "non-integer number"
			}
			if w, ok := c.pick(a, b, t, depth); ok {
				return incompatible(RuleType, w, "", "a may produce %s where b requires %s", article(name), b.types)
			}
			return unknown(RuleType, "a may produce %s where b requires %s, but no such value could be built", article(name), b.types)
		}
	}
	var pending *Result
	keep := func(r Result) {
		if pending == nil {
			pending = &r
		}
	}
	// b's enum against a's infinite sets: only null and booleans can be enumerated.
	if b.hasEnum {
		for t := types(1); t <= tFraction; t <<= 1 {
			if ta&t == 0 {
				continue
			}
			if t == tNull || t == tBoolean {
				for _, v := range c.candidates(a, b, t, depth) {
					if c.acceptsShape(&a, v, depth) != no && c.acceptsShape(&b, v, depth) != yes {
						return incompatible(RuleConstraint, v, "", "a may produce %s, which b's enum rejects", excerpt(v))
					}
				}
				continue
			}
			if w, ok := c.pick(a, b, t, depth); ok {
				return incompatible(RuleConstraint, w, "", "a may produce %s, which is not in b's enum", excerpt(w))
			}
			return unknown(RuleConstraint, "b restricts %s values to an enum, a does not", t)
		}
	}
	if ta&tNumber != 0 && !numbersFit(a, b, ta&tFraction == 0) {
		t := ta & tNumber
		if t == tNumber {
			t = tInteger
			if _, ok := c.pick(a, b, t, depth); !ok {
				t = tFraction
			}
		}
		if w, ok := c.pick(a, b, t, depth); ok {
			return incompatible(RuleConstraint, w, "", "a may produce %s, outside b's numeric bounds", excerpt(w))
		}
		keep(unknown(RuleConstraint, "cannot show a's numbers fit b's bounds or multipleOf"))
	}
	if ta&tString != 0 {
		if kw := stringsFit(a, b); kw != "" {
			if w, ok := c.pick(a, b, tString, depth); ok {
				return incompatible(RuleConstraint, w, "", "a may produce %s, which breaks b's %s", excerpt(w), kw)
			}
			keep(unknown(RuleConstraint, "cannot show a's strings satisfy b's %s", kw))
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
	if pending != nil {
		return *pending
	}
	return Result{Verdict: Compatible}
}

// pick finds a value of type t that a may accept and b rejects (as far as the checker can
// evaluate; Subset verifies the final witness).
func (c *checker) pick(a, b shape, t types, depth int) (any, bool) {
	cands := c.candidates(a, b, t, depth)
	for _, strict := range []bool{true, false} {
		for _, v := range cands {
			ra, rb := c.acceptsShape(&a, v, depth), c.acceptsShape(&b, v, depth)
			if strict && ra == yes && rb == no || !strict && ra != no && rb != yes {
				return v, true
			}
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
	for _, m := range b.mults {
		ok := slices.ContainsFunc(a.mults, func(x *big.Rat) bool { return new(big.Rat).Quo(x, m).IsInt() })
		if !ok && intOnly {
			ok = new(big.Rat).Inv(m).IsInt() // every integer is a multiple of 1/k
		}
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
	for _, name := range b.required {
		if slices.Contains(a.required, name) {
			continue
		}
		w, ok := c.minimalOf(a, tObject, depth)
		if !ok {
			return unknown(RuleRequired, "b requires '%s' but a does not guarantee it, and no object of a could be built", name)
		}
		path := "/" + escapeToken(name)
		if len(a.props[name]) > 0 {
			return incompatible(RuleOptional, w, path, "b requires '%s' but a only may emit it: it is optional in a", name)
		}
		return incompatible(RuleRequired, w, path, "b requires '%s' but a does not guarantee it", name)
	}
	var pending *Result
	check := func(name string, am, bm []node) *Result {
		r := c.sub(am, bm, depth+1)
		switch r.Verdict {
		case Incompatible:
			w, ok := c.minimalOf(a, tObject, depth)
			if !ok {
				r = unknown(r.Rule, "%s (and no object of a could be built around it)", r.Reason)
				break
			}
			w.(map[string]any)[name] = r.Witness
			r.Witness, r.Path = w, "/"+escapeToken(name)+r.Path
			return &r
		case Unknown:
			r.Path = "/" + escapeToken(name) + r.Path
		}
		if r.Verdict == Unknown && pending == nil {
			pending = &r
		}
		return nil
	}
	names := a.names()
	for _, n := range b.names() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, name := range names {
		bm := b.memberSchemas(name)
		if len(bm) == 0 {
			continue
		}
		if r := check(name, a.memberSchemas(name), bm); r != nil {
			return *r
		}
	}
	if len(b.addls) > 0 {
		// A member neither names: only the additionalProperties schemas constrain it.
		other := "x"
		for i := 1; slices.Contains(names, other); i++ {
			other = fmt.Sprintf("x%d", i)
		}
		if r := check(other, a.memberSchemas(other), b.memberSchemas(other)); r != nil {
			return *r
		}
	}
	if pending != nil {
		return *pending
	}
	return Result{Verdict: Compatible}
}

func (c *checker) arrays(a, b shape, depth int) Result {
	if a.maxItems >= 0 && a.maxItems < a.minItems {
		return Result{Verdict: Compatible} // no array at all
	}
	var pending *Result
	if a.minItems < b.minItems || (b.maxItems >= 0 && (a.maxItems < 0 || a.maxItems > b.maxItems)) ||
		(b.unique && !a.unique && (a.maxItems < 0 || a.maxItems > 1)) {
		if w, ok := c.pick(a, b, tArray, depth); ok {
			return incompatible(RuleConstraint, w, "", "a may produce %s, which breaks b's item count or uniqueness", excerpt(w))
		}
		r := unknown(RuleConstraint, "cannot show a's arrays satisfy b's minItems, maxItems or uniqueItems")
		pending = &r
	}
	if len(b.items) > 0 && a.maxItems != 0 {
		r := c.sub(a.items, b.items, depth+1)
		switch r.Verdict {
		case Incompatible:
			w, ok := c.minimalOf(a, tArray, depth)
			if !ok {
				return unknown(r.Rule, "%s (and no array of a could be built around it)", r.Reason)
			}
			arr := w.([]any)
			if len(arr) == 0 {
				arr = append(arr, nil)
			}
			arr[0] = r.Witness
			r.Witness, r.Path = arr, "/0"+r.Path
			return r
		case Unknown:
			r.Path = "/0" + r.Path
			if pending == nil {
				pending = &r
			}
		}
	}
	if pending != nil {
		return *pending
	}
	return Result{Verdict: Compatible}
}

// article puts "a" or "an" before a type name.
func article(name string) string {
	if strings.IndexByte("aeiou", name[0]) >= 0 {
		return "an " + name
	}
	return "a " + name
}
