// Package subset decides whether every value one JSON Schema accepts is accepted by another,
// with a witness value when not.
package subset

// The static subset checker: does every instance a producer's schema accepts also satisfy the
// consumer's? It answers Compatible only from sufficient conditions it can prove keyword by
// keyword, Incompatible only with a witness instance validated against both compiled schemas,
// and Unknown otherwise — so a wrong "compatible" can only come from a bug, never from a
// keyword the checker does not understand.
//
// The approach (after IBM's jsonsubschema, reimplemented here): each side is a conjunction of
// schema nodes, flattened into a per-type shape (types, numeric interval, string lengths,
// object members, array items) with its disjunctions (anyOf/oneOf) kept apart; the producer's
// disjunctions are split, then the shapes are compared per type.

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

// Verdict is the checker's answer.
type Verdict int

const (
	// Unknown means the checker could prove neither answer.
	Unknown Verdict = iota
	// Compatible means every instance a accepts, b accepts.
	Compatible
	// Incompatible means a accepts an instance b rejects: Result.Witness.
	Incompatible
)

func (v Verdict) String() string {
	switch v {
	case Compatible:
		return "compatible"
	case Incompatible:
		return "incompatible"
	}
	return "unknown"
}

// Rules of the seed that a Result names.
const (
	RuleRequired   = "required"   // a field b requires is missing from a
	RuleType       = "type"       // types disagree
	RuleConstraint = "constraint" // a's constraints do not fit within b's
	RuleOptional   = "optional"   // a field a only may emit cannot satisfy b's requirement
)

// Result is the answer of Check.
type Result struct {
	Verdict Verdict
	// Reason is a sentence saying why (empty for Compatible).
	Reason string
	// Path is the JSON Pointer of the instance location where b's demand fails.
	Path string
	// Rule is one of the Rule constants for Incompatible, and the rule that could not be
	// decided for Unknown when there is one.
	Rule string
	// Witness is, for Incompatible, an instance a accepts and b rejects.
	Witness any

	why   reason    // Reason, to be said in another language (ReasonIn)
	names [2]string // what ⟨a⟩ and ⟨b⟩ are called
}

// Limits that keep the checker finite on recursive and adversarial schemas: past them the
// answer is Unknown.
const (
	maxSubsetDepth = 48 // nesting of compared pairs
	// maxSubsetWork is the budget of one Check call, in units of work: a compared pair, an
	// evaluation or a built value costs stepCost; each schema object, keyword, property and
	// enum value flattened or merged costs 1.
	maxSubsetWork = 200000
	// maxSubsetTime bounds one Check call's time as well: work is counted in units whose
	// time varies (a big enum, a long pattern). Past it the budget is spent. It is a
	// backstop, well past what the work budget takes (0.15-0.35 s spent whole on 2 cores at
	// a load of 4; 0.6 s for the slowest pair known), so that the deterministic work budget,
	// not the machine's load, decides an answer; at 200 ms the two were of one size, and an
	// edge was unknown or decided by the load.
	maxSubsetTime = time.Second
	stepCost      = 10
	maxRefHops    = 32 // $ref hops while flattening one conjunction
	maxSplits     = 12 // nested anyOf/oneOf alternatives split along one comparison
	// maxWitnessTries bounds the searches for a counterexample that verifies: each one makes
	// other choices where a value is built (branches, optional members, strings, numbers).
	maxWitnessTries = 8
	maxUnknownTries = 3    // searches for a counterexample when the first one finds none
	formatCost      = 2000 // compiling a format's schema, to evaluate it
)

// Check reports whether every instance a (the producer) accepts is accepted by b (the
// consumer): a ⊆ b. $refs are followed within a document ("#", "#/$defs/…") and into the other
// local documents the compiler loaded ("common.json#/$defs/item"), at most maxRefHops of
// them while flattening one conjunction. A keyword the checker
// does not model makes the answer Unknown when b has it; when a has it, it is dropped —
// every keyword only narrows a schema, so the wider a still proves Compatible soundly — and a
// counterexample that a's dropped keywords reject fails verification, giving Unknown.
func Check(a, b *contract.Schema) Result {
	return CheckNamed(a, b, "a", "b")
}

