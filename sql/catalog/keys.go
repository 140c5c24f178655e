package catalog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// key is a primary key, unique constraint or unique index. Keys and
// foreign keys carry attnums only: the relations they matter for are
// exposed ones, whose column names are known, or base tables behind views,
// whose columns are matched by attnum.
type key struct {
	name    string
	primary bool
	attnums []int16
}

// foreignKey is a foreign key constraint with its columns in key order.
type foreignKey struct {
	name        string
	rel, frel   uint32
	cols, fcols []int16
}

// readKeys returns the keys of the relations in oids, by relation oid.
func readKeys(ctx context.Context, tx pgx.Tx, oids []uint32) (map[uint32][]key, error) {
	rows, err := tx.Query(ctx, keysSQL, oids)
	if err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	out := map[uint32][]key{}
	var (
		rel uint32
		k   key
	)
	_, err = pgx.ForEachRow(rows, []any{&rel, &k.name, &k.primary, &k.attnums}, func() error {
		out[rel] = append(out[rel], k)
		k = key{}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	return out, nil
}

// readForeignKeys returns the foreign keys whose both ends are in oids.
// Other keys cannot link two exposed relations, directly or through views.
func readForeignKeys(ctx context.Context, tx pgx.Tx, oids []uint32) ([]foreignKey, error) {
	inSet := make(map[uint32]bool, len(oids))
	for _, oid := range oids {
		inSet[oid] = true
	}
	rows, err := tx.Query(ctx, foreignKeysSQL, oids)
	if err != nil {
		return nil, fmt.Errorf("read foreign keys: %w", err)
	}
	var (
		out []foreignKey
		fk  foreignKey
	)
	_, err = pgx.ForEachRow(rows, []any{&fk.name, &fk.rel, &fk.frel, &fk.cols, &fk.fcols}, func() error {
		if inSet[fk.frel] {
			out = append(out, fk)
		}
		fk = foreignKey{}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read foreign keys: %w", err)
	}
	// Constraint names are unique per table only; order by both for
	// deterministic inference.
	slices.SortFunc(out, func(a, b foreignKey) int {
		return cmp.Or(cmp.Compare(a.rel, b.rel), strings.Compare(a.name, b.name))
	})
	return out, nil
}

// applyKeys fills PrimaryKey and UniqueKeys of the exposed relations from
// their constraints and unique indexes. Views have neither; they get a
// primary key inferred from their base tables (see viewPrimaryKey) but no
// unique keys, since a view over a join may repeat a base table's key.
// Materialized views get both: the inferred key and their own unique indexes.
func applyKeys(rels map[uint32]*relation, keys map[uint32][]key, traces map[uint32]viewTrace) {
	for oid, rel := range rels {
		for _, k := range keys[oid] {
			names := rel.columnNames(k.attnums)
			if k.primary {
				rel.PrimaryKey = names
			}
			rel.UniqueKeys = append(rel.UniqueKeys, snapshot.UniqueKey{Name: k.name, Columns: names})
		}
		if trace, ok := traces[oid]; ok {
			rel.PrimaryKey = viewPrimaryKey(trace, keys, rel)
		}
	}
}
