package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"strings"

	"github.com/seam-dag/seam/contract"
)

// leafDefPrefix starts the names of the $defs a projected leaf keeps its recursive parts in:
// no schema a producer writes reaches the synthesised document (cleanLeaf drops $defs).
const leafDefPrefix = "seam-leaf-"

// leafState is cleanLeaf's state over one leaf. A recursive schema (a tree whose children
// are trees, or vendored files that refer to each other in a cycle) cannot be inlined to
// the end: the place a $ref leads to (its document and pointer) that is met again while its
// own copy is being made becomes a $ref to that copy, kept under the leaf's $defs, so the
// leaf stays exact and the checker closes the cycle coinductively, as it does in a file.
type leafState struct {
	budget int             // values left to copy
	active map[string]bool // the places being copied: meeting one again is a cycle
	defs   map[string]any  // the copies of the places met again, by their $defs name
}

// inline copies the target t of ref (a $ref written in a document whose target lies in in)
// with cp, or refers to its copy when it is being made or was made as a recursive one.
func (st *leafState) inline(ref string, t any, in contract.Doc, cp func() (any, bool)) (any, bool) {
	_, frag, _ := strings.Cut(ref, "#")
	place := in.URL + "#" + contract.FragmentPointer(frag)
	sum := sha256.Sum256([]byte(place))
	name := leafDefPrefix + hex.EncodeToString(sum[:8])
	self := map[string]any{"$ref": "#/$defs/" + name}
	if _, done := st.defs[name]; done || st.active[place] {
		if st.defs == nil {
			st.defs = map[string]any{}
		}
		if !done {
			st.defs[name] = nil // filled in when the copy is made
		}
		return self, true
	}
	if st.active == nil {
		st.active = map[string]bool{}
	}
	st.active[place] = true
	c, exact := cp()
	delete(st.active, place)
	if _, recursive := st.defs[name]; recursive {
		st.defs[name] = c
		return self, exact
	}
	return c, exact
}

// withDefs is leaf with the recursive copies under its $defs, where its $refs to them
// resolve while it is the document's root (hoistLeafDefs lifts them there otherwise).
func (st *leafState) withDefs(leaf any) any {
	if len(st.defs) == 0 {
		return leaf
	}
	m, ok := leaf.(map[string]any)
	if !ok {
		return leaf // a $ref to a copy is a map: a bool leaf refers to none
	}
	out := maps.Clone(m)
	out["$defs"] = maps.Clone(st.defs)
	return out
}

// hoistLeafDefs returns src, a synthesised schema, with the $defs of the leaves inside it
// (see leafState) also at its root, where their "#/$defs/…" $refs resolve; src itself is
// not changed.
func hoistLeafDefs(src any) any {
	root, ok := src.(map[string]any)
	if !ok {
		return src
	}
	found := map[string]any{}
	var walk func(v any, top bool)
	walk = func(v any, top bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				switch k {
				case "const", "enum", "default", "examples":
					continue // values, not schemas
				case "$defs":
					if defs, ok := c.(map[string]any); ok && !top {
						for name, d := range defs {
							if strings.HasPrefix(name, leafDefPrefix) {
								found[name] = d
							}
						}
					}
				}
				walk(c, false)
			}
		case []any:
			for _, c := range x {
				walk(c, false)
			}
		}
	}
	walk(root, true)
	if len(found) == 0 {
		return src
	}
	out := maps.Clone(root)
	defs, _ := root["$defs"].(map[string]any)
	defs = maps.Clone(defs)
	if defs == nil {
		defs = map[string]any{}
	}
	for name, d := range found {
		if _, ok := defs[name]; !ok {
			defs[name] = d
		}
	}
	out["$defs"] = defs
	return out
}
