package dbconfig

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
)

// Connect opens a session of its own to uri.
type Connect func(ctx context.Context, uri string) (*pgx.Conn, error)

// Resolve loads the configuration from sources and, when db-config is on,
// adds the in-database settings (Read), over a session connect opens to
// the configuration's database as its db-uri's role. atStart says what a
// database that cannot be read means: at a server's start it is logged
// and skipped, so a server can start while the database is away; on a
// reload it is an error, since a reload must keep the configuration in
// force rather than swap in one without them (no database JWT secret, no
// db-max-rows) until the next reload. Settings of another naming stop
// either (ForeignSettingsError).
func Resolve(ctx context.Context, sources config.Sources, connect Connect, log *slog.Logger, atStart bool) (*config.Config, error) {
	cfg, _, err := config.Load(sources)
	if err != nil || !cfg.DBConfig {
		return cfg, err
	}
	// The naming decides which in-database settings are read; compat-names
	// is not one of them.
	own := apierr.NamingOf(cfg.CompatNames)
	settings, notes, err := readAt(ctx, connect, cfg.DirectURI(), own, cfg.DBPreConfig)
	if foreign := (*ForeignSettingsError)(nil); errors.As(err, &foreign) {
		// Read, and refused: another naming's settings stop a start too,
		// unlike a database that cannot be read.
		return nil, fmt.Errorf("in-database configuration: %w", err)
	}
	if err != nil && !atStart {
		return nil, fmt.Errorf("in-database configuration not read: %w", err)
	}
	if err != nil {
		log.Warn("in-database configuration not read; using the file, environment and flags", "error", err)
		return cfg, nil
	}
	for _, n := range notes {
		log.Warn(n)
	}
	sources.Database, sources.DatabasePrefix = settings, own.SettingPrefix
	cfg, warnings, err := config.Load(sources)
	for _, w := range warnings {
		if strings.HasPrefix(w.Source, "database setting") {
			log.Warn(w.Message)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("in-database configuration: %w", err)
	}
	return cfg, nil
}

// readAt is Read over a session connect opens to uri, closed after.
func readAt(ctx context.Context, connect Connect, uri string, own apierr.Naming, preConfig string) (map[string]string, []string, error) {
	conn, err := connect(ctx, uri)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return Read(ctx, conn, own, preConfig)
}
