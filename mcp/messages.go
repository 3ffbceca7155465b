package mcp

import (
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// message is a message to the client, in the envelope or a progress notification: an English
// format and its arguments. It is formatted where the language is known (respond, progress),
// with the format's Japanese from the i18n catalog (internal/i18n/catalog_mcp.go); the
// handlers only say what to write.
type message struct {
	format string
	args   []any
}

// msgf is a message. format must be a literal with an entry in the catalog, with the same
// verbs, translated (internal/i18n's TestCatalogComplete checks all three).
func msgf(format string, args ...any) message { return message{format: format, args: args} }

// verbatim is text seam does not write (the n8n client's errors, the workflow validator's
// findings, an unexpected error): it is shown as it is in either language, so its format has
// no Japanese of its own.
func verbatim(text string) message { return message{format: "%s", args: []any{text}} }

// String is the English text, for errors and for data outside the envelope.
func (m message) String() string { return m.text(i18n.English) }

// text formats m in lang. Arguments that are messages, counts or lists of messages are
// written in the same language.
func (m message) text(lang i18n.Lang) string {
	args := make([]any, len(m.args))
	for i, a := range m.args {
		switch a := a.(type) {
		case message:
			args[i] = a.text(lang)
		case counted:
			args[i] = a.text(lang)
		case []message:
			parts := make([]string, len(a))
			for j, p := range a {
				parts[j] = p.text(lang)
			}
			args[i] = strings.Join(parts, i18n.Sprintf(lang, ", "))
		default:
			args[i] = a
		}
	}
	return i18n.Sprintf(lang, m.format, args...)
}

// counted is a number of things, formatted with %v: "3 errors" in English, "エラー 3 件" in
// Japanese, from the catalog's "%[1]d error" and "%[1]d errors".
type counted struct {
	n    int
	noun string // English, singular ("more violation" reads "2 more violations"); a literal
}

func howMany(n int, noun string) counted { return counted{n: n, noun: noun} }

// String is the English text.
func (c counted) String() string { return c.text(i18n.English) }

func (c counted) text(lang i18n.Lang) string {
	return i18n.Plural(lang, c.n, "%[1]d "+c.noun, "%[1]d "+c.noun+"s", c.n)
}
