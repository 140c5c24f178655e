package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// readTypes returns the enums and composite types of the exposed
// schemas, by name.
func readTypes(ctx context.Context, tx pgx.Tx, schemas []string) ([]snapshot.UserType, error) {
	rows, err := tx.Query(ctx, typesSQL, schemas)
	if err != nil {
		return nil, fmt.Errorf("read types: %w", err)
	}
	ts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (snapshot.UserType, error) {
		var u snapshot.UserType
		var attrs []byte
		err := row.Scan(&u.Schema, &u.Name, &u.Labels, &attrs)
		if err == nil && attrs != nil {
			err = json.Unmarshal(attrs, &u.Attributes)
		}
		return u, err
	})
	if err != nil {
		return nil, fmt.Errorf("read types: %w", err)
	}
	slices.SortFunc(ts, func(a, b snapshot.UserType) int { return cmpName(a.QualifiedName, b.QualifiedName) })
	if ts == nil {
		return []snapshot.UserType{}, nil
	}
	return ts, nil
}
