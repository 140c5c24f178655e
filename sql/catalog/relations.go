package catalog

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// relation is an exposed relation with the catalog identifiers inference
// needs and the snapshot leaves out.
type relation struct {
	reltype uint32 // the row type's oid, which functions name in their signatures
	attnums []int16
	snapshot.Relation
}

// columnName returns the name of the column with attnum att. Relations
// have tens of columns, so a scan beats building a map for each.
func (r *relation) columnName(att int16) string {
	for i, a := range r.attnums {
		if a == att {
			return r.Columns[i].Name
		}
	}
	return ""
}

// columnNames returns the names of the columns with attnums atts, in order.
func (r *relation) columnNames(atts []int16) []string {
	names := make([]string, len(atts))
	for i, att := range atts {
		names[i] = r.columnName(att)
	}
	return names
}

// sortColumns puts the columns in attnum order, which columns.sql leaves
// to Go.
func (r *relation) sortColumns() {
	idx := make([]int, len(r.attnums))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(r.attnums[a], r.attnums[b]) })
	cols := make([]snapshot.Column, len(idx))
	atts := make([]int16, len(idx))
	for i, j := range idx {
		cols[i], atts[i] = r.Columns[j], r.attnums[j]
	}
	r.Columns, r.attnums = cols, atts
}

var relationKinds = map[string]snapshot.RelationKind{
	"r": snapshot.KindTable,
	"v": snapshot.KindView,
	"m": snapshot.KindMaterializedView,
	"f": snapshot.KindForeignTable,
	"p": snapshot.KindPartitionedTable,
}

// pg_relation_is_updatable's bits: 1 << CMD_INSERT, CMD_UPDATE, CMD_DELETE.
const (
	updatableInsert = 8
	updatableUpdate = 4
	updatableDelete = 16
)

// readRelations returns the relations of the exposed schemas by oid.
func readRelations(ctx context.Context, tx pgx.Tx, schemas []string) (map[uint32]*relation, error) {
	rows, err := tx.Query(ctx, relationsSQL, schemas)
	if err != nil {
		return nil, fmt.Errorf("read relations: %w", err)
	}
	out := map[uint32]*relation{}
	var (
		oid, reltype uint32
		kind         string
		updatable    int32
		r            snapshot.Relation
	)
	_, err = pgx.ForEachRow(rows,
		[]any{&oid, &reltype, &r.Schema, &r.Name, &kind, &r.Owner, &r.Description, &updatable, &r.Grants},
		func() error {
			rel := &relation{reltype: reltype, Relation: r}
			rel.Kind = relationKinds[kind]
			rel.Insertable = updatable&updatableInsert != 0
			rel.Updatable = updatable&updatableUpdate != 0
			rel.Deletable = updatable&updatableDelete != 0
			rel.Columns = []snapshot.Column{}
			rel.PrimaryKey = []string{}
			rel.UniqueKeys = []snapshot.UniqueKey{}
			out[oid] = rel
			r.Grants = nil // else the next row's JSON decodes into this row's slice
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("read relations: %w", err)
	}
	return out, nil
}

// readColumns adds their columns, in attnum order, to the relations.
func readColumns(ctx context.Context, tx pgx.Tx, schemas []string, rels map[uint32]*relation) error {
	rows, err := tx.Query(ctx, columnsSQL, schemas)
	if err != nil {
		return fmt.Errorf("read columns: %w", err)
	}
	var (
		relid    uint32
		attnum   int16
		maxLen   int32
		baseType *string
		c        snapshot.Column
	)
	_, err = pgx.ForEachRow(rows,
		[]any{&relid, &attnum, &c.Name, &c.Type, &baseType, &c.TypeSchema, &c.Nullable, &c.Default,
			&maxLen, &c.EnumValues, &c.Description, &c.Generated, &c.ReadOnly, &c.Grants},
		func() error {
			c.BaseType = c.Type
			if baseType != nil {
				c.BaseType = *baseType
			}
			rel := rels[relid]
			if rel == nil {
				// Both queries filter alike and see one snapshot.
				return fmt.Errorf("column %s of relation oid %d, which relations.sql did not return", c.Name, relid)
			}
			c.MaxLength = int(maxLen)
			rel.Columns = append(rel.Columns, c)
			rel.attnums = append(rel.attnums, attnum)
			c = snapshot.Column{} // Scan reuses pointers; start the next row clean
			return nil
		})
	if err != nil {
		return fmt.Errorf("read columns: %w", err)
	}
	for _, rel := range rels {
		rel.sortColumns()
	}
	return nil
}