// CheckNamed is Check with the schemas called nameA and nameB in the reason (their file
// names, say) instead of a and b.
func CheckNamed(a, b *contract.Schema, nameA, nameB string) Result {
	return named(run(roots(a, "a"), b, a.FormatAnnotated(), func() (*contract.Schema, error) { return a, nil }), nameA, nameB)
}

// CheckSource is Check for a producer schema given as a decoded JSON value (numbers as
// json.Number, local $refs only), such as a schema a program builds. compile, which must
// compile src, is called only when a witness has to be verified: most answers need no
// compiled producer, and compiling is the dearest part of a check.
//
// src's format keywords are read as b's are: assertions, or with b compiled under
// contract.Options.AnnotateFormat, annotations (compile must then compile src so too).
func CheckSource(src any, b *contract.Schema, compile func() (*contract.Schema, error)) Result {
	return named(run([]node{{v: src, doc: &contract.Doc{Value: src}, key: "a#"}}, b, b.FormatAnnotated(), compile), "a", "b")
}

// Reasons name the two schemas ⟨a⟩ and ⟨b⟩ until named replaces those with their names.
func named(r Result, nameA, nameB string) Result {
	r.names = [2]string{nameA, nameB}
	r.Reason = r.ReasonIn("en")
	return r
}

func run(as []node, b *contract.Schema, annotatedA bool, compileA func() (*contract.Schema, error)) Result {
	c := &checker{assumed: make(map[string]int), annotated: [2]bool{annotatedA, b.FormatAnnotated()}, deadline: time.Now().Add(maxSubsetTime)}
	r := c.sub(as, roots(b, "b"), 0)
	if r.Verdict == Compatible {
		return Result{Verdict: Compatible}
	}
	if r.Verdict == Unknown && c.work > maxSubsetWork {
		// Whatever part was cut short, that is why there is no answer.
		r.say("the comparison exceeded the checker's budget of %d units of work or %d ms", maxSubsetWork, maxSubsetTime.Milliseconds())
		return r
	}
	if r.Verdict == Unknown {
		// A value that could not be built with the plainest choices may be with others: a
		// few more searches, whose only use is a counterexample (verified below).
		first := r
		for c.variant < maxUnknownTries-1 && c.work <= maxSubsetWork {
			c.variant++
			clear(c.assumed)
			if x := c.sub(as, roots(b, "b"), 0); x.Verdict == Incompatible {
				r = x
				break
			}
		}
		if r.Verdict == Unknown {
			return first
		}
	}
	a, err := compileA()
	if err != nil {
		u := unknown(r.Rule, "⟨a⟩ does not compile: %s", err.Error())
		u.Path = r.Path
		return u
	}
	// The witness is the proof: it must pass a and fail b, or the answer is not given. A
	// candidate that fails (a keyword of a the checker dropped rejects it, or a guess was
	// poor) starts the search again with other choices (c.variant), within the same budget.
	first := r
	var why *reason
	for {
		va, vb := a.Validate(r.Witness, "en"), b.Validate(r.Witness, "en")
		if len(va) == 0 && len(vb) > 0 {
			return r
		}
		if why == nil {
			m := msg("⟨b⟩ accepts it")
			if len(va) > 0 {
				m = msg("⟨a⟩ rejects it (%s)", bilingual{i18n.English: va[0].Message, i18n.Japanese: a.Validate(r.Witness, i18n.Japanese)[0].Message})
			}
			why = &m
		}
		c.variant++
		if c.variant >= maxWitnessTries || c.work > maxSubsetWork {
			break
		}
		clear(c.assumed)
		r = c.sub(as, roots(b, "b"), 0)
		if r.Verdict != Incompatible {
			break
		}
	}
	u := unknown(first.Rule, "a counterexample was built but did not verify: %s", *why)
	if len(c.ignored) > 0 {
		u = unknown(first.Rule, "a counterexample was built but did not verify: %s; ⟨a⟩'s keywords not modelled: %s", *why, strings.Join(c.ignored, ", "))
	}
	u.Path = first.Path
	return u
}

