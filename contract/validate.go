package contract

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/seam-dag/seam/internal/i18n"
)

// maxValue is how much of an offending value a Violation quotes.
const maxValue = 120

// Validate checks v (a decoded JSON value, see ParseJSON and Normalize) and returns its
// violations, none when v is valid. Messages are in lang: "ja", else English.
//
// Violations come in the order of the specification's flow: required fields, then types, then
// enum and other constraints, then the same for nested objects — precisely, by the depth of
// the object owning the check, then that kind of check, then instance location.
func (s *Schema) Validate(v any, lang i18n.Lang) []Violation {
	return s.validate(v, newPrinter(lang, wholeOutput))
}

// ValidateInput is Validate for a node's input (contract.input): messages about the value as a
// whole speak of "the input" / "入力", not of the output.
func (s *Schema) ValidateInput(v any, lang i18n.Lang) []Violation {
	return s.validate(v, newPrinter(lang, wholeInput))
}

// ValidateParams is Validate for a run's params (the DAG's params schema): messages about the
// value as a whole speak of "the params object" / "パラメーター".
func (s *Schema) ValidateParams(v any, lang i18n.Lang) []Violation {
	return s.validate(v, newPrinter(lang, wholeParams))
}

func (s *Schema) validate(v any, p printer) []Violation {
	var all []found
	if s.members == nil {
		all = s.violations(v, p, "")
	} else {
		// As an allOf of the parts: each part's violations under /allOf/N.
		for i, m := range s.members {
			all = append(all, m.violations(v, p, "/allOf/"+strconv.Itoa(i))...)
		}
	}
	if len(all) == 0 {
		return nil
	}
	f := flattener{found: all}
	slices.SortStableFunc(f.found, func(a, b found) int {
		return cmp.Or(
			cmp.Compare(a.owner, b.owner),
			cmp.Compare(a.check, b.check),
			comparePointers(a.tokens, b.tokens),
			strings.Compare(a.v.Keyword, b.v.Keyword),
		)
	})
	out := make([]Violation, 0, len(f.found))
	seen := make(map[[2]string]bool, len(f.found))
	for _, x := range f.found {
		// Parts of an effective schema often ask the same (status required by both).
		if k := [2]string{x.v.Pointer, x.v.Message}; !seen[k] {
			seen[k] = true
			out = append(out, x.v)
		}
	}
	return out
}

// violations validates v against s alone, its keywords' evaluation paths under kwLoc.
func (s *Schema) violations(v any, p printer, kwLoc string) []found {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	f := flattener{s: s, root: v, p: p}
	if ve, ok := err.(*jsonschema.ValidationError); ok {
		f.walk(ve, "", kwLoc)
	} else {
		// jsonschema returns nothing else today; say it rather than panic if that changes.
		f.found = append(f.found, found{v: Violation{Message: f.p.other("", err.Error())}})
	}
	return f.found
}

// check ranks kinds of checks on one object, in the specification's order.
const (
	checkRequired = iota
	checkType
	checkConstraint
)

type found struct {
	v      Violation
	tokens []string // of v.Pointer
	owner  int      // depth of the object owning the check: -1 for the root value itself
	check  int
}

// flattener turns jsonschema's error tree into Violations: wrappers (allOf, $ref, groups)
// vanish, and each leaf becomes a Violation with its keyword's evaluation path.
type flattener struct {
	s     *Schema
	root  any
	p     printer
	found []found
}

