package runs

import "fmt"

// actionSQL is the statement that records an action of kind k, with placeholders written
// by ph (1-based): by, at, id.
func actionSQL(k ActionKind, ph func(int) string) (string, error) {
	var by, at string
	switch k {
	case ActionCancel:
		by, at = "canceled_by", "canceled_at"
	case ActionResume:
		by, at = "resumed_by", "resumed_at"
	default:
		return "", fmt.Errorf("record action %q: not an action of a run", k)
	}
	return `UPDATE runs SET ` + by + ` = ` + ph(1) + `, ` + at + ` = ` + ph(2) + ` WHERE id = ` + ph(3), nil
}
