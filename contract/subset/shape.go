package subset

import (
	"encoding/json"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dag/seam/contract"
)

// types is a set of JSON types. Numbers are split into integers and fractions so that
// "integer" ⊂ "number" is plain set inclusion (1.0 is an integer, as the draft says).
type types uint8

const (
	tNull types = 1 << iota
	tBoolean
	tObject
	tArray
	tString
	tInteger
	tFraction

	tNumber = tInteger | tFraction
	tAll    = tNull | tBoolean | tObject | tArray | tString | tNumber
)

// typeNames names the bits of types in order; a function, so nothing package-level is mutable.
func typeNames() [7]string {
	return [...]string{"null", "boolean", "object", "array", "string", "integer", "number"}
}

func (t types) String() string {
	var out []string
	for i, n := range typeNames() {
		if t&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

func typeBits(name string) (types, bool) {
	switch name {
	case "number":
		return tNumber, true
	case "integer":
		return tInteger, true
	}
	names := typeNames()
	if i := slices.Index(names[:], name); i >= 0 && i < 5 {
		return 1 << i, true
	}
	return 0, false
}

// typeOf is the type of a JSON value (as contract.ParseJSON or contract.Normalize decode it).
func typeOf(v any) types {
	switch v := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case map[string]any:
		return tObject
	case []any:
		return tArray
	case string:
		return tString
	case json.Number:
		r, ok := rat(v)
		switch {
		case !ok:
			return tNumber // unreadable: either, so no check relies on its kind
		case r.IsInt():
			return tInteger
		}
		return tFraction
	}
	return 0
}

// addl is one additionalProperties schema: it applies to the members its own schema object
// neither names in properties nor matches with its patternProperties.
type addl struct {
	named    map[string]bool
	patterns []patternProp
	n        node
}

// applies reports whether the additionalProperties schema constrains member name.
func (a addl) applies(name string) bool {
	return !a.named[name] && !slices.ContainsFunc(a.patterns, func(p patternProp) bool { return p.re.MatchString(name) })
}

// patternProp is one patternProperties entry. The validator's regexp engine is Go's (the
// compiler keeps jsonschema's default), so re matches member names exactly as Validate does.
type patternProp struct {
	src string
	re  *regexp.Regexp
	n   node
}

// tuple is one schema object's prefixItems and the items schema that follows them.
type tuple struct {
	prefix []node
	rest   []node // the items after prefix: none, or one schema
}

// containsRule is one contains with its minContains (default 1) and maxContains (-1: none).
type containsRule struct {
	n        node
	min, max int
}

// group is one anyOf or oneOf still to be split.
type group struct {
	kw       string
	branches []node
}

// shape is a conjunction of schema nodes, flattened by keyword family.
type shape struct {
	never bool // some node is the false schema, or the types leave nothing
	types types

	hasEnum bool
	enum    []any           // intersection of enum and const
	enumSet map[string]bool // jsonKey of enum's values; shared between shapes, never changed

	lo, hi     *big.Rat // numeric bounds, nil when absent
	loEx, hiEx bool
	mults      []*big.Rat

	minLen, maxLen int // maxLen -1: none
	patterns       []string
	formats        []string
	// assertedFormats are the formats of drafts before 2019-09, which jsonschema asserts
	// whatever the compiler's option.
	assertedFormats []string

	props    map[string][]node
	pprops   []patternProp
	required []string
	addls    []addl
	// minProps and maxProps (-1: none) count members.
	minProps, maxProps int
	// depReq is dependentRequired: a member's presence requires these; shared between
	// shapes, never changed (merge makes a new map).
	depReq map[string][]string
	// propNames are a producer's propertyNames schemas.
	propNames []node

	items              []node // items without prefixItems: they apply at every index
	tuples             []tuple
	minItems, maxItems int // maxItems -1: none
	unique             bool
	contains           []containsRule

	// nots are "not" schemas: on the consumer's side compare decides them by disjointness;
	// a producer's only narrow it, and are kept for evaluation and to prove disjointness.
	nots []node

	groups []group

	// unknown lists keywords the shape does not model. On the producer's side they are
	// dropped, which only widens the set (every draft keyword only restricts), so proofs stay
	// sound; on the consumer's side they make the answer Unknown.
	unknown []string
	keys    []string // of the flattened nodes, for the coinductive assumption
	splits  int      // alternatives split on the way to this shape
}

// ignoredKeyword reports annotations and containers: they assert nothing. (content* assert
// only with contract.Options.AssertContent, which the checker cannot see: they stay unknown.)
func ignoredKeyword(k string) bool {
	switch k {
	case "title", "description", "examples", "$schema", "$id", "id", "default", "$comment", "$defs",
		"definitions", "deprecated", "readOnly", "writeOnly", "$anchor", "$dynamicAnchor",
		"$recursiveAnchor", "$vocabulary":
		return true
	}
	return false
}

// Keyword reports whether k is a keyword of some JSON Schema draft (4 to 2020-12); any other
// word in a schema (a vendor's, such as octokit's tsAdditionalProperties, or a misspelling)
// is an annotation that constrains nothing, for lint's projections as for the checker.
func Keyword(k string) bool { return vocabulary(k) }

// vocabulary reports whether k is a keyword of some JSON Schema draft (4 to 2020-12). Those the
// checker does not model stay unknown: a validator may assert them (an older draft's, or one
// 2020-12 asserts). Any other word is an annotation.
func vocabulary(k string) bool {
	switch k {
	case "$ref", "$dynamicRef", "$recursiveRef", "$recursiveAnchor", "$id", "id", "$schema",
		"$anchor", "$dynamicAnchor", "$vocabulary", "$comment", "$defs", "definitions",
		"type", "enum", "const", "multipleOf", "divisibleBy", "maximum", "exclusiveMaximum",
		"minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "format",
		"maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "contains",
		"items", "prefixItems", "additionalItems", "unevaluatedItems",
		"maxProperties", "minProperties", "required", "dependentRequired", "dependentSchemas",
		"dependencies", "properties", "patternProperties", "additionalProperties",
		"unevaluatedProperties", "propertyNames", "allOf", "anyOf", "oneOf", "not",
		"if", "then", "else", "extends", "disallow",
		"contentEncoding", "contentMediaType", "contentSchema":
		return true
	}
	return false
}

// flatten merges the conjunction ns. producer says which side it is on, for unknown keywords.
func (c *checker) flatten(ns []node, producer bool) shape {
	s := shape{types: tAll, maxLen: -1, maxItems: -1, maxProps: -1, props: map[string][]node{}}
	hops := 0
	var add func(n node)
	add = func(n node) {
		s.keys = append(s.keys, n.key)
		switch v := n.v.(type) {
		case bool:
			c.spend(1)
			if !v {
				s.never = true
			}
			return
		case map[string]any:
			cost := 1 + len(v)
			if m, ok := v["properties"].(map[string]any); ok {
				cost += len(m)
			}
			if list, ok := v["enum"].([]any); ok {
				cost += 4 * len(list) // each value is read and keyed
			}
			c.spend(cost)
			var ok bool
			if n, ok = n.enter(v); !ok {
				// A draft the checker does not know: nothing of the node is read, which on
				// the producer's side widens it to true.
				s.unknown = append(s.unknown, "$schema "+stringOr(v["$schema"]))
				return
			}
			follow := func(kw string, ref any) {
				r, isStr := ref.(string)
				target, found := n.resolve(r)
				hops++
				switch {
				case isStr && found && hops <= maxRefHops:
					add(target)
				case !producer || !isStr || !found:
					s.unknown = append(s.unknown, kw+" "+stringOr(ref))
				default:
					s.unknown = append(s.unknown, kw+" (too deep)")
				}
			}
			if ref, ok := v["$ref"]; ok && n.d.refAlone() {
				follow("$ref", ref) // the whole object is the $ref
				return
			}
			s.addNode(n, v, producer)
			if ref, ok := v["$ref"]; ok {
				follow("$ref", ref)
			}
			if ref, ok := v["$recursiveRef"]; ok && n.d.version() == 2019 {
				if ref != "#" || !n.recursiveIsRef() {
					s.unknown = append(s.unknown, "$recursiveRef "+stringOr(ref))
				} else {
					follow("$recursiveRef", "#")
				}
			}
			if inner, ok := doubleNot(v["not"]); ok {
				add(n.child(inner, "not", "not"))
			}
			if list, ok := notAnyOf(v["not"]); ok {
				// not (x1 or x2 …) is not x1 and not x2 …: each one a schema of the
				// conjunction (a branch that is itself a not then adds what it negates).
				for i, br := range list {
					add(n.synthetic(map[string]any{"not": br}, "not/anyOf/"+strconv.Itoa(i)+"/~not"))
				}
			}
			if all, ok := v["allOf"].([]any); ok {
				for i, x := range all {
					add(n.child(x, "allOf", strconv.Itoa(i)))
				}
			}
		default:
			s.unknown = append(s.unknown, "non-schema value")
		}
	}
	for _, n := range ns {
		add(n)
	}
	if (producer && c.annotated[0]) || (!producer && c.annotated[1]) {
		s.formats = s.assertedFormats
	}
	if producer {
		// A producer's strings of a format are within the format's language, if known:
		// narrowing it so proves what the format alone implies (a date is 10 characters).
		for _, f := range s.formats {
			if p := formatLanguage(f); p != "" && !slices.Contains(s.patterns, p) {
				s.patterns = append(s.patterns, p)
			}
		}
	}
	if s.types == 0 || (s.hasEnum && len(s.enum) == 0) {
		s.never = true
	}
	return s
}

// formatLanguage is a pattern every string of format f matches, as the validator checks f
// (jsonschema's format functions), for the formats whose strings have a fixed shape; "" for
// the others. A date is time.Parse's "2006-01-02": four, two and two digits; a uuid, five
// groups of 8, 4, 4, 4 and 12 hexadecimal digits.
func formatLanguage(f string) string {
	switch f {
	case "date":
		return "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
	case "uuid":
		return "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
	}
	return ""
}

func stringOr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return "(not a string)"
}

