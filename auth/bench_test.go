package auth

import (
	"fmt"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// BenchmarkLookup: finding the principal of a token among 1, 50 and 1,000 (every hash is
// compared, whichever matches), the whole cost a request pays for who it is.
func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{1, 50, 1000} {
		body := "principals:\n"
		for i := range n {
			body += fmt.Sprintf("  p%d: {token_sha256: %q, roles: [viewer]}\n", i, Hash(fmt.Sprintf("token-%d", i)))
		}
		s, err := Parse("p", []byte(body), i18n.English)
		if err != nil {
			b.Fatal(err)
		}
		tok := fmt.Sprintf("token-%d", n-1)
		b.Run(fmt.Sprintf("principals=%d", n), func(b *testing.B) {
			for b.Loop() {
				if s.Lookup(tok) == nil {
					b.Fatal("not found")
				}
			}
		})
	}
}

// BenchmarkForClaims: mapping a single sign-on session's claims to its principal, which each
// of its requests pays (by subject, the last of 50 and 1,000; by role_map, after every
// principal was looked at).
func BenchmarkForClaims(b *testing.B) {
	for _, n := range []int{50, 1000} {
		body := "oidc: {issuer: https://idp/, client_id: seam, roles_claim: groups, role_map: {sre: [admin]}}\nprincipals:\n"
		for i := range n {
			body += fmt.Sprintf("  p%d: {oidc: sub-%d, email: p%d@example.com, roles: [viewer]}\n", i, i, i)
		}
		s, err := Parse("p", []byte(body), i18n.English)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			c    Claims
		}{
			{"subject", Claims{Subject: fmt.Sprintf("sub-%d", n-1)}},
			{"role_map", Claims{Subject: "x", Email: "x@example.com", EmailVerified: true, Groups: []string{"sre"}}},
		} {
			b.Run(fmt.Sprintf("principals=%d/%s", n, c.name), func(b *testing.B) {
				for b.Loop() {
					if s.ForClaims(c.c) == nil {
						b.Fatal("not found")
					}
				}
			})
		}
	}
}
