package query

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/snapshot"
)

// writtenRows is the CTE every write's rows come out of; the
// representation reads it like a relation.
const writtenRows = `"_svc_write"`

// updatedSetting counts the rows an upsert updated, and updatedRows reads
// it: null before the first update of the transaction.
const (
	updatedSetting = "svc.upsert_updated"
	updatedRows    = "nullif(pg_catalog.current_setting('" + updatedSetting + "', true), '')::bigint"
)

// Write builds a write's one statement: the insert, update or delete in a
// CTE, and over its rows the same result row a read returns. The body is
// the representation, the primary key of the first row as a JSON array
// (headers-only, for Location), or null; page_count is the number of rows
// written.
//
// The CTE returns only the columns the answer refers to, so a role may
// write a relation and read back the columns it may read. They are known
// once the answer is written, so they go in last, at the place kept for
// them.
//
// A representation that WriteStreamed allows comes as a streamed read's
// does: a row per row of its body (see streamedRows), the written rows
// held by PostgreSQL's CTE (which spills to disk past work_mem), not
// aggregated into one value.
func Write(w *plan.Write) Statement {
	return write(w, WriteStreamed(w))
}

// WriteWhole is Write with the representation built whole, for EXPLAIN.
func WriteWhole(w *plan.Write) Statement { return write(w, false) }

// WriteStreamed reports whether write w's representation comes row by
// row: one asked for (return=representation) in a media a read would
// stream.
func WriteStreamed(w *plan.Write) bool {
	return w.Return == "representation" && Streamed(w.Read)
}

func write(w *plan.Write, streamed bool) Statement {
	b := newBuilder()
	rows := &scope{node: &w.Read.Node, rel: w.Relation, qual: writtenRows, explicitStar: true, recordRows: true, used: &usedColumns{}}
	b.write("with ", writtenRows, " as (")
	var at int
	switch {
	case w.Kind == plan.Update && len(w.Columns) == 0:
		// Nothing to set: touch no row, as PostgREST does with {}.
		b.write("select ")
		at = b.sql.Len()
		b.write(" from ")
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(" where false")
	case w.Kind == plan.Insert || w.Kind == plan.Put:
		insert(b, w)
		b.write(" returning ")
		at = b.sql.Len()
	case w.Kind == plan.Update:
		update(b, w)
		b.write(" returning ")
		at = b.sql.Len()
	case w.Kind == plan.Delete:
		b.write("delete from ")
		b.ident(w.Relation.Schema, w.Relation.Name)
		rowsToWrite(b, w)
		b.write(" returning ")
		at = b.sql.Len()
	}
	// total_count carries the number of rows an upsert inserted, which
	// decides its status; the answer's count is page_count. Its rows are
	// the ones inserted and the ones updated, and the update counted
	// itself (see insert); the aggregate is computed once the write has
	// run to its end, so every update has been counted.
	inserted := func() {
		if w.Upsert() {
			b.write("(select pg_catalog.count(*) - coalesce(", updatedRows, ", 0) from ", writtenRows, ")")
		} else {
			b.write("null::bigint")
		}
	}
	b.write(") ")
	if streamed {
		streamedLines(b, w.Read, func() *scope { return rows }, inserted, false)
		return writeStatement(b, w, rows, at)
	}
	b.write("select ")
	inserted()
	b.write(" as total_count, pg_catalog.count(_svc_row) as page_count, ")
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
	return writeStatement(b, w, rows, at)
}

// writeStatement completes write w's statement: what the write returns
// goes in at at, now that the answer has said what it uses.
func writeStatement(b *builder, w *plan.Write, rows *scope, at int) Statement {
	st := b.statement()
	st.SQL = st.SQL[:at] + returned(w, rows.used) + st.SQL[at:]
	// The relation written, and the rows written as the answer reads them.
	st.Expansion = len(w.Relation.Columns)*priceNamed + nodeExpansion(&w.Read.Node)
	st.RowTypes = nodeRowTypes(&w.Read.Node)
	return st
}

// usedColumns collects the columns of a write's rows that its answer
// refers to, in the order first referred to (so the statement's text
// depends on the request's shape only).
type usedColumns struct {
	names []string
	// whole is set when the answer needs the whole row: a computed
	// field or relationship takes it as its function's argument (see
	// builder.row).
	whole bool
}

func (u *usedColumns) add(name string) {
	if !slices.Contains(u.names, name) {
		u.names = append(u.names, name)
	}
}