// addNode adds one schema object's own keywords (not $ref and allOf, which flatten follows).
func (s *shape) addNode(n node, v map[string]any, producer bool) {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic reasons
	pprops, ppropsOK := patternProps(n, v["patternProperties"])
	_, prefixItems := v["prefixItems"]
	prefixItems = prefixItems && n.d.defines("prefixItems")
	for _, k := range keys {
		x := v[k]
		ok := true
		if !n.d.defines(k) {
			continue // an annotation in n's draft, as the validator reads it
		}
		switch k {
		case "$ref", "allOf":
		case "$recursiveRef":
			ok = n.d.version() == 2019 // flatten follows it
		case "type":
			ok = s.addType(x)
		case "enum":
			list, isList := x.([]any)
			ok = isList && readable(list)
			if ok {
				s.intersectEnum(list)
			}
		case "const":
			ok = readable(x)
			if ok {
				s.intersectEnum([]any{x})
			}
		case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum":
			if n.d.version() == 4 {
				ok = s.addBound4(k, v)
			} else {
				ok = s.addBound(k, x)
			}
		case "multipleOf":
			r, isNum := numberOf(x)
			ok = isNum && r.Sign() > 0
			if ok {
				s.mults = append(s.mults, r)
			}
		case "minLength", "minItems", "minProperties":
			i, isInt := smallInt(x)
			ok = isInt
			p := s.count(k)
			*p = max(*p, i)
		case "maxLength", "maxItems", "maxProperties":
			i, isInt := smallInt(x)
			ok = isInt
			p := s.count(k)
			if isInt && (*p < 0 || i < *p) {
				*p = i
			}
		case "pattern":
			p, isStr := x.(string)
			ok = isStr
			s.patterns = append(s.patterns, p)
		case "format":
			f, isStr := x.(string)
			ok = isStr
			s.formats = append(s.formats, f)
			if n.d.version() < 2019 {
				s.assertedFormats = append(s.assertedFormats, f)
			}
		case "properties":
			m, isMap := x.(map[string]any)
			ok = isMap
			for name, ps := range m {
				s.props[name] = append(s.props[name], n.child(ps, "properties", name))
			}
		case "required":
			ok = s.addRequired(x)
		case "patternProperties":
			ok = ppropsOK
			s.pprops = append(s.pprops, pprops...)
		case "additionalProperties":
			// It applies only to members no pattern matches: with the patterns not
			// understood, dropping it widens a producer; a consumer is Unknown.
			ok = ppropsOK
			if ok {
				s.addAdditional(n, v, pprops)
			}
		case "prefixItems":
			ok = s.addTuple(n, v)
		case "items":
			if list, isList := x.([]any); isList && n.d.version() < 2020 {
				s.addItemList(n, v, list)
				break
			}
			if prefixItems {
				break // applies after prefixItems only: part of that tuple
			}
			if x == false {
				s.maxItems = 0 // no item at all: the same set, and item counts are compared directly
			}
			s.items = append(s.items, n.child(x, "items"))
		case "contains":
			ok = s.addContains(n, v)
		case "dependentRequired":
			ok = s.addDependentRequired(x)
		case "propertyNames":
			s.propNames = append(s.propNames, n.child(x, "propertyNames"))
		case "if":
			s.addIf(n, v)
		case "then", "else":
			// Read with if; without it they assert nothing.
		case "dependentSchemas":
			ok = s.addDependentSchemas(n, k, x)
		case "additionalItems":
			// Read with a list of items; beside one schema for every item, or none, it
			// asserts nothing.
		case "dependencies":
			// Up to draft-07 it is dependentRequired for a list of names, dependentSchemas
			// for a schema; jsonschema reads it in later drafts too, not modelled there.
			ok = n.d.version() <= 7 && s.addDependencies(n, x)
		case "unevaluatedProperties":
			ok = s.addUnevaluated(n, v)
		case "minContains", "maxContains":
			// Read with contains; without it they assert nothing.
		case "not":
			s.addNot(n, x, producer)
		case "uniqueItems":
			u, isBool := x.(bool)
			ok = isBool
			s.unique = s.unique || u
		case "anyOf", "oneOf":
			ok = s.addGroup(n, k, x)
		default:
			// A word of no draft's vocabulary (a vendor's, a misspelling) is an annotation in
			// 2020-12: the validator ignores it, and so does the checker.
			ok = ignoredKeyword(k) || !vocabulary(k)
		}
		if !ok {
			s.unknown = append(s.unknown, k)
		}
	}
}

