package query

import (
	"strings"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// Statement is a SQL statement with its bind arguments.
type Statement struct {
	SQL  string
	Args []any
	// Sources says, for each of Args, where it came from.
	Sources []Source
	// Expansion estimates, in bytes, what PostgreSQL holds for the
	// statement prepared beyond what its text's length accounts for
	// (expansion.go): 0 when the text tells it all.
	Expansion int
	// RowTypes estimates, in bytes, what PostgreSQL keeps for the rest
	// of a session's life the first time the statement runs on it: the
	// row types it registers (rowtypes.go).
	RowTypes int
	// Assert, when not empty, is a statement that only parses while the
	// catalog still holds what the snapshot told of the objects SQL
	// uses (assert.go). SQL carries the same assumptions, so it fails to
	// parse when they no longer hold; parsing Assert alone then tells a
	// stale snapshot from the request's own error.
	Assert string
	// SettingsAfter is set for a streamed read whose statement returns no
	// row for an empty page: the response settings are then read after
	// it, in the same transaction, by SettingsSQL, whose one row the same
	// row function takes.
	SettingsAfter bool
	// Sum is SumSQL of SQL, computed when the statement is kept (Shape,
	// WriteShape), so that the requests of a kept shape do not hash its
	// text to find it among a session's prepared statements; 0 when not
	// computed. It is a hint: what it finds is checked against SQL.
	Sum uint64
}

// Source is where a bind value came from. Slot 0: the statement's shape
// fixes it, so every request of that shape binds the same. Slot n > 0:
// query parameter n (request.Filter.Slot, request.Pair.Slot), its
// filter's Part-th operand (see OperandArg), or its whole value when Part
// is WholeValue (a function argument). Slot -1: a value from the request
// with no slot (a filter operand inside a logic tree, a payload, a
// variadic array); such a statement serves its request only. Slot
// PayloadSlot: a write's JSON body, whole (see WriteShape).
type Source struct{ Slot, Part int }

// PayloadSlot is the Source.Slot of a write's JSON body.
const PayloadSlot = -2

// WholeValue is the Source.Part of a query parameter's value bound whole.
const WholeValue = -1

// Result columns every main statement ends with: the response.headers and
// response.status settings a function may have set.
const resultColumns = `nullif(pg_catalog.current_setting('response.headers', true), '') as response_headers, ` +
	`nullif(pg_catalog.current_setting('response.status', true), '') as response_status`

// Read builds the main statement of a planned read. It returns the total
// count (or null), the rows in the page, the body, and the response
// settings, in one row.
//
// A streamed read (Streamed) returns a row per row of its body instead,
// which the server joins as Framing says; Whole keeps the one row.
func Read(p *plan.Read) Statement {
	return read(p, Streamed(p))
}

// Whole is Read with the body built whole by PostgreSQL, whatever its
// media: for the EXPLAIN of a read, whose plan reads as PostgREST's.
func Whole(p *plan.Read) Statement { return read(p, false) }

func read(p *plan.Read, streamed bool) Statement {
	b := newBuilder()
	top := func() *scope { return topScope(&p.Node) }
	if streamed {
		streamedRows(b, p, top)
	} else {
		readRows(b, p, top)
	}
	st := b.statement()
	st.SettingsAfter = streamed && bareStream(p)
	st.Expansion = readExpansion(p)
	st.RowTypes = nodeRowTypes(&p.Node)
	return st
}

// readRows writes the read statement over the rows top's scope names;
// top returns a fresh scope each call, as a count needs its own.
func readRows(b *builder, p *plan.Read, top func() *scope) {
	b.write("select ")
	// A page that is every row read counts itself: one aggregate over one
	// scan, as in PostgREST's plan.
	totalCount(b, p, top, "pg_catalog.count(_svc_row)")
	b.write(" as total_count, pg_catalog.count(_svc_row) as page_count, ")
	body(b, p)
	// The page is read through a bare select *, as PostgREST reads its
	// source, so PostgreSQL folds it into the aggregate: its plan then
	// shows no scan of an alias of ours and reads as PostgREST's does.
	b.write(" as body, ", resultColumns, " from (select * from (")
	sc := top()
	if p.Handler != nil && p.Media.Kind == request.MediaHandler {
		// A media handler renders the rows' text form, where an embed
		// reads as jsonb prints it, as in PostgREST; a relation's own
		// takes its row type, so its columns are output as stored.
		sc.jsonbEmbeds, sc.asStored = true, p.Handler.Relation != nil
	}
	source(b, sc, nil, nil, nil)
	b.write(") _svc_row) _svc_row")
}

// wholePage reports whether the page of p is every row its exact count
// would count, so that the page counts itself.
func wholePage(p *plan.Read) bool {
	return p.Count == "exact" && p.Limit == nil && p.Offset == 0 && !p.Aggregates()
}

// totalCount writes the total of read p: own, the page's count of
// itself, for a whole page (wholePage); a count of its own for another
// exact count; for count=estimated, exact up to db-max-rows, past which
// the server uses the planner's estimate (PlanCount), so counting stops
// at max-rows + 1; null for no count.
func totalCount(b *builder, p *plan.Read, top func() *scope, own string) {
	switch {
	case wholePage(p):
		b.write(own)
	case p.Count == "exact":
		b.write("(select pg_catalog.count(*) from ")
		countedRows(b, top())
		b.write(")")
	case p.Count == "estimated":
		b.write("(select pg_catalog.count(*) from (select 1 from ")
		countedRows(b, top())
		if p.MaxRows > 0 {
			b.write(" limit ")
			b.arg(p.MaxRows + 1)
		}
		b.write(") _svc_count)")
	default:
		b.write("null::bigint")
	}
}

// PlanCount builds the EXPLAIN whose row estimate answers count=planned
// and count=estimated (past db-max-rows, or always when it is unset, as
// in PostgREST). Nil when no estimate is needed.
func PlanCount(p *plan.Read) *Statement {
	if p.Count != "planned" && p.Count != "estimated" {
		return nil
	}
	var b builder
	b.write("explain (format json) select 1 from ")
	countedRows(&b, topScope(&p.Node))
	st := b.statement()
	return &st
}

// countedRows writes the relation and conditions that decide which rows a
// count counts: the read's own, without its select list, order, window or
// embeds. As in PostgREST's count query, an embed that decides whether a
// row is counted (inner, or tested for presence) is an EXISTS condition,
// not a join, so the planner's estimate (count=planned) comes out as
// PostgREST's does.
func countedRows(b *builder, sc *scope) {
	sc.counting = true
	from(b, sc, nil, nil)
	var c conds
	where(b, sc, &c)
}

// embedExists writes the condition that embed e of sc's row has a row:
// an EXISTS over the embed's own counted rows, joined to the parent's.
func embedExists(b *builder, sc *scope, e *plan.Embed) {
	esc := embedScope(e, sc)
	esc.counting = true
	b.write("exists (select 1 from ")
	from(b, esc, sc, e.Relationship)
	var c conds
	joinConditions(b, esc, sc, e.Relationship, &c)
	where(b, esc, &c)
	b.write(")")
}

// body writes the expression that serialises the page in PostgreSQL.
func body(b *builder, p *plan.Read) {
	if p.Head {
		b.write("null::text")
		return
	}
	kind := p.Media.Kind
	if kind == request.MediaHandler && p.Handler != nil {
		handlerBody(b, p.Handler, func() { b.write("_svc_row") })
		return
	}
	if p.Single && kind != request.MediaCSV && kind != request.MediaGeoJSON {
		kind = request.MediaObject
	}
	// JSON renders a row as an object, or, for rows of one value each, as
	// that value.
	row := "_svc_row"
	if p.Scalars {
		var sb strings.Builder
		sb.WriteString("_svc_row.")
		writeQuoted(&sb, p.OutputNames()[0])
		row = sb.String()
	}
	switch kind {
	case request.MediaCSV:
		// A row's composite text form without its parentheses is a CSV
		// line: fields with commas or quotes are quoted, quotes doubled.
		// btrim strips just the outer pair: a field holding a parenthesis
		// is always quoted, so no unquoted one can start with "(" or end
		// with ")". It renders each row once, where substr and length
		// rendered it twice (deploy/bench's csv workload measures the
		// difference).
		// The header line is added by the server from the plan.
		b.write("coalesce(pg_catalog.string_agg(pg_catalog.btrim(_svc_row::text, '()'), e'\\n'), '')")
	case request.MediaJSONLines:
		// One object a line, each line ended.
		b.write("coalesce(pg_catalog.string_agg(coalesce(pg_catalog.to_json(", row, ")::text, 'null') || e'\\n', ''), '')")
	case request.MediaGeoJSON:
		// PostGIS turns each row into a Feature: its first geometry column
		// becomes the geometry, the other columns the properties. The
		// function is found through the search_path (db-extra-search-path
		// holds PostGIS's schema), as in PostgREST.
		b.write("pg_catalog.json_build_object('type', 'FeatureCollection', 'features', ",
			"coalesce(pg_catalog.json_agg(st_asgeojson(_svc_row)::json), '[]'))::text")
	case request.MediaObject:
		if p.Media.StripNulls {
			b.write("coalesce(pg_catalog.json_strip_nulls(pg_catalog.json_agg(", row, ")->0)::text, 'null')")
		} else {
			b.write("coalesce((pg_catalog.json_agg(", row, ")->0)::text, 'null')")
		}
	default:
		if p.Media.StripNulls {
			b.write("coalesce(pg_catalog.json_strip_nulls(pg_catalog.json_agg(", row, ")), '[]')::text")
		} else {
			b.write("coalesce(pg_catalog.json_agg(", row, "), '[]')::text")
		}
	}
}

// source writes the select of one node: its columns, relation, embeds,
// conditions, order and window. parent and r are nil at the top.
//
// hidden are extra columns a parent orders by, output after the node's own.
func source(b *builder, sc, parent *scope, r *snapshot.Relationship, hidden []hiddenColumn) {
	n := sc.node
	planLaterals(sc)
	b.write("select ")
	groups := selectList(b, sc)
	for i, h := range hidden {
		if i > 0 || len(n.Columns) > 0 {
			b.write(", ")
		}
		b.field(sc, h.field)
		b.write(" as ")
		b.ident(h.name)
	}
	b.write(" from ")
	from(b, sc, parent, r)
	joinEmbeds(b, sc)
	var c conds
	joinConditions(b, sc, parent, r, &c)
	where(b, sc, &c)
	groupBy(b, groups)
	orderAndWindow(b, sc)
}

// orderAndWindow writes a node's ORDER BY, LIMIT and OFFSET.
func orderAndWindow(b *builder, sc *scope) {
	n := sc.node
	for i, o := range n.Order {
		if i == 0 {
			b.write(" order by ")
		} else {
			b.write(", ")
		}
		orderTerm(b, sc, o)
	}
	if n.Limit != nil {
		b.write(" limit ")
		b.arg(*n.Limit)
	}
	if n.Offset > 0 {
		b.write(" offset ")
		b.arg(n.Offset)
	}
}

// column writes one output column, always named: a cast or a path would
// otherwise be named after the type or "?column?", a representation after
// its function.
func column(b *builder, sc *scope, c plan.Column) {
	switch {
	case c.Star && (sc.explicitStar || sc.node.Fields != nil):
		// Listed one by one: a column with a representation is output
		// through it.
		for i, col := range sc.rel.Columns {
			if i > 0 {
				b.write(", ")
			}
			f := request.Field{Name: col.Name}
			if sc.format(f) == nil {
				b.column(sc, col.Name)
				continue
			}
			b.output(sc, f, "")
			b.write(" as ")
			b.ident(col.Name)
		}
	case c.Star:
		if sc.used != nil {
			sc.used.whole = true
		}
		b.write(sc.qual, ".*")
	case c.Embed != nil && c.Embed.Spread:
		for i, name := range c.Embed.OutputNames() {
			if i > 0 {
				b.write(", ")
			}
			b.embedColumn(sc, c.Embed, name)
			b.write(" as ")
			b.ident(name)
		}
	case c.Embed != nil:
		embedOutput(b, sc, c.Embed)
		if sc.aggregating || sc.jsonbEmbeds {
			b.write("::jsonb")
		}
		b.write(" as ")
		b.ident(c.Embed.Key)
	default:
		b.output(sc, c.Field, c.Cast)
		name := c.Alias
		if name == "" {
			name = c.Field.OutputName()
		}
		b.write(" as ")
		b.ident(name)
	}
}

// embedOutput writes what a non-spread embed puts in its parent's row:
// its row as a JSON object, or the JSON array of its rows ([] for none).
func embedOutput(b *builder, sc *scope, e *plan.Embed) {
	lat := sc.laterals[e]
	if e.ToOne() {
		b.write("pg_catalog.row_to_json(", lat, ".*)")
		return
	}
	b.write("coalesce(", lat, ".", lat, ", '[]')")
}

func orderTerm(b *builder, sc *scope, o request.OrderTerm) {
	switch {
	case o.Relation != "":
		relatedOrder(b, sc, o)
	case !groupedOrder(b, sc, o.Field):
		b.field(sc, o.Field)
	}
	if o.Desc {
		b.write(" desc")
	} else {
		b.write(" asc")
	}
	switch o.Nulls {
	case request.NullsFirst:
		b.write(" nulls first")
	case request.NullsLast:
		b.write(" nulls last")
	}
}