// node is one schema value (bool or object) with the document its $refs resolve in.
type node struct {
	v any
	// doc is shared by the nodes of one document (nil for a value written by the checker,
	// whose $refs resolve nowhere): a pointer keeps the many nodes a check makes small.
	doc *contract.Doc
	// key names the value for the coinductive assumption: side, document and pointer
	// ("a file:///…/dag.json#/properties/x"; "a via file:///…/common.json#/$defs/item" for a
	// document reached by a $ref; "a#/…" for one with no URL), so that two files with the same
	// pointer never alias.
	key string
	// d is the draft of the resource n is in, doc's value being that resource: zero until
	// flatten enters n's document and reads its $schema (dialect.go's enter).
	d dialect
}

// roots is the conjunction a Schema stands for: its source, or an effective schema's parts,
// each its own document.
func roots(s *contract.Schema, side string) []node {
	docs := s.Docs()
	out := make([]node, len(docs))
	for i, d := range docs {
		prefix := side
		if len(docs) > 1 {
			prefix = fmt.Sprintf("%s%d", side, i)
		}
		out[i] = node{v: d.Value, doc: &docs[i], key: docKey(prefix, d.URL)}
	}
	return out
}

// docKey is the key of document u's root on a side.
func docKey(side, u string) string {
	if u == "" {
		return side + "#"
	}
	return side + " " + u + "#"
}

// child is the subschema of n under the given keyword path.
func (n node) child(v any, tokens ...string) node {
	k := n.key
	for _, t := range tokens {
		k += "/" + contract.EscapeToken(t)
	}
	return node{v: v, doc: n.doc, key: k, d: n.d}
}

// synthetic is a schema the checker writes in n's place (if/then/else as alternatives, say):
// its $refs resolve in n's document, and name names it among n's keywords.
func (n node) synthetic(v any, name string) node {
	return node{v: v, doc: n.doc, key: n.key + "/" + name, d: n.d}
}

// resolve finds a $ref's target: in n's resource ("#/$defs/x"), or in another local document
// the compiler loaded ("common.json#/$defs/item", see contract.Doc.Resolve); ok is false for
// anything else (an anchor, a remote or unloaded document), and for a pointer that passes
// through an embedded resource (whose draft and base may differ).
func (n node) resolve(ref string) (node, bool) {
	if n.doc == nil {
		return node{}, false
	}
	t, in, ok := n.doc.Resolve(ref)
	if !ok {
		return node{}, false
	}
	if _, ok := t.(map[string]any); !ok {
		if _, ok := t.(bool); !ok {
			return node{}, false
		}
	}
	_, frag, _ := strings.Cut(ref, "#")
	frag = contract.FragmentPointer(frag)
	prefix, _, _ := strings.Cut(n.key, "#")
	doc, d := n.doc, n.d
	if in.URL != n.doc.URL {
		side, _, _ := strings.Cut(prefix, " ")
		// "via" marks a document reached by a $ref, not one a check starts from.
		prefix = strings.TrimRightFunc(side, unicode.IsDigit) + " via " + in.URL
		doc, d = &in, 0 // another document: enter reads its $schema
	}
	v := doc.Value
	for i, tok := range contract.PointerTokens(frag) {
		if m, ok := v.(map[string]any); ok && i > 0 && d.embedded(m) {
			return node{}, false
		}
		v, _ = contract.Lookup(v, []string{tok})
	}
	return node{v: t, doc: doc, key: prefix + "#" + frag, d: d}, true
}

// conjKey names a conjunction for the coinductive assumption, independent of order.
func conjKey(ns []node) string {
	keys := make([]string, len(ns))
	for i, n := range ns {
		keys[i] = n.key
	}
	slices.Sort(keys)
	return strings.Join(slices.Compact(keys), "&")
}

// Named is r with the schemas called nameA and nameB in its reason, for a caller that
// knows better names than CheckSource's a and b.
func (r Result) Named(nameA, nameB string) Result {
	return named(r, nameA, nameB)
}
