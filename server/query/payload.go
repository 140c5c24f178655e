package query

import "github.com/svc-dev/svc/server/plan"

// A write's body is read by PostgreSQL from the JSON array the request
// parsing made of it. Columns whose domain has a representation (a cast
// from json) are read as json and handed to the cast's function, so a
// body may carry "#FF0000" for a color stored as an integer; the other
// columns are read as their own type, as PostgreSQL reads JSON into a row.

// payloadColumn writes the value the i-th payload column takes from the
// record that record (such as "_svc_p.") qualifies, read by the column's
// json -> domain cast when it has one.
func payloadColumn(b *builder, w *plan.Write, i int, record string) {
	value := func() {
		b.write(record)
		b.ident(w.Columns[i].Name)
	}
	if w.Parse != nil && w.Parse[i] != nil {
		b.call(w.Parse[i], value)
		return
	}
	value()
}

// payloadRecords writes the FROM item reading the body's rows as records
// named alias: all of the array json writes when set, else the one object
// it writes. Without representations the relation's row type reads them;
// with some, a column list saying json for the represented columns.
func payloadRecords(b *builder, w *plan.Write, set bool, alias string, json func()) {
	fn := "json_populate_record"
	if w.Parse != nil {
		fn = "json_to_record"
	}
	if set {
		fn += "set"
	}
	b.write("pg_catalog.", fn, "(")
	if w.Parse == nil {
		b.write("null::")
		b.ident(w.Relation.Schema, w.Relation.Name)
		b.write(", ")
	}
	json()
	if w.Parse == nil {
		b.write(") ", alias)
		return
	}
	b.write(") as ", alias, "(")
	b.list(len(w.Columns), func(i int) {
		b.ident(w.Columns[i].Name)
		// Types come from the snapshot, as format_type printed them.
		if w.Parse[i] != nil {
			b.write(" json")
		} else {
			b.write(" ", w.Columns[i].Type)
		}
	})
	b.write(")")
}
