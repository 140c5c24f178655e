package plan

import (
	"slices"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/snapshot"
)

// columnChecker answers an unknown column from the snapshot the way
// PostgreSQL would (42703, naming the relation as the statement does,
// with PostgreSQL's hint), without a round trip. A name it accepts, a
// column or a computed field, is resolved into node's Fields. A name it
// does not know may be a column added since the snapshot was taken, so
// the advice says how to have it known (staleAdvice), unless the name is
// plainly something else (an aggregate's output) or the relation is none
// of the snapshot's.
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
	e := apierr.UndefinedColumn(c.node.SQLName(), name, columnHint(c.node.SQLName(), name, c.rel.Columns))
	if c.snap.Relation(c.rel.QualifiedName) == c.rel {
		// Not the rows of a function made from its arguments or its set
		// of values: those change with its signature, which SVC202 is for.
		e.WithAdvice(staleAdvice(c.snap, c.refresh, "a column \""+name+"\" of "+c.rel.Name, "added"))
	}
	return e
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