// addBound adds a numeric bound k (minimum, exclusiveMinimum, maximum or exclusiveMaximum),
// keeping the tighter of it and the bound s has; false when x is not a number.
func (s *shape) addBound(k string, x any) bool {
	r, ok := numberOf(x)
	if !ok {
		return false
	}
	if k == "minimum" || k == "exclusiveMinimum" {
		if s.lo == nil || r.Cmp(s.lo) > 0 || (r.Cmp(s.lo) == 0 && k == "exclusiveMinimum") {
			s.lo, s.loEx = r, k == "exclusiveMinimum"
		}
		return true
	}
	if s.hi == nil || r.Cmp(s.hi) < 0 || (r.Cmp(s.hi) == 0 && k == "exclusiveMaximum") {
		s.hi, s.hiEx = r, k == "exclusiveMaximum"
	}
	return true
}

// addRequired adds required's names; false when it is not a list of strings.
func (s *shape) addRequired(x any) bool {
	list, ok := x.([]any)
	for _, r := range list {
		name, isStr := r.(string)
		if !isStr {
			ok = false
		} else if !slices.Contains(s.required, name) {
			s.required = append(s.required, name)
		}
	}
	return ok
}

// addAdditional adds v's additionalProperties, which applies to the members neither v's
// properties name nor its patternProperties (pprops) match.
func (s *shape) addAdditional(n node, v map[string]any, pprops []patternProp) {
	named := map[string]bool{}
	if m, isMap := v["properties"].(map[string]any); isMap {
		for name := range m {
			named[name] = true
		}
	}
	s.addls = append(s.addls, addl{named: named, patterns: pprops, n: n.child(v["additionalProperties"], "additionalProperties")})
}

