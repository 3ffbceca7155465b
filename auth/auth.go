// Package auth says who is asking: named principals with roles, found by the SHA-256 of a
// bearer token in a principals file (YAML) that is re-read when it changes, and the
// operating-system user for the local CLI and stdio MCP. It serves seam serve, seam mcp
// and, later, webhooks; it imports nothing of seam but internal/i18n.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"os/user"
	"strings"
)

// Role is what a principal may do.
type Role string

// The roles, from least to most. An operator is also a viewer; an approver is also a viewer
// (a person answering an approval reads the run it belongs to); an admin is everything.
const (
	// Viewer reads runs, DAGs, lint findings, n8n pages and MCP's reading tools.
	Viewer Role = "viewer"
	// Operator is a viewer that also runs, cancels, resumes and triggers.
	Operator Role = "operator"
	// Approver is a viewer that also answers the approvals that name it or one of its groups.
	Approver Role = "approver"
	// Admin may do everything, n8n workflow writes included.
	Admin Role = "admin"
)

// roleNames lists the roles in the order messages say them.
const roleNames = "viewer, operator, approver, admin"

// ParseRole is the role named s, and whether s names one.
func ParseRole(s string) (Role, bool) {
	switch r := Role(s); r {
	case Viewer, Operator, Approver, Admin:
		return r, true
	}
	return "", false
}

// Principal is someone seam knows: a name (as recorded on the runs it starts), its roles
// and its groups.
type Principal struct {
	Name   string
	Roles  []Role
	Groups []string
}

// Can reports whether p may do what role need allows.
func (p *Principal) Can(need Role) bool {
	if p == nil {
		return false
	}
	for _, r := range p.Roles {
		switch {
		case r == need, r == Admin:
			return true
		case need == Viewer && (r == Operator || r == Approver):
			return true
		}
	}
	return false
}

// OS is the operating-system user name as a principal, "os:NAME", with every role: whoever
// can run seam on the store's machine is trusted (docs/serve.md). name "" asks the system,
// then $USER through getenv; "unknown" when neither knows.
func OS(name string, getenv func(string) string) *Principal {
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		} else if getenv != nil {
			name = getenv("USER")
		}
	}
	if name == "" {
		name = "unknown"
	}
	return &Principal{Name: "os:" + name, Roles: []Role{Admin}}
}

// TokenPrincipal is the name of the one admin principal that $SEAM_SERVE_TOKEN or
// $SEAM_MCP_TOKEN stands for when no principals file is given.
const TokenPrincipal = "token"

// Set is a set of principals, each found by its token's SHA-256. Build it with Parse or
// Single. A Set is never changed once built.
type Set struct {
	list []entry
	oidc *OIDCConfig // single sign-on, when the file has an oidc: block
}

type entry struct {
	hash    [sha256.Size]byte
	hasHash bool   // false for a principal that only signs on through the provider (hash all zero)
	subject string // the provider's subject (oidc:), "" for none
	email   string // the provider's verified email (email:), "" for none
	p       *Principal
}

// Single is a set of one admin principal named name whose token is token: what
// $SEAM_SERVE_TOKEN and $SEAM_MCP_TOKEN stand for. Only the token's hash is kept.
func Single(name, token string) *Set {
	return &Set{list: []entry{{hash: sha256.Sum256([]byte(token)), hasHash: true, p: &Principal{Name: name, Roles: []Role{Admin}}}}}
}

// Current returns s itself: a Set is a Source that never changes.
func (s *Set) Current() *Set { return s }

// Lookup is the principal whose token is token, or nil. Every principal's hash is compared,
// each in constant time, whether or not one matched before: the time taken says nothing of
// which, if any, matched.
func (s *Set) Lookup(token string) *Principal {
	if s == nil || token == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(token))
	var found *Principal
	for i := range s.list {
		if subtle.ConstantTimeCompare(sum[:], s.list[i].hash[:]) == 1 {
			found = s.list[i].p
		}
	}
	return found
}

// Named is the principal named name, or nil: a login session holds a name, so that a
// principal removed from the file loses its sessions at once.
func (s *Set) Named(name string) *Principal {
	if s == nil {
		return nil
	}
	for _, e := range s.list {
		if e.p.Name == name {
			return e.p
		}
	}
	return nil
}

// Len is how many principals s holds.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.list)
}

// Source gives the principals in force now: a *Set, or a *File that re-reads itself.
type Source interface {
	Current() *Set
}

// Bearer is the token of an "Authorization: Bearer TOKEN" header, and whether the header
// is one. A token anywhere else (a URL's query, a form) is never read.
func Bearer(header string) (string, bool) {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

type ctxKey struct{}

// With returns ctx carrying p as the principal asking.
func With(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// From is the principal ctx carries, or nil.
func From(ctx context.Context) *Principal {
	p, _ := ctx.Value(ctxKey{}).(*Principal)
	return p
}

// NewToken draws a random token ("seam_" and 43 characters of base64url, 256 bits) and
// returns it with the hex SHA-256 the principals file keeps.
func NewToken() (token, sha string) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	token = "seam_" + base64.RawURLEncoding.EncodeToString(b)
	return token, Hash(token)
}

// Hash is the hex SHA-256 of token, as token_sha256 holds it.
func Hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// validName reports whether name may name a principal: letters, digits and . _ - @, not
// empty; a ':' is kept for the names seam gives (os:USER).
func validName(name string) bool {
	return name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@", r))
	})
}
