package lint

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/internal/i18n"
)

// lintText writes lint messages in its language, through the i18n catalog (catalog_lint.go
// holds the Japanese). Codes, field names, node ids, JSON values and the checker's own
// reasons stay as they are in both languages.
type lintText struct{ lang i18n.Lang }

func newLintText(lang i18n.Lang) lintText { return lintText{lang: lang} }

// whyCode says why an arriving value is only partly known.
type whyCode uint8

const (
	whyNotPlain        whyCode = iota // arg: the expression
	whyCELType                        // arg: the expression, arg2: the JSON type CEL gives it
	whyInterp                         // an interpolated string
	whyMixedList                      // a list of differently shaped elements
	whyNoSchema                       // arg: the node without a known output schema
	whyNotStatic                      // arg: the root (item, index, run)
	whyUndeclared                     // a path the producer does not declare
	whyRef                            // a $ref the linter cannot follow
	whyPatternProps                   // patternProperties are not followed
	whyKeyword                        // arg: a keyword not followed
	whyElements                       // a foreach list's schema constrains its elements in a way not followed
	whyUnknownTemplate                // should not happen
)

// why is the reason an arriving value is only partly known.
type why struct {
	code      whyCode
	arg, arg2 string
}

func (t lintText) why(w why) string {
	l := t.lang
	switch w.code {
	case whyNotPlain:
		return i18n.Sprintf(l, "the expression %q is not a plain path", w.arg)
	case whyCELType:
		return i18n.Sprintf(l, "CEL knows only that %q gives %s", w.arg, typeWord(l, w.arg2))
	case whyInterp:
		return i18n.Sprintf(l, "an interpolated string is only known to be a string")
	case whyMixedList:
		return i18n.Sprintf(l, "the list mixes elements of different shapes")
	case whyNoSchema:
		return i18n.Sprintf(l, "%s has no known output schema", w.arg)
	case whyNotStatic:
		return i18n.Sprintf(l, "%s is not known statically", w.arg)
	case whyUndeclared:
		return i18n.Sprintf(l, "the path is undeclared")
	case whyRef:
		return i18n.Sprintf(l, "it uses a $ref seam cannot follow")
	case whyPatternProps:
		return i18n.Sprintf(l, "patternProperties are not followed")
	case whyKeyword:
		return i18n.Sprintf(l, "keyword %s is not followed", w.arg)
	case whyElements:
		return i18n.Sprintf(l, "the foreach list's schema constrains its elements in a way not followed")
	}
	return i18n.Sprintf(l, "an unknown template")
}

// typeWord names a JSON type in a sentence: "an integer" in English, 整数 in Japanese; null
// and types seam has no word for stay as they are in Japanese.
func typeWord(l i18n.Lang, t string) string {
	switch t {
	case "null":
		return t
	case "boolean":
		return i18n.Sprintf(l, "a boolean")
	case "integer":
		return i18n.Sprintf(l, "an integer")
	case "number":
		return i18n.Sprintf(l, "a number")
	case "string":
		return i18n.Sprintf(l, "a string")
	case "array":
		return i18n.Sprintf(l, "an array")
	case "object":
		return i18n.Sprintf(l, "an object")
	}
	return i18n.Sprintf(l, "a %s", t)
}

// kindOf names a value's JSON type: "a number" in English, 数値 in Japanese.
func (t lintText) kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return typeWord(t.lang, "boolean")
	case string:
		return typeWord(t.lang, "string")
	case map[string]any:
		return typeWord(t.lang, "object")
	case []any:
		return typeWord(t.lang, "array")
	}
	return typeWord(t.lang, "number")
}

// place is what a check compares the arriving value with.
type place struct {
	node   string // the consumer
	isWith bool   // the node's `with` against its type's config schema
	typ    string // the node's type, for `with`
	dflt   bool   // the default input (upstream outputs keyed by id)
	form   bool   // an approval's prefill against its form
	// trigger: a trigger's params against the DAG's params schema; node is the trigger's id.
	// (Its incompatible findings are worded in lint_triggers.go; the unknown ones name it.)
	trigger bool
}

// contract names the schema: "c's contract.input" or "c's configuration (type exec)".
func (t lintText) contract(p place) string {
	switch {
	case p.trigger:
		return i18n.Sprintf(t.lang, "the params schema (for trigger %s)", p.node)
	case p.isWith:
		return i18n.Sprintf(t.lang, "%s's configuration (the %s config schema)", p.node, p.typ)
	case p.form:
		return i18n.Sprintf(t.lang, "%s's form", p.node)
	}
	return i18n.Sprintf(t.lang, "%s's contract.input", p.node)
}

