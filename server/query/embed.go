package query

import (
	"slices"
	"strconv"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// scope is a node of the read tree as the statement refers to it.
type scope struct {
	node *plan.Node
	rel  *snapshot.Relation
	// qual is the SQL that qualifies the node's columns: the relation's
	// quoted name at the top, an alias inside embeds.
	qual string
	// laterals holds the alias of each embed's lateral join.
	laterals map[*plan.Embed]string
	// fromItem, when set, is the FROM item of a top scope whose rows are
	// not a relation's (a function call); qual then names its alias.
	fromItem string
	// explicitStar lists the relation's columns for `*`, so each is
	// referred to by name (and recorded in used).
	explicitStar bool
	// used, when set, records the columns of the scope's rows the
	// statement refers to: a write returns only those.
	used *usedColumns
	// recordRows marks rows that are records rather than the relation's
	// row type (a write's CTE); see builder.row.
	recordRows bool
	// aggregating marks a node whose output columns group its aggregates:
	// they are output as stored, without representations.
	aggregating bool
	// hidden holds, per to-one embed, the columns the node orders by that
	// the embed does not output; its lateral carries them beside its row.
	hidden map[*plan.Embed][]hiddenColumn
	// spread marks a spread embed, whose aggregates its parent computes.
	spread bool
	// grouped lists, in an aggregating node, the JSON-path fields output
	// (uncast) as grouping columns, with their positions.
	grouped []groupedField
}

// hiddenColumn is an order term's field carried out of an embed under a
// name of its own.
type hiddenColumn struct {
	field request.Field
	name  string
}

func topScope(n *plan.Node) *scope {
	var b builder
	b.ident(n.Relation.Schema, n.Relation.Name)
	return &scope{node: n, rel: n.Relation, qual: b.sql.String()}
}

// presence is the expression that is null exactly when embed e found no
// row: the to-one lateral's marker, or the to-many lateral's aggregate.
func (sc *scope) presence(e *plan.Embed) string {
	if e.ToOne() {
		return sc.laterals[e] + ".f"
	}
	return sc.laterals[e] + ".v"
}

// alias returns a fresh alias for the statement, "_svc_<n>".
func (b *builder) alias(prefix string) string {
	b.aliases++
	return `"_svc_` + prefix + strconv.Itoa(b.aliases) + `"`
}

// planLaterals picks the embeds of sc's node to join and names their
// laterals; it runs before the select list is written, which refers to
// them. Counting statements (rowsOnly) join only the embeds that decide
// which rows exist.
func planLaterals(b *builder, sc *scope, rowsOnly bool) {
	for _, e := range sc.node.Embeds {
		if rowsOnly && !e.Inner && !testsPresence(sc.node, e) {
			continue
		}
		if sc.laterals == nil {
			sc.laterals = make(map[*plan.Embed]string, len(sc.node.Embeds))
		}
		sc.laterals[e] = b.alias("l")
	}
	if rowsOnly {
		return
	}
	for _, o := range sc.node.Order {
		if o.Relation == "" {
			continue
		}
		e := sc.node.EmbedNamed(o.Relation)
		// An output in its JSON representation no longer sorts as the
		// stored value does: it is carried as a hidden column too.
		if len(o.Field.Path) == 0 && slices.Contains(e.OutputNames(), o.Field.Name) &&
			(e.Fields[o.Field.Name] == nil || e.Fields[o.Field.Name].Format == nil) {
			continue
		}
		if sc.hidden == nil {
			sc.hidden = map[*plan.Embed][]hiddenColumn{}
		}
		sc.hidden[e] = append(sc.hidden[e], hiddenColumn{field: o.Field, name: b.alias("o")})
	}
}

// relatedOrder writes the expression a related order term sorts by: the
// embed's output column, or the hidden column carried for it.
func relatedOrder(b *builder, sc *scope, o request.OrderTerm) {
	e := sc.node.EmbedNamed(o.Relation)
	for _, h := range sc.hidden[e] {
		if fieldsEqual(h.field, o.Field) {
			b.write(sc.laterals[e], ".", h.name)
			return
		}
	}
	b.write("(", sc.laterals[e], ".r).")
	b.ident(o.Field.Name)
}

func fieldsEqual(a, b request.Field) bool {
	return a.Name == b.Name && slices.Equal(a.Path, b.Path)
}

// joinEmbeds writes a left lateral join for each planned embed, in the
// node's embed order.
//
// A to-one embed's lateral yields (f, r): f is true when a row was found
// and r is that row, so the parent can output row_to_json(r), spread its
// fields, or order by them. A to-many embed's lateral yields v, the
// json_agg of its rows, null when there are none.
func joinEmbeds(b *builder, sc *scope) {
	for _, e := range sc.node.Embeds {
		lat, ok := sc.laterals[e]
		if !ok {
			continue
		}
		row := b.alias("t")
		hidden := sc.hidden[e]
		switch {
		case !e.ToOne():
			b.write(" left join lateral (select pg_catalog.json_agg(", row, ") as v from (")
		case len(hidden) == 0:
			b.write(" left join lateral (select true as f, ", row, " as r from (")
		default:
			// r must hold the output columns only, so it is rebuilt from
			// them in a lateral of its own; the hidden columns ride beside.
			b.write(" left join lateral (select true as f, _svc_r as r")
			for _, h := range hidden {
				b.write(", ", row, ".", h.name)
			}
			b.write(" from (")
		}
		source(b, embedScope(b, e), sc, e.Relationship, hidden)
		b.write(") ", row)
		if e.ToOne() && len(hidden) > 0 {
			b.write(", lateral (select ")
			for i, name := range e.OutputNames() {
				if i > 0 {
					b.write(", ")
				}
				b.write(row, ".")
				b.ident(name)
			}
			b.write(") _svc_r")
		}
		b.write(") ", lat, " on true")
	}
}

func embedScope(b *builder, e *plan.Embed) *scope {
	return &scope{node: &e.Node, rel: e.Relation, qual: b.alias(""), spread: e.Spread}
}

// testsPresence reports whether a filter of n, at top level or in a logic
// tree, tests embed e's presence.
func testsPresence(n *plan.Node, e *plan.Embed) bool {
	for _, f := range n.Filters {
		if f.Field.Name == e.Key && len(f.Field.Path) == 0 {
			return true
		}
	}
	for _, t := range n.Logic {
		if treeTests(t.Conditions, e.Key) {
			return true
		}
	}
	return false
}

func treeTests(conds []request.Condition, key string) bool {
	for _, c := range conds {
		if c.Tree != nil && treeTests(c.Tree.Conditions, key) {
			return true
		}
		if c.Filter != nil && c.Filter.Field.Name == key && len(c.Filter.Field.Path) == 0 {
			return true
		}
	}
	return false
}

// from writes the FROM item of a node: its relation, joined to the
// junction table for many-to-many, or a call of a computed relationship's
// function on the parent's row.
func from(b *builder, sc, parent *scope, r *snapshot.Relationship) {
	switch {
	case r == nil && sc.fromItem != "":
		b.write(sc.fromItem)
	case r == nil:
		b.write(sc.qual)
	case r.Computed():
		// The parent's whole row; a bare schema-qualified name would be
		// read as a column reference.
		b.call(r.Function, func() { b.row(parent) })
		b.write(" as ", sc.qual)
	case r.Junction != nil:
		b.ident(sc.rel.Schema, sc.rel.Name)
		b.write(" as ", sc.qual, " join ")
		b.ident(r.Junction.Table.Schema, r.Junction.Table.Name)
		b.write(" as ", junctionAlias(sc), " on ")
		for i, p := range r.Junction.TargetColumns {
			if i > 0 {
				b.write(" and ")
			}
			b.write(junctionAlias(sc), ".")
			b.ident(p.Column)
			b.write(" = ")
			b.column(sc, p.ForeignColumn)
		}
	default:
		b.ident(sc.rel.Schema, sc.rel.Name)
		b.write(" as ", sc.qual)
	}
}

// junctionAlias derives the junction's alias from its embed's, so both
// ends of the statement agree without passing it around.
func junctionAlias(sc *scope) string {
	return sc.qual[:len(sc.qual)-1] + `_j"`
}

// joinConditions writes the conditions that tie an embed's rows to its
// parent row: the foreign key's columns, or the junction's columns towards
// the parent. Computed relationships need none.
func joinConditions(b *builder, sc, parent *scope, r *snapshot.Relationship, c *conds) {
	switch {
	case r == nil || r.Computed():
	case r.Junction != nil:
		for _, p := range r.Junction.SourceColumns {
			c.next(b)
			b.write(junctionAlias(sc), ".")
			b.ident(p.Column)
			b.write(" = ")
			b.column(parent, p.ForeignColumn)
		}
	default:
		for _, p := range r.Columns {
			c.next(b)
			b.column(sc, p.ForeignColumn)
			b.write(" = ")
			b.column(parent, p.Column)
		}
	}
}
