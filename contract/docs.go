package contract

import (
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Doc is one JSON document a schema reaches: its value and the URL its relative $refs resolve
// against. The checker of contract/subset and lint follow $refs from one document into another
// through it, reading only what the compiler loaded (the confined loader put it there), so that
// a static proof sees exactly the files validation sees.
type Doc struct {
	// URL is where the document was loaded or added ("file:///…", "seam:///inline/N.json");
	// empty for a value that is no compiled document (its $refs resolve only within it).
	URL string
	// Value is the document's JSON value (normalised; shared: do not modify it).
	Value any
	docs  *docSet
}

// Docs returns the documents s stands for: its own, or for an effective schema each part's
// (see IsEffective), in Source's order. The slice is the caller's.
func (s *Schema) Docs() []Doc {
	if len(s.parts) > 0 {
		return slices.Clone(s.parts)
	}
	return []Doc{s.doc()}
}

// doc is s's own document. An effective schema's source is not the document at its URL (that
// holds $refs to the parts): it resolves nothing outside itself.
func (s *Schema) doc() Doc {
	if s.effective {
		return Doc{Value: s.source}
	}
	u, _ := splitURL(s.compiled.Location)
	return Doc{URL: u, Value: s.source, docs: s.docs}
}

// Resolve finds the target of ref, a $ref written in d: a fragment ("#", "#/$defs/x") names a
// place in d, anything else ("common.json#/$defs/item") a place in another document, resolved
// against d's base URL (its URL, or the absolute $id at its root). The other document must be
// one the compiler loaded: it loads every document a schema's $refs reach, through its loader,
// confined as Options.Root says, so a document it refused or never reached is not found. in is
// the document the target lies in, against which the target's own $refs resolve. ok is false
// for an anchor, a pointer that leads nowhere and a document not loaded.
func (d Doc) Resolve(ref string) (target any, in Doc, ok bool) {
	r, err := url.Parse(ref)
	if err != nil {
		return nil, Doc{}, false
	}
	in = d
	if ref != "" && ref[0] != '#' {
		if d.docs == nil || d.URL == "" {
			return nil, Doc{}, false
		}
		base, err := url.Parse(d.URL)
		if err != nil {
			return nil, Doc{}, false
		}
		// A root $id (id in draft-04) moves the base; a relative one resolves against the URL.
		if _, id := rootIDKey(d.Value); id != "" {
			u, err := url.Parse(id)
			if err != nil {
				return nil, Doc{}, false
			}
			base = base.ResolveReference(u)
		}
		u := withoutFragment(base.ResolveReference(r))
		v := d.docs.get(u)
		if v == nil {
			return nil, Doc{}, false
		}
		in = Doc{URL: u, Value: v, docs: d.docs}
	}
	_, frag, _ := strings.Cut(ref, "#")
	frag = FragmentPointer(frag)
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, Doc{}, false // an anchor
	}
	target, ok = Lookup(in.Value, PointerTokens(frag))
	if !ok {
		return nil, Doc{}, false
	}
	return target, in, true
}

// Reached returns the documents s reaches: its own (each part's, for an effective schema) and
// every other document its $refs lead to, transitively, each once, in the order they are met.
// Two schemas with the same sources may differ in a shared file they refer to: compare these.
func (s *Schema) Reached() []Doc {
	out := s.Docs()
	seen := map[string]bool{}
	for _, d := range out {
		seen[d.URL] = true
	}
	for i := 0; i < len(out); i++ {
		d := out[i]
		eachRef(d.Value, func(ref string) {
			if ref == "" || ref[0] == '#' {
				return
			}
			if _, in, ok := d.Resolve(ref); ok && !seen[in.URL] {
				seen[in.URL] = true
				out = append(out, in)
			}
		})
	}
	return out
}

// eachRef calls f with every $ref string in v, in a fixed order.
func eachRef(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if r, ok := x[k].(string); ok && k == "$ref" {
				f(r)
				continue
			}
			eachRef(x[k], f)
		}
	case []any:
		for _, c := range x {
			eachRef(c, f)
		}
	}
}
