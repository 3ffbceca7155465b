package subset

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// FuzzSubsetPatterns compares two patterns with length bounds as the string automata do: a
// witness must verify, and a Compatible answer must hold on every short string over the
// patterns' own runes.
func FuzzSubsetPatterns(f *testing.F) {
	for _, p := range [][2]string{{"^[a-c]{2,4}$", "^[a-z]+$"}, {"(?i)^abc$", "^[aA][bB][cC]$"}, {"^(low|high)$", "^l"},
		{`^\d{3}-\d{4}$`, "^[0-9-]{8}$"}, {`\p{L}`, `\D`}, {"a.*b", "^a|b$"}, {"^$", "x*"}} {
		f.Add(p[0], p[1], uint8(0), uint8(5))
	}
	f.Fuzz(func(t *testing.T, pa, pb string, minB, maxB uint8) {
		ra, err1 := regexp.Compile(pa)
		rb, err2 := regexp.Compile(pb)
		if err1 != nil || err2 != nil || len(pa) > 64 || len(pb) > 64 {
			return
		}
		sa := map[string]any{"type": "string", "pattern": pa}
		sb := map[string]any{"type": "string", "pattern": pb, "minLength": json.Number(strconv.Itoa(int(minB % 8))), "maxLength": json.Number(strconv.Itoa(int(maxB % 16)))}
		ja, _ := json.Marshal(sa)
		jb, _ := json.Marshal(sb)
		a, b := compileBoth(t, string(ja), string(jb))
		r := Check(a, b)
		switch r.Verdict {
		case Incompatible:
			checkWitness(t, a, b, r)
		case Compatible:
			runes := []rune{'a', 'b', '0', '-', ' ', 'é'}
			for _, r := range pa + pb {
				if !slices.Contains(runes, r) && len(runes) < 12 {
					runes = append(runes, r)
				}
			}
			var walk func(s []rune)
			walk = func(s []rune) {
				w := string(s)
				n := len(s)
				if ra.MatchString(w) && !(rb.MatchString(w) && n >= int(minB%8) && n <= int(maxB%16)) {
					t.Fatalf("compatible, but %q matches %s and not %s", w, ja, jb)
				}
				if len(s) < 4 {
					for _, r := range runes {
						walk(append(s, r))
					}
				}
			}
			walk(nil)
		}
	})
}
