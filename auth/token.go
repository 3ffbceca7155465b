package auth

import (
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// NewTokenText is what seam token new prints: a new random token for the principal name
// with roles (viewer when none), shown once, and the line to add to the principals file,
// which holds only its hash. seam stores neither.
func NewTokenText(name string, roles []string, lang i18n.Lang) (string, error) {
	if !validName(name) {
		return "", i18n.Errorf(lang, "principal name %q: use letters, digits, '.', '_', '-' and '@'", name)
	}
	if len(roles) == 0 {
		roles = []string{string(Viewer)}
	}
	for _, r := range roles {
		if _, ok := ParseRole(r); !ok {
			return "", i18n.Errorf(lang, "--role %q: unknown role: want one of %s", r, roleNames)
		}
	}
	tok, sum := NewToken()
	line := name + `: {token_sha256: "` + sum + `", roles: [` + strings.Join(roles, ", ") + `]}`
	return i18n.Sprintf(lang, "The token of %s, shown this once (seam keeps no copy; give it to %s through a secret store):\n\n  %s\n\nAdd this line under principals: in the principals file (seam serve and seam mcp read it again within a second):\n\n  %s\n",
		name, name, tok, line), nil
}
