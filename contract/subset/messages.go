package subset

import (
	"fmt"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// The checker's reasons are said in English or Japanese: each is kept as its English format
// and arguments (reason), and ReasonIn says it in a language through internal/i18n. An
// argument that is itself a reason, or a bilingual text, is said in the same language.

// reason is one reason's English format and its arguments.
type reason struct {
	format string
	args   []any
}

// bilingual is an argument that differs by language: a validator message, an article.
type bilingual map[i18n.Lang]string

func msg(format string, args ...any) reason { return reason{format, args} }

// say sets r's reason.
func (r *Result) say(format string, args ...any) {
	r.why = msg(format, args...)
	r.Reason = r.why.in(i18n.English)
}

func (m reason) in(lang i18n.Lang) string {
	f := i18n.Format(lang, m.format)
	args := make([]any, len(m.args))
	for i, a := range m.args {
		switch a := a.(type) {
		case reason:
			args[i] = a.in(lang)
		case bilingual:
			args[i] = a[lang]
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(f, args...)
}

// ReasonIn is Reason in lang ("en" or "ja"), with the schemas called as CheckNamed was told.
func (r Result) ReasonIn(lang i18n.Lang) string {
	if r.why.format == "" {
		return r.Reason
	}
	a, b := r.names[0], r.names[1]
	if a == "" {
		a, b = "a", "b"
	}
	return strings.NewReplacer("⟨a⟩", a, "⟨b⟩", b).Replace(r.why.in(lang))
}