// its names where the value comes from: "its input" or "its with".
func (t lintText) its(p place) string {
	switch {
	case p.isWith:
		return i18n.Sprintf(t.lang, "its with")
	case p.form:
		return i18n.Sprintf(t.lang, "its prefill")
	case p.dflt:
		return i18n.Sprintf(t.lang, "its input (its upstream outputs keyed by id)")
	}
	return i18n.Sprintf(t.lang, "its input")
}

func (t lintText) quoteField(f string) string {
	if f == "" {
		return i18n.Sprintf(t.lang, "its input")
	}
	return "'" + f + "'"
}

func (t lintText) fieldOrValue(f string) string {
	if f == "" {
		return i18n.Sprintf(t.lang, "the value")
	}
	return "'" + f + "'"
}

func (t lintText) edgeUnknown(edge, rest string) string {
	return i18n.Sprintf(t.lang, "edge %s: UNKNOWN — %s", edge, rest)
}

func (t lintText) edgeIncompatible(edge, rest string) string {
	return i18n.Sprintf(t.lang, "edge %s: INCOMPATIBLE — %s", edge, rest)
}

func (t lintText) notCompiled(err error) string {
	return i18n.Sprintf(t.lang, "the arriving value's schema does not compile: %v", err)
}

func (t lintText) partlyKnown(field string, p place, w why) string {
	return i18n.Sprintf(t.lang, "%s may not fit %s, but the arriving value is only partly known (%s).",
		t.fieldOrValue(field), i18n.Inline(t.lang, t.contract(p)), t.why(w))
}

// cannotProve says why the checker could not decide whether the field fits; res's reason
// is said with the two schemas named: what producers hand on, and the consumer's contract.
func (t lintText) cannotProve(field string, p place, producers []string, res subset.Result) string {
	f, c := t.fieldOrValue(field), i18n.Inline(t.lang, t.contract(p))
	reason := res.Named(t.handedOn(producers), t.contract(p)).ReasonIn(t.lang)
	if reason == "" {
		return i18n.Sprintf(t.lang, "cannot prove that %s fits %s.", f, c)
	}
	return i18n.Sprintf(t.lang, "cannot prove that %s fits %s: %s.", f, c, reason)
}

// handedOn names the value producers hand on, as the subject of a checker's reason.
func (t lintText) handedOn(producers []string) string {
	if len(producers) == 0 {
		return i18n.Sprintf(t.lang, "the value")
	}
	return i18n.Sprintf(t.lang, "what %s hands on", t.and(producers))
}

// missing: the consumer requires a field its input or with mapping lacks.
func (t lintText) missing(field string, p place) (msg, hint string) {
	q := t.quoteField(field)
	msg = i18n.Sprintf(t.lang, "%s requires %s but %s does not provide it.", p.node, q, i18n.Inline(t.lang, t.its(p)))
	switch {
	case p.dflt:
		return msg, i18n.Sprintf(t.lang, "give %s an input that provides %s.", p.node, q)
	case p.isWith:
		return msg, i18n.Sprintf(t.lang, "add %s to %s's with.", q, p.node)
	}
	return msg, i18n.Sprintf(t.lang, "add %s to %s's input.", q, p.node)
}

func (t lintText) required(field, who string, p place) (msg, hint string) {
	q := t.quoteField(field)
	return i18n.Sprintf(t.lang, "%s requires %s but %s does not produce it.", p.node, q, who),
		i18n.Sprintf(t.lang, "add %s to %s, or put a transform node between them.", q, i18n.InlineStart(t.lang, t.outContract(who)))
}

func (t lintText) optional(field, who string, p place) (msg, hint string) {
	q := t.quoteField(field)
	return i18n.Sprintf(t.lang, "%s requires %s but %s only may produce it.", p.node, q, who),
		i18n.Sprintf(t.lang, "make %s required in %s, or put a transform node between them.", q, i18n.InlineStart(t.lang, t.outContract(who)))
}

func (t lintText) typeMismatch(field, who string, v any, p place) (msg, hint string) {
	f := t.fieldOrValue(field)
	return i18n.Sprintf(t.lang, "%s may produce %s for %s, a type %s does not accept.", who, t.kindOf(v), f, p.node),
		i18n.Sprintf(t.lang, "make the types of %s agree in both contracts, or put a transform node between them.", f)
}

