package suggest

// maxColumnDistance is PostgreSQL's MAX_FUZZY_DISTANCE: a column further
// than that from the name written is never suggested.
const maxColumnDistance = 3

// Columns returns the columns PostgreSQL's "Perhaps you meant to
// reference the column" hint names for name, an unknown column of a
// relation with columns (in their order): none, one, or two tied at the
// least distance. It follows PostgreSQL's own rule (parse_relation.c,
// updateFuzzyAttrMatchState), so that SVC, answering from the snapshot,
// hints what PostgreSQL would have on PostgREST's statement: edit
// distance in characters of at most three and at most half the bytes of
// name, the nearest columns only, and nothing when more than two are
// that near.
func Columns(name string, columns []string) []string {
	best := maxColumnDistance + 1
	var first, second string
	var matches int // at best's distance, 3 standing for too many
	for _, c := range columns {
		if c == "" {
			continue
		}
		d := runeDistance(c, name)
		if d > len(name)/2 {
			continue // more than half of it different: no typo of it
		}
		switch {
		case d < best:
			best, first, second, matches = d, c, "", 1
		case d == best && matches == 1:
			second, matches = c, 2
		case d == best && matches == 2:
			// Too many at this distance: none of them, and only a
			// nearer one from now on.
			first, second, matches = "", "", 3
		}
	}
	switch matches {
	case 1:
		return []string{first}
	case 2:
		return []string{first, second}
	}
	return nil
}

// runeDistance is the Levenshtein distance between a and b counted in
// characters, as PostgreSQL counts it.
func runeDistance(a, b string) int {
	return levenshtein([]rune(a), []rune(b))
}