// addTuple adds v's prefixItems, with v's items as the rest of the tuple.
func (s *shape) addTuple(n node, v map[string]any) bool {
	list, ok := v["prefixItems"].([]any)
	t := tuple{}
	for i, p := range list {
		t.prefix = append(t.prefix, n.child(p, "prefixItems", strconv.Itoa(i)))
	}
	if rest, has := v["items"]; has {
		t.rest = []node{n.child(rest, "items")}
		if rest == false {
			s.maxItems = minLimit(s.maxItems, len(list)) // a closed tuple: the same set
		}
	}
	s.tuples = append(s.tuples, t)
	return ok
}

// addItemList adds a list-form items (drafts before 2020-12) as the tuple it is, with
// additionalItems as the rest of the tuple.
func (s *shape) addItemList(n node, v map[string]any, list []any) {
	t := tuple{}
	for i, p := range list {
		t.prefix = append(t.prefix, n.child(p, "items", strconv.Itoa(i)))
	}
	if rest, has := v["additionalItems"]; has {
		t.rest = []node{n.child(rest, "additionalItems")}
		if rest == false {
			s.maxItems = minLimit(s.maxItems, len(list)) // a closed tuple: the same set
		}
	}
	s.tuples = append(s.tuples, t)
}

// addDependencies adds a draft-07-or-earlier dependencies: each member's list of names as
// dependentRequired, each schema as dependentSchemas. false when x is not an object of those.
func (s *shape) addDependencies(n node, x any) bool {
	deps, ok := x.(map[string]any)
	if !ok {
		return false
	}
	names, schemas := map[string]any{}, map[string]any{}
	for k, d := range deps {
		switch d.(type) {
		case []any:
			names[k] = d
		case map[string]any, bool:
			schemas[k] = d
		default:
			return false
		}
	}
	return s.addDependentRequired(names) && s.addDependentSchemas(n, "dependencies", schemas)
}

// addBound4 adds a draft-04 bound: exclusiveMinimum and exclusiveMaximum are booleans that
// make v's minimum and maximum exclusive, asserting nothing alone.
func (s *shape) addBound4(k string, v map[string]any) bool {
	switch k {
	case "exclusiveMinimum", "exclusiveMaximum":
		_, isBool := v[k].(bool)
		return isBool
	}
	if v["exclusive"+strings.ToUpper(k[:1])+k[1:]] == true {
		return s.addBound("exclusive"+strings.ToUpper(k[:1])+k[1:], v[k])
	}
	return s.addBound(k, v[k])
}

// addContains adds v's contains with its minContains and maxContains.
func (s *shape) addContains(n node, v map[string]any) bool {
	ok := true
	r := containsRule{n: n.child(v["contains"], "contains"), min: 1, max: -1}
	if m, has := v["minContains"]; has {
		r.min, ok = smallInt(m)
	}
	if m, has := v["maxContains"]; has && ok {
		r.max, ok = smallInt(m)
	}
	if ok {
		s.contains = append(s.contains, r)
		s.minItems = max(s.minItems, r.min) // implied, and item counts are compared directly
	}
	return ok
}

// addDependentRequired adds dependentRequired's names; false when it is not a map of lists of
// strings.
func (s *shape) addDependentRequired(x any) bool {
	deps, ok := x.(map[string]any)
	for k, list := range deps {
		names, isList := list.([]any)
		if !isList {
			ok = false
			break
		}
		for _, d := range names {
			name, isStr := d.(string)
			if !isStr {
				ok = false
				break
			}
			if s.depReq == nil {
				s.depReq = map[string][]string{}
			}
			if !slices.Contains(s.depReq[k], name) {
				s.depReq[k] = append(s.depReq[k], name)
			}
		}
	}
	return ok
}