func (t lintText) constraint(field, who string, v any, p place) (msg, hint string) {
	f := t.fieldOrValue(field)
	msg = i18n.Sprintf(t.lang, "%s may produce %s for %s, which %s's constraints reject.", who, clipJSON(v), f, p.node)
	out, c := i18n.InlineStart(t.lang, t.outContract(who)), i18n.Inline(t.lang, t.contract(p))
	if p.isWith {
		return msg, i18n.Sprintf(t.lang, "narrow %s in %s to fit %s.", f, out, c)
	}
	return msg, i18n.Sprintf(t.lang, "narrow %s in %s to fit %s, or widen that contract.", f, out, c)
}

// outContract names the schema a producer's value is promised by: a node's output contract,
// or the params schema.
func (t lintText) outContract(who string) string {
	if who == "params" {
		return i18n.Sprintf(t.lang, "the params schema")
	}
	return i18n.Sprintf(t.lang, "%s's output contract", who)
}

// clipJSON is a value's JSON for a message, cut to a readable length (the witness keeps it
// whole).
func clipJSON(v any) string {
	const limit = 80
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if r := []rune(string(b)); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return string(b)
}

// undeclared: a reference to a path the producer's schema (named by label, e.g. outContract's) forbids.
func (t lintText) undeclared(full, label, path string) (msg, hint string) {
	label = i18n.InlineStart(t.lang, label)
	return i18n.Sprintf(t.lang, "%s: %s does not declare %s", full, label, path),
		i18n.Sprintf(t.lang, "declare it in %s, or reference a field it declares.", label)
}

// near adds "did you mean" to a message about a path not declared, where near (a path
// under root) is a declared one close to it; it returns the message and hint unchanged when
// near is "".
func (t lintText) near(near, root string) func(msg, hint string) (string, string) {
	return func(msg, hint string) (string, string) {
		if near == "" {
			return msg, hint
		}
		full := root + "." + near
		return i18n.Sprintf(t.lang, "%s; did you mean %s?", msg, full), i18n.Sprintf(t.lang, "write %s, or %s", full, hint)
	}
}

// loose: a reference to a member the producer's schema (named by label) does not declare but allows.
func (t lintText) loose(full, label, path string) (msg, hint string) {
	label = i18n.InlineStart(t.lang, label)
	return i18n.Sprintf(t.lang, "%s: %s does not declare %s (it allows other fields, so it may be there)", full, label, path),
		i18n.Sprintf(t.lang, "declare it in %s, or correct the reference.", label)
}

// Hygiene warnings.

func (t lintText) noContract(node, readers string) (msg, hint string) {
	return i18n.Sprintf(t.lang, "node %s has no output contract beyond the standard one, but %s read its output.", node, readers),
		i18n.Sprintf(t.lang, "declare the fields it hands on in contract.output: seam runs output RUN %s > sample.json saves what it handed on in a run, and seam schema infer sample.json drafts the contract from such samples.", node)
}

func (t lintText) content(node, field, what string) (msg, hint string) {
	return i18n.Sprintf(t.lang, "node %s's contract.output constrains content, not structure: %s has %s.", node, t.fieldOrValue(field), what),
		i18n.Sprintf(t.lang, "constrain the shape (types, required fields, enums), not wording that varies from run to run.")
}

func (t lintText) allRequired(node, field string, n int, unread []string) (msg, hint string) {
	at := i18n.Sprintf(t.lang, "its output")
	if field != "" {
		at = "'" + field + "'"
	}
	return i18n.Sprintf(t.lang, "node %s's contract.output requires all %d fields of %s, but no consumer reads %s.", node, n, at, strings.Join(unread, ", ")),
		i18n.Sprintf(t.lang, "require only what consumers need; make the rest optional.")
}

// Foreach lists.

// who names producers in a sentence: "p", "p and q", or "the expression" when there are none.
func (t lintText) who(ps []string) string {
	if len(ps) == 0 {
		return i18n.Sprintf(t.lang, "the expression")
	}
	return t.and(ps)
}

// and joins names: "p and q".
func (t lintText) and(ps []string) string { return strings.Join(ps, i18n.Sprintf(t.lang, " and ")) }

