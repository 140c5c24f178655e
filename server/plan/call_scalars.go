package plan

import (
	"fmt"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/snapshot"
)

// A function returning a set of scalars (setof integer, setof record) is
// read as PostgREST reads it: as rows of one column, named by
// Call.ScalarColumn, so limit, offset, Range, db-max-rows, counts, CSV,
// filters and order apply as to a set of composites, and JSON renders
// each row as its bare value.

// scalarRows is the relation whose rows a set of fn's values is read as:
// one column, column, of fn's type. It is named after the type, as the
// rows of a set of composites are, so an embed finds no relationship of a
// table that happens to share the function's name.
func scalarRows(fn *snapshot.Function, column string) *snapshot.Relation {
	typ := fn.ReturnType.Name
	if fn.ReturnType.Schema != "pg_catalog" {
		typ = fn.ReturnType.String()
	}
	return &snapshot.Relation{QualifiedName: fn.ReturnType, Kind: snapshot.KindView,
		Columns: []snapshot.Column{{Name: column, Type: typ, BaseType: typ, TypeSchema: fn.ReturnType.Schema, Nullable: true}}}
}

// checkScalarSelect refuses a select that does not output exactly one
// column of a set of scalars: each row's one output is the value JSON
// renders, so a second one would have nowhere to go.
func checkScalarSelect(n *Node) error {
	if names := n.OutputNames(); len(names) != 1 {
		return apierr.ParseError("A function returning a set of scalars has one column to select",
			fmt.Sprintf("select outputs %d columns; select %s alone, or one expression of it", len(names), n.Relation.Columns[0].Name))
	}
	return nil
}
