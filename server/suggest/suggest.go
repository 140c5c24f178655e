// Package suggest finds the known name closest to a misspelt one, for the
// "did you mean" hints of configuration keys, columns and relationships.
package suggest

// Distance is the Levenshtein distance between a and b (insertions,
// deletions and substitutions each cost 1), over bytes: the names it
// compares are identifiers, where a byte-level slip is the typo to catch.
func Distance(a, b string) int {
	return levenshtein([]byte(a), []byte(b))
}

// levenshtein is the edit distance between a and b over their elements:
// bytes for Distance, characters for the hints that follow PostgreSQL's
// count (runeDistance). One row of the table is kept beside the previous.
func levenshtein[E comparable](a, b []E) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest returns the candidate nearest to name within maxDistance edits,
// or "" when none is that near. Ties go to the earliest candidate, so
// callers passing a stable order get the same hint every time.
func Closest(name string, candidates []string, maxDistance int) string {
	best, bestDist := "", maxDistance+1
	for _, c := range candidates {
		if d := Distance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Typo returns the candidate name is most likely a misspelling of: the
// closest within an edit distance that grows with name's length (1 up to
// three bytes, 2 up to seven, then 3), so that a short name is not taken
// for a typo of an unrelated short one ("tags" is no typo of "todos",
// three edits away, while "tset" is of "test"). It returns "" when no
// candidate is that close.
func Typo(name string, candidates []string) string {
	return Closest(name, candidates, min(3, 1+len(name)/4))
}