// addNot adds not x: as a narrowing of types, bounds or members where its complement is one
// of those, else as a schema the instance must fail. On the producer's side, a not of several
// keywords that each apply alone is the alternatives of not each one: split, each is a
// narrowing.
func (s *shape) addNot(n node, x any, producer bool) {
	if accepted(x) {
		s.types = 0 // not of a schema that accepts everything: nothing
	} else if t, ok := pureTypes(x, 0); ok {
		s.types &^= t // the complement of types is types
	} else if name, ok := notRequired(x); ok {
		// required holds of everything but objects: its complement is the objects
		// without name.
		s.types &= tObject
		s.props[name] = append(s.props[name], n.child(false, "not", "required"))
	} else if name, sub, ok := notMember(x); ok {
		// Not "name, if there, is sub": an object with name, and name not sub.
		s.types &= tObject
		if !slices.Contains(s.required, name) {
			s.required = append(s.required, name)
		}
		neg := n.child(map[string]any{"not": sub}, "not", "properties", name, "~not")
		s.props[name] = append(s.props[name], neg)
	} else if _, ok := notAnyOf(x); !ok && !s.addNotBound(x) {
		// (A not of anyOf, flatten adds as the not of each branch.)
		if names, ok := notRequiredAll(x); ok && producer {
			// Not all of names: one of them missing, a branch for each.
			g := group{kw: "anyOf"}
			for i, name := range names {
				g.branches = append(g.branches, n.synthetic(map[string]any{"not": map[string]any{"required": []any{name}}}, "not~required~"+strconv.Itoa(i)))
			}
			s.groups = append(s.groups, g)
		} else if kws, ok := separable(x, n.d); ok && producer {
			g := group{kw: "anyOf"}
			for _, k := range kws {
				g.branches = append(g.branches, n.synthetic(map[string]any{"not": map[string]any{k: x.(map[string]any)[k]}}, "not~"+contract.EscapeToken(k)))
			}
			s.groups = append(s.groups, g)
		} else if _, ok := doubleNot(x); !ok {
			s.nots = append(s.nots, n.child(x, "not"))
		}
	}
}

// addNotBound adds the complement of a schema of one numeric bound, length or count: a
// keyword applies to its type only, so its complement is the opposite bound (not minimum 5
// is exclusiveMaximum 5; not minLength 0, no string). false for any other schema.
func (s *shape) addNotBound(x any) bool {
	m, _ := x.(map[string]any)
	opposite := map[string]string{"minimum": "exclusiveMaximum", "exclusiveMinimum": "maximum",
		"maximum": "exclusiveMinimum", "exclusiveMaximum": "minimum"}
	for k, o := range opposite {
		if onlyKeyword(m, k) {
			if _, ok := numberOf(m[k]); !ok {
				return false
			}
			return s.addBound(o, m[k])
		}
	}
	counts := map[string]types{"minLength": tString, "maxLength": tString, "minItems": tArray,
		"maxItems": tArray, "minProperties": tObject, "maxProperties": tObject}
	for k, t := range counts {
		if !onlyKeyword(m, k) {
			continue
		}
		i, ok := smallInt(m[k])
		if !ok {
			return false
		}
		switch {
		case strings.HasPrefix(k, "min") && i == 0:
			s.types &^= t // every value of t has at least none
		case strings.HasPrefix(k, "min"):
			p := s.count("max" + k[3:])
			*p = minLimit(*p, i-1)
		default:
			p := s.count("min" + k[3:])
			*p = max(*p, i+1)
		}
		return true
	}
	return false
}

// separable lists the asserting keywords of schema x, read in draft d, when it has more than
// one and each asserts alone (none reads another, as additionalProperties reads properties,
// or a draft-04 exclusiveMinimum minimum): then not x is anyOf the nots of each.
func separable(x any, d dialect) ([]string, bool) {
	m, _ := x.(map[string]any)
	var kws []string
	for k := range m {
		if !d.defines(k) {
			continue
		}
		switch k {
		case "exclusiveMinimum", "exclusiveMaximum":
			if d.version() == 4 {
				return nil, false
			}
			kws = append(kws, k)
		case "type", "enum", "const", "minimum", "maximum",
			"multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
			"uniqueItems", "minProperties", "maxProperties", "required", "dependentRequired", "propertyNames":
			kws = append(kws, k)
		case "properties":
			if m["patternProperties"] != nil || m["additionalProperties"] != nil || m["unevaluatedProperties"] != nil {
				return nil, false
			}
			kws = append(kws, k)
		default:
			if !ignoredKeyword(k) && vocabulary(k) {
				return nil, false
			}
		}
	}
	slices.Sort(kws)
	return kws, len(kws) > 1
}

// addIf adds v's if/then/else as the alternatives it stands for: anyOf [if ∧ then, not if ∧
// else], then and else being true when absent.
func (s *shape) addIf(n node, v map[string]any) {
	then, ok := v["then"]
	if !ok {
		then = true
	}
	els, ok := v["else"]
	if !ok {
		els = true
	}
	s.groups = append(s.groups, group{kw: "anyOf", branches: []node{
		n.synthetic(map[string]any{"allOf": []any{v["if"], then}}, "if~then"),
		n.synthetic(map[string]any{"allOf": []any{map[string]any{"not": v["if"]}, els}}, "if~else"),
	}})
}

// addDependentSchemas adds each member's dependent schema as the alternatives it stands for:
// anyOf [not an object, an object without the member, an object with it that the schema
// accepts]; false when x is not an object.
func (s *shape) addDependentSchemas(n node, kw string, x any) bool {
	deps, ok := x.(map[string]any)
	if !ok {
		return false
	}
	others := []any{"null", "boolean", "array", "string", "number"}
	for _, k := range slices.Sorted(maps.Keys(deps)) {
		at := kw + "/" + contract.EscapeToken(k)
		s.groups = append(s.groups, group{kw: "anyOf", branches: []node{
			n.synthetic(map[string]any{"type": others}, at+"~other"),
			n.synthetic(map[string]any{"not": map[string]any{"required": []any{k}}}, at+"~absent"),
			n.synthetic(map[string]any{"required": []any{k}, "allOf": []any{deps[k]}}, at+"~present"),
		}})
	}
	return true
}

