package query

import (
	"strconv"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
)

// selectList writes a node's output columns. When the node aggregates it
// returns the positions of the grouping columns, every output that is not
// an aggregate, for groupBy; otherwise nil.
//
// Grouping by position rather than by expression matters: a JSON path's
// keys are bind parameters, and an expression written twice would hold
// different parameters, which PostgreSQL does not see as the same.
func selectList(b *builder, sc *scope) []int {
	n := sc.node
	if sc.spread || !n.Aggregates() {
		for i, c := range n.Columns {
			if i > 0 {
				b.write(", ")
			}
			if c.Aggregate != "" {
				// A spread's aggregate is computed by its parent over
				// this input, which it reads under the output name.
				aggregateInput(b, sc, c, "true")
				b.write(" as ")
				b.ident(c.OutputName())
			} else {
				column(b, sc, c)
			}
		}
		return nil
	}
	// Grouping columns are output as stored: a representation is json,
	// which has no equality to group by.
	sc.aggregating = true
	groups := []int{}
	pos := 0
	next := func(grouping bool) {
		if pos > 0 {
			b.write(", ")
		}
		pos++
		if grouping {
			groups = append(groups, pos)
		}
	}
	for _, c := range n.Columns {
		switch {
		case c.Aggregate != "":
			next(false)
			aggregateCall(b, c.Aggregate, c.AggregateCast, func() { aggregateInput(b, sc, c, "*") })
			b.write(" as ")
			b.ident(c.OutputName())
		case c.Star:
			// Grouping needs each column by itself.
			for _, col := range sc.rel.Columns {
				next(true)
				b.column(sc, col.Name)
			}
		case c.Embed != nil && c.Embed.Spread:
			for _, o := range c.Embed.SpreadOutputs() {
				next(o.Aggregate == "")
				spreadField := func() { b.embedColumn(sc, c.Embed, o.Name) }
				if o.Aggregate == "" {
					spreadField()
				} else {
					aggregateCall(b, o.Aggregate, o.AggregateCast, spreadField)
				}
				b.write(" as ")
				b.ident(o.Name)
			}
		case c.Embed != nil:
			// json has no equality operator; jsonb can be grouped by.
			next(true)
			embedOutput(b, sc, c.Embed)
			b.write("::jsonb as ")
			b.ident(c.Embed.Key)
		default:
			next(true)
			if len(c.Field.Path) > 0 && c.Cast == "" {
				sc.grouped = append(sc.grouped, groupedField{c.Field, pos})
			}
			column(b, sc, c)
		}
	}
	return groups
}

// groupedField is a JSON-path field an aggregating node groups by, and its
// output position.
type groupedField struct {
	field request.Field
	pos   int
}

// groupedOrder writes, for an order term on a JSON path the node groups by,
// the output position instead of the path: written again, the path would
// carry bind parameters of its own and no longer match the grouped one.
func groupedOrder(b *builder, sc *scope, f request.Field) bool {
	for _, g := range sc.grouped {
		if fieldsEqual(g.field, f) {
			b.write(strconv.Itoa(g.pos))
			return true
		}
	}
	return false
}

// aggregateInput writes what an aggregate column aggregates: its field with
// the input cast, or, for count() without a field, rows (which is written
// as the caller says: "*" inside count, a non-null constant when a parent
// counts the rows of a spread).
func aggregateInput(b *builder, sc *scope, c plan.Column, rows string) {
	switch {
	case c.Field.Name == "":
		b.write(rows)
	case c.Cast != "":
		b.write("(")
		b.field(sc, c.Field)
		b.write(")::", c.Cast)
	default:
		b.field(sc, c.Field)
	}
}

// aggregateCall writes fn applied to what arg writes, and the output cast.
// fn is one of the five names the grammar accepts; it is qualified so a
// function of the same name on the search_path cannot stand in for it.
func aggregateCall(b *builder, fn, cast string, arg func()) {
	if cast != "" {
		b.write("(")
	}
	b.write("pg_catalog.", fn, "(")
	arg()
	b.write(")")
	if cast != "" {
		b.write(")::", cast)
	}
}

// groupBy writes the GROUP BY of an aggregating node; none when every
// output is an aggregate (one row over all rows) or the node does not
// aggregate.
func groupBy(b *builder, positions []int) {
	for i, p := range positions {
		if i == 0 {
			b.write(" group by ")
		} else {
			b.write(", ")
		}
		b.write(strconv.Itoa(p))
	}
}
