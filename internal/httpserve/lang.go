package httpserve

import (
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// AcceptLanguage is the first of seam's languages an Accept-Language header names (ja-JP is
// ja), and whether it names one.
func AcceptLanguage(header string) (i18n.Lang, bool) {
	for _, part := range strings.Split(header, ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		base, _, _ := strings.Cut(tag, "-")
		if l, err := i18n.Parse(base); err == nil {
			return l, true
		}
	}
	return "", false
}
