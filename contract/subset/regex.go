package subset

import (
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Strings as regular languages: a shape's strings are those of its lengths that every one of
// its patterns matches (anywhere: the validator searches, as Go's regexp.MatchString does).
// Each pattern becomes Go's own compiled program (regexp/syntax), run as a DFA built on the
// fly — the set of threads, as the matcher keeps it — over the runes cut into classes that
// every instruction treats alike. langSearch explores the product of a's and b's patterns
// breadth first, one rune (one unit of length) per level, for a string a accepts and b
// rejects; past the largest length bound the level no longer matters and states are visited
// once. Budgets bound it: past them, no answer.

// Limits of the automata, past which a string comparison is unknown.
const (
	maxLangStates  = 20000 // product states visited by one search (at every length)
	maxLangClasses = 256   // rune classes the patterns of one search cut the runes into
	maxLangLength  = 4096  // the largest length bound explored level by level
)

// langProg is one pattern's compiled program.
type langProg struct {
	p *syntax.Prog
	// states interns the thread sets: a DFA state is an index, with its threads and whether
	// a match was already found (a search that matched stays matched).
	states  []langState
	ids     map[string]int
	next    map[[2]int]int // (state, rune) → state: classes differ between searches, runes do not
	initial int
	cost    int // instructions visited by closures, charged to the checker's budget
	seen    []uint32
	gen     uint32
	stack   []uint32
}

type langState struct {
	pcs     []uint32
	matched bool
}

// compileLang compiles a pattern as the validator does (Go's regexp, Perl syntax). ok is false
// for what the DFA does not model: line and word boundaries, and what RE2 cannot parse
// (lookaround, backreferences), which the validator matches with a backtracking engine.
func compileLang(src string) (*langProg, bool) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, false
	}
	p, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, false
	}
	for _, in := range p.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&^(syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
			return nil, false
		}
	}
	lp := &langProg{p: p, ids: map[string]int{}, next: map[[2]int]int{}}
	pcs, m := lp.closure([]uint32{uint32(p.Start)}, true, false)
	lp.initial = lp.intern(pcs, m)
	return lp, true
}

func (lp *langProg) intern(pcs []uint32, matched bool) int {
	if matched {
		pcs = nil // matched is absorbing: the threads no longer matter
	}
	b := make([]byte, 0, 1+4*len(pcs))
	if matched {
		b = append(b, 1)
	}
	for _, pc := range pcs {
		b = append(b, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if id, ok := lp.ids[string(b)]; ok {
		return id
	}
	lp.states = append(lp.states, langState{pcs: pcs, matched: matched})
	lp.ids[string(b)] = len(lp.states) - 1
	return len(lp.states) - 1
}

// closure follows the empty transitions from seeds: the threads waiting on a rune (or on an
// end of text not yet reached), sorted, and whether one reached a match.
func (lp *langProg) closure(seeds []uint32, atStart, atEnd bool) ([]uint32, bool) {
	// seen[pc] == gen marks the instructions this closure visited (no map per closure).
	if lp.seen == nil {
		lp.seen = make([]uint32, len(lp.p.Inst))
	}
	lp.gen++
	var out []uint32
	matched := false
	stack := append(lp.stack[:0], seeds...)
	defer func() { lp.stack = stack[:0] }()
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if lp.seen[pc] == lp.gen {
			continue
		}
		lp.seen[pc] = lp.gen
		lp.cost++
		in := &lp.p.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(in.Arg)
			if (op&syntax.EmptyBeginText == 0 || atStart) && (op&syntax.EmptyEndText == 0 || atEnd) {
				stack = append(stack, in.Out)
			} else {
				out = append(out, pc) // may hold later (at the end)
			}
		case syntax.InstMatch:
			matched = true
		case syntax.InstFail:
		default:
			out = append(out, pc)
		}
	}
	slices.Sort(out)
	return out, matched
}

