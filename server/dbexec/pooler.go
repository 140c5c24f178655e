package dbexec

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/apierr"
)

// A pooler in transaction mode (PgBouncer's pool_mode = transaction, and
// the poolers that work alike) hands each transaction of one client
// connection whichever server connection is free. A statement SVC
// prepared in one request is then missing from the backend the next one
// lands on (26000), and before statement names were unique per session,
// another client's statement of the same name could be there instead
// (42P05, 08P01): a misconfiguration of the server, never the client's
// fault. So a pool notices such a pooler twice over: at start, by the
// backend process ids two client connections see (ProbePooler), and while
// serving, by the errors only it causes (poolerSymptom). Either way the
// pool stops preparing statements from then on, says so once with the fix,
// and the request that met the symptom runs again, unprepared.

// PoolerFix is what an operator sets so that SVC need not find out by
// itself, for the log.
const PoolerFix = "set db-prepared-statements = false for this server, or point db-uri at PostgreSQL " +
	"or at a pooler in session mode (PgBouncer: pool_mode = session; 1.21 and later keep prepared statements " +
	"with max_prepared_statements > 0)"

// poolerState is what a pool knows of a transaction-mode pooler in front
// of it; it lives in the pool's poolSessions.
type poolerState struct {
	// found is set once the pool is known to be behind one: its requests
	// prepare nothing from then on.
	found atomic.Bool
	// prepare is db-prepared-statements as the pool was opened with, for
	// the log line.
	prepare bool
}

// BehindTransactionPooler reports whether pool was found to reach
// PostgreSQL through a pooler in transaction mode.
func BehindTransactionPooler(pool *pgxpool.Pool) bool {
	return sessionsOf(pool).pooler.found.Load()
}

// prepares reports whether requests on pool prepare their statements:
// db-prepared-statements, unless the pool is behind a transaction pooler.
func (e *Executor) prepares(pool *pgxpool.Pool) bool {
	return e.Prepare && !e.sessions(pool).pooler.found.Load()
}

// foundPooler records that pool is behind a transaction pooler, as how
// tells, logging it once with the fix, and retires the pool's sessions:
// their statement caches name statements their backends do not have.
// It reports whether this call was the one that found it.
func foundPooler(pool *pgxpool.Pool, log *slog.Logger, how string) bool {
	ps := sessionsOf(pool)
	if !ps.pooler.found.CompareAndSwap(false, true) {
		return false
	}
	if log != nil {
		if ps.pooler.prepare {
			log.Warn("db-uri leads to a connection pooler in transaction mode ("+how+"); this server prepares no "+
				"statements from now on. To say so yourself and keep this line out of the log, "+PoolerFix, "uri", "db-uri")
		} else {
			log.Info("db-uri leads to a connection pooler in transaction mode (" + how + "); statements are not prepared (db-prepared-statements = false)")
		}
	}
	RetireSessions(pool)
	return true
}

// poolerSymptom reports whether err is what a transaction pooler causes
// to a session that prepares statements: one of SVC's statements missing
// from the backend (26000), one of the same name there already (42P05), or
// another statement's parameters found under its name (08P01 from Bind).
// No request's values can cause any of them.
func poolerSymptom(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "26000", "42P05":
		return strings.Contains(pgErr.Message, `prepared statement "svc_`)
	case "08P01":
		return strings.HasPrefix(pgErr.Message, "bind message supplies")
	}
	return false
}

// afterPooler answers a request whose run on conn failed with first, a
// poolerSymptom: the pool is marked as behind a transaction pooler and
// the request runs again on a new session, unprepared. The failing
// statement could not be bound, so nothing ran past it and the request's
// transaction rolled back; running it again does not repeat it. Should
// the new run meet the symptom again, the answer is a 503 (the server's
// configuration, not the request, is at fault), never a 400.
func (e *Executor) afterPooler(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, tx *Tx, steps []Step, first error) error {
	e.discard(pool, conn)
	foundPooler(pool, e.Log, "a prepared statement was missing from the session: "+first.Error())
	if !rewind(tx) {
		return apierr.ConnectionFailed(first)
	}
	again, err := e.acquire(ctx, pool)
	if err != nil {
		return err
	}
	dbErr, checkErr := e.runTx(ctx, again.Conn(), tx, steps, e.prepares(pool))
	e.release(pool, again)
	if dbErr != nil && poolerSymptom(dbErr) {
		return apierr.ConnectionFailed(dbErr)
	}
	return e.answer(ctx, tx, dbErr, checkErr)
}

// probeTimeout bounds ProbePooler.
const probeTimeout = 5 * time.Second

// ProbePooler finds out whether pool's db-uri leads to a pooler in
// transaction mode, and if so has the pool prepare nothing (foundPooler),
// before the first request meets it. It opens two client connections of
// its own, A and B, and compares the backend process ids they see: A runs
// a statement, then B opens a transaction. Without a pooler, or with one
// in session mode, each client connection keeps its backend, so B's is
// never A's, and A's stays the same while B's transaction holds its own.
// A transaction pooler hands B the backend A just freed (PgBouncer takes
// the most recently used one first), or A another one while B holds its.
// A pooler that did neither here is caught by its symptoms later
// (afterPooler). tryDatabase runs it once the database is first reached.
func ProbePooler(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	connect := func() (*pgx.Conn, error) {
		cfg := pool.Config().ConnConfig.Copy()
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		return pgx.ConnectConfig(ctx, cfg)
	}
	a, err := connect()
	if err != nil {
		return false, err
	}
	defer a.Close(context.WithoutCancel(ctx))
	b, err := connect()
	if err != nil {
		return false, err
	}
	defer b.Close(context.WithoutCancel(ctx))
	pid := func(c *pgx.Conn) (p uint32, err error) {
		err = c.QueryRow(ctx, "select pg_catalog.pg_backend_pid()").Scan(&p)
		return p, err
	}
	first, err := pid(a)
	if err != nil {
		return false, err
	}
	tx, err := b.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	held, err := pid(b)
	if err != nil {
		return false, err
	}
	second, err := pid(a)
	if err != nil {
		return false, err
	}
	if held != first && second == first {
		return false, nil
	}
	foundPooler(pool, log, "two client connections were served by the same backend")
	return true, nil
}
