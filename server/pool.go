package server

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/config"
)

// NewPool opens the request connection pool for cfg.
//
// Request statements do not go through pgx's statement cache: its modes
// prepare a new statement in a round trip of their own before the batch,
// outside the request transaction and so as the authenticator role, and
// PostgreSQL checks schema USAGE while parsing, so the anonymous role's
// schemas would be refused. Requests prepare their statements themselves,
// inside the transaction (see runPipeline); what else runs through pgx here
// (a rollback after a failure) uses exec mode, one round trip and nothing
// prepared.
func NewPool(ctx context.Context, cfg *config.Config) (*pgxpool.Pool, error) {
	poolCfg, err := pgxpool.ParseConfig(cfg.DBURI)
	if err != nil {
		return nil, fmt.Errorf("db-uri: %w", err)
	}
	poolCfg.MaxConns = int32(cfg.DBPool)
	poolCfg.MaxConnLifetime = cfg.DBPoolMaxLifetime
	poolCfg.MaxConnIdleTime = cfg.DBPoolMaxIdletime
	poolCfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	return pgxpool.NewWithConfig(ctx, poolCfg)
}