// evaluated is the member names a schema evaluates whenever an instance passes it: the names
// of its properties and the patterns of its patternProperties, or every member (all) with an
// additionalProperties.
type evaluated struct {
	named    map[string]bool
	patterns []patternProp
	all      bool
}

// maxEvaluatedBranches bounds the anyOf or oneOf beside an unevaluatedProperties that
// addUnevaluated splits: 2^n-1 sets of branches that pass.
const maxEvaluatedBranches = 3

// addUnevaluated adds v's unevaluatedProperties where the members it applies to are known
// from the schema: v, with its allOf and $refs (every one of which an instance passes), has
// no alternatives that would evaluate members only when they pass (if, dependentSchemas),
// but one anyOf or oneOf of up to maxEvaluatedBranches branches. Without it, the keyword is
// an additionalProperties over every name those name and every pattern they have (none with
// an additionalProperties among them: every member is evaluated). With it, it is the
// alternatives of which branches pass: for each set, those branches, the nots of the others,
// and that additionalProperties over the names they add. false when the members are not
// known so.
func (s *shape) addUnevaluated(n node, v map[string]any) bool {
	base := evaluated{named: map[string]bool{}}
	hops := 0
	var walk func(m node, top bool, into *evaluated) bool
	walk = func(m node, top bool, into *evaluated) bool {
		w, isMap := m.v.(map[string]any)
		if !isMap {
			return true // a boolean schema evaluates nothing
		}
		if m.d.version() != n.d.version() || m.d.refAlone() || (!top && m.d.embedded(w)) {
			return false // another draft's resource, read by other rules
		}
		for _, k := range []string{"if", "dependentSchemas", "$dynamicRef", "$recursiveRef"} {
			if _, has := w[k]; has {
				return false
			}
		}
		_, anyOf := w["anyOf"]
		_, oneOf := w["oneOf"]
		if _, has := w["unevaluatedProperties"]; has && !top || (anyOf || oneOf) && !top || anyOf && oneOf {
			return false
		}
		if props, ok := w["properties"].(map[string]any); ok {
			for name := range props {
				into.named[name] = true
			}
		}
		pp, ok := patternProps(m, w["patternProperties"])
		if !ok {
			return false
		}
		into.patterns = append(into.patterns, pp...)
		if _, has := w["additionalProperties"]; has {
			into.all = true
		}
		if ref, has := w["$ref"]; has {
			r, _ := ref.(string)
			target, found := m.resolve(r)
			if hops++; !found || hops > maxRefHops || !walk(target, false, into) {
				return false
			}
		}
		if list, has := w["allOf"]; has {
			parts, ok := list.([]any)
			if !ok {
				return false
			}
			for i, p := range parts {
				if !walk(m.child(p, "allOf", strconv.Itoa(i)), false, into) {
					return false
				}
			}
		}
		return true
	}
	if !walk(n, true, &base) {
		return false
	}
	kw := "anyOf"
	if _, ok := v["oneOf"]; ok {
		kw = "oneOf"
	}
	list, hasGroup := v[kw].([]any)
	if !hasGroup {
		if _, has := v[kw]; has {
			return false
		}
		if !base.all {
			s.addls = append(s.addls, addl{named: base.named, patterns: base.patterns, n: n.child(v["unevaluatedProperties"], "unevaluatedProperties")})
		}
		return true
	}
	if len(list) == 0 || len(list) > maxEvaluatedBranches {
		return false
	}
	evals := make([]evaluated, len(list))
	for i, br := range list {
		evals[i] = evaluated{named: map[string]bool{}}
		if !walk(n.child(br, kw, strconv.Itoa(i)), false, &evals[i]) {
			return false
		}
	}
	g := group{kw: "anyOf"}
	for set := 1; set < 1<<len(list); set++ {
		if kw == "oneOf" && set&(set-1) != 0 {
			continue // exactly one branch passes
		}
		var parts []any
		props, patterns, all := map[string]any{}, map[string]any{}, base.all
		for name := range base.named {
			props[name] = true
		}
		for _, p := range base.patterns {
			patterns[p.src] = true
		}
		for i, br := range list {
			if set&(1<<i) == 0 {
				parts = append(parts, map[string]any{"not": br})
				continue
			}
			parts = append(parts, br)
			all = all || evals[i].all
			for name := range evals[i].named {
				props[name] = true
			}
			for _, p := range evals[i].patterns {
				patterns[p.src] = true
			}
		}
		alt := map[string]any{"allOf": parts}
		if !all {
			alt["properties"], alt["patternProperties"], alt["additionalProperties"] = props, patterns, v["unevaluatedProperties"]
		}
		g.branches = append(g.branches, n.synthetic(alt, "unevaluatedProperties~"+strconv.Itoa(set)))
	}
	s.groups = append(s.groups, g)
	return true
}

