package query

import (
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/snapshot"
)

// callRows is the alias of a call's result rows.
const callRows = `"_svc_call"`

// Call builds a function call's statement, with the result row a read
// returns. Rows of a composite type read like a relation's (filters,
// select, embeds, order, window, counts); a scalar, a set of scalars or
// void is one JSON value, built after the function ran.
func Call(c *plan.Call) Statement {
	b := newBuilder()
	// The argument source and the call are written once, in a builder
	// sharing the statement's arguments, and placed wherever needed.
	part := b.sub()
	arguments(&part, c)
	args := part.sql.String()
	part.sql.Reset()
	invoke(&part, c)
	call := part.sql.String()
	b.rejoin(&part)

	switch {
	case c.ReturnsRows():
		top := func() *scope {
			return &scope{node: &c.Read.Node, rel: c.Read.Relation, qual: callRows,
				fromItem: args + " cross join lateral " + call + " as " + callRows}
		}
		readRows(b, c.Read, top)
	case c.Function.Returns == snapshot.ReturnsSetOfScalar:
		b.write("with _svc_call as materialized (select _svc_f.v from ", args, " cross join lateral ", call,
			" as _svc_f(v)) select null::bigint as total_count, pg_catalog.count(*) as page_count, ",
			"coalesce(pg_catalog.json_agg(_svc_call.v), '[]')::text as body, ", resultColumns, " from _svc_call")
	case c.Function.Returns == snapshot.ReturnsVoid:
		b.write("with _svc_call as materialized (select from ", args, " cross join lateral ", call,
			" as _svc_f) select null::bigint as total_count, 0::bigint as page_count, null::text as body, ",
			resultColumns, " from _svc_call")
	default:
		// Materialized, so the function has run (and set any response
		// headers) before the settings are read.
		b.write("with _svc_call as materialized (select pg_catalog.to_json(", call, ") as v from ", args,
			") select null::bigint as total_count, 1::bigint as page_count, coalesce(_svc_call.v::text, 'null') as body, ",
			resultColumns, " from _svc_call")
	}
	return b.statement()
}

// arguments writes the FROM item the arguments are read from: the JSON
// object of a POST typed by the function's signature, or the query
// string's values cast to the argument types.
func arguments(b *builder, c *plan.Call) {
	switch {
	case len(c.Args) == 0:
		b.write("(select) _svc_a")
	case c.Args[0].Name == "":
		// The whole body is the one unnamed argument.
		b.write("(select ")
		b.value(c.Args[0].Value)
		b.write("::", c.Args[0].Type, " as v) _svc_a")
	case c.Body != nil:
		b.write("pg_catalog.json_to_record(")
		b.value(c.Body)
		b.write("::json) as _svc_a(")
		b.list(len(c.Args), func(i int) {
			b.ident(c.Args[i].Name)
			// Argument types come from the catalog, not from the request.
			b.write(" ", c.Args[i].Type)
		})
		b.write(")")
	default:
		b.write("(select ")
		b.list(len(c.Args), func(i int) {
			b.parameter(c.Args[i].Slot, c.Args[i].Value)
			b.write("::", c.Args[i].Type, " as ")
			b.ident(c.Args[i].Name)
		})
		b.write(") _svc_a")
	}
}

// invoke writes the call in named notation, passing only the arguments
// given so the others take their defaults.
func invoke(b *builder, c *plan.Call) {
	b.ident(c.Function.Schema, c.Function.Name)
	b.write("(")
	if len(c.Args) == 1 && c.Args[0].Name == "" {
		b.write("_svc_a.v)")
		return
	}
	b.list(len(c.Args), func(i int) {
		if c.Args[i].Variadic {
			b.write("variadic ")
		}
		b.ident(c.Args[i].Name)
		b.write(" := _svc_a.")
		b.ident(c.Args[i].Name)
	})
	b.write(")")
}
