package reload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
)

// ReadDatabaseConfig reads in-database configuration over a connection of
// its own, as the authenticator: the svc.* settings its role carries
// (ALTER ROLE authenticator [IN DATABASE ...] SET svc.db_schemas = '...',
// which PostgreSQL applies at login) and, when preConfig names a function,
// whatever that function sets with set_config. The result maps keys
// ("db-schemas") to values, for config.Sources.Database.
func ReadDatabaseConfig(ctx context.Context, uri, preConfig string) (map[string]string, error) {
	conn, err := dbexec.Connect(ctx, uri)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	// Read only: nothing here should change the database; the rollback
	// also undoes what the pre-config function set.
	defer tx.Rollback(context.WithoutCancel(ctx))
	if preConfig != "" {
		if _, err := tx.Exec(ctx, dbexec.CallSQL(preConfig)); err != nil {
			return nil, fmt.Errorf("db-pre-config %s: %w", preConfig, err)
		}
	}
	byName := config.DatabaseSettings()
	names := slices.Sorted(maps.Keys(byName))
	settings := make([]string, len(names))
	for i, n := range names {
		settings[i] = apierr.Names.SettingPrefix + n
	}
	rows, err := tx.Query(ctx, "select s, pg_catalog.current_setting(s, true) from pg_catalog.unnest($1::text[]) s", settings)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for rows.Next() {
		var name string
		var value *string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		// An unset custom setting reads as NULL, or as "" once a session
		// has set and reset it; neither configures anything.
		if value != nil && *value != "" {
			out[byName[strings.TrimPrefix(name, apierr.Names.SettingPrefix)]] = *value
		}
	}
	return out, rows.Err()
}