// returned lists what the write returns: the columns the representation
// uses, the primary key for a Location, a constant otherwise (a write
// with no readable column still counts its rows).
func returned(w *plan.Write, used *usedColumns) string {
	var b builder
	var names []string
	switch {
	case w.Return == "representation" && used.whole:
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(".*")
		return b.sql.String()
	case w.Return == "representation":
		names = used.names
	case w.Return == "headers-only":
		names = w.Relation.PrimaryKey
	}
	if len(names) == 0 {
		return "1"
	}
	b.list(len(names), func(i int) { b.ident(w.Relation.Schema, w.Relation.Name, names[i]) })
	return b.sql.String()
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
	switch {
	case w.Kind == plan.Put:
		putRows(b, w)
	case w.MissingDefault:
		insertRowsWithDefaults(b, w)
	default:
		// Keys a row lacks read as null; a single object lists only its
		// own keys as columns, so the others take their defaults.
		b.write(" select ")
		b.list(len(w.Columns), func(i int) { payloadColumn(b, w, i, "_svc_p.") })
		b.write(" from ")
		payloadRows(b, w)
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
	// The condition always holds: it counts the rows updated rather than
	// inserted in a transaction-local setting. A returned row cannot say
	// which happened to it on every relation (partitions and views have
	// no xmax to tell).
	b.write(" where pg_catalog.set_config('", updatedSetting, "', (coalesce(", updatedRows, ", 0) + 1)::text, true) is not null")
}

// putRows selects PUT's rows: those of the body whose key the URL's
// filters match, as PostgREST selects them. The filters apply to the
// values as read for the columns (representations' casts applied), so
// PostgreSQL compares the key as its type: ?id=eq.08 matches {"id":8}.
// The column list is the payload's, which planning checked holds the key.
func putRows(b *builder, w *plan.Write) {
	b.write(" select * from (select ")
	b.list(len(w.Columns), func(i int) {
		payloadColumn(b, w, i, "_svc_p.")
		b.write(" as ")
		b.ident(w.Columns[i].Name)
	})
	b.write(" from ")
	payloadRows(b, w)
	b.write(") _svc_put")
	n := &plan.Node{Relation: w.Relation, Fields: w.Fields, Filters: w.Filters}
	where(b, &scope{node: n, rel: w.Relation, qual: "_svc_put"}, &conds{})
}

// insertRowsWithDefaults selects the rows for missing=default.
func insertRowsWithDefaults(b *builder, w *plan.Write) {
	b.write(" select ")
	b.list(len(w.Columns), func(i int) { defaultedValue(b, w, i) })
	b.write(" from ")
	keyedRows(b, w, func() { b.payload(w.Payload.JSON) }, w.Payload.Array, true)
}

// payloadRows writes the FROM item _svc_p giving the payload's rows as
// records (see payloadRecords), whatever form they came in
// (request.Payload).
func payloadRows(b *builder, w *plan.Write) {
	p := w.Payload
	if !p.Positional {
		payloadRecords(b, w, p.Array, "_svc_p", func() {
			b.payload(p.JSON)
			b.write("::json")
		})
		return
	}
	// Each positional row becomes an object of the header's names on its
	// own, so PostgreSQL never holds the objects of all rows at once.
	b.write("pg_catalog.json_array_elements(")
	b.payload(p.JSON)
	b.write("::json) _svc_r, ")
	payloadRecords(b, w, false, "_svc_p", func() {
		b.write("pg_catalog.json_object(")
		b.value(plan.ArrayLiteral(textNames(p.Header)))
		b.write("::text[], array(select _svc_v from pg_catalog.json_array_elements_text(_svc_r.value)" +
			" with ordinality _svc_x(_svc_v, _svc_n) order by _svc_n))")
	})
}

// keyedRows writes the FROM item _svc_p of the rows rows binds (an array
// of objects or of positional rows, or one object) for missing=default: each
// row's object (j) beside the record it reads as (r, see
// payloadRecords), so a value can tell a key the row lacks from an
// explicit null. r is taken whole from a lateral FROM item so its columns
// stay known.
//
// With drawn, an insert's, every default of the listed columns is
// evaluated for every row (_svc_d<i>, the i-th column's), whether the row
// has the key or not, as PostgREST's statement does: it builds each row's
// defaults before reading the row, so a bulk insert draws as many values
// from a sequence as PostgREST, and the keys clients see match. They are
// evaluated in the order of the columns' names, as PostgREST's set of
// columns orders them.
func keyedRows(b *builder, w *plan.Write, rows func(), array, drawn bool) {
	defaults := drawnDefaults(w, drawn)
	b.write("(select _svc_e.j, _svc_r as r")
	for _, i := range defaults {
		b.write(", _svc_d._svc_d", strconv.Itoa(i))
	}
	b.write(" from ")
	switch {
	case w.Payload.Positional:
		// Each positional row becomes an object of the header's names.
		b.write("(select pg_catalog.json_object(")
		b.value(plan.ArrayLiteral(textNames(w.Payload.Header)))
		b.write("::text[], array(select _svc_v from pg_catalog.json_array_elements_text(_svc_row.value)" +
			" with ordinality _svc_x(_svc_v, _svc_n) order by _svc_n)) as j from pg_catalog.json_array_elements(")
		rows()
		b.write("::json) _svc_row) as _svc_e")
	case array:
		b.write("pg_catalog.json_array_elements(")
		rows()
		b.write("::json) as _svc_e(j)")
	default:
		b.write("(select ")
		rows()
		b.write("::json as j) as _svc_e")
	}
	b.write(" cross join lateral ")
	payloadRecords(b, w, false, "_svc_r", func() { b.write("_svc_e.j") })
	if len(defaults) > 0 {
		// Referring to the row keeps the subquery evaluated for each row,
		// and OFFSET 0 keeps it from being merged into the query, where
		// a default would be evaluated only when its key is missing.
		b.write(" cross join lateral (select ")
		b.list(len(defaults), func(k int) {
			i := defaults[k]
			b.write(*w.Columns[i].Default, " as _svc_d", strconv.Itoa(i))
		})
		b.write(" where _svc_e.j is not null offset 0) _svc_d")
	}
	b.write(") _svc_p")
}

// drawnDefaults lists the indexes of the payload columns with a default,
// in the order of their names; none unless drawn.
func drawnDefaults(w *plan.Write, drawn bool) []int {
	if !drawn {
		return nil
	}
	var idx []int
	for i, c := range w.Columns {
		if c.Default != nil {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(w.Columns[a].Name, w.Columns[b].Name) })
	return idx
}

// defaultedValue writes the i-th payload column's value in a keyedRows
// row: a key the row lacks takes the column default, an explicit null
// stays null. The default expressions come from the snapshot, not from
// the request; an insert's were evaluated for the row already (keyedRows).
func defaultedValue(b *builder, w *plan.Write, i int) {
	c := w.Columns[i]
	if c.Default == nil {
		payloadColumn(b, w, i, "(_svc_p.r).")
		return
	}
	b.write("case when _svc_p.j::jsonb ? ")
	b.arg(c.Name)
	b.write(" then ")
	payloadColumn(b, w, i, "(_svc_p.r).")
	if w.Kind == plan.Insert {
		b.write(" else _svc_p._svc_d", strconv.Itoa(i), " end")
		return
	}
	b.write(" else ", *c.Default, " end")
}

// update writes the UPDATE setting the payload's keys on the chosen rows.
// Under missing=default a column of columns= the object lacks is set to
// its default, evaluated for each row as SET col = DEFAULT would be.
func update(b *builder, w *plan.Write) {
	b.write("update ")
	b.ident(w.Relation.Schema, w.Relation.Name)
	b.write(" set ")
	b.list(len(w.Columns), func(i int) {
		b.ident(w.Columns[i].Name)
		b.write(" = ")
		if w.MissingDefault {
			defaultedValue(b, w, i)
			return
		}
		payloadColumn(b, w, i, "_svc_p.")
	})
	b.write(" from ")
	if w.MissingDefault {
		keyedRows(b, w, func() { b.value(w.Payload.First) }, false, false) // PATCH takes one object
	} else {
		payloadRecords(b, w, false, "_svc_p", func() {
			b.value(w.Payload.First)
			b.write("::json")
		})
	}
	rowsToWrite(b, w)
}

// rowsToWrite writes the conditions choosing the rows of a PATCH or DELETE:
// the filters, and with a limit, only the first rows in the given order.
func rowsToWrite(b *builder, w *plan.Write) {
	n := &plan.Node{Relation: w.Relation, Fields: w.Fields, Filters: w.Filters, Logic: w.Logic, Order: w.Order,
		Limit: w.Limit, Offset: w.Offset}
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
