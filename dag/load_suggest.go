package dag

// suggest returns the candidate closest to word by edit distance, when close enough to be a
// likely typo, or what aliases maps word to (names other tools use); "" when none is.
func suggest(word string, candidates []string, aliases map[string]string) string {
	if a, ok := aliases[word]; ok {
		return a
	}
	// Allow one edit per three characters, at least one: "neds" → "needs", not "a" → "on".
	best, bestDist := "", len([]rune(word))/3
	if bestDist < 1 {
		bestDist = 1
	}
	for _, c := range candidates {
		if d := editDistance(word, c); d <= bestDist && (best == "" || d < editDistance(word, best)) {
			best = c
		}
	}
	return best
}

// editDistance is the number of single-rune insertions, deletions, substitutions and
// swaps of neighbours that turn a into b (optimal string alignment): "cosnt" is one swap
// from "const".
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows: the one before the previous is needed for swaps.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
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
