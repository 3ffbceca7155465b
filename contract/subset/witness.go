package subset

import (
	"encoding/json"
	"math/big"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
)

// Counterexamples are built from a minimal instance of a — required members filled with
// minimal values of their schemas — with one thing changed that b rejects. Every candidate is
// screened with accepts and the final witness is verified by Validate, so a poor guess costs
// only an Unknown.

// Bounds on what witnesses may contain, so a hostile minItems cannot make one huge.
const (
	// maxWitnessItems is the most items of a built array: tens of thousands, as a filler
	// builds them cheaply.
	maxWitnessItems = 50000
	// maxWitnessMembers is the most members of a built object, and of an array whose every
	// item is built with other choices (mixedArray).
	maxWitnessMembers = 256
	maxWitnessLength  = 1024
)

// minimal builds a value the conjunction ns accepts, taking the first branch of alternatives.
func (c *checker) minimal(ns []node, depth int) (any, bool) {
	if depth > maxSubsetDepth || !c.spend(stepCost) {
		return nil, false
	}
	s, ok := c.resolveGroups(c.flatten(ns, true))
	if !ok || s.never {
		return nil, false
	}
	return c.minimalOf(s, pickType(s), depth+1)
}

// resolveGroups merges one branch of each of s's alternatives into it: the variant's, or the
// next one that leaves something.
func (c *checker) resolveGroups(s shape) (shape, bool) {
	for i := 0; len(s.groups) > 0; i++ {
		if i > maxRefHops {
			return s, false
		}
		g := s.groups[0]
		s.groups = slices.Clone(s.groups[1:])
		var m shape
		for k := range g.branches {
			m = c.merge(s, c.flatten([]node{g.branches[(c.choose(len(g.branches))+k)%len(g.branches)]}, true))
			if !m.never {
				break
			}
		}
		s = m
	}
	return s, true
}

// pickType chooses the type of a minimal value: the one s's keywords speak of when s does
// not say.
func pickType(s shape) types {
	if s.hasEnum {
		if vs := s.values(); len(vs) > 0 {
			return typeOf(vs[0])
		}
	}
	if s.types == tAll {
		switch {
		case len(s.props) > 0 || len(s.pprops) > 0 || len(s.required) > 0 || len(s.addls) > 0 || s.minProps > 0:
			return tObject
		case len(s.items) > 0 || len(s.tuples) > 0 || len(s.contains) > 0 || s.minItems > 0:
			return tArray
		case s.minLen > 0 || len(s.patterns) > 0 || len(s.formats) > 0:
			return tString
		case s.lo != nil || s.hi != nil || len(s.mults) > 0:
			return tInteger
		}
		return tNull
	}
	for _, t := range []types{tObject, tString, tInteger, tFraction, tBoolean, tNull, tArray} {
		if s.types&t != 0 {
			return t
		}
	}
	return tNull
}

// minimalOf builds a value of type t that s accepts, as far as the checker can tell.
func (c *checker) minimalOf(s shape, t types, depth int) (any, bool) {
	if depth > maxSubsetDepth || s.types&t == 0 {
		return nil, false
	}
	if s.hasEnum {
		// From the variant's choice on, so that other variants build other values.
		vs := s.values()
		for k := range vs {
			v := vs[(c.choose(len(vs))+k)%len(vs)]
			if typeOf(v) == t && c.acceptsShape(&s, v, depth) != no {
				return deepCopy(v), true
			}
		}
		return nil, false
	}
	switch t {
	case tNull:
		return nil, true
	case tBoolean:
		return c.choose(2) == 1, true
	case tInteger, tFraction:
		if s.lo != nil && s.hi != nil && (s.lo.Cmp(s.hi) > 0 || s.lo.Cmp(s.hi) == 0 && (s.loEx || s.hiEx)) {
			return nil, false // no number at all
		}
		var fit []json.Number
		pts := numberCandidates(s, shape{})
		c.spend(stepCost * len(pts)) // big.Rat arithmetic and a sort
		for _, r := range pts {
			if r.IsInt() == (t == tInteger) && s.numberOK(r) == yes {
				if n, ok := ratJSON(r); ok {
					fit = append(fit, n)
				}
			}
		}
		if len(fit) == 0 {
			return nil, false
		}
		return fit[c.choose(len(fit))], true
	case tString:
		return c.stringOf(s)
	case tObject:
		return c.objectOf(s, depth)
	case tArray:
		return c.arrayOf(s, max(s.minItems, s.containsMin()), depth)
	}
	return nil, false
}

