package query

import (
	"slices"
	"strconv"
	"strings"

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
	// depth is the node's embedding depth: 0 at the top.
	depth int
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
	// aggregating marks a node whose output columns group aggregates, its
	// own or, for a spread, those of the node it is spread into: they are
	// output as stored, without representations, and embeds as jsonb,
	// which has equality.
	aggregating bool
	// jsonbEmbeds outputs the node's embeds as jsonb, and asStored its
	// columns without their representations (see readRows).
	jsonbEmbeds, asStored bool
	// hidden holds, per to-one embed, the columns the node orders by that
	// the embed does not output; a lateral of their own carries them
	// beside the embed's row (see joinEmbeds).
	hidden map[*plan.Embed][]hiddenColumn
	// spread marks a spread embed, whose aggregates its parent computes.
	spread bool
	// counting marks a node read for a count only (see countedRows): its
	// embeds are EXISTS conditions rather than joins.
	counting bool
	// grouped lists, in an aggregating node, the JSON-path fields output
	// (uncast) as grouping columns, with their positions.
	grouped []groupedField
}

// hiddenColumn is a field carried out of an embed under a name of its
// own, for the related order term that names it term.
type hiddenColumn struct {
	term, field request.Field
	name        string
}

func topScope(n *plan.Node) *scope {
	var b builder
	b.ident(n.Relation.Schema, n.Relation.Name)
	return &scope{node: n, rel: n.Relation, qual: b.sql.String()}
}

// The statement names what it joins as PostgREST does, so database errors
// (`column clients_1.nam does not exist`) and plans read alike: an
// embedded relation is `<table>_<depth>` inside its lateral subquery
// (plan.Node.SQLName), and the lateral is `<parent table>_<embed
// key>_<depth>`. A name stands for one thing wherever it is visible: a
// depth apart, the suffixes differ.

// embedScope is the scope of embed e of parent.
func embedScope(e *plan.Embed, parent *scope) *scope {
	var sb strings.Builder
	writeQuoted(&sb, e.SQLName())
	return &scope{node: &e.Node, rel: e.Relation, qual: sb.String(), depth: e.Depth, spread: e.Spread,
		aggregating: e.Spread && parent.aggregating}
}

// depthAlias quotes `<name>_<depth>`.
func depthAlias(name string, depth int) string {
	var sb strings.Builder
	writeQuoted(&sb, name+"_"+strconv.Itoa(depth))
	return sb.String()
}

// present writes the condition that embed e found a row: a to-one
// lateral's row is there (whatever its columns hold), a to-many one's
// aggregate is not null. absent writes its negation.
func (b *builder) present(sc *scope, e *plan.Embed) {
	lat := sc.laterals[e]
	if e.ToOne() {
		b.write(lat, " is distinct from null")
		return
	}
	b.write(lat, ".", lat, " is not null")
}

func (b *builder) absent(sc *scope, e *plan.Embed) {
	lat := sc.laterals[e]
	if e.ToOne() {
		b.write(lat, " is not distinct from null")
		return
	}
	b.write(lat, ".", lat, " is null")
}

// embedColumn writes column name of embed e's lateral row: an output
// column of the embed, or a hidden column carried for the parent.
func (b *builder) embedColumn(sc *scope, e *plan.Embed, name string) {
	b.write(sc.laterals[e], ".")
	b.ident(name)
}

// planLaterals names the laterals of the embeds of sc's node, and the
// columns they carry for its order; it runs before the select list is
// written, which refers to them.
func planLaterals(sc *scope) {
	for _, e := range sc.node.Embeds {
		if sc.laterals == nil {
			sc.laterals = make(map[*plan.Embed]string, len(sc.node.Embeds))
		}
		sc.laterals[e] = depthAlias(sc.rel.Name+"_"+e.Key, sc.depth+1)
	}
	for _, o := range sc.node.Order {
		if o.Relation == "" {
			continue
		}
		e := sc.node.EmbedNamed(o.Relation)
		output, field := orderedBy(e, o.Field)
		if output {
			continue
		}
		if sc.hidden == nil {
			sc.hidden = map[*plan.Embed][]hiddenColumn{}
		}
		names := e.OutputNames()
		n := len(sc.hidden[e]) + 1
		name := o.Relation + "_order_" + strconv.Itoa(n)
		for slices.Contains(names, name) {
			n++
			name = o.Relation + "_order_" + strconv.Itoa(n)
		}
		sc.hidden[e] = append(sc.hidden[e], hiddenColumn{term: o.Field, field: field, name: name})
	}
}

