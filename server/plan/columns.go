package plan

import (
	"slices"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/snapshot"
)

// columnChecker answers an unknown column from the snapshot the way
// PostgreSQL would (42703, naming the relation as the statement does,
// with its hint), without a round trip. A name it accepts, a column or a
// computed field, is resolved into node's Fields.
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
	} else {
		hint = columnHint(c.node.SQLName(), name, c.rel.Columns)
	}
	return apierr.UndefinedColumn(c.node.SQLName(), name, hint)
}

// has reports whether name is a column or a computed field of the
// relation.
func (c columnChecker) has(name string) bool {
	return c.snap.Column(c.rel, name) != nil || c.snap.ComputedField(c.rel, name) != nil
}

// columnHint is PostgreSQL's hint for the unknown column name of the
// relation the statement calls qual: the one or two columns its rule
// finds near enough (suggest.Columns), or "".
func columnHint(qual, name string, cols []snapshot.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	switch near := suggest.Columns(name, names); len(near) {
	case 1:
		return `Perhaps you meant to reference the column "` + qual + "." + near[0] + `".`
	case 2:
		return `Perhaps you meant to reference the column "` + qual + "." + near[0] + `" or the column "` + qual + "." + near[1] + `".`
	}
	return ""
}
