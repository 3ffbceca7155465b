package contract

import (
	"maps"
	"net/url"
	"slices"
)

// pruneAbove is the size of a schema file (bytes) past which a $ref into its definitions
// compiles only what it reaches. jsonschema compiles a subschema together with its resource's
// root, and a bundle's root names every definition (GitHub's webhook schema: 630 KB, whose
// root is a oneOf of its 344 events), so a $ref to one event compiled all of them; smaller
// files load whole, as they always did.
const pruneAbove = 64 << 10

// reach records, for one Compiler, where the documents it registered refer into other
// documents, and which large files it loaded with only those parts (pruned).
type reach struct {
	// want maps a document's URL to the JSON Pointers the $refs into it name; "" is the
	// whole document (a $ref without a fragment, or to an anchor).
	want map[string]map[string]bool
	// pruned are the documents loaded with only the definitions wanted; whole are those
	// that must load whole from now on (a schema needed more of them).
	pruned, whole map[string]bool
}

// wants records the places of other documents that doc, registered at u, refers to.
func (r *reach) wants(u string, doc any) {
	if !outward(doc) {
		return // a bundle refers within itself: nothing to walk twice
	}
	b, err := url.Parse(u)
	if err != nil {
		return
	}
	w := refWalker{own: map[string]bool{withoutFragment(b): true}}
	w.walk(doc, b, "")
	for _, ref := range w.refs {
		target := ref.base.ResolveReference(ref.ref)
		t := withoutFragment(target)
		if w.own[t] {
			continue
		}
		if r.want == nil {
			r.want = map[string]map[string]bool{}
		}
		if r.want[t] == nil {
			r.want[t] = map[string]bool{}
		}
		ptr := target.Fragment
		if len(ptr) > 0 && ptr[0] != '/' {
			ptr = "" // an anchor: somewhere in the document
		}
		r.want[t][ptr] = true
	}
}

// prune returns doc, the large file loaded at u, with only the definitions ($defs) the $refs
// recorded so far reach, directly or through each other, and its root's identifiers: its
// root's own keywords and every other definition are left out, so jsonschema neither checks
// nor compiles them. It returns doc itself when a $ref wants the whole document or a place
// outside its definitions, and when a reached definition holds what a pointer cannot follow
// (a nested $id, an anchor a $ref names, $dynamicRef or $recursiveRef).
func (r *reach) prune(u string, doc any) any {
	want := r.want[u]
	root, ok := doc.(map[string]any)
	if !ok || r.whole[u] || len(want) == 0 || want[""] || dynamic(root, false) {
		return doc
	}
	b, err := url.Parse(u)
	if err != nil {
		return doc
	}
	own := map[string]bool{withoutFragment(b): true}
	if _, id := rootIDKey(doc); id != "" {
		i, err := url.Parse(id)
		if err != nil {
			return doc
		}
		b = b.ResolveReference(i)
		own[withoutFragment(b)] = true
	}
	kept := map[string]map[string]any{}
	var queue []string // pointers to definitions, to visit
	add := func(ptr string) bool {
		toks := PointerTokens(ptr)
		if len(toks) < 2 || (toks[0] != "definitions" && toks[0] != "$defs") {
			return false
		}
		defs, _ := root[toks[0]].(map[string]any)
		def, ok := defs[toks[1]]
		if !ok {
			return false // jsonschema says it is missing, in the whole document
		}
		if kept[toks[0]] == nil {
			kept[toks[0]] = map[string]any{}
		}
		if _, seen := kept[toks[0]][toks[1]]; !seen {
			kept[toks[0]][toks[1]] = def
			queue = append(queue, "/"+EscapeToken(toks[0])+"/"+EscapeToken(toks[1]))
		}
		return true
	}
	for _, ptr := range slices.Sorted(maps.Keys(want)) {
		if !add(ptr) {
			return doc
		}
	}
	for len(queue) > 0 {
		ptr := queue[0]
		queue = queue[1:]
		def, _ := Lookup(root, PointerTokens(ptr))
		if dynamic(def, true) {
			return doc
		}
		w := refWalker{own: maps.Clone(own)}
		w.walk(def, b, ptr)
		if len(w.own) > len(own) {
			return doc // a nested resource: its own base and pointers
		}
		for _, ref := range w.refs {
			target := ref.base.ResolveReference(ref.ref)
			if !own[withoutFragment(target)] {
				continue // another document: loaded, and pruned, by itself
			}
			if !add(target.Fragment) {
				return doc
			}
		}
	}
	out := map[string]any{}
	for _, k := range []string{"$schema", "$id", "id", "$vocabulary"} {
		if v, ok := root[k]; ok {
			out[k] = v
		}
	}
	for k, defs := range kept {
		out[k] = defs
	}
	if r.pruned == nil {
		r.pruned = map[string]bool{}
	}
	r.pruned[u] = true
	return out
}

// prunedAny reports whether a document was loaded pruned.
func (r *reach) prunedAny() bool { return len(r.pruned) > 0 }

// wholeAgain makes every document c loaded pruned load whole from now on, on a new
// jsonschema compiler given c's inline and effective documents again (the schemas compiled
// so far keep theirs).
func (c *Compiler) wholeAgain() {
	if c.reach.whole == nil {
		c.reach.whole = map[string]bool{}
	}
	for u := range c.reach.pruned {
		c.reach.whole[u] = true
	}
	clear(c.reach.pruned)
	c.c = c.newJSONSchema()
	for _, a := range c.added {
		// Each was added to a compiler as new as this one, without error.
		_ = c.c.AddResource(a.u, a.doc)
	}
	c.sizes = sizer{}
}

// addResource gives jsonschema the document doc at u, and keeps it for wholeAgain.
func (c *Compiler) addResource(u string, doc any) error {
	if err := c.c.AddResource(u, doc); err != nil {
		return err
	}
	c.added = append(c.added, addedDoc{u: u, doc: doc})
	return nil
}

// dynamic reports whether v holds a keyword whose target is found by scope rather than by a
// pointer; with nested false, only v's own keywords are looked at.
func dynamic(v any, nested bool) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			switch k {
			case "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor":
				return true
			case "const", "enum", "default", "examples":
				continue
			}
			if nested && dynamic(c, true) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if nested && dynamic(c, true) {
				return true
			}
		}
	}
	return false
}

// outward reports whether v holds a $ref that is not a fragment alone: one that may lead
// into another document.
func outward(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			switch k {
			case "$ref", "$dynamicRef":
				if s, ok := c.(string); ok && (s == "" || s[0] != '#') {
					return true
				}
			case "const", "enum", "default", "examples":
				continue
			}
			if outward(c) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if outward(c) {
				return true
			}
		}
	}
	return false
}