// step is the state after state reads rune rep (standing for its class).
func (lp *langProg) step(state int, rep rune) int {
	if n, ok := lp.next[[2]int{state, int(rep)}]; ok {
		return n
	}
	st := lp.states[state]
	n := state
	if !st.matched {
		seeds := []uint32{uint32(lp.p.Start)} // the search may begin at any position
		for _, pc := range st.pcs {
			if in := &lp.p.Inst[pc]; consumes(in, rep) {
				seeds = append(seeds, in.Out)
			}
		}
		pcs, m := lp.closure(seeds, false, false)
		n = lp.intern(pcs, m)
	}
	lp.next[[2]int{state, int(rep)}] = n
	return n
}

// consumes reports whether instruction in reads rune r.
func consumes(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune1:
		return r == in.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	case syntax.InstRune:
		return in.MatchRune(r)
	}
	return false
}

// accepts reports whether a string ending in state matches; empty says it is the empty one.
func (lp *langProg) accepts(state int, empty bool) bool {
	st := lp.states[state]
	if st.matched {
		return true
	}
	_, m := lp.closure(st.pcs, empty, true)
	return m
}

// boundaries adds the first rune of every run of runes lp's instructions treat alike.
func (lp *langProg) boundaries(add func(rune)) {
	for _, in := range lp.p.Inst {
		switch in.Op {
		case syntax.InstRune1:
			add(in.Rune[0])
			add(in.Rune[0] + 1)
		case syntax.InstRuneAnyNotNL:
			add('\n')
			add('\n' + 1)
		case syntax.InstRune:
			if len(in.Rune) == 1 {
				r0 := in.Rune[0]
				add(r0)
				add(r0 + 1)
				if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
					for r := unicode.SimpleFold(r0); r != r0; r = unicode.SimpleFold(r) {
						add(r)
						add(r + 1)
					}
				}
				continue
			}
			for i := 0; i+1 < len(in.Rune); i += 2 {
				add(in.Rune[i])
				add(in.Rune[i+1] + 1)
			}
		}
	}
}

// langSide is one side of a search: its patterns and length bounds.
type langSide struct {
	progs          []*langProg
	minLen, maxLen int // maxLen -1: none
	none           bool
	// negs is how many of progs, the last ones, the side's strings must not match: the
	// strings of its nots of enums.
	negs int
}

// accepts reports whether the side accepts a string of length n ending in states.
func (s *langSide) accepts(states []int, n int) bool {
	if s.none || n < s.minLen || (s.maxLen >= 0 && n > s.maxLen) {
		return false
	}
	for i, lp := range s.progs {
		if lp.accepts(states[i], n == 0) == (i >= len(s.progs)-s.negs) {
			return false
		}
	}
	return true
}

// excluded is a pattern of exactly the strings of s's nots of an enum or a const (each of
// them rejects those strings, whatever else it holds), "" when there are none.
func excluded(s shape) string {
	var alts []string
	for _, n := range s.nots {
		m, _ := n.v.(map[string]any)
		list, hasEnum := m["enum"].([]any)
		if x, ok := m["const"]; ok {
			if hasEnum {
				continue // it rejects the values in both: leave it to evaluation
			}
			list, hasEnum = []any{x}, true
		}
		if !hasEnum || slices.ContainsFunc(slices.Collect(maps.Keys(m)), func(k string) bool {
			return k != "enum" && k != "const" && !accepted(map[string]any{k: m[k]})
		}) {
			continue // a not of more than the values: it rejects fewer strings
		}
		for _, v := range list {
			if x, ok := v.(string); ok {
				alts = append(alts, regexp.QuoteMeta(x))
			}
		}
	}
	if len(alts) == 0 || len(alts) > maxEnumLanguage {
		return ""
	}
	return "^(?:" + strings.Join(alts, "|") + ")$"
}

