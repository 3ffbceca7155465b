package dag

import "github.com/seam-dag/seam/internal/suggest"

// didYouMean returns what aliases maps word to (names other tools use), or the candidate closest
// to word when it is a likely typo; "" when none is.
func didYouMean(word string, candidates []string, aliases map[string]string) string {
	if a, ok := aliases[word]; ok {
		return a
	}
	return suggest.Closest(word, candidates)
}