// notList: what a foreach list's producers guarantee is never a list.
func (t lintText) notList(node, src, who string, v any) (msg, hint string) {
	return i18n.Sprintf(t.lang, "%s runs once per item of ${{ %s }}, but %s produces %s there, never a list.", node, src, who, t.kindOf(v)),
		i18n.Sprintf(t.lang, "reference a list in foreach, or make it one in %s.", i18n.InlineStart(t.lang, t.outContract(who)))
}

// mayNotList: a foreach list's producers may deliver something else than a list.
func (t lintText) mayNotList(node, src, who string, v any) (msg, hint string) {
	return i18n.Sprintf(t.lang, "%s runs once per item of ${{ %s }}, but %s may produce %s there, which is not a list (the run fails).", node, src, who, clipJSON(v)),
		i18n.Sprintf(t.lang, "narrow it to an array in %s.", i18n.InlineStart(t.lang, t.outContract(who)))
}

// mayBeAbsent: a foreach list's producers only may deliver it.
func (t lintText) mayBeAbsent(node, src, who string) (msg, hint string) {
	return i18n.Sprintf(t.lang, "%s runs once per item of ${{ %s }}, but %s only may produce it (the run fails without it).", node, src, who),
		i18n.Sprintf(t.lang, "make it required in %s.", i18n.InlineStart(t.lang, t.outContract(who)))
}

func (t lintText) cannotProveList(src string, producers []string, res subset.Result) string {
	reason := res.Named(t.handedOn(producers), i18n.Sprintf(t.lang, "a list")).ReasonIn(t.lang)
	return i18n.Sprintf(t.lang, "cannot prove that ${{ %s }} is a list: %s.", src, reason)
}

// undeclaredItem: a reference to a path of item that the foreach list's elements forbid.
func (t lintText) undeclaredItem(node, path string) (msg, hint string) {
	return i18n.Sprintf(t.lang, "item.%s: the elements of %s's foreach list do not declare %s", path, node, path),
		i18n.Sprintf(t.lang, "reference a field the elements declare, or declare it where the list comes from.")
}

func (t lintText) looseItem(node, path string) (msg, hint string) {
	return i18n.Sprintf(t.lang, "item.%s: the elements of %s's foreach list do not declare %s (they allow other fields, so it may be there)", path, node, path),
		i18n.Sprintf(t.lang, "declare it where the list comes from, or correct the reference.")
}

// What a contract's declared draft ignores (lint_drafts.go).

func (t lintText) contractWhat(node, side string) string {
	return i18n.Sprintf(t.lang, "node %s's contract.%s", node, side)
}

func (t lintText) paramsWhat() string { return i18n.Sprintf(t.lang, "the params schema") }

func (t lintText) undefinedKeyword(what string, ig subset.Ignored) (msg, hint string) {
	k := ig.Keywords[0]
	msg = i18n.Sprintf(t.lang, "%s uses %s at %s, which %s does not define: validation ignores it.", what, k, ig.Pointer, ig.Draft)
	switch {
	case k == "$defs":
		hint = i18n.Sprintf(t.lang, "declare \"$schema\": %q, or rename it definitions (a $ref to #/$defs/… still resolves as a JSON pointer, but %s reads nothing under $defs as a schema).", ig.Since, ig.Draft)
	case ig.Since == "":
		hint = i18n.Sprintf(t.lang, "write it as %s does: the items after prefixItems are items.", ig.Draft)
	default:
		hint = i18n.Sprintf(t.lang, "declare a draft that defines it: \"$schema\": %q.", ig.Since)
	}
	return msg, hint
}

func (t lintText) besideRef(what string, ig subset.Ignored) (msg, hint string) {
	at := ig.Pointer
	if at == "" {
		at = "/"
	}
	return i18n.Sprintf(t.lang, "%s writes %s beside the $ref at %s, which %s ignores: the object is the $ref alone.", what, strings.Join(ig.Keywords, ", "), at, ig.Draft),
		i18n.Sprintf(t.lang, "move them into an allOf with the $ref, or declare \"$schema\": \"https://json-schema.org/draft/2019-09/schema\" or later.")
}

func (t lintText) schemaNotAtRoot(what string, ig subset.Ignored) (msg, hint string) {
	return i18n.Sprintf(t.lang, "%s declares $schema at %s, below a resource's root: %s ignores it there.", what, ig.Pointer, ig.Draft),
		i18n.Sprintf(t.lang, "give that schema an %s to make it a resource of its own, or remove the $schema.", ig.ID)
}
