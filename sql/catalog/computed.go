package catalog

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// readComputedFields adds to each relation the functions that read as its
// virtual columns. Of two functions of one name, the one earlier on the
// search path (the relation's schema, then extraPath in order) is the one
// a request reaches; a column of that name hides both.
func readComputedFields(ctx context.Context, tx pgx.Tx, schemas, extraPath []string, rels map[uint32]*relation) error {
	if extraPath == nil {
		extraPath = []string{} // any($2) of NULL is NULL: no row would pass
	}
	rows, err := tx.Query(ctx, computedFieldsSQL, schemas, extraPath)
	if err != nil {
		return fmt.Errorf("read computed fields: %w", err)
	}
	type found struct {
		rel   *relation
		rank  int32
		field snapshot.ComputedField
	}
	var (
		all      []found
		relid    uint32
		baseType *string
		rank     int32
		f        snapshot.ComputedField
	)
	_, err = pgx.ForEachRow(rows, []any{&relid, &f.Function.Schema, &f.Function.Name, &f.Type, &baseType, &rank},
		func() error {
			rel := rels[relid]
			if rel == nil {
				return fmt.Errorf("computed field %s of relation oid %d, which relations.sql did not return", f.Function, relid)
			}
			f.BaseType = f.Type
			if baseType != nil {
				f.BaseType = *baseType
			}
			all = append(all, found{rel, rank, f})
			f = snapshot.ComputedField{}
			return nil
		})
	if err != nil {
		return fmt.Errorf("read computed fields: %w", err)
	}
	// Nearest on the search path first, so the first of each name wins.
	slices.SortStableFunc(all, func(a, b found) int { return cmp.Compare(a.rank, b.rank) })
	for _, x := range all {
		r := x.rel
		name := x.field.Function.Name
		if slices.ContainsFunc(r.Columns, func(c snapshot.Column) bool { return c.Name == name }) ||
			slices.ContainsFunc(r.ComputedFields, func(c snapshot.ComputedField) bool { return c.Name() == name }) {
			continue
		}
		r.ComputedFields = append(r.ComputedFields, x.field)
	}
	return nil
}
