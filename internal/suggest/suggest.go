// Package suggest finds the "did you mean" candidate for a mistyped name.
package suggest

// Closest returns the candidate nearest to word by edit distance when it is close enough to
// be a likely typo — one edit per three characters, at least one: "neds" → "needs", but not
// "a" → "on" — or "" when none is. Ties go to the earlier candidate.
func Closest(word string, candidates []string) string {
	best, bestDist := "", max(1, len([]rune(word))/3)+1
	for _, c := range candidates {
		if d := distance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the number of single-rune insertions, deletions, substitutions and swaps of
// neighbours that turn a into b (optimal string alignment): "cosnt" is one swap from "const".
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows of the table: the one before the previous is needed for swaps.
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
