package dbexec

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/logging"
)

// Whether the primary is reached, for the log. A database that goes away
// shows in the log through the requests it fails (SVC000, SVC001); one
// that comes back is said by the first session reached again, with the
// line start-up has, so that a log shows where an outage ended. A pool's
// state is kept beside its sessions (poolSessions.lost), so that start-up
// (AwaitDatabase) and requests, which both may reach the database first,
// say it once between them.

// reachState is cached by an Executor: looking a pool's poolSessions up
// costs a weak pointer, which a request should not pay.
type reachState struct {
	sessions atomic.Pointer[poolSessions]
}

// primary returns the poolSessions of e's primary pool.
func (e *Executor) primary() *poolSessions {
	if ps := e.reach.sessions.Load(); ps != nil {
		return ps
	}
	ps := sessionsOf(e.Pool)
	e.reach.sessions.Store(ps)
	return ps
}

// sessions returns pool's poolSessions, the primary's without a lookup.
func (e *Executor) sessions(pool *pgxpool.Pool) *poolSessions {
	if pool == e.Pool {
		return e.primary()
	}
	return sessionsOf(pool)
}

// unreached notes that a request on pool found no database: no session
// could be opened, or one broke. Replicas have their own health checks.
func (e *Executor) unreached(pool *pgxpool.Pool) {
	if pool == e.Pool {
		e.primary().lost.Store(true)
	}
}

// reached logs, for the first session of pool a request gets after
// unreached, that the database is back.
func (e *Executor) reached(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn) {
	if pool != e.Pool || e.Log == nil {
		return
	}
	if ps := e.primary(); ps.lost.Load() && ps.lost.CompareAndSwap(true, false) {
		logConnected(ctx, e.Log, conn)
	}
}

// logConnected says which server, database and role conn reached, and
// where.
func logConnected(ctx context.Context, log *slog.Logger, conn *pgxpool.Conn) {
	pc := conn.Conn().PgConn()
	cfg := conn.Conn().Config()
	log.Log(ctx, logging.LevelNotice, "connected to the database", "server", "PostgreSQL "+pc.ParameterStatus("server_version"),
		"database", cfg.Database, "role", cfg.User, "address", pc.Conn().RemoteAddr().String())
}
