package dbexec

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/connerr"
)

// applicationName is what SVC's sessions show in pg_stat_activity unless
// db-uri names its own application_name: requests, the LISTEN session,
// reloads of configuration and snapshots. An operator can then tell SVC's
// sessions from others of the same role, and terminate or count them.
const applicationName = "svc"

// nameSession sets application_name in params unless it is set already.
func nameSession(params map[string]string) {
	if _, ok := params["application_name"]; !ok {
		params["application_name"] = applicationName
	}
}

// Connect opens one connection to uri, a session of its own, named as
// nameSession says. A failure is worded by its cause (connerr).
//
// It prepares no named statement, as pgx's default cache would: LISTEN,
// live introspection and the in-database configuration use it, and
// through a pooler in transaction mode (no db-channel-uri) a named
// statement stays on the backend for whichever client comes next, whose
// own cache then fails with "prepared statement stmtcache_... already
// exists". Its statements are rare; each costs a parse.
func Connect(ctx context.Context, uri string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(uri)
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	nameSession(cfg.RuntimeParams)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	return conn, connerr.Explain(err)
}
