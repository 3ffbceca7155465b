package contract

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// checkRefs refuses, before anything is loaded, every $ref and $dynamicRef of doc (at URL base)
// that points at neither doc itself, a local file, a bundled metaschema nor a document the
// catalog holds (known) — even one in a $defs entry nothing refers to, so a schema that would
// need the network never compiles.
func checkRefs(base string, doc any, known func(u string) error) *SchemaError {
	b, err := url.Parse(base)
	if err != nil {
		return &SchemaError{Err: fmt.Errorf("parse %s: %w", base, err)}
	}
	w := refWalker{own: map[string]bool{withoutFragment(b): true}}
	w.walk(doc, b, "")
	for _, r := range w.refs {
		target := r.base.ResolveReference(r.ref)
		t := withoutFragment(target)
		switch {
		case w.own[t]:
		case target.Scheme == "file" && (target.Host == "" || target.Host == "localhost"):
		case target.Scheme == "https" || target.Scheme == "http":
			// The loader serves json-schema.org's metaschemas from jsonschema's embedded
			// copies and refuses the rest.
			if target.Host == "json-schema.org" {
				break
			}
			if err := known(t); errors.Is(err, errNotInCatalog) {
				return &SchemaError{Pointer: r.ptr, Err: fmt.Errorf("%w: %s", ErrRemoteRef, t)}
			} else if err != nil {
				return &SchemaError{Pointer: r.ptr, Err: err}
			}
		case strings.HasPrefix(t, inlineBase) && !r.ref.IsAbs():
			return &SchemaError{Pointer: r.ptr,
				Err: fmt.Errorf("relative $ref %q cannot resolve: the inline schema has no base directory", r.ref)}
		default:
			return &SchemaError{Pointer: r.ptr, Err: fmt.Errorf("%w: %s", ErrRemoteRef, t)}
		}
	}
	return nil
}

type foundRef struct {
	ptr  string // of the $ref keyword
	base *url.URL
	ref  *url.URL
}

type refWalker struct {
	own  map[string]bool // resources the document defines itself ($id)
	refs []foundRef
}

// walk visits a value that is a schema, or holds schemas (allOf's list, items, …).
func (w *refWalker) walk(v any, base *url.URL, ptr string) {
	switch v := v.(type) {
	case map[string]any:
		w.schema(v, base, ptr)
	case []any:
		for i, item := range v {
			w.walk(item, base, fmt.Sprintf("%s/%d", ptr, i))
		}
	}
}

func (w *refWalker) schema(v map[string]any, base *url.URL, ptr string) {
	id, ok := v["$id"].(string)
	if !ok {
		id, ok = v["id"].(string) // draft-04's; in later drafts not a keyword, and harmless here
	}
	if ok {
		if u, err := url.Parse(id); err == nil {
			base = base.ResolveReference(u)
			w.own[withoutFragment(base)] = true
		}
	}
	// Sorted, so the first bad reference reported is always the same one.
	for _, k := range slices.Sorted(maps.Keys(v)) {
		p := ptr + "/" + EscapeToken(k)
		switch k {
		case "$ref", "$dynamicRef":
			if s, ok := v[k].(string); ok {
				if u, err := url.Parse(s); err == nil {
					w.refs = append(w.refs, foundRef{ptr: p, base: base, ref: u})
				}
			}
		case "enum", "const", "default", "examples":
			// Data, not schemas: a "$ref" key in there is no reference.
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			// Names mapped to schemas: a property may well be called "$ref" or "enum".
			if names, ok := v[k].(map[string]any); ok {
				for _, name := range slices.Sorted(maps.Keys(names)) {
					w.walk(names[name], base, p+"/"+EscapeToken(name))
				}
			}
		default:
			w.walk(v[k], base, p)
		}
	}
}

func withoutFragment(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// splitURL splits a jsonschema location into its document URL and fragment.
func splitURL(u string) (doc, frag string) {
	doc, frag, _ = strings.Cut(u, "#")
	return doc, frag
}

// FragmentPointer turns a URL fragment holding a JSON Pointer (tokens percent-encoded, as
// jsonschema writes them) into the plain JSON Pointer.
func FragmentPointer(frag string) string {
	if !strings.Contains(frag, "%") {
		return frag
	}
	toks := strings.Split(frag, "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			toks[i] = u
		}
	}
	return strings.Join(toks, "/")
}