// walk visits e; schemaURL and kwLoc are the parent's absolute location and evaluation path
// (as URL fragment text), as jsonschema's own output format computes them.
func (f *flattener) walk(e *jsonschema.ValidationError, schemaURL, kwLoc string) {
	ref, isRef := e.ErrorKind.(*kind.Reference)
	if schemaURL != "" {
		if rest, ok := strings.CutPrefix(e.SchemaURL, schemaURL); ok {
			kwLoc += rest
		}
		// An effective schema's /allOf/N/$ref hop only points at the part: hide it.
		if isRef && !(f.s.effective && isAllOfItem(kwLoc)) {
			kwLoc += "/" + EscapeToken(ref.Keyword)
		}
	}
	schemaURL = e.SchemaURL
	if isRef {
		schemaURL = ref.URL
	}

	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			f.walk(c, schemaURL, kwLoc)
		}
	case *kind.AnyOf, *kind.OneOf:
		if o, ok := k.(*kind.OneOf); ok && len(o.Subschemas) > 0 {
			f.emit(e, kwLoc, "oneOf")
			return
		}
		f.alternatives(e, schemaURL, kwLoc)
	case *kind.Required:
		for _, name := range k.Missing {
			f.missing(e, kwLoc+"/required", name, "")
		}
	case *kind.DependentRequired:
		for _, name := range k.Missing {
			f.missing(e, kwLoc+pointer([]string{"dependentRequired", k.Prop}), name, k.Prop)
		}
	case *kind.Dependency:
		for _, name := range k.Missing {
			f.missing(e, kwLoc+pointer([]string{"dependencies", k.Prop}), name, k.Prop)
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			tokens := append(slices.Clip(e.InstanceLocation), name)
			val, field := f.locate(tokens)
			f.add(tokens, keyword(kwLoc+"/additionalProperties"), Excerpt(val), f.p.notAllowed(field), checkConstraint)
		}
	default:
		// A leaf, or a kind whose causes only say why each item or alternative failed
		// (contains, contentSchema): one violation either way.
		f.emit(e, kwLoc, "")
	}
}

// alternatives reports a failed anyOf or oneOf. When every alternative failed on its type, one
// type violation lists them all; when all but one did, that one is what the value was meant to
// be and its failures say what is wrong; otherwise a single violation at the anyOf/oneOf.
func (f *flattener) alternatives(e *jsonschema.ValidationError, schemaURL, kwLoc string) {
	kw := "anyOf"
	if _, ok := e.ErrorKind.(*kind.OneOf); ok {
		kw = "oneOf"
	}
	var want []string
	var got string
	var other []*jsonschema.ValidationError
	for _, c := range e.Causes {
		t := onlyType(c)
		if t == nil {
			other = append(other, c)
			continue
		}
		got = t.Got
		for _, w := range t.Want {
			if !slices.Contains(want, w) {
				want = append(want, w)
			}
		}
	}
	switch {
	case len(other) == 0 && len(want) > 0:
		val, field := f.locate(e.InstanceLocation)
		f.add(e.InstanceLocation, keyword(kwLoc+"/"+kw), Excerpt(val), f.p.typeMismatch(field, want, got), checkType)
	case len(other) == 1:
		f.walk(other[0], schemaURL, kwLoc)
	default:
		f.emit(e, kwLoc, kw)
	}
}

// onlyType returns the type mismatch e amounts to, if that is all it is.
func onlyType(e *jsonschema.ValidationError) *kind.Type {
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return k
	case *kind.Reference, *kind.AllOf:
		if len(e.Causes) == 1 {
			return onlyType(e.Causes[0])
		}
	}
	return nil
}

