package query

import (
	"strings"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/snapshot"
)

// Call builds a function call's statement, with the result row a read
// returns. Rows of a composite type, and a set of scalars read as rows of
// one column, read like a relation's (filters, select, embeds, order,
// window, counts); a scalar or void is one JSON value, built after the
// function ran.
//
// Rows read as a relation's are streamed as a read's are (Streamed);
// CallWhole keeps them one aggregate.
func Call(c *plan.Call) Statement {
	return call(c, c.ReturnsRows() && Streamed(c.Read))
}

// CallWhole is Call with the body built whole by PostgreSQL: for the
// EXPLAIN of a call.
func CallWhole(c *plan.Call) Statement { return call(c, false) }

func call(c *plan.Call, streamed bool) Statement {
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
	asserted, guard, assert := returnAssertion(c, call)
	if guard != "" {
		// The arguments' row, kept under its name, with the guard.
		alias := argsAlias(c)
		args = "(select " + alias + ".* from " + args + " where " + guard + ") " + alias
	}
	var sb strings.Builder
	writeQuoted(&sb, c.Alias())
	rows := sb.String()

	switch {
	case c.ReturnsRows():
		fromItem := args + " cross join lateral " + call + " as " + rows
		if c.Read.Scalars {
			// Called in the select list, where a set of records needs no
			// column definition list: each is one value, as PostgREST
			// reads `setof record`.
			var column strings.Builder
			writeQuoted(&column, c.ScalarColumn())
			fromItem = args + " cross join lateral (select " + call + " as " + column.String() + ") as " + rows
		}
		top := func() *scope {
			return &scope{node: &c.Read.Node, rel: c.Read.Relation, qual: rows, fromItem: fromItem}
		}
		if streamed {
			streamedRows(b, c.Read, top)
		} else {
			readRows(b, c.Read, top)
		}
	case c.Handler != nil:
		// The function's value is the body, in the media type it returns.
		b.write("with ", rows, " as materialized (select ", asserted, " as v from ", args,
			") select null::bigint as total_count, 1::bigint as page_count, ")
		handlerBody(b, c.Handler, func() { b.write(rows, ".v") })
		b.write(" as body, ", resultColumns, " from ", rows)
	case c.Function.Returns == snapshot.ReturnsVoid:
		b.write("with ", rows, " as materialized (select ", asserted, " from ", args,
			") select null::bigint as total_count, 0::bigint as page_count, null::text as body, ",
			resultColumns, " from ", rows)
	default:
		// Materialized, so the function has run (and set any response
		// headers) before the settings are read.
		b.write("with ", rows, " as materialized (select pg_catalog.to_json(", asserted, ") as v from ", args,
			") select null::bigint as total_count, 1::bigint as page_count, coalesce(", rows, ".v::text, 'null') as body, ",
			resultColumns, " from ", rows)
	}
	st := b.statement()
	st.Assert = assert
	st.SettingsAfter = c.ReturnsRows() && streamed && bareStream(c.Read)
	if c.ReturnsRows() {
		st.Expansion = readExpansion(c.Read)
		st.RowTypes = nodeRowTypes(&c.Read.Node)
	}
	return st
}

// arguments writes the FROM item the arguments are read from: the JSON
// object of a POST typed by the function's signature, or the query
// string's values cast to the argument types.
func arguments(b *builder, c *plan.Call) {
	switch {
	case len(c.Args) == 0:
		b.write("(select) ", argsAlias(c))
	case c.Args[0].Name == "":
		// The whole body is the one unnamed argument.
		b.write("(select ")
		b.value(c.Args[0].Value)
		b.write("::", argType(c.Args[0].Type), " as v) ", argsAlias(c))
	case c.Body != nil:
		b.write("pg_catalog.json_to_record(")
		b.value(c.Body)
		b.write("::json) as ", argsAlias(c), "(")
		b.list(len(c.Args), func(i int) {
			b.ident(c.Args[i].Name)
			// Argument types come from the catalog, not from the request.
			b.write(" ", argType(c.Args[i].Type))
		})
		b.write(")")
	default:
		b.write("(select ")
		b.list(len(c.Args), func(i int) {
			b.parameter(c.Args[i].Slot, c.Args[i].Value)
			b.write("::", argType(c.Args[i].Type), " as ")
			b.ident(c.Args[i].Name)
		})
		b.write(") ", argsAlias(c))
	}
}

// invoke writes the call in named notation, passing only the arguments
// given so the others take their defaults.
func invoke(b *builder, c *plan.Call) {
	b.ident(c.Function.Schema, c.Function.Name)
	b.write("(")
	if len(c.Args) == 1 && c.Args[0].Name == "" {
		b.write(argsAlias(c), ".v)")
		return
	}
	b.list(len(c.Args), func(i int) {
		if c.Args[i].Variadic {
			b.write("variadic ")
		}
		b.ident(c.Args[i].Name)
		b.write(" := ", argsAlias(c), ".")
		b.ident(c.Args[i].Name)
	})
	b.write(")")
}

// argsAlias quotes the name of the row the arguments are read from.
func argsAlias(c *plan.Call) string {
	var sb strings.Builder
	writeQuoted(&sb, c.ArgsAlias())
	return sb.String()
}

// argType is the type an argument's value is read as: its own, but for
// character and bit, read as their varying forms, as PostgREST does. A
// function's character(4) argument is declared without its length, and
// the value cast to bare character would keep one character.
func argType(t string) string {
	base, array := strings.CutSuffix(t, "[]")
	switch base {
	case "character":
		base = "character varying"
	case "bit":
		base = "bit varying"
	default:
		return t
	}
	if array {
		return base + "[]"
	}
	return base
}