// arrayOf builds an array of n minimal items of s, the first ones also minimal items of
// every contains of s, so that the array has as many as they need.
func (c *checker) arrayOf(s shape, n, depth int) (any, bool) {
	if n < 0 || n > maxWitnessItems {
		return nil, false
	}
	out := make([]any, n)
	f := c.newFiller(s.unique, depth)
	for i := range out {
		ns := s.itemSchemas(i)
		if i < s.containsMin() {
			for _, r := range s.contains {
				ns = append(ns, r.n)
			}
		}
		v, ok := f.item(ns)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// filler builds the items of one array: a witness of minItems 20000 is cheap, as each
// conjunction's item is built once and copied (or, for unique items, the next one of a
// series found from it), not searched for again at every index.
type filler struct {
	c      *checker
	unique bool
	depth  int
	seen   map[string]bool // the keys of the items so far, with unique
	built  map[string]any  // the item built for each conjunction, by conjKey
	series map[string]*big.Int
	shapes map[string]*shape // each series' conjunction, flattened once
	dead   map[string]bool   // conjunctions of which no other distinct item was found
	// last and lastKey are the conjunction of the previous item and its key: every index
	// past prefixItems has the same one.
	last    []node
	lastKey string
}

func (c *checker) newFiller(unique bool, depth int) *filler {
	return &filler{c: c, unique: unique, depth: depth, seen: map[string]bool{}, built: map[string]any{}, series: map[string]*big.Int{}, shapes: map[string]*shape{}, dead: map[string]bool{}}
}

// keep marks v as an item already in the array (one the caller placed).
func (f *filler) keep(v any) {
	k, _ := jsonKey(v)
	f.seen[k] = true
}

// item builds an item of the conjunction ns: distinct from the others with unique.
func (f *filler) item(ns []node) (any, bool) {
	if !slices.EqualFunc(ns, f.last, func(x, y node) bool { return x.key == y.key }) {
		f.last, f.lastKey = ns, conjKey(ns)
	}
	key := f.lastKey
	if v, ok := f.built[key]; ok && !f.unique {
		return deepCopy(v), true
	}
	if f.dead[key] {
		return nil, false
	}
	if _, ok := f.series[key]; !ok {
		if v, ok := f.c.distinctItem(ns, f.unique, f.seen, f.depth); ok {
			f.built[key] = v
			return v, true
		}
		if !f.unique {
			return nil, false
		}
	}
	if v, ok := f.next(ns, key); ok {
		return v, true
	}
	f.dead[key] = true
	return nil, false
}

// maxSeriesTries bounds the integers tried past the last one of a series for the next that
// ns accepts (multipleOf, not).
const maxSeriesTries = 64

// next is the next integer of key's series that ns accepts and the array does not hold yet:
// the integers counting up from the first item built, which the variants' searches cannot
// reach thousands of.
func (f *filler) next(ns []node, key string) (any, bool) {
	x := f.series[key]
	if x == nil {
		first, ok := f.built[key].(json.Number)
		r, isNum := rat(first)
		if !ok || !isNum || !r.IsInt() {
			return nil, false
		}
		x = new(big.Int).Set(r.Num())
		f.series[key] = x
	}
	s := f.shapes[key]
	if s == nil {
		flat := f.c.flatten(ns, true)
		s = &flat
		f.shapes[key] = s
	}
	for range maxSeriesTries {
		x.Add(x, big.NewInt(1))
		v := json.Number(x.String())
		k, _ := jsonKey(v)
		if f.seen[k] {
			continue
		}
		if !f.c.spend(1) {
			return nil, false
		}
		if f.c.acceptsShape(s, v, f.depth+1) == yes {
			f.seen[k] = true
			return v, true
		}
	}
	return nil, false
}

// mixedArray builds an array of n items of s, item i with the choices of variant+i.
func (c *checker) mixedArray(s shape, n, depth int) (any, bool) {
	if n > maxWitnessMembers || (s.maxItems >= 0 && n > s.maxItems) {
		return nil, false
	}
	base := c.variant
	defer func() { c.variant = base }()
	out := make([]any, n)
	for i := range out {
		c.variant = base + i
		v, ok := c.minimal(s.itemSchemas(i), depth+1)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// distinctItem builds a minimal item of ns; with unique, one not in seen (other choices until
// it is new). seen gets its key.
func (c *checker) distinctItem(ns []node, unique bool, seen map[string]bool, depth int) (any, bool) {
	base := c.variant
	defer func() { c.variant = base }()
	for try := 0; try <= 8; try++ {
		v, ok := c.minimal(ns, depth+1)
		if !ok {
			return nil, false
		}
		k, _ := jsonKey(v)
		if !unique || !seen[k] {
			seen[k] = true
			return v, true
		}
		c.variant++
	}
	return nil, false
}

// candidates lists values of type t that might tell a from b.
func (c *checker) candidates(a, b shape, t types, depth int) []any {
	var out []any
	switch t {
	case tNull:
		out = append(out, nil)
	case tBoolean:
		out = append(out, false, true)
	case tInteger, tFraction:
		pts := numberCandidates(a, b)
		c.spend(stepCost * len(pts))
		for _, r := range pts {
			if r.IsInt() == (t == tInteger) {
				if n, ok := ratJSON(r); ok {
					out = append(out, n)
				}
			}
		}
	case tString:
		// a's own: samples of its formats, a string of its patterns.
		for _, f := range a.formats {
			for _, w := range formatSamples(f) {
				out = append(out, w)
			}
		}
		if len(a.patterns) > 0 {
			if w, ok := c.langSample(a); ok {
				out = append(out, w)
			}
		}
		// Something no format accepts (not a date, e-mail, URI, host, regex, …).
		const bad = "[not valid! "
		for _, n := range []int{a.minLen, b.minLen - 1, b.maxLen + 1, a.maxLen, 0, 1, len(bad)} {
			if n < 0 || n > maxWitnessLength {
				continue
			}
			out = append(out, strings.Repeat("a", n))
			if n <= len(bad) {
				out = append(out, bad[:n])
			} else {
				out = append(out, bad+strings.Repeat("a", n-len(bad)))
			}
		}
	case tObject:
		if v, ok := c.minimalOf(a, tObject, depth); ok {
			out = append(out, v)
		}
		// One member more than required, against an enum of objects or a count.
		if n := len(a.required) + 1; a.maxMembers() < 0 || n <= a.maxMembers() {
			if v, ok := c.objectSized(a, max(n, a.minProps), depth); ok {
				out = append(out, v)
			}
		}
	case tArray:
		for _, n := range []int{a.minItems, b.minItems - 1, b.maxItems + 1, a.maxItems, 2} {
			if v, ok := c.arrayOf(a, n, depth); ok {
				out = append(out, v)
			}
		}
		// Items of different choices (a's alternatives, say) side by side.
		if v, ok := c.mixedArray(a, max(a.minItems, 2), depth); ok {
			out = append(out, v)
		}
		// Against uniqueItems: the last two items equal, past a's prefixItems (where the
		// same schemas apply to both).
		if n := max(a.minItems, a.prefixLen()+2); b.unique && (a.maxItems < 0 || n <= a.maxItems) {
			if v, ok := c.arrayOf(a, n, depth); ok {
				arr := v.([]any)
				arr[n-1] = deepCopy(arr[n-2])
				out = append(out, arr)
			}
		}
	}
	return out
}

// numberCandidates lists numbers around the bounds and multiples of a and b, where a's and
// b's numeric sets may differ.
func numberCandidates(a, b shape) []*big.Rat {
	pts := []*big.Rat{big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(1, 2), big.NewRat(-1, 2)}
	var bounds []*big.Rat
	for _, r := range []*big.Rat{a.lo, a.hi, b.lo, b.hi} {
		if r != nil {
			bounds = append(bounds, r)
		}
	}
	steps := []*big.Rat{big.NewRat(1, 1), big.NewRat(1, 2), big.NewRat(1, 1000)}
	// Multiples are sought around 0, the bounds and their midpoints.
	base := []*big.Rat{pts[0]}
	for i, r := range bounds {
		pts = append(pts, r, floorRat(r), new(big.Rat).Add(floorRat(r), big.NewRat(1, 1)))
		base = append(base, r)
		for _, d := range steps {
			pts = append(pts, new(big.Rat).Add(r, d), new(big.Rat).Sub(r, d))
		}
		for _, o := range bounds[i+1:] {
			mid := new(big.Rat).Add(r, o)
			pts = append(pts, mid.Mul(mid, big.NewRat(1, 2)))
			base = append(base, mid)
		}
	}
	for _, m := range a.mults[:min(len(a.mults), 3)] {
		pts = append(pts, m, new(big.Rat).Neg(m), new(big.Rat).Add(m, m))
		for _, p := range base {
			f := floorRat(new(big.Rat).Quo(p, m))
			f.Mul(f, m)
			pts = append(pts, f, new(big.Rat).Add(f, m), new(big.Rat).Sub(f, m))
		}
	}
	for _, m := range b.mults[:min(len(b.mults), 3)] {
		// Halfway between multiples of b's: not one of them.
		half := new(big.Rat).Mul(m, big.NewRat(1, 2))
		pts = append(pts, half, new(big.Rat).Add(m, half), new(big.Rat).Neg(half))
	}
	// Without repeats, in order: sorted by value (ties by position), the first of each run.
	idx := make([]int, len(pts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return pts[i].Cmp(pts[j]) })
	keep := make([]bool, len(pts))
	for k, i := range idx {
		keep[i] = k == 0 || pts[i].Cmp(pts[idx[k-1]]) != 0
	}
	var out []*big.Rat
	for i, p := range pts {
		if keep[i] {
			out = append(out, p)
		}
	}
	return out
}

// ratJSON writes r as an exact JSON number, if it has a finite decimal expansion.
func ratJSON(r *big.Rat) (json.Number, bool) {
	d := new(big.Int).Set(r.Denom())
	two, five, zero := big.NewInt(2), big.NewInt(5), big.NewInt(0)
	digits, twos, fives := 0, 0, 0
	m := new(big.Int)
	for d.Cmp(big.NewInt(1)) != 0 {
		switch {
		case m.Mod(d, two).Cmp(zero) == 0:
			d.Quo(d, two)
			twos++
		case m.Mod(d, five).Cmp(zero) == 0:
			d.Quo(d, five)
			fives++
		default:
			return "", false
		}
	}
	digits = max(twos, fives)
	if digits > 64 {
		return "", false
	}
	return json.Number(r.FloatString(digits)), true
}

// deepCopy copies a JSON value, so witnesses never share maps with a schema's source.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

// sampleMatch builds a short string re matches, for a member name of a patternProperties: the
// first alternative, the least repetitions, the first character of a class. It gives up on
// what it cannot build (and re rejects what it built wrongly).
func sampleMatch(re *regexp.Regexp) (string, bool) {
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return "", false
	}
	var sb strings.Builder
	if !writeSample(&sb, p.Simplify()) || !re.MatchString(sb.String()) {
		return "", false
	}
	return sb.String(), true
}

func writeSample(sb *strings.Builder, p *syntax.Regexp) bool {
	if sb.Len() > maxWitnessLength {
		return false
	}
	switch p.Op {
	case syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		for _, r := range p.Rune {
			sb.WriteRune(r)
		}
		return true
	case syntax.OpCharClass:
		if len(p.Rune) == 0 {
			return false
		}
		sb.WriteRune(p.Rune[0])
		return true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		sb.WriteByte('a')
		return true
	case syntax.OpCapture, syntax.OpPlus, syntax.OpAlternate:
		return writeSample(sb, p.Sub[0])
	case syntax.OpRepeat:
		for range p.Min {
			if !writeSample(sb, p.Sub[0]) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		for _, s := range p.Sub {
			if !writeSample(sb, s) {
				return false
			}
		}
		return true
	}
	return false
}

// objectOf builds an object s accepts, as far as the checker can tell: the required members,
// then (for minProperties, or in odd variants every one) optional named members and other
// names, each with a minimal value of its schemas.
func (c *checker) objectOf(s shape, depth int) (any, bool) {
	want := max(s.minProps, len(s.required))
	if c.variant%2 == 1 {
		want = max(want, len(s.required)+len(s.props))
		if s.maxProps >= 0 {
			want = max(min(want, s.maxProps), s.minProps, len(s.required))
		}
	}
	return c.objectSized(s, want, depth)
}

// objectSized builds an object of s with n members (at least the required ones).
func (c *checker) objectSized(s shape, n, depth int) (map[string]any, bool) {
	if n > maxWitnessMembers {
		return nil, false
	}
	m := make(map[string]any, n)
	for _, name := range s.required {
		v, ok := c.minimal(s.memberSchemas(name), depth+1)
		if !ok {
			return nil, false
		}
		m[name] = v
	}
	// Names: the named members, then names of a's patterns (a sample match, and it with a
	// number after it), then plain ones; each taken if a allows a value under it.
	names := s.names()
	var stems []string
	for _, p := range s.pprops {
		if w, ok := sampleMatch(p.re); ok {
			stems = append(stems, w)
		}
	}
	for _, pn := range s.propNames {
		if m, ok := pn.v.(map[string]any); ok {
			if src, ok := m["pattern"].(string); ok {
				if re, err := c.regexp(src); err == nil {
					if w, ok := sampleMatch(re); ok {
						stems = append(stems, w)
					}
				}
			}
		}
	}
	stems = append(stems, "x")
	for i := 0; len(m) < n && i < len(names)+(n+8)*len(stems); i++ {
		var name string
		if i < len(names) {
			name = names[i]
		} else {
			k := i - len(names)
			name = stems[k%len(stems)] + strconv.Itoa(k/len(stems))
			if k/len(stems) == 0 {
				name = stems[k%len(stems)]
			}
		}
		if _, dup := m[name]; dup || (i >= len(names) && s.props[name] != nil) {
			continue
		}
		if slices.ContainsFunc(s.propNames, func(pn node) bool { return c.accepts([]node{pn}, name, depth+1) == no }) {
			continue
		}
		if v, ok := c.minimal(s.memberSchemas(name), depth+1); ok {
			m[name] = v
		}
	}
	// dependentRequired: the dependents of the members there (some rounds, as they chain).
	for range 4 {
		for k, ds := range s.depReq {
			if _, has := m[k]; !has {
				continue
			}
			for _, d := range ds {
				if _, has := m[d]; !has {
					if v, ok := c.minimal(s.memberSchemas(d), depth+1); ok {
						m[d] = v
					}
				}
			}
		}
	}
	return m, len(m) >= n
}

// stringOf builds a string s accepts, as far as the checker can tell: from the language of
// its patterns and lengths, or a sample of its format.
func (c *checker) stringOf(s shape) (any, bool) {
	if s.minLen > maxWitnessLength {
		return nil, false
	}
	var cands []string
	if len(s.patterns) > 0 {
		if w, ok := c.langSample(s); ok {
			cands = append(cands, w)
		}
	}
	for _, f := range s.formats {
		cands = append(cands, formatSamples(f)...)
	}
	cands = append(cands, strings.Repeat("a", s.minLen))
	for _, l := range "bcd" {
		cands = append(cands, strings.Repeat(string(l), max(s.minLen, 1)))
	}
	var fit []string
	for _, w := range cands {
		if c.stringOK(&s, w) != no {
			fit = append(fit, w)
		}
	}
	if len(fit) == 0 {
		return nil, false
	}
	return fit[c.choose(len(fit))], true
}

// formatSamples are values of a format (for a producer that asserts it); none for a format
// the checker does not know.
func formatSamples(f string) []string {
	switch f {
	case "date-time":
		return []string{"2024-01-02T03:04:05Z"}
	case "date":
		return []string{"2024-01-02", "1999-12-31"}
	case "time":
		return []string{"03:04:05Z"}
	case "duration":
		return []string{"P1D"}
	case "email", "idn-email":
		return []string{"a@example.com"}
	case "hostname", "idn-hostname":
		return []string{"example.com"}
	case "ipv4":
		return []string{"192.0.2.1", "198.51.100.7"}
	case "ipv6":
		return []string{"2001:db8::1"}
	case "uri", "iri":
		return []string{"https://example.com/a"}
	case "uri-reference", "iri-reference":
		return []string{"a", "https://example.com/a"}
	case "uri-template":
		return []string{"https://example.com/{a}"}
	case "uuid":
		return []string{"123e4567-e89b-12d3-a456-426614174000"}
	case "json-pointer":
		return []string{"/a"}
	case "relative-json-pointer":
		return []string{"0/a"}
	case "regex":
		return []string{"a"}
	}
	return nil
}
