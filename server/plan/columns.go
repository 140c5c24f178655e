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
// resolved into node's Fields.
type columnChecker struct {
	snap *snapshot.Snapshot
	rel  *snapshot.Relation
	node *Node
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
	hint := ""
	if slices.Contains(c.aggregates, name) {
		hint = "\"" + name + "\" is an aggregate: filtering on aggregates (HAVING) and ordering by them are not supported."
	} else if best := closest(name, c.rel.Columns); best != "" {
		hint = "Perhaps you meant to reference the column \"" + c.node.SQLName() + "." + best + "\"."
	}
	return apierr.UndefinedColumn(c.node.SQLName(), name, hint)
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
