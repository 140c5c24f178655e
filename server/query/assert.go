package query

import (
	"strings"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/snapshot"
)

// A node serves from its snapshot until it reloads, and a migration may
// commit before that: a function dropped and created again with the same
// arguments and another result (a table, a set, a value where there was
// none) is still called by the old statement, which PostgreSQL parses
// against the new function. Rendered as the old shape, its rows make an
// answer neither version gives (one row of two, as an object). So a
// statement states what the snapshot told of what it calls, in a way the
// parser checks and the planner removes (it folds a COALESCE with a null
// constant away): the call's value is COALESCEd with a null of the
// result type the snapshot recorded. PostgreSQL refuses a set-returning
// function there, and a result of a type that cannot be matched with the
// recorded one (a row where a value was, a value where void was), at
// parse time, before anything runs. A result of a type that can be
// matched (an integer become bigint) renders as the function now does,
// as a fresh node would.

// returnAssertion returns the call's expression as the statement uses it,
// asserting the result the snapshot recorded, and the statement that
// asserts only that (Statement.Assert): the function called with typed
// nulls, which resolve to the same function as the call's arguments, of
// the same types. A function returning one row is called in FROM, where
// PostgreSQL takes a set as well, so its statement asserts it in a guard
// instead: a condition on the arguments' row that PostgreSQL refuses to
// parse for a set or another row type, and folds to true (a CASE that is
// never taken) without calling anything. Other rows, read by their
// columns' names, are answered as the function now returns them, or
// refused for a column it no longer has, as with the new snapshot; a
// result of a polymorphic or record type, which no null can stand for,
// has no assertion.
func returnAssertion(c *plan.Call, call string) (expr, guard, assert string) {
	fn := c.Function
	rows := c.ReturnsRows()
	if (rows && fn.Returns != snapshot.ReturnsComposite) || fn.ReturnsRecord || pseudoType(fn.ReturnType) {
		return call, "", ""
	}
	var typ strings.Builder
	typ.WriteString("null::")
	writeQuoted(&typ, fn.ReturnType.Schema)
	typ.WriteByte('.')
	writeQuoted(&typ, fn.ReturnType.Name)

	b := builder{}
	b.write("coalesce(")
	b.ident(fn.Schema, fn.Name)
	b.write("(")
	if len(c.Args) == 1 && c.Args[0].Name == "" {
		b.write("null::", argType(c.Args[0].Type))
	} else {
		b.list(len(c.Args), func(i int) {
			if c.Args[i].Variadic {
				b.write("variadic ")
			}
			b.ident(c.Args[i].Name)
			b.write(" := null::", argType(c.Args[i].Type))
		})
	}
	b.write("), ", typ.String(), ")")
	if rows {
		// A null test of the row, inside the CASE, leaves a boolean
		// outside it, whose null test the planner folds; a row's it keeps
		// to run.
		guard = "case when false then " + b.sql.String() + " is null end is null"
		return call, guard, "select " + guard
	}
	return "coalesce(" + call + ", " + typ.String() + ")", "", "select " + b.sql.String()
}

// pseudoType reports whether t is a polymorphic or other pseudo-type of
// PostgreSQL's (anyelement, record, ...), whose null cannot be written.
// void is one too, but a null of it can, and matches only void.
func pseudoType(t snapshot.QualifiedName) bool {
	if t.Schema != "pg_catalog" {
		return false
	}
	switch {
	case strings.HasPrefix(t.Name, "any"), t.Name == "record", t.Name == "cstring", t.Name == "internal", t.Name == "unknown":
		return true
	}
	return false
}
