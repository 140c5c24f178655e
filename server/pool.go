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
// Statements run in pgx's exec mode: parameters travel as text with their
// types left to PostgreSQL, and nothing is described or prepared ahead.
// The cached-statement modes prepare new statements in a round trip of
// their own before the batch, outside the request transaction and so as
// the authenticator role: PostgreSQL checks schema USAGE while parsing, so
// the anonymous role's schemas would be refused (and an extra round trip
// paid). In exec mode each statement is parsed in order inside the
// transaction, after the role switch, and a request stays one round trip.
func NewPool(ctx context.Context, cfg *config.Config) (*pgxpool.Pool, error) {
	poolCfg, err := pgxpool.ParseConfig(cfg.DBURI)
	if err != nil {
		return nil, fmt.Errorf("db-uri: %w", err)
	}
	poolCfg.MaxConns = int32(cfg.DBPool)
	poolCfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	return pgxpool.NewWithConfig(ctx, poolCfg)
}
