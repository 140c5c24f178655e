package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/sql/connerr"
)

// connect opens a connection to cfg's database. svc-introspect is often
// run without the configuration file svc-serve runs with, and then tries
// libpq's defaults (a local socket, the user's own name): when that
// fails, the error says how to name the database.
//
// It prepares no named statement (pgx's cache would): through a pooler in
// transaction mode the backend keeps them for the next client, whose own
// cache then meets "prepared statement already exists".
func connect(ctx context.Context, cfg *config.Config) (*pgx.Conn, error) {
	conn, err := connectURI(ctx, cfg.DBURI)
	if err == nil {
		return conn, nil
	}
	if cfg.DBURI == config.Default().DBURI {
		err = fmt.Errorf("%w\nno database was named (no --config, --db-uri or SVC_DB_URI), so libpq's defaults were tried: "+
			"pass --config with the file svc-serve runs with, or --db-uri", err)
	}
	return nil, err
}

// connectURI opens a session to uri, preparing no statement (it may be a
// pooler's); a failure is worded by its cause (connerr).
func connectURI(ctx context.Context, uri string) (*pgx.Conn, error) {
	conf, err := pgx.ParseConfig(uri)
	if err != nil {
		return nil, err
	}
	conf.DefaultQueryExecMode = pgx.QueryExecModeExec
	conn, err := pgx.ConnectConfig(ctx, conf)
	return conn, connerr.Explain(err)
}

// missingSchemas refuses exposed schemas that do not exist, as the
// catalog does by default, with the did-you-mean svc-serve's notice has:
// a snapshot dumped for later is better refused at once than found empty.
func missingSchemas(missing, existing []string) error {
	absent, meant := suggest.Missing("exposed schema", missing, existing)
	return fmt.Errorf("introspect: %s (db-schemas)%s", absent, meant)
}
