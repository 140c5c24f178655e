package dbconfig

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
)

// Read reads in-database configuration over conn, a session of its own
// opened as the authenticator: the svc.* settings its role carries
// (ALTER ROLE authenticator [IN DATABASE ...] SET svc.db_schemas = '...',
// which PostgreSQL applies at login) and, when preConfig names a function,
// whatever that function sets with set_config. The result maps keys
// ("db-schemas") to values, for config.Sources.Database. Settings of
// another naming (pgrst.* under SVC's names) are refused with the fix
// (ForeignSettingsError), or, when this naming's setting of the same key
// overrides them, returned in notes for the log (naming.go). own is the
// naming of the server the settings are for: its SettingPrefix is the one
// read.
func Read(ctx context.Context, conn *pgx.Conn, own apierr.Naming, preConfig string) (settings map[string]string, notes []string, err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Read only: nothing here should change the database; the rollback
	// also undoes what the pre-config function set.
	defer tx.Rollback(context.WithoutCancel(ctx))
	if preConfig != "" {
		if _, err := tx.Exec(ctx, CallSQL(preConfig)); err != nil {
			return nil, nil, fmt.Errorf("db-pre-config %s: %w", preConfig, err)
		}
	}
	byName := config.DatabaseSettings()
	suffixes := slices.Sorted(maps.Keys(byName))
	foreignModes := foreignSettingNames(own, suffixes)
	names := make([]string, 0, len(suffixes)+len(foreignModes))
	for _, n := range suffixes {
		names = append(names, own.SettingPrefix+n)
	}
	names = append(names, slices.Sorted(maps.Keys(foreignModes))...)
	rows, err := tx.Query(ctx, "select s, pg_catalog.current_setting(s, true) from pg_catalog.unnest($1::text[]) s", names)
	if err != nil {
		return nil, nil, err
	}
	out, foreign := map[string]string{}, map[string]string{}
	for rows.Next() {
		var name string
		var value *string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, nil, err
		}
		// An unset custom setting reads as NULL, or as "" once a session
		// has set and reset it; neither configures anything.
		if value == nil || *value == "" {
			continue
		}
		if _, ok := foreignModes[name]; ok {
			foreign[name] = *value
			continue
		}
		out[byName[strings.TrimPrefix(name, own.SettingPrefix)]] = *value
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	shadowed, err := checkForeignSettings(ctx, tx, own, foreign, foreignModes, byName, out)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range shadowed {
		notes = append(notes, shadowedMessage(own, s))
	}
	return out, notes, nil
}

// CallSQL calls the function a configuration key names, "schema.name" or
// "name", without arguments.
func CallSQL(name string) string {
	return "select " + pgx.Identifier(strings.SplitN(name, ".", 2)).Sanitize() + "()"
}
