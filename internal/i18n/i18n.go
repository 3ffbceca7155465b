// Package i18n says seam's messages in English or Japanese: the language (Lang) and how it is
// chosen (Resolve), and one catalog keyed by the English format, so code reads in English and a
// missing translation falls back to it. TestCatalogComplete finds every format given to
// Sprintf, Errorf, Format, M, Plural and Key (and mcp's msgf, fail and howMany) in seam's
// source and fails when one has no Japanese, or when the Japanese does not take the same
// arguments; TestOneWay fails on code outside this package that compares a language with
// Japanese. It imports nothing of seam.
package i18n

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Lang is a language seam speaks.
type Lang string

// The languages: English is the default, and what an unknown Lang says.
const (
	English  Lang = "en"
	Japanese Lang = "ja"
)

// Langs is every language, English first.
func Langs() []Lang { return []Lang{English, Japanese} }

// Resolve picks the message language: flag when set, else $SEAM_LANG, else the locale
// ($LC_ALL, $LC_MESSAGES, $LANG, the first one set: ja_JP.UTF-8 means Japanese, anything else
// English). An unknown flag or SEAM_LANG value is an error.
func Resolve(flag string, getenv func(string) string) (Lang, error) {
	if flag != "" {
		return Parse(flag)
	}
	if v := getenv("SEAM_LANG"); v != "" {
		return Parse(v)
	}
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(k)
		if v == "" {
			continue
		}
		// ja, ja_JP, ja_JP.UTF-8, ja-JP
		if v == "ja" || strings.HasPrefix(v, "ja_") || strings.HasPrefix(v, "ja.") || strings.HasPrefix(v, "ja-") {
			return Japanese, nil
		}
		return English, nil
	}
	return English, nil
}

// Parse reads a language's name, "en" or "ja", in any case. The error is in English: the
// language is what is not known yet.
func Parse(s string) (Lang, error) {
	switch l := Lang(strings.ToLower(strings.TrimSpace(s))); l {
	case English, Japanese:
		return l, nil
	}
	return "", fmt.Errorf("unsupported language %q (want en or ja)", s)
}

// Sprintf formats the English format, or in Japanese its catalog entry, with args. A Japanese
// entry may reorder the arguments with explicit indexes (%[2]s).
func Sprintf(lang Lang, format string, args ...any) string {
	return fmt.Sprintf(Format(lang, format), args...)
}

// Errorf is fmt.Errorf with the format said in lang: %w wraps as fmt.Errorf does.
func Errorf(lang Lang, format string, args ...any) error {
	return fmt.Errorf(Format(lang, format), args...)
}

// Plural says the English format one when n is 1 and many otherwise, in lang, with args (n
// among them, usually). Japanese has no plural: the two entries are usually the same.
func Plural(lang Lang, n int, one, many string, args ...any) string {
	if n == 1 {
		return Sprintf(lang, one, args...)
	}
	return Sprintf(lang, many, args...)
}

// Inline is s as a phrase inside a sentence in lang: in Japanese with a space on each side
// where it begins or ends with Latin text (an id, a keyword), as in "a の with に"; in
// English s itself.
func Inline(lang Lang, s string) string {
	if lang != Japanese || s == "" {
		return s
	}
	if s[0] < utf8.RuneSelf {
		s = " " + s
	}
	if s[len(s)-1] < utf8.RuneSelf {
		s += " "
	}
	return s
}

// InlineStart is Inline for a phrase that starts a sentence: no space before it.
func InlineStart(lang Lang, s string) string {
	if lang != Japanese {
		return s
	}
	return strings.TrimLeft(Inline(lang, s), " ")
}

// Key marks a literal as a catalog format that is said later, from a table (a rule's message,
// say): TestCatalogComplete checks it as it checks Sprintf's. It returns format.
func Key(format string) string { return format }

// Message is a format and its arguments, said in a language only when it is printed: for what
// is found where the language is not known, such as a node type's Check, whose errors the
// loader and the engine each print in their own. As an error it says the English.
type Message struct {
	format string
	args   []any
}

// M is a Message. Its format, like Sprintf's, is a literal with an entry in the catalog.
func M(format string, args ...any) Message { return Message{format: format, args: args} }

// In says m in lang.
func (m Message) In(lang Lang) string { return Sprintf(lang, m.format, m.args...) }

func (m Message) Error() string { return m.In(English) }

// Format returns the format string for lang: the Japanese entry of format for Japanese when
// the catalog has one, else format itself.
func Format(lang Lang, format string) string {
	if f, ok := Lookup(lang, format); ok {
		return f
	}
	return format
}

// Lookup returns the catalog's entry of format in lang, and whether it has one; English has
// every format, as itself.
func Lookup(lang Lang, format string) (string, bool) {
	if lang != Japanese {
		return format, true
	}
	f, ok := ja()[format]
	return f, ok
}
