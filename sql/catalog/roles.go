package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// readRoles returns the roles with their direct memberships and effective
// per-role settings.
func readRoles(ctx context.Context, tx pgx.Tx) ([]snapshot.Role, error) {
	rows, err := tx.Query(ctx, rolesSQL)
	if err != nil {
		return nil, fmt.Errorf("read roles: %w", err)
	}
	roles, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (snapshot.Role, error) {
		var (
			r                    snapshot.Role
			inDB, inAllDatabases []string
		)
		err := row.Scan(&r.Name, &r.Inherit, &r.Superuser, &r.MemberOf, &inDB, &inAllDatabases)
		r.Settings = roleSettings(inDB, inAllDatabases)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("read roles: %w", err)
	}
	return roles, nil
}

// roleSettings merges ALTER ROLE ... IN DATABASE settings over ALTER ROLE
// ones, as PostgreSQL applies them at login, so the server applies one list
// without knowing the precedence. The result is sorted by setting name.
func roleSettings(inDB, inAllDatabases []string) []string {
	byName := map[string]string{}
	for _, s := range inAllDatabases {
		byName[settingName(s)] = s
	}
	for _, s := range inDB {
		byName[settingName(s)] = s
	}
	if len(byName) == 0 {
		return nil
	}
	out := make([]string, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(settingName(a), settingName(b)) })
	return out
}

// settingName returns the name part of "name=value".
func settingName(s string) string {
	name, _, _ := strings.Cut(s, "=")
	return name
}
