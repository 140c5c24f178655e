package query

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/snapshot"
)

// writtenRows is the CTE every write's rows come out of; the
// representation reads it like a relation.
const writtenRows = `"_svc_write"`

// Write builds a write's one statement: the insert, update or delete in a
// CTE, and over its rows the same result row a read returns. The body is
// the representation, the primary key of the first row as a JSON array
// (headers-only, for Location), or null; page_count is the number of rows
// written.
func Write(w *plan.Write) Statement {
	b := newBuilder()
	b.write("with ", writtenRows, " as (")
	switch {
	case w.Kind == plan.Update && len(w.Columns) == 0:
		// Nothing to set: touch no row, as PostgREST does with {}.
		b.write("select ")
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(".* from ")
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(" where false")
	case w.Kind == plan.Insert || w.Kind == plan.Put:
		insert(b, w)
		returning(b, w)
	case w.Kind == plan.Update:
		update(b, w)
		returning(b, w)
	case w.Kind == plan.Delete:
		b.write("delete from ")
		b.ident(w.Relation.Schema, w.Relation.Name)
		rowsToWrite(b, w)
		returning(b, w)
	}
	// total_count carries the number of rows inserted by an upsert, which
	// decides its status; the answer's count is page_count.
	if w.Upsert() {
		b.write(`) select (select pg_catalog.count(*) from `, writtenRows, ` where "_svc_inserted") as total_count, `)
	} else {
		b.write(") select null::bigint as total_count, ")
	}
	b.write("pg_catalog.count(_svc_row) as page_count, ")
	rows := &scope{node: &w.Read.Node, rel: w.Relation, qual: writtenRows, explicitStar: true}
	switch w.Return {
	case "representation":
		body(b, w.Read)
		b.write(" as body, ", resultColumns, " from (")
		source(b, rows, nil, nil, nil)
	case "headers-only":
		b.write("(pg_catalog.json_agg(pg_catalog.json_build_array(")
		b.list(len(w.Relation.PrimaryKey), func(i int) {
			b.write("_svc_row.")
			b.ident(w.Relation.PrimaryKey[i])
		})
		b.write("))->0)::text as body, ", resultColumns, " from (select * from ", writtenRows)
	default:
		b.write("null::text as body, ", resultColumns, " from (select from ", writtenRows)
	}
	b.write(") _svc_row")
	return b.statement()
}

// returning asks for what the answer needs: every column for a
// representation, the primary key for a Location, nothing otherwise (so a
// role may write columns it cannot read).
func returning(b *builder, w *plan.Write) {
	b.write(" returning ")
	switch {
	case w.Return == "representation":
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(".*")
	case w.Return == "headers-only" && len(w.Relation.PrimaryKey) > 0:
		b.list(len(w.Relation.PrimaryKey), func(i int) {
			b.ident(w.Relation.Schema, w.Relation.Name, w.Relation.PrimaryKey[i])
		})
	default:
		b.write("1")
	}
	if w.Upsert() {
		// A row an upsert inserted has no xmax; one it updated has the
		// updating transaction's.
		b.write(", ")
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(`.xmax = 0 as "_svc_inserted"`)
	}
}

// insert writes the INSERT of the payload's rows: one statement whatever
// their number, the rows read from the JSON array by PostgreSQL.
func insert(b *builder, w *plan.Write) {
	b.write("insert into ")
	b.ident(w.Relation.Schema, w.Relation.Name)
	if len(w.Columns) > 0 {
		b.write(" (")
		b.list(len(w.Columns), func(i int) { b.ident(w.Columns[i].Name) })
		b.write(")")
	}
	if w.MissingDefault && !w.Payload.Positional {
		insertRowsWithDefaults(b, w)
	} else {
		// Keys a row lacks read as null; a single object lists only its
		// own keys as columns, so the others take their defaults.
		// Positional rows have every key, so missing=default changes
		// nothing for them.
		b.write(" select ")
		b.list(len(w.Columns), func(i int) {
			b.write("_svc_p.")
			b.ident(w.Columns[i].Name)
		})
		b.write(" from ")
		payloadRecords(b, w)
		b.write(" _svc_p")
	}
	if w.Conflict == nil {
		return
	}
	b.write(" on conflict (")
	b.list(len(w.Conflict), func(i int) { b.ident(w.Conflict[i]) })
	if w.IgnoreDuplicates || len(w.Columns) == 0 {
		b.write(") do nothing")
		return
	}
	b.write(") do update set ")
	b.list(len(w.Columns), func(i int) {
		b.ident(w.Columns[i].Name)
		b.write(" = excluded.")
		b.ident(w.Columns[i].Name)
	})
}

