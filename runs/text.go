package runs

import (
	"strings"
	"unicode/utf8"
)

// storableText returns s as both stores keep text: each byte that is not part of valid
// UTF-8, and each NUL, written as \xHH (a 0xff byte as the four characters \xff). PostgreSQL
// text holds neither (SQLSTATE 22021), and SQLite would keep them but hand them on to JSON as
// U+FFFD: escaped, the two stores show the same thing, and show which bytes they were. Node
// logs and errors quote what programs print, which may be anything. The escape is one-way: a
// backslash is kept as it is, so text that already held \xff reads back the same.
func storableText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+len(s)/2)
	kept := 0 // s[kept:i] is text to copy as it is
	for i := 0; i < len(s); {
		if c := s[i]; c != 0 && c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0 || r == utf8.RuneError && n == 1 {
			b = append(b, s[kept:i]...)
			b = append(b, '\\', 'x', hex[s[i]>>4], hex[s[i]&0xf])
			kept = i + 1
		}
		i += n
	}
	return string(append(b, s[kept:]...))
}

// storable makes the text of a storable as storableText does.
func (a *Attempt) storable() {
	for _, p := range []*string{&a.Node, &a.Type, &a.Key, &a.Reason, &a.Error, &a.Log} {
		*p = storableText(*p)
	}
}

// storable makes the text of r storable as storableText does. Params, outputs and violations
// are JSON that encoding/json wrote, which is valid UTF-8 and escapes NUL.
func (r *Run) storable() {
	for _, p := range []*string{&r.DAG, &r.File, &r.FileHash, &r.Host, &r.Parent, &r.ParentNode} {
		*p = storableText(*p)
	}
}
