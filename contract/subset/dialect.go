package subset

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dag/seam/contract"
)

// dialect is the JSON Schema draft a schema object is read by: 4, 6, 7, 2019 (2019-09) or
// 2020 (2020-12). The zero value is the compiler's default, 2020-12, so that schemas the
// checker writes itself (a const, a type) need none.
//
// The validator library (jsonschema v6) reads each resource by the draft its $schema names,
// and the checker must read it the same way: a keyword a draft does not define is an
// annotation there; up to draft-07 a $ref object is that $ref alone; items may be a list.
type dialect int

// version is d's draft, the default made explicit.
func (d dialect) version() int {
	if d == 0 {
		return 2020
	}
	return int(d)
}

// dialectOf reads a $schema value as jsonschema does (http or https, with or without an
// empty fragment); ok is false for any other value.
func dialectOf(v any) (dialect, bool) {
	u, isStr := v.(string)
	if !isStr {
		return 0, false
	}
	u = strings.TrimSuffix(u, "#")
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	} else {
		u, _ = strings.CutPrefix(u, "https://")
	}
	switch u {
	case "json-schema.org/draft-04/schema":
		return 4, true
	case "json-schema.org/draft-06/schema":
		return 6, true
	case "json-schema.org/draft-07/schema":
		return 7, true
	case "json-schema.org/draft/2019-09/schema":
		return 2019, true
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/schema":
		return 2020, true
	}
	return 0, false
}

// idKeyword is the keyword that names a resource in d: id in draft-04, $id after.
func (d dialect) idKeyword() string {
	if d.version() == 4 {
		return "id"
	}
	return "$id"
}

// resource reads m as jsonschema does when m is not a document's root: the draft it is read
// by (its own $schema counts only where m is a resource) and whether it starts an embedded
// resource, a base of its own for "#…" references. ok is false for a $schema the checker
// does not know: nothing about m can be read then.
func (d dialect) resource(m map[string]any) (_ dialect, embedded, ok bool) {
	if x, has := m["$schema"]; has {
		own, known := dialectOf(x)
		if !known {
			return d, false, false
		}
		if own.hasID(m) {
			return own, true, true
		}
	}
	return d, d.hasID(m), true
}

// hasID reports whether m has an id that names a resource in d: not a fragment alone (draft
// 6 and 7 write anchors so), and not beside a $ref up to draft-07, where the $ref is all.
func (d dialect) hasID(m map[string]any) bool {
	id, _ := m[d.idKeyword()].(string)
	if base, _, _ := strings.Cut(id, "#"); base == "" {
		return false
	}
	_, ref := m["$ref"]
	return !ref || d.version() >= 2019
}

// embedded reports whether m, below a resource's root, starts a resource of its own.
func (d dialect) embedded(m map[string]any) bool {
	_, embedded, ok := d.resource(m)
	return embedded || !ok
}

// refAlone reports whether a $ref in d makes the other keywords of its object ignored
// (drafts up to 07).
func (d dialect) refAlone() bool { return d.version() <= 7 }

// defines reports whether keyword k asserts in d as the validator reads it (jsonschema v6):
// false for a keyword of a later draft (const in draft-04, if in draft-06, prefixItems in
// 2019-09) or of an earlier one only (additionalItems in 2020-12), which d's validator
// treats as an annotation. Keywords of every draft, and words of none, are true: callers
// decide those.
func (d dialect) defines(k string) bool {
	v := d.version()
	switch k {
	case "const", "contains", "propertyNames":
		return v >= 6
	case "if", "then", "else", "contentEncoding", "contentMediaType":
		return v >= 7
	case "dependentRequired", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties",
		"minContains", "maxContains", "contentSchema", "$recursiveRef", "$recursiveAnchor", "$anchor":
		// jsonschema reads $recursiveRef in 2020-12 too.
		return v >= 2019
	case "prefixItems", "$dynamicRef", "$dynamicAnchor":
		return v >= 2020
	case "additionalItems":
		return v < 2020
	}
	return true
}

// enter reads n's object v where it starts a resource: at a document's root its $schema
// names the draft; below it, an embedded resource (an id of its own) has its own draft and
// is the base of its "#…" references, so n becomes that resource's root, keyed by where it
// is. ok is false for a $schema the checker does not know.
//
// A document is entered with n.d zero; once its draft is read, n.d is never zero again in
// it, so a resource's root reached again (by "#") keeps the draft it was entered with —
// an embedded resource may carry a $schema the validator ignores (draft-04's beside $id).
func (n node) enter(v map[string]any) (node, bool) {
	if n.key[strings.IndexByte(n.key, '#')+1:] == "" {
		if n.d != 0 {
			return n, true
		}
		n.d = 2020
		if x, has := v["$schema"]; has {
			d, ok := dialectOf(x)
			if !ok {
				return n, false
			}
			n.d = d
		}
		return n, true
	}
	d, embedded, ok := n.d.resource(v)
	if !ok {
		return n, false
	}
	if embedded {
		// The key's document part holds no '#', which resolve splits on.
		// Its "#…" references resolve in it; others are not followed (its base is its id).
		n.d, n.doc, n.key = dialect(d.version()), &contract.Doc{Value: v}, strings.NewReplacer("%", "%25", "#", "%23").Replace(n.key)+"#"
	}
	return n, true
}

