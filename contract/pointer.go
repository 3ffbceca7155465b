package contract

import (
	"strconv"
	"strings"
)

// JSON Pointers (RFC 6901) name places in instances (Violation.Pointer) and in schemas; this
// file is seam's one implementation of them.

// pointer builds a JSON Pointer from unescaped tokens.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapeToken(t))
	}
	return b.String()
}

// EscapeToken escapes one JSON Pointer token ("~" as "~0", "/" as "~1").
func EscapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func unescapeToken(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// PointerTokens splits a JSON Pointer into its unescaped tokens; "" (the whole document) has
// none.
func PointerTokens(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, t := range toks {
		toks[i] = unescapeToken(t)
	}
	return toks
}

// ValueAt returns the part of the JSON value v that ptr designates, or nil when there is none.
func ValueAt(v any, ptr string) any {
	v, _ = Lookup(v, PointerTokens(ptr))
	return v
}

// Lookup walks the JSON value v along path (member names, array indexes); ok is false when
// the path leads nowhere, which tells a missing member from a null one.
func Lookup(v any, path []string) (_ any, ok bool) {
	for _, t := range path {
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[t]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
