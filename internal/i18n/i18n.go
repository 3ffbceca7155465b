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