// addGroup adds an anyOf or oneOf (kw) of x's branches; false for anything but a non-empty
// list (an empty list compiles nowhere; never split on nothing).
func (s *shape) addGroup(n node, kw string, x any) bool {
	list, ok := x.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	g := group{kw: kw}
	for i, b := range list {
		g.branches = append(g.branches, n.child(b, kw, strconv.Itoa(i)))
	}
	s.groups = append(s.groups, g)
	return true
}

// count is the field of s that a length or count keyword sets.
func (s *shape) count(k string) *int {
	switch k {
	case "minLength":
		return &s.minLen
	case "maxLength":
		return &s.maxLen
	case "minItems":
		return &s.minItems
	case "maxItems":
		return &s.maxItems
	case "minProperties":
		return &s.minProps
	}
	return &s.maxProps
}

// patternProps reads a patternProperties value (nil: absent). ok is false when it is not an
// object of schemas or a pattern does not compile in Go's regexp, the validator's dialect.
func patternProps(n node, x any) ([]patternProp, bool) {
	if x == nil {
		return nil, true
	}
	m, isMap := x.(map[string]any)
	if !isMap {
		return nil, false
	}
	srcs := make([]string, 0, len(m))
	for src := range m {
		srcs = append(srcs, src)
	}
	slices.Sort(srcs) // deterministic reasons and witnesses
	out := make([]patternProp, 0, len(m))
	for _, src := range srcs {
		re, err := regexp.Compile(src)
		if err != nil {
			return nil, false
		}
		out = append(out, patternProp{src: src, re: re, n: n.child(m[src], "patternProperties", src)})
	}
	return out, true
}

// pureTypes reads a schema that only says types — type, or an anyOf/oneOf of such (with
// annotations) — as its set of types.
func pureTypes(x any, depth int) (types, bool) {
	m, isMap := x.(map[string]any)
	if !isMap || depth > 4 {
		return 0, false
	}
	var t types
	seen := false
	for k, v := range m {
		switch {
		case k == "type":
			var sh shape
			sh.types = tAll
			if seen || !sh.addType(v) {
				return 0, false
			}
			t, seen = sh.types, true
		case k == "anyOf" || k == "oneOf":
			// Types of different branches are disjoint or equal: a oneOf of types is their
			// union only when no type repeats.
			list, _ := v.([]any)
			if len(list) == 0 || seen {
				return 0, false
			}
			for _, b := range list {
				bt, ok := pureTypes(b, depth+1)
				if !ok || (k == "oneOf" && bt&t != 0) {
					return 0, false
				}
				t |= bt
			}
			seen = true
		case ignoredKeyword(k) || !vocabulary(k):
		default:
			return 0, false
		}
	}
	return t, seen
}

// accepted reports whether the schema x accepts every value: true, or an object of
// annotations only ({}).
func accepted(x any) bool {
	if b, ok := x.(bool); ok {
		return b
	}
	m, ok := x.(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		if !ignoredKeyword(k) && vocabulary(k) {
			return false
		}
	}
	return true
}

// notAnyOf reads {"anyOf": [...]} (with annotations): a not of it is a not of each branch.
func notAnyOf(x any) ([]any, bool) {
	m, _ := x.(map[string]any)
	list, _ := m["anyOf"].([]any)
	return list, len(list) > 0 && onlyKeyword(m, "anyOf")
}

// notRequired reads {"required": [name]} (with annotations): the schema of a not that
// forbids one member.
func notRequired(x any) (string, bool) {
	m, _ := x.(map[string]any)
	list, _ := m["required"].([]any)
	if len(list) != 1 || !onlyKeyword(m, "required") {
		return "", false
	}
	name, ok := list[0].(string)
	return name, ok
}

// notRequiredAll reads {"required": [names…]} of more than one name (with annotations).
func notRequiredAll(x any) ([]string, bool) {
	m, _ := x.(map[string]any)
	list, _ := m["required"].([]any)
	if len(list) < 2 || !onlyKeyword(m, "required") {
		return nil, false
	}
	names := make([]string, len(list))
	for i, v := range list {
		name, ok := v.(string)
		if !ok {
			return nil, false
		}
		names[i] = name
	}
	return names, true
}

// notMember reads {"properties": {name: sub}} (with annotations).
func notMember(x any) (string, any, bool) {
	m, _ := x.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	if len(props) != 1 || !onlyKeyword(m, "properties") {
		return "", nil, false
	}
	for name, sub := range props {
		return name, sub, true
	}
	return "", nil, false
}

// onlyKeyword reports whether m asserts with kw alone (other words being annotations).
func onlyKeyword(m map[string]any, kw string) bool {
	if _, ok := m[kw]; !ok {
		return false
	}
	for k := range m {
		if k != kw && !ignoredKeyword(k) && vocabulary(k) {
			return false
		}
	}
	return true
}

// doubleNot is the schema inside "not": {"not": X} (with annotations only), which is X.
func doubleNot(x any) (any, bool) {
	m, isMap := x.(map[string]any)
	if !isMap {
		return nil, false
	}
	inner, has := m["not"]
	if !has {
		return nil, false
	}
	for k := range m {
		if k != "not" && !ignoredKeyword(k) && vocabulary(k) {
			return nil, false
		}
	}
	return inner, true
}

