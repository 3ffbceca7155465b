// Package i18n says seam's messages in English or Japanese. The catalog is keyed by the
// English format string, so code reads in English and a missing translation falls back to
// it; TestCatalogComplete finds every format given to Sprintf and Errorf in seam's source and
// fails when one has no Japanese, or when the Japanese does not take the same arguments.
package i18n

import (
	"fmt"
)

// Sprintf formats the English format, or in Japanese (lang "ja") its catalog entry, with args.
// A Japanese entry may reorder the arguments with explicit indexes (%[2]s).
func Sprintf(lang, format string, args ...any) string {
	return fmt.Sprintf(Format(lang, format), args...)
}

// Errorf is fmt.Errorf with the format said in lang: %w wraps as fmt.Errorf does.
func Errorf(lang, format string, args ...any) error {
	return fmt.Errorf(Format(lang, format), args...)
}

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
func (m Message) In(lang string) string { return Sprintf(lang, m.format, m.args...) }

func (m Message) Error() string { return m.In("en") }

// Format returns the format string for lang: the Japanese entry of format for "ja" when the
// catalog has one, else format itself.
func Format(lang, format string) string {
	if lang == "ja" {
		if f, ok := ja[format]; ok {
			return f
		}
	}
	return format
}