// langOf builds the side for shape s; ok is false when a pattern is not modelled.
func (c *checker) langOf(s shape) (langSide, bool) {
	side := langSide{minLen: s.minLen, maxLen: s.maxLen}
	for _, src := range s.patterns {
		lp, ok := c.langs[src]
		if !ok {
			c.spend(len(src) * 4)
			lp, ok = compileLang(src)
			if !ok {
				return side, false
			}
			if c.langs == nil {
				c.langs = map[string]*langProg{}
			}
			c.langs[src] = lp
		}
		side.progs = append(side.progs, lp)
	}
	return side, true
}

// langSearch looks for a string a accepts and b rejects (b nil: any string a accepts),
// shortest first; the variant takes a later one when there is one. decided is false when a
// budget ran out, or a pattern is not modelled; then found is false too.
func (c *checker) langSearch(a, b shape, bNone bool) (w string, found, decided bool) {
	return c.langFind(a, b, bNone, false)
}

// langSearchBoth looks for a string both a and b accept (their patterns and lengths).
func (c *checker) langSearchBoth(a, b shape) (w string, found, decided bool) {
	return c.langFind(a, b, false, true)
}

// langFind looks for a string a accepts and that b accepts exactly when wantB.
func (c *checker) langFind(a, b shape, bNone, wantB bool) (w string, found, decided bool) {
	sa, ok := c.langOf(a)
	if !ok {
		return "", false, false
	}
	if p := excluded(a); p != "" {
		// a's strings but those its nots of enums reject: a not of an enum against
		// minLength or a pattern (the strings too short for b are the ones a excludes).
		neg, ok := c.langOf(shape{patterns: []string{p}, maxLen: -1})
		if !ok {
			return "", false, false
		}
		sa.progs, sa.negs = append(sa.progs, neg.progs...), 1
	}
	sb := langSide{none: true}
	if !bNone {
		if sb, ok = c.langOf(b); !ok {
			return "", false, false
		}
	}
	progs := slices.Concat(sa.progs, sb.progs)
	reps, ok := c.runeClasses(progs)
	if !ok {
		return "", false, false
	}
	// Past cap, lengths no longer tell states apart.
	cap := 0
	for _, n := range []int{sa.minLen, sa.maxLen, sb.minLen, sb.maxLen} {
		cap = max(cap, n+1)
	}
	if cap > maxLangLength {
		return "", false, false
	}
	return c.langWalk(sa, sb, progs, reps, cap, wantB)
}