func (s *shape) addType(x any) bool {
	var t types
	switch x := x.(type) {
	case string:
		b, ok := typeBits(x)
		if !ok {
			return false
		}
		t = b
	case []any:
		for _, e := range x {
			name, _ := e.(string)
			b, ok := typeBits(name)
			if !ok {
				return false
			}
			t |= b
		}
	default:
		return false
	}
	s.types &= t
	return true
}

// intersectEnum keeps the values of s.enum that are also in list, in time linear in both.
func (s *shape) intersectEnum(list []any) {
	keys := make(map[string]bool, len(list))
	for _, v := range list {
		if k, ok := jsonKey(v); ok {
			keys[k] = true
		}
	}
	if !s.hasEnum {
		s.hasEnum, s.enum, s.enumSet = true, slices.Clone(list), keys
		return
	}
	kept := make(map[string]bool, len(s.enum))
	s.enum = slices.DeleteFunc(slices.Clone(s.enum), func(v any) bool {
		k, ok := jsonKey(v)
		if ok && keys[k] {
			kept[k] = true
			return false
		}
		return true
	})
	s.enumSet = kept
}

// enumHas reports whether v is one of s.enum's values.
func (s *shape) enumHas(v any) bool {
	k, ok := jsonKey(v)
	return ok && s.enumSet[k]
}

// values is the finite set of instances s allows when it has an enum: the enum values of an
// allowed type. Other keywords may still reject some of them.
func (s *shape) values() []any {
	var out []any
	for _, v := range s.enum {
		if typeOf(v)&s.types != 0 {
			out = append(out, v)
		}
	}
	return out
}

// memberSchemas is the conjunction that constrains member name of an object s allows.
func (s *shape) memberSchemas(name string) []node {
	out := slices.Clone(s.props[name])
	for _, p := range s.pprops {
		if p.re.MatchString(name) {
			out = append(out, p.n)
		}
	}
	for _, a := range s.addls {
		if a.applies(name) {
			out = append(out, a.n)
		}
	}
	return out
}

// itemSchemas is the conjunction that constrains item i of an array s allows.
func (s *shape) itemSchemas(i int) []node {
	out := slices.Clone(s.items)
	for _, t := range s.tuples {
		if i < len(t.prefix) {
			out = append(out, t.prefix[i])
		} else {
			out = append(out, t.rest...)
		}
	}
	return out
}

// prefixLen is the longest prefixItems of s: from it on, every index has the same schemas.
func (s *shape) prefixLen() int {
	n := 0
	for _, t := range s.tuples {
		n = max(n, len(t.prefix))
	}
	return n
}

// containsMin is the most items one of s's contains needs.
func (s *shape) containsMin() int {
	n := 0
	for _, r := range s.contains {
		n = max(n, r.min)
	}
	return n
}

// maxMembers is the most members an object of s has (-1: no limit known): maxProperties, or
// the names an additionalProperties false with no patterns leaves.
func (s *shape) maxMembers() int {
	n := s.maxProps
	for _, a := range s.addls {
		if a.n.v == false && len(a.patterns) == 0 {
			n = minLimit(n, len(a.named))
		}
	}
	return n
}

// names lists every member name s's properties mention, sorted.
func (s *shape) names() []string {
	var out []string
	for k := range s.props {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// rat reads a JSON number exactly; false for a number beyond contract.MaxNumberDigits or
// contract.MaxNumberExponent (1e999999999 would take gigabytes as a big.Rat), which callers
// treat as unknown. contract.ParseJSON and contract.Normalize refuse such numbers; a source
// built by a program may hold one.
func rat(n json.Number) (*big.Rat, bool) {
	if contract.CheckNumber(n) != nil {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

func numberOf(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return rat(n)
}

// smallInt reads a non-negative integer keyword value (1.0 counts) that fits in an int.
func smallInt(v any) (int, bool) {
	r, ok := numberOf(v)
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 0, false
	}
	return int(r.Num().Int64()), true
}

// readable reports whether every number in v can be read exactly, so jsonKey is exact on it.
func readable(v any) bool {
	switch v := v.(type) {
	case json.Number:
		_, ok := rat(v)
		return ok
	case map[string]any:
		for _, x := range v {
			if !readable(x) {
				return false
			}
		}
	case []any:
		for _, x := range v {
			if !readable(x) {
				return false
			}
		}
	}
	return true
}

// jsonKey writes v so that two values have the same key exactly when they are equal as JSON:
// numbers by value (1 equals 1.0), objects by members. ok is false for an unreadable number,
// which equals nothing.
func jsonKey(v any) (string, bool) {
	var b strings.Builder
	ok := writeKey(&b, v)
	return b.String(), ok
}

func writeKey(b *strings.Builder, v any) bool {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		b.WriteString(strconv.Quote(v))
	case json.Number:
		r, ok := rat(v)
		if !ok {
			return false
		}
		b.WriteString(r.RatString())
	case map[string]any:
		b.WriteByte('{')
		for _, k := range slices.Sorted(maps.Keys(v)) {
			b.WriteString(strconv.Quote(k) + ":")
			if !writeKey(b, v[k]) {
				return false
			}
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for _, x := range v {
			if !writeKey(b, x) {
				return false
			}
			b.WriteByte(',')
		}
		b.WriteByte(']')
	default:
		return false
	}
	return true
}