// isAllOfItem tells whether a fragment is exactly /allOf/N.
func isAllOfItem(frag string) bool {
	n, ok := strings.CutPrefix(frag, "/allOf/")
	if !ok || n == "" {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

// missing reports a required member name absent from the object at e; present is the member
// whose presence requires it, for dependentRequired.
func (f *flattener) missing(e *jsonschema.ValidationError, kwLoc, name, present string) {
	_, parent := f.locate(e.InstanceLocation)
	tokens := append(slices.Clip(e.InstanceLocation), name)
	field := join(parent, name)
	msg := f.p.required(parent, name)
	if present != "" {
		msg = f.p.dependentRequired(field, join(parent, present))
	}
	f.add(tokens, keyword(kwLoc), "", msg, checkRequired)
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// emit reports e as one violation at its instance location; kw is the keyword jsonschema's kind
// names ("" for its own KeywordPath).
func (f *flattener) emit(e *jsonschema.ValidationError, kwLoc, kw string) {
	if k, ok := e.ErrorKind.(*kind.PropertyNames); ok {
		e.InstanceLocation = nameOwner(f.root, e.InstanceLocation, k.Property)
	}
	val, field := f.locate(e.InstanceLocation)
	var msg string
	check := checkConstraint
	value := Excerpt(val)
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		msg, check = f.p.typeMismatch(field, f.types(e, k), k.Got), checkType
	case *kind.Enum:
		msg = f.p.enum(field, displayAll(k.Want))
	case *kind.Const:
		msg = f.p.constant(field, display(k.Want))
	case *kind.Format:
		msg = f.p.format(field, k.Want)
	case *kind.MinLength:
		msg = f.p.minLength(field, k.Want)
	case *kind.MaxLength:
		msg = f.p.maxLength(field, k.Want)
	case *kind.Pattern:
		msg = f.p.pattern(field, k.Want)
	case *kind.Minimum:
		msg = f.p.bound(field, "≥", f.number(e, "minimum", k.Want))
	case *kind.Maximum:
		msg = f.p.bound(field, "≤", f.number(e, "maximum", k.Want))
	case *kind.ExclusiveMinimum:
		msg = f.p.bound(field, ">", f.number(e, "exclusiveMinimum", k.Want))
	case *kind.ExclusiveMaximum:
		msg = f.p.bound(field, "<", f.number(e, "exclusiveMaximum", k.Want))
	case *kind.MultipleOf:
		msg = f.p.multipleOf(field, f.number(e, "multipleOf", k.Want))
	case *kind.MinItems:
		msg = f.p.minItems(field, k.Want)
	case *kind.MaxItems:
		msg = f.p.maxItems(field, k.Want)
	case *kind.UniqueItems:
		msg = f.p.uniqueItems(field, k.Duplicates[0], k.Duplicates[1])
	case *kind.AdditionalItems:
		msg = f.p.additionalItems(field, k.Count)
	case *kind.Contains:
		msg = f.p.contains(field)
	case *kind.MinContains:
		msg = f.p.minContains(field, k.Want, len(k.Got))
	case *kind.MaxContains:
		msg = f.p.maxContains(field, k.Want, len(k.Got))
	case *kind.MinProperties:
		msg = f.p.minProperties(field, k.Want)
	case *kind.MaxProperties:
		msg = f.p.maxProperties(field, k.Want)
	case *kind.PropertyNames:
		msg, value = f.p.propertyName(field, k.Property), Excerpt(k.Property)
	case *kind.FalseSchema:
		msg = f.p.notAllowed(field)
	case *kind.Not:
		msg = f.p.not(field)
		kw = "not"
	case *kind.AnyOf:
		msg = f.p.anyOf(field)
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			msg = f.p.oneOfMany(field, k.Subschemas[0], k.Subschemas[1])
		} else {
			msg = f.p.oneOfNone(field)
		}
	case *kind.ContentEncoding:
		msg = f.p.contentEncoding(field, k.Want)
	case *kind.ContentMediaType:
		msg = f.p.contentMediaType(field, k.Want)
	case *kind.ContentSchema:
		msg = f.p.contentSchema(field)
	case *kind.RefCycle:
		_, frag := splitURL(k.URL)
		msg = f.p.refCycle(field, "#"+FragmentPointer(frag))
	case *kind.InvalidJsonValue:
		msg = f.p.invalidValue(field, k.Value)
	default:
		msg = f.p.other(field, e.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
	}
	kwPath := kwLoc + pointer(e.ErrorKind.KeywordPath())
	if kw != "" {
		kwPath = kwLoc + "/" + kw
	} else if _, ok := e.ErrorKind.(*kind.PropertyNames); ok {
		kwPath = kwLoc // jsonschema reports it at the propertyNames subschema already
	}
	f.add(e.InstanceLocation, keyword(kwPath), value, msg, check)
}

func (f *flattener) add(tokens []string, kw, value, msg string, check int) {
	f.found = append(f.found, found{
		v:      Violation{Pointer: pointer(tokens), Keyword: kw, Value: value, Message: msg},
		tokens: tokens,
		owner:  len(tokens) - 1,
		check:  check,
	})
}

// nameOwner is where in root the object holding the property name lies, given tokens, where
// jsonschema says it lies. jsonschema v6 reports a propertyNames error with its validator's
// location slice itself, not a copy, and the validators of sibling properties share its
// backing array: one validated later can overwrite any of its tokens. When the object at
// tokens has no such name, the place is the object at the same depth that has it and shares
// the most tokens with what was reported (the first in key order among equals).
func nameOwner(root any, tokens []string, name string) []string {
	tokens = slices.Clone(tokens)
	v, _ := Lookup(root, tokens)
	if obj, ok := v.(map[string]any); ok {
		if _, has := obj[name]; has {
			return tokens
		}
	}
	best, score := tokens, -1
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		if len(path) == len(tokens) {
			if obj, ok := v.(map[string]any); ok {
				if _, has := obj[name]; has {
					n := 0
					for i := range path {
						if path[i] == tokens[i] {
							n++
						}
					}
					if n > score {
						best, score = slices.Clone(path), n
					}
				}
			}
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], append(path, k))
			}
		case []any:
			for i, e := range x {
				walk(e, append(path, strconv.Itoa(i)))
			}
		}
	}
	walk(root, nil)
	return best
}

