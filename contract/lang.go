package contract

import "github.com/seam-dag/seam/internal/i18n"

// NotJSON is the violation of an output that does not parse as JSON.
func NotJSON(lang i18n.Lang) Violation {
	return Violation{Message: newPrinter(lang, wholeOutput).notJSON()}
}