// insertRowsWithDefaults selects the rows for missing=default: a key a row
// lacks takes the column default, while an explicit null stays null. The
// default expressions come from the catalog, not from the request.
func insertRowsWithDefaults(b *builder, w *plan.Write) {
	b.write(" select ")
	for i, c := range w.Columns {
		if i > 0 {
			b.write(", ")
		}
		if c.Default == nil {
			b.write("(_svc_p.r).")
			b.ident(c.Name)
			continue
		}
		b.write("case when _svc_p.j::jsonb ? ")
		b.arg(c.Name)
		b.write(" then (_svc_p.r).")
		b.ident(c.Name)
		b.write(" else ", *c.Default, " end")
	}
	b.write(" from (select _svc_e.j, pg_catalog.json_populate_record(null::")
	b.ident(w.Relation.Schema, w.Relation.Name)
	if w.Payload.Array {
		b.write(", _svc_e.j) as r from pg_catalog.json_array_elements(")
		b.value(w.Payload.JSON)
		b.write("::json) as _svc_e(j)) _svc_p")
		return
	}
	b.write(", _svc_e.j) as r from (select ")
	b.value(w.Payload.JSON)
	b.write("::json as j) as _svc_e) _svc_p")
}

// payloadRecords writes a FROM item giving the payload's rows as records
// of the relation's type, whatever form they came in (request.Payload):
// keys (or, for positional rows, the header's names) are matched to
// columns and each value is read as its column's type.
func payloadRecords(b *builder, w *plan.Write) {
	p := w.Payload
	switch {
	case p.Positional:
		// Each row becomes an object of the header's names on its own,
		// so PostgreSQL never holds the objects of all rows at once.
		b.write("pg_catalog.json_array_elements(")
		b.value(p.JSON)
		b.write("::json) _svc_r, pg_catalog.json_populate_record(null::")
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(", pg_catalog.json_object(")
		b.value(arrayLiteral(textNames(p.Header)))
		b.write("::text[], array(select _svc_v from pg_catalog.json_array_elements_text(_svc_r.value)" +
			" with ordinality _svc_x(_svc_v, _svc_n) order by _svc_n)))")
	case p.Array:
		b.write("pg_catalog.json_populate_recordset(null::")
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(", ")
		b.value(p.JSON)
		b.write("::json)")
	default:
		b.write("pg_catalog.json_populate_record(null::")
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(", ")
		b.value(p.JSON)
		b.write("::json)")
	}
}

// update writes the UPDATE setting the payload's keys on the chosen rows.
func update(b *builder, w *plan.Write) {
	b.write("update ")
	b.ident(w.Relation.Schema, w.Relation.Name)
	b.write(" set ")
	b.list(len(w.Columns), func(i int) {
		b.ident(w.Columns[i].Name)
		b.write(" = _svc_p.")
		b.ident(w.Columns[i].Name)
	})
	b.write(" from pg_catalog.json_populate_record(null::")
	b.ident(w.Relation.Schema, w.Relation.Name)
	b.write(", ")
	b.value(w.Payload.First)
	b.write("::json) _svc_p")
	rowsToWrite(b, w)
}

// rowsToWrite writes the conditions choosing the rows of a PATCH or DELETE:
// the filters, and with a limit, only the first rows in the given order.
func rowsToWrite(b *builder, w *plan.Write) {
	n := &plan.Node{Relation: w.Relation, Filters: w.Filters, Logic: w.Logic, Order: w.Order, Limit: w.Limit, Offset: w.Offset}
	sc := topScope(n)
	var c conds
	if w.Limit == nil && w.Offset == 0 {
		where(b, sc, &c)
		return
	}
	// UPDATE and DELETE take no LIMIT: pick the rows in order, by physical
	// address in tables (tableoid tells partitions' identical ctids
	// apart), by the order's columns elsewhere, which PostgREST requires
	// to be unique; if they are not, more rows change than the limit and
	// the server answers SVC110 and rolls back.
	ids := []string{sc.qual + ".tableoid", sc.qual + ".ctid"}
	if k := w.Relation.Kind; k != snapshot.KindTable && k != snapshot.KindPartitionedTable {
		ids = ids[:0]
		for _, o := range n.Order {
			// Shares the statement's arguments: a JSON key in a path is
			// bound once and its placeholder written twice.
			f := b.sub()
			f.field(sc, o.Field)
			b.rejoin(&f)
			ids = append(ids, f.sql.String())
		}
	}
	c.next(b)
	b.write("(", strings.Join(ids, ", "), ") in (select ", strings.Join(ids, ", "), " from ", sc.qual)
	var inner conds
	where(b, sc, &inner)
	orderAndWindow(b, sc)
	b.write(")")
}

// textNames returns names as PostgreSQL can take them as text: bytes that
// are not UTF-8 become U+FFFD, as they would in a JSON key. Such a name
// matches no column; it only must not fail the statement.
func textNames(names []string) []string {
	if !slices.ContainsFunc(names, func(n string) bool { return !utf8.ValidString(n) }) {
		return names
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ToValidUTF8(n, "\uFFFD")
	}
	return out
}