// keyword turns an evaluation path in URL fragment form into a JSON Pointer.
func keyword(frag string) string { return FragmentPointer(frag) }

// locate finds the value at tokens and names it as messages do: metadata.cost, items[0].
func (f *flattener) locate(tokens []string) (any, string) {
	v := f.root
	var b strings.Builder
	for _, t := range tokens {
		switch x := v.(type) {
		case []any:
			b.WriteString("[" + t + "]")
			if i, err := strconv.Atoi(t); err == nil && i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		case map[string]any:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(t)
			v = x[t]
		default:
			// A property name checked by propertyNames has no value of its own.
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(t)
			v = nil
		}
	}
	return v, b.String()
}

// number quotes the bound of keyword kw as the schema wrote it (1.0 stays "1.0"), falling back
// to the exact value jsonschema compared against.
func (f *flattener) number(e *jsonschema.ValidationError, kw string, r *big.Rat) string {
	if n, ok := f.schemaValue(e, kw).(json.Number); ok {
		return n.String()
	}
	return ratText(r)
}

// types lists the wanted types in the schema's order; jsonschema sorts them its own way.
func (f *flattener) types(e *jsonschema.ValidationError, k *kind.Type) []string {
	list, ok := f.schemaValue(e, "type").([]any)
	if !ok || len(list) != len(k.Want) {
		return k.Want
	}
	out := make([]string, len(list))
	for i, t := range list {
		if out[i], ok = t.(string); !ok {
			return k.Want
		}
	}
	return out
}

// schemaValue is the value of keyword kw in the schema that reported e, nil if not found.
func (f *flattener) schemaValue(e *jsonschema.ValidationError, kw string) any {
	doc, frag := splitURL(e.SchemaURL)
	return ValueAt(f.s.docs.get(doc), FragmentPointer(frag)+"/"+EscapeToken(kw))
}

func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// display writes an enum or const value: strings bare, other values as JSON.
func display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Excerpt(v)
}

func displayAll(vs []any) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = display(v)
	}
	return out
}

// Excerpt is v as compact JSON, cut to about 120 bytes, as a Violation shows a value.
func Excerpt(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	s := ""
	if err := enc.Encode(v); err != nil {
		s = fmt.Sprint(v)
	} else {
		s = strings.TrimSuffix(buf.String(), "\n")
	}
	if len(s) <= maxValue {
		return s
	}
	cut := maxValue
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// comparePointers orders instance locations token by token, array indexes numerically.
func comparePointers(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		x, errX := strconv.Atoi(a[i])
		y, errY := strconv.Atoi(b[i])
		if errX == nil && errY == nil {
			return cmp.Compare(x, y)
		}
		return strings.Compare(a[i], b[i])
	}
	return cmp.Compare(len(a), len(b))
}