// orderedBy tells what a related order term on embed e sorts by: the
// output of e named as the term names it (output true), as in PostgREST
// where the name is an output's, an alias first; or the field to carry
// hidden: that output's own field when the output is a representation,
// which no longer sorts as the stored value does, or the term's field, a
// column of e's relation that e does not output.
func orderedBy(e *plan.Embed, f request.Field) (output bool, field request.Field) {
	if len(f.Path) > 0 {
		return false, f
	}
	formatted := func(name string) bool {
		pf := e.Fields[name]
		return pf != nil && pf.Format != nil && !(e.Aggregates() && !e.Spread)
	}
	for _, c := range e.Columns {
		switch {
		case c.Star:
			if slices.ContainsFunc(e.Relation.Columns, func(col snapshot.Column) bool { return col.Name == f.Name }) {
				return !formatted(f.Name), f
			}
		case c.Embed == nil && c.OutputName() == f.Name:
			if c.Aggregate == "" && c.Cast == "" && len(c.Field.Path) == 0 && formatted(c.Field.Name) {
				return false, c.Field
			}
			return true, f
		}
	}
	return slices.Contains(e.OutputNames(), f.Name), f
}

// relatedOrder writes the expression a related order term sorts by: the
// embed's output column, or the hidden column carried for it.
func relatedOrder(b *builder, sc *scope, o request.OrderTerm) {
	e := sc.node.EmbedNamed(o.Relation)
	for _, h := range sc.hidden[e] {
		if fieldsEqual(h.term, o.Field) {
			b.write(orderCarrier(sc, e), ".")
			b.ident(h.name)
			return
		}
	}
	b.embedColumn(sc, e, o.Field.Name)
}

// orderCarrier is the alias of the lateral that carries embed e's row
// together with its hidden columns.
func orderCarrier(sc *scope, e *plan.Embed) string {
	lat := sc.laterals[e]
	return lat[:len(lat)-1] + `_order"`
}

func fieldsEqual(a, b request.Field) bool {
	return a.Name == b.Name && slices.Equal(a.Path, b.Path)
}

// joinEmbeds writes a left lateral join for each planned embed, in the
// node's embed order, shaped as PostgREST's.
//
// A to-one embed's lateral is its rows' subquery itself: the parent
// outputs row_to_json(lateral.*), spreads or orders by lateral.column,
// and tests the row's presence. A to-many embed's lateral yields the
// json_agg of its rows in a column named as the lateral, null when there
// are none.
//
// A to-one embed the parent orders by columns it does not output (hidden)
// is read by a lateral of its own, `..._order`, with the hidden columns
// after its outputs; the embed's lateral then takes just the outputs from
// it, so row_to_json still sees the outputs alone.
func joinEmbeds(b *builder, sc *scope) {
	for _, e := range sc.node.Embeds {
		lat, hidden := sc.laterals[e], sc.hidden[e]
		switch {
		case !e.ToOne():
			b.write(" left join lateral (select pg_catalog.json_agg(", lat, ") as ", lat, " from (")
			source(b, embedScope(e, sc), sc, e.Relationship, nil)
			b.write(") as ", lat, ") as ", lat, " on true")
		case len(hidden) == 0:
			b.write(" left join lateral (")
			source(b, embedScope(e, sc), sc, e.Relationship, nil)
			b.write(") as ", lat, " on true")
		default:
			carrier := orderCarrier(sc, e)
			b.write(" left join lateral (")
			source(b, embedScope(e, sc), sc, e.Relationship, hidden)
			b.write(") as ", carrier, " on true left join lateral (select ")
			b.list(len(e.OutputNames()), func(i int) {
				b.write(carrier, ".")
				b.ident(e.OutputNames()[i])
			})
			b.write(" where ", carrier, " is distinct from null) as ", lat, " on true")
		}
	}
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
		b.write(" as ", junctionAlias(sc, r), " on ")
		for i, p := range r.Junction.TargetColumns {
			if i > 0 {
				b.write(" and ")
			}
			b.write(junctionAlias(sc, r), ".")
			b.ident(p.Column)
			b.write(" = ")
			b.column(sc, p.ForeignColumn)
		}
	default:
		b.ident(sc.rel.Schema, sc.rel.Name)
		b.write(" as ", sc.qual)
	}
}

// junctionAlias is the alias of a many-to-many embed's junction table:
// `<junction>_<depth>` like its target's, which no other name in reach
// of it can be.
func junctionAlias(sc *scope, r *snapshot.Relationship) string {
	return depthAlias(r.Junction.Table.Name, sc.depth)
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
			b.write(junctionAlias(sc, r), ".")
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
