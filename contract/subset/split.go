package subset

import (
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Unions on the consumer's side. a ⊆ anyOf(b1, …, bn) does not need a to fit one branch:
// split a into disjoint parts — by type, by the values of a member it requires (a tag), by
// the numeric ranges, string lengths or item counts b's branches cut — and prove each part
// into some branch (for oneOf, into
// exactly one: the others disjoint from it). A finite a (an enum, or a bounded range of
// multiples) is checked value by value.

// Bounds on the splitting.
const (
	maxEnumerated = 64 // numbers of a bounded range of multiples checked one by one
	// maxEnumLanguage bounds the strings of an enum compared as a language (their
	// alternation, an automaton of at most maxLangLength characters' states).
	maxEnumLanguage = 1024
	maxTagValues    = 16 // values of a tag split on
	maxCuts         = 8  // bounds of b's branches a numeric range is cut at
)

// splitA partitions a for b's first group; ok is false when a cannot be split usefully.
func (c *checker) splitA(a, b shape) ([]shape, bool) {
	// By type: null, boolean, object, array, string, number.
	var parts []shape
	for _, t := range []types{tNull, tBoolean, tObject, tArray, tString, tNumber} {
		if a.types&t != 0 {
			p := a
			p.types &= t
			p.keys = append(slices.Clone(a.keys), "-type:"+strconv.Itoa(int(t)))
			parts = append(parts, p)
		}
	}
	if len(parts) > 1 {
		return parts, true
	}
	branches := make([]shape, len(b.groups[0].branches))
	for i, n := range b.groups[0].branches {
		branches[i] = c.flatten([]node{n}, false)
	}
	if a.types&^tObject == 0 {
		if parts, ok := c.splitTag(a, branches); ok {
			return parts, true
		}
	}
	switch {
	case a.types&^tNumber == 0:
		return splitRange(a, branches)
	case a.types == tString:
		return splitCount(a, branches, func(s *shape) (*int, *int) { return &s.minLen, &s.maxLen })
	case a.types == tArray:
		return splitCount(a, branches, func(s *shape) (*int, *int) { return &s.minItems, &s.maxItems })
	}
	return nil, false
}

// splitCount cuts a's lengths or item counts (the pair of fields count gives: a minimum and
// a maximum, -1 for none) where b's branches bound them.
func splitCount(a shape, branches []shape, count func(*shape) (*int, *int)) ([]shape, bool) {
	alo, ahi := count(&a)
	cuts := []int{*alo}
	for i := range branches {
		lo, hi := count(&branches[i])
		for _, x := range []int{*lo, *hi + 1} {
			if x > *alo && (*ahi < 0 || x <= *ahi) && !slices.Contains(cuts, x) {
				cuts = append(cuts, x)
			}
		}
	}
	if len(cuts) < 2 || len(cuts) > maxCuts {
		return nil, false
	}
	slices.Sort(cuts)
	parts := make([]shape, len(cuts))
	for i, x := range cuts {
		p := a
		lo, hi := count(&p)
		*lo = x
		if i+1 < len(cuts) {
			*hi = cuts[i+1] - 1
		}
		p.keys = append(slices.Clone(a.keys), "-count:"+strconv.Itoa(*lo)+".."+strconv.Itoa(*hi))
		parts[i] = p
	}
	return parts, true
}

// splitTag splits a by the values of a member it requires that has finitely many, and that
// b's branches constrain; or else by the types of a member the branches constrain (absent
// being one more part when a does not require it).
func (c *checker) splitTag(a shape, branches []shape) ([]shape, bool) {
	names := a.names()
	for _, r := range a.required {
		if !slices.Contains(names, r) {
			names = append(names, r)
		}
	}
	for _, name := range names {
		if !slices.ContainsFunc(branches, func(br shape) bool { return len(br.props[name]) > 0 || slices.Contains(br.required, name) }) {
			continue
		}
		m := c.flatten(a.memberSchemas(name), true)
		if m.never {
			continue // absent
		}
		// The member's distinct values (1 and 1.0 are one).
		var vals []any
		seen := map[string]bool{}
		for _, v := range m.values() {
			if k, ok := jsonKey(v); ok && !seen[k] {
				seen[k] = true
				vals = append(vals, v)
			}
		}
		if !m.hasEnum || len(vals) < 2 || len(vals) > maxTagValues || !slices.Contains(a.required, name) {
			// By type where a branch tells the member's types apart; else, by presence only.
			typed := slices.ContainsFunc(branches, func(br shape) bool {
				ms := br.memberSchemas(name)
				return len(ms) > 0 && c.flatten(ms, false).types&m.types != m.types
			})
			if !typed {
				if !slices.Contains(a.required, name) {
					return presenceSplit(a, name), true
				}
				if parts, ok := c.splitValues(a, m, name, branches); ok {
					return parts, true
				}
				continue
			}
			if parts, ok := splitMemberType(a, name, m.types); ok {
				return parts, true
			}
			continue
		}
		parts := make([]shape, 0, len(vals))
		for _, v := range vals {
			k, _ := jsonKey(v)
			p := a
			p.props = make(map[string][]node, len(a.props)+1)
			for n, ns := range a.props {
				p.props[n] = ns
			}
			tag := node{v: map[string]any{"const": v}, key: "=" + name + ":" + k}
			p.props[name] = append(slices.Clone(a.props[name]), tag)
			p.keys = append(slices.Clone(a.keys), tag.key)
			parts = append(parts, p)
		}
		return parts, true
	}
	// A member a says nothing of that a branch requires or names: with it, and without.
	var others []string
	for _, br := range branches {
		for _, name := range slices.Concat(br.required, br.names()) {
			if !slices.Contains(names, name) && !slices.Contains(others, name) {
				others = append(others, name)
			}
		}
	}
	slices.Sort(others)
	if len(others) > 0 {
		return presenceSplit(a, others[0]), true
	}
	return nil, false
}

// splitValues splits a by the values the branches' enums or consts give member name: a part
// for each one, and a part with none of them (a not of their enum), where a's member is not
// an enum itself (a string tag, say, against branches of one tag and of every other).
func (c *checker) splitValues(a, m shape, name string, branches []shape) ([]shape, bool) {
	if m.hasEnum || slices.ContainsFunc(a.props[name], func(n node) bool { return strings.HasPrefix(n.key, "≠"+name+":") }) {
		return nil, false // a part of such a split already
	}
	var vals []any
	seen := map[string]bool{}
	for _, br := range branches {
		ms := br.memberSchemas(name)
		if len(ms) == 0 {
			continue
		}
		bm := c.flatten(ms, false)
		if !bm.hasEnum {
			continue
		}
		for _, v := range bm.values() {
			if k, ok := jsonKey(v); ok && !seen[k] {
				seen[k] = true
				vals = append(vals, v)
			}
		}
	}
	if len(vals) == 0 || len(vals) > maxTagValues {
		return nil, false
	}
	with := func(tag node) shape {
		p := a
		p.props = maps.Clone(a.props)
		p.props[name] = append(slices.Clone(a.props[name]), tag)
		p.keys = append(slices.Clone(a.keys), tag.key)
		return p
	}
	parts := make([]shape, 0, len(vals)+1)
	var keys []string
	for _, v := range vals {
		k, _ := jsonKey(v)
		keys = append(keys, k)
		parts = append(parts, with(node{v: map[string]any{"const": v}, key: "=" + name + ":" + k}))
	}
	rest := node{v: map[string]any{"not": map[string]any{"enum": vals}}, key: "≠" + name + ":" + strings.Join(keys, ",")}
	return append(parts, with(rest)), true
}

// presenceSplit splits a into its objects with member name and those without.
func presenceSplit(a shape, name string) []shape {
	with, without := a, a
	with.required = append(slices.Clone(a.required), name)
	with.keys = append(slices.Clone(a.keys), "="+name+":present")
	without.props = maps.Clone(a.props)
	without.props[name] = append(slices.Clone(a.props[name]), node{v: false, key: "=" + name + ":absent"})
	without.keys = append(slices.Clone(a.keys), "="+name+":absent")
	return []shape{with, without}
}

// splitMemberType splits a by the type of member name (of types ts): one part per type, and
// one where it is absent unless a requires it.
func splitMemberType(a shape, name string, ts types) ([]shape, bool) {
	var parts []shape
	with := func(n node) {
		p := a
		p.props = make(map[string][]node, len(a.props)+1)
		for k, ns := range a.props {
			p.props[k] = ns
		}
		p.props[name] = append(slices.Clone(a.props[name]), n)
		p.keys = append(slices.Clone(a.keys), n.key)
		parts = append(parts, p)
	}
	names := typeNames()
	for i, t := range []types{tNull, tBoolean, tObject, tArray, tString, tNumber} {
		if ts&t != 0 {
			tn := names[i]
			if t == tNumber {
				tn = "number"
			}
			with(node{v: map[string]any{"type": tn}, key: "=" + name + ":" + tn})
		}
	}
	if len(parts) < 2 && slices.Contains(a.required, name) {
		return nil, false
	}
	if !slices.Contains(a.required, name) {
		with(node{v: false, key: "=" + name + ":absent"})
		for i := range parts[:len(parts)-1] {
			parts[i].required = append(slices.Clone(a.required), name)
		}
	}
	return parts, len(parts) > 1
}

// splitRange cuts a's numeric range at the bounds of b's branches: each bound a part of its
// own, and the open intervals between.
func splitRange(a shape, branches []shape) ([]shape, bool) {
	var cuts []*big.Rat
	for _, br := range branches {
		for _, r := range []*big.Rat{br.lo, br.hi} {
			if r != nil && !slices.ContainsFunc(cuts, func(x *big.Rat) bool { return x.Cmp(r) == 0 }) {
				cuts = append(cuts, r)
			}
		}
	}
	if len(cuts) == 0 || len(cuts) > maxCuts {
		return nil, false
	}
	slices.SortFunc(cuts, (*big.Rat).Cmp)
	var parts []shape
	add := func(lo *big.Rat, loEx bool, hi *big.Rat, hiEx bool) {
		p := a
		if lo != nil && (p.lo == nil || lo.Cmp(p.lo) > 0 || (lo.Cmp(p.lo) == 0 && loEx)) {
			p.lo, p.loEx = lo, loEx
		}
		if hi != nil && (p.hi == nil || hi.Cmp(p.hi) < 0 || (hi.Cmp(p.hi) == 0 && hiEx)) {
			p.hi, p.hiEx = hi, hiEx
		}
		if p.lo != nil && p.hi != nil && (p.lo.Cmp(p.hi) > 0 || (p.lo.Cmp(p.hi) == 0 && (p.loEx || p.hiEx))) {
			return // empty
		}
		p.keys = append(slices.Clone(a.keys), "-range:"+ratKey(lo, loEx)+".."+ratKey(hi, hiEx))
		parts = append(parts, p)
	}
	add(nil, false, cuts[0], true)
	for i, x := range cuts {
		add(x, false, x, false)
		if i+1 < len(cuts) {
			add(x, true, cuts[i+1], true)
		}
	}
	add(cuts[len(cuts)-1], true, nil, false)
	return parts, len(parts) > 1
}

func ratKey(r *big.Rat, ex bool) string {
	if r == nil {
		return "∞"
	}
	return r.RatString() + strconv.FormatBool(ex)
}

// enumerate turns a's numbers into an enum when they are finitely many: a bounded range of
// integers, or of multiples of its multipleOf.
func (c *checker) enumerate(a shape) (shape, bool) {
	if a.hasEnum || a.types == 0 || a.never {
		return a, false
	}
	if a.types&^(tNull|tBoolean) == 0 {
		var vals []any
		if a.types&tNull != 0 {
			vals = append(vals, nil)
		}
		if a.types&tBoolean != 0 {
			vals = append(vals, false, true)
		}
		return withEnum(a, vals), true
	}
	if a.types == tObject {
		return c.enumerateObjects(a)
	}
	if a.types&^tNumber != 0 || a.lo == nil || a.hi == nil {
		return a, false
	}
	step := lcmRats(a.mults)
	if a.types&tFraction == 0 || (step != nil && step.IsInt()) {
		one := big.NewRat(1, 1)
		if step == nil {
			step = one
		} else {
			step = lcmRats([]*big.Rat{step, one})
		}
	}
	if step == nil {
		return a, false
	}
	first := new(big.Rat).Quo(a.lo, step)
	first = ceilBound(first, false)
	last := floorBound(new(big.Rat).Quo(a.hi, step), false)
	n := new(big.Rat).Sub(last, first)
	if n.Sign() < 0 {
		n = big.NewRat(-1, 1)
	}
	if n.Cmp(big.NewRat(maxEnumerated, 1)) >= 0 {
		return a, false
	}
	var vals []any
	for k := new(big.Rat).Set(first); k.Cmp(last) <= 0; k.Add(k, big.NewRat(1, 1)) {
		x := new(big.Rat).Mul(k, step)
		kind := tFraction
		if x.IsInt() {
			kind = tInteger
		}
		if a.numberOK(x) != yes || kind&a.types == 0 {
			continue
		}
		j, ok := ratJSON(x)
		if !ok {
			return a, false
		}
		vals = append(vals, j)
	}
	c.spend(len(vals))
	return withEnum(a, vals), true
}

// withEnum is a with exactly the values vals.
func withEnum(a shape, vals []any) shape {
	e := a
	e.hasEnum, e.enum, e.enumSet = false, nil, nil
	e.intersectEnum(vals)
	e.never = len(vals) == 0
	return e
}

// enumerateObjects lists a's objects when they are finitely many: a allows only its required
// members, each of finitely many values (up to maxEnumerated objects in all).
func (c *checker) enumerateObjects(a shape) (shape, bool) {
	// The names a's objects may have: the required ones when no other is possible, or those
	// an additionalProperties false (without patterns) names, each then present or absent.
	names := a.required
	if hi := a.maxMembers(); hi < 0 || hi > len(a.required) {
		var ok bool
		if names, ok = closedNames(a); !ok {
			return a, false
		}
	}
	if len(names) > 8 {
		return a, false
	}
	objs := []map[string]any{{}}
	for _, name := range names {
		m := c.flatten(a.memberSchemas(name), true)
		if len(m.groups) > 0 {
			return a, false
		}
		if !m.hasEnum && !m.never {
			var ok bool
			if m, ok = c.enumerate(m); !ok {
				return a, false
			}
		}
		var vals []any
		if !m.never {
			vals = m.values()
		}
		optional := !slices.Contains(a.required, name)
		if len(objs)*(len(vals)+1) > maxEnumerated {
			return a, false
		}
		var next []map[string]any
		for _, o := range objs {
			if optional {
				next = append(next, o)
			}
			for _, v := range vals {
				n := maps.Clone(o)
				n[name] = deepCopy(v)
				next = append(next, n)
			}
		}
		objs = next
	}
	vals := make([]any, 0, len(objs))
	for _, o := range objs {
		// Combinations a's counts or dependencies rule out are left out (a superset would
		// do; these are known not to be a's).
		if c.acceptsShape(&a, o, 0) != no {
			vals = append(vals, o)
		}
	}
	c.spend(len(objs))
	return withEnum(a, vals), true
}

// closedNames is the names a's additionalProperties false without patterns allow its
// objects (those all of them name), the required ones among them; ok is false when no such
// keyword closes a.
func closedNames(a shape) ([]string, bool) {
	var names []string
	closed := false
	for _, ad := range a.addls {
		if ad.n.v != false || len(ad.patterns) > 0 {
			continue
		}
		if !closed {
			names, closed = slices.Sorted(maps.Keys(ad.named)), true
		} else {
			names = slices.DeleteFunc(names, func(n string) bool { return !ad.named[n] })
		}
	}
	if !closed {
		return nil, false
	}
	for _, r := range a.required {
		if !slices.Contains(names, r) {
			return nil, false // a required member it forbids: leave it to the comparison
		}
	}
	return names, true
}

// lcmRats is the least common multiple of positive rationals (nil for none): every multiple
// of each is a multiple of it. lcm(p/q, r/s) = lcm(p, r) / gcd(q, s) in lowest terms.
func lcmRats(rs []*big.Rat) *big.Rat {
	if len(rs) == 0 || len(rs) > 8 {
		return nil
	}
	num, den := new(big.Int).Set(rs[0].Num()), new(big.Int).Set(rs[0].Denom())
	for _, r := range rs[1:] {
		g := new(big.Int).GCD(nil, nil, num, r.Num())
		num.Mul(num, new(big.Int).Quo(r.Num(), g))
		den.GCD(nil, nil, den, r.Denom())
		if num.BitLen() > 256 {
			return nil
		}
	}
	return new(big.Rat).SetFrac(num, den)
}

// splitAndProve decides a ⊆ b over a partition of a: every part must be; one that is not
// gives the counterexample.
func (c *checker) splitAndProve(parts []shape, b shape, depth int) Result {
	c.spend(stepCost * len(parts))
	return every(parts, func(p shape) Result {
		p.splits++
		return c.shapes(p, b, depth)
	})
}

// every decides what holds when each of xs must: the first counterexample prove finds, at
// once, else the first Unknown, else Compatible.
func every[T any](xs []T, prove func(T) Result) Result {
	var first *Result
	for _, x := range xs {
		r := prove(x)
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
