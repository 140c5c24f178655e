package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// readDomains returns the domains the API shows (see domains.sql) with
// their checks, in name order, each domain's checks by name.
func readDomains(ctx context.Context, tx pgx.Tx, schemas, extraPath []string) ([]snapshot.Domain, error) {
	if extraPath == nil {
		extraPath = []string{} // $1 || NULL is NULL: no function would be read
	}
	rows, err := tx.Query(ctx, domainsSQL, schemas, extraPath)
	if err != nil {
		return nil, fmt.Errorf("read domains: %w", err)
	}
	ds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (snapshot.Domain, error) {
		var d snapshot.Domain
		var checks []byte
		err := row.Scan(&d.Schema, &d.Name, &d.Type, &d.BaseType, &d.NotNull, &d.Nondeterministic, &d.Description, &checks)
		if err == nil && checks != nil {
			err = json.Unmarshal(checks, &d.Checks)
		}
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("read domains: %w", err)
	}
	return normaliseDomains(ds), nil
}

// normaliseDomains sorts domains by name and their checks by name, and
// spells "no checks" as nil (the field is omitempty).
func normaliseDomains(ds []snapshot.Domain) []snapshot.Domain {
	for i := range ds {
		if len(ds[i].Checks) == 0 {
			ds[i].Checks = nil
		}
		slices.SortFunc(ds[i].Checks, func(a, b snapshot.DomainCheck) int { return strings.Compare(a.Name, b.Name) })
	}
	slices.SortFunc(ds, func(a, b snapshot.Domain) int { return cmpName(a.QualifiedName, b.QualifiedName) })
	if ds == nil {
		return []snapshot.Domain{}
	}
	return ds
}
