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