// recursiveIsRef reports whether $recursiveRef "#" in n's resource means that resource's
// root, as $ref "#" does: the root has no $recursiveAnchor, or it is the document a check
// starts from, the outermost resource of the dynamic scope (an effective schema's wrapper has
// no anchor). Elsewhere an outer resource may be meant: not modelled.
func (n node) recursiveIsRef() bool {
	var root any
	if n.doc != nil {
		root = n.doc.Value
	}
	if m, _ := root.(map[string]any); m["$recursiveAnchor"] != true {
		return true
	}
	doc, _, _ := strings.Cut(n.key, "#")
	side, url, _ := strings.Cut(doc, " ")
	return (strings.HasPrefix(side, "a") || strings.HasPrefix(side, "b")) && strings.Trim(side[1:], "0123456789") == "" &&
		!strings.HasPrefix(url, "via ") && !strings.Contains(doc, "%23")
}

// name is how people name d: draft-04 … 2020-12.
func (d dialect) name() string {
	switch v := d.version(); v {
	case 2019:
		return "2019-09"
	case 2020:
		return "2020-12"
	default:
		return "draft-0" + strconv.Itoa(v)
	}
}

// uri is the $schema that declares d.
func (d dialect) uri() string {
	if d.version() >= 2019 {
		return "https://json-schema.org/draft/" + d.name() + "/schema"
	}
	return "http://json-schema.org/" + d.name() + "/schema#"
}

// since is the first draft after d that defines keyword k (0 when only earlier drafts do):
// the draft to declare.
func (d dialect) since(k string) dialect {
	for _, later := range []dialect{6, 7, 2019, 2020} {
		if later.version() > d.version() && later.defines(k) {
			return later
		}
	}
	return 0
}

// What a declared draft ignores, kinds of Ignored.
const (
	// Undefined is a keyword the draft does not define (const in draft-04, $defs in
	// draft-07, prefixItems in 2019-09).
	Undefined = iota + 1
	// BesideRef is keywords beside a $ref in draft-07 or earlier, where the $ref is all.
	BesideRef
	// NotAtRoot is a $schema below a resource's root, which no draft reads.
	NotAtRoot
)

// Ignored is a place in a schema document whose draft ignores what is written there.
type Ignored struct {
	Kind    int
	Pointer string // of the keyword (Undefined, NotAtRoot) or of the $ref's object (BesideRef)
	// Keywords are the keyword (Undefined, NotAtRoot) or, BesideRef, the keywords beside
	// the $ref, sorted.
	Keywords []string
	Draft    string // the draft the place is read by, "draft-04" … "2020-12"
	// Since is, for Undefined, the $schema of the first draft that defines the keyword;
	// "" when only earlier drafts do (additionalItems in 2020-12).
	Since string
	// ID is the keyword that makes a schema a resource in Draft (id or $id), for NotAtRoot.
	ID string
}

// IgnoredKeywords lists, in the order of a walk with keys sorted (the same every run), what
// the draft of each place of the schema document doc ignores. It stops at a $schema it does
// not know (the compiler refuses those) and does not follow $refs.
func IgnoredKeywords(doc any) []Ignored {
	var out []Ignored
	var walk func(v any, ptr string, d dialect, root bool)
	walk = func(v any, ptr string, d dialect, root bool) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if x, has := m["$schema"]; has && root {
			if d, ok = dialectOf(x); !ok {
				return
			}
		} else if has {
			own, embedded, known := d.resource(m)
			if !known {
				return
			}
			if declared, _ := dialectOf(x); !embedded || own != declared {
				// (A draft-04 $schema beside $id: draft-04 names resources with id.)
				out = append(out, Ignored{Kind: NotAtRoot, Pointer: ptr + "/$schema", Keywords: []string{"$schema"}, Draft: d.name(), ID: d.idKeyword()})
			}
			d = own
		}
		keys := slices.Sorted(maps.Keys(m))
		if _, ref := m["$ref"]; ref && d.refAlone() {
			var beside []string
			for _, k := range keys {
				if k != "$ref" && !ignoredKeyword(k) && vocabulary(k) {
					beside = append(beside, k)
				}
			}
			if len(beside) > 0 {
				out = append(out, Ignored{Kind: BesideRef, Pointer: ptr, Keywords: beside, Draft: d.name()})
			}
			// Only what a JSON pointer may still reach: the definitions.
			keys = slices.DeleteFunc(keys, func(k string) bool { return k != "definitions" && k != "$defs" })
		}
		for _, k := range keys {
			p := ptr + "/" + contract.EscapeToken(k)
			undefined := !d.defines(k) || (k == "$defs" && d.version() <= 7) || (k == "$id" && d.version() == 4)
			if undefined {
				s := d.since(k)
				switch k {
				case "$defs":
					s = 2019
				case "$id":
					s = 6
				}
				ig := Ignored{Kind: Undefined, Pointer: p, Keywords: []string{k}, Draft: d.name()}
				if s != 0 {
					ig.Since = s.uri()
				}
				out = append(out, ig)
				if k != "$defs" {
					continue // its value is no schema in d
				}
			}
			switch x := m[k].(type) {
			case map[string]any:
				switch k {
				case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
					for _, name := range slices.Sorted(maps.Keys(x)) {
						walk(x[name], p+"/"+contract.EscapeToken(name), d, false)
					}
				case "additionalProperties", "additionalItems", "items", "not", "if", "then", "else", "contains",
					"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
					walk(x, p, d, false)
				}
			case []any:
				switch k {
				case "allOf", "anyOf", "oneOf", "prefixItems", "items":
					for i, s := range x {
						walk(s, p+"/"+strconv.Itoa(i), d, false)
					}
				}
			}
		}
	}
	walk(doc, "", 0, true)
	return out
}
