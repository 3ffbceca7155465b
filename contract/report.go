package contract

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// WriteViolations prints the outcome of a validation for a person: "valid", or one line per
// violation (where, what, the value and the schema keyword); or with asJSON
// {"valid": bool, "violations": [...]} for a program.
func WriteViolations(w io.Writer, violations []Violation, asJSON bool, lang i18n.Lang) error {
	if asJSON {
		out := struct {
			Valid      bool        `json:"valid"`
			Violations []Violation `json:"violations"`
		}{len(violations) == 0, violations}
		if out.Violations == nil {
			out.Violations = []Violation{}
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return fmt.Errorf("write result: %w", err)
		}
		return nil
	}
	if len(violations) == 0 {
		_, err := fmt.Fprintln(w, "valid")
		return err
	}
	var b strings.Builder
	for _, v := range violations {
		b.WriteString(violationLine(v, lang))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// violationLine reads: /status: field 'status' must be one of: pass, warn, fail (value "maybe",
// schema /properties/status/enum). The root's empty pointer is left out.
func violationLine(v Violation, lang i18n.Lang) string {
	var details []string
	if v.Value != "" {
		details = append(details, i18n.Sprintf(lang, "value %s", v.Value))
	}
	if v.Keyword != "" {
		details = append(details, i18n.Sprintf(lang, "schema %s", v.Keyword))
	}
	line := v.Message
	if v.Pointer != "" {
		line = v.Pointer + ": " + line
	}
	if len(details) > 0 {
		line += " (" + strings.Join(details, ", ") + ")"
	}
	return line
}
