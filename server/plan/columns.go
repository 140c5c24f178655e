package plan

import (
	"slices"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/snapshot"
)

// columnChecker answers an unknown column from the snapshot the way
// PostgreSQL would (42703, naming the relation as the statement does),
// without a round trip, and suggests the closest existing name. A name it accepts, a column or a computed field, is
// resolved into node's Fields. A name it does not know may be a column
// added since the snapshot was taken, so the hint says how to have it
// known (staleHint), unless the name is plainly something else (an
// aggregate's output) or the relation is none of the snapshot's.
type columnChecker struct {
	snap    *snapshot.Snapshot
	rel     *snapshot.Relation
	node    *Node
	refresh Refresh
	// aggregates are the output keys of the node's aggregates, which a
	// filter or an order may name by mistake.
	aggregates []string
}

func (c columnChecker) check(name string) error {
	if col := c.snap.Column(c.rel, name); col != nil {
		c.node.columnField(c.snap, col)
		return nil
	}
	if f := c.snap.ComputedField(c.rel, name); f != nil {
		c.node.computedField(c.snap, f)
		return nil
	}
	if slices.Contains(c.aggregates, name) {
		hint := "\"" + name + "\" is an aggregate: filtering on aggregates (HAVING) and ordering by them are not supported."
		return apierr.UndefinedColumn(c.node.SQLName(), name, hint)
	}
	closer := ""
	if best := closest(name, c.rel.Columns); best != "" {
		closer = "Perhaps you meant to reference the column \"" + c.node.SQLName() + "." + best + "\"."
	}
	stale := ""
	if c.snap.Relation(c.rel.QualifiedName) == c.rel {
		// Not the rows of a function made from its arguments or its set
		// of values: those change with its signature, which SVC202 is for.
		stale = staleHint(c.snap, c.refresh, "a column \""+name+"\" of "+c.rel.Name, "added")
	}
	return apierr.UndefinedColumn(c.node.SQLName(), name, hints(closer, stale))
}

// has reports whether name is a column or a computed field of the
// relation.
func (c columnChecker) has(name string) bool {
	return c.snap.Column(c.rel, name) != nil || c.snap.ComputedField(c.rel, name) != nil
}

// closest returns the column name nearest to name, if it is near enough
// to be a plausible typo.
func closest(name string, cols []snapshot.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return suggest.Closest(name, names, 3)
}