// runeClasses is one representative rune of each class of runes progs all treat alike; ok is
// false past the budget or maxLangClasses.
func (c *checker) runeClasses(progs []*langProg) (_ []rune, ok bool) {
	// The rune classes, without surrogates (no JSON string holds one).
	bounds := []rune{0, 0xD800, 0xE000, unicode.MaxRune + 1}
	for _, lp := range progs {
		lp.boundaries(func(r rune) { bounds = append(bounds, r) })
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	// Runs of runes every instruction treats alike are one class, however far apart (\pL
	// and [a-z] cut the runes into three, not into hundreds).
	var ins []*syntax.Inst
	for _, lp := range progs {
		for i := range lp.p.Inst {
			switch lp.p.Inst[i].Op {
			case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
				ins = append(ins, &lp.p.Inst[i])
			}
		}
	}
	if !c.spend(len(bounds) * (1 + len(ins)) / 8) {
		return nil, false
	}
	var reps []rune
	class := map[string]int{}
	sig := make([]byte, len(ins))
	for i := 0; i+1 < len(bounds); i++ {
		if bounds[i] == 0xD800 {
			continue
		}
		r := representative(bounds[i], bounds[i+1])
		for j, in := range ins {
			sig[j] = '0'
			if consumes(in, r) {
				sig[j] = '1'
			}
		}
		k, seen := class[string(sig)]
		if !seen {
			class[string(sig)] = len(reps)
			reps = append(reps, r)
		} else if nicer(r, reps[k]) {
			reps[k] = r
		}
	}
	if len(reps) > maxLangClasses {
		return nil, false
	}
	return reps, true
}

// langWalk runs progs (sa's, then sb's) side by side over the rune classes reps, breadth
// first, for a string sa accepts and sb accepts exactly when wantB; past cap, states already
// seen are not visited again.
func (c *checker) langWalk(sa, sb langSide, progs []*langProg, reps []rune, cap int, wantB bool) (w string, found, decided bool) {
	type visit struct {
		states []int
		parent int // index in the previous level (or the visit list past cap), -1 at the root
		cls    int
		level  int
	}
	var all []visit // every visit, for the witness's runes
	kb := make([]byte, 0, 4*len(progs))
	key := func(states []int) string {
		kb = kb[:0]
		for _, s := range states {
			kb = append(kb, byte(s), byte(s>>8), byte(s>>16), byte(s>>24))
		}
		return string(kb)
	}
	init := make([]int, len(progs))
	for i, lp := range progs {
		init[i] = lp.initial
	}
	all = append(all, visit{states: init, parent: -1})
	frontier := []int{0}
	late := map[string]bool{} // states seen at or past cap
	skip := c.variant
	var last string
	nA := len(sa.progs)
	for level := 0; len(frontier) > 0; level++ {
		var next []int
		seen := map[string]bool{}
		for _, vi := range frontier {
			v := all[vi]
			if sa.accepts(v.states[:nA], level) && sb.accepts(v.states[nA:], level) == wantB {
				var rs []rune
				for x := vi; all[x].parent >= 0; x = all[x].parent {
					rs = append(rs, reps[all[x].cls])
				}
				slices.Reverse(rs)
				last, found = string(rs), true
				if skip == 0 {
					return last, true, true
				}
				skip--
			}
			if sa.maxLen >= 0 && level >= sa.maxLen {
				continue // a accepts nothing longer
			}
			cost := 0
			for _, lp := range progs {
				cost -= lp.cost
			}
			if !c.spend(2*stepCost+4*len(reps)*len(progs)) || len(all) > maxLangStates {
				return last, found, found
			}
			for cls, rep := range reps {
				st := make([]int, len(progs))
				for i, lp := range progs {
					st[i] = lp.step(v.states[i], rep)
				}
				k := key(st)
				if seen[k] || (level+1 >= cap && late[k]) {
					continue
				}
				seen[k] = true
				if level+1 >= cap {
					late[k] = true
				}
				all = append(all, visit{states: st, parent: vi, cls: cls, level: level + 1})
				next = append(next, len(all)-1)
			}
			for _, lp := range progs {
				cost += lp.cost
			}
			c.spend(2 * cost)
		}
		frontier = next
	}
	return last, found, true
}

// representative picks a readable rune of [lo, hi).
func representative(lo, hi rune) rune {
	for _, r := range "a0A_-. x" {
		if lo <= r && r < hi {
			return r
		}
	}
	if lo < ' ' && hi > ' ' {
		return ' '
	}
	if !utf8.ValidRune(lo) {
		return utf8.RuneError
	}
	return lo
}

// nicer reports whether rune r reads better in a witness than rune q: a letter or digit over
// other printable runes, and those over the rest.
func nicer(r, q rune) bool {
	rank := func(x rune) int {
		switch {
		case x < 0x80 && (unicode.IsLetter(x) || unicode.IsDigit(x)):
			return 0
		case x < 0x80 && unicode.IsPrint(x):
			return 1
		case unicode.IsPrint(x):
			return 2
		}
		return 3
	}
	return rank(r) < rank(q)
}

// langSample builds a string s's patterns and lengths accept (formats aside).
func (c *checker) langSample(s shape) (string, bool) {
	w, found, _ := c.langSearch(s, shape{}, true)
	return w, found && utf8.RuneCountInString(w) <= maxWitnessLength
}
