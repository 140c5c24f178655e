package plan

import (
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// columnChecker answers an unknown column from the snapshot the way
// PostgreSQL would (42703), without a round trip, and suggests the closest
// existing name.
type columnChecker struct {
	snap *snapshot.Snapshot
	rel  *snapshot.Relation
}

func (c columnChecker) check(name string) error {
	if c.snap.Column(c.rel, name) != nil {
		return nil
	}
	hint := ""
	if best := closest(name, c.rel.Columns); best != "" {
		hint = "Perhaps you meant to reference the column \"" + c.rel.Name + "." + best + "\"."
	}
	return apierr.UndefinedColumn(c.rel.Name, name, hint)
}

// checkTree checks every field of a logic tree.
func (c columnChecker) checkTree(t request.LogicTree) error {
	for _, cond := range t.Conditions {
		var err error
		if cond.Tree != nil {
			err = c.checkTree(*cond.Tree)
		} else {
			err = c.check(cond.Filter.Field.Name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// closest returns the column name nearest to name by edit distance, if it
// is near enough to be a plausible typo.
func closest(name string, cols []snapshot.Column) string {
	best, bestDist := "", 4
	for _, c := range cols {
		if d := distance(name, c.Name); d < bestDist {
			best, bestDist = c.Name, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
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
