package dbexec

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime"
	"weak"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
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
//
// Its sessions go from request to request on a shelf (shelf.go); close it
// with ClosePool.
func NewPool(ctx context.Context, cfg *config.Config) (*pgxpool.Pool, error) {
	pool, err := openPool(ctx, cfg, cfg.DBURI, cfg.DBPool, true)
	if err != nil {
		return nil, fmt.Errorf("db-uri: %w", err)
	}
	return pool, nil
}

// OpenPool opens a request pool of size connections to uri, with cfg's
// lifetimes: the primary's, or a replica's.
func OpenPool(ctx context.Context, cfg *config.Config, uri string, size int) (*pgxpool.Pool, error) {
	return openPool(ctx, cfg, uri, size, false)
}

// openPool is OpenPool, with a shelf when shelve is set.
func openPool(ctx context.Context, cfg *config.Config, uri string, size int, shelve bool) (*pgxpool.Pool, error) {
	poolCfg, err := pgxpool.ParseConfig(uri)
	if err != nil {
		return nil, err
	}
	poolCfg.MaxConns = int32(size)
	poolCfg.MaxConnLifetime = cfg.DBPoolMaxLifetime
	poolCfg.MaxConnIdleTime = cfg.DBPoolMaxIdletime
	poolCfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	nameSession(poolCfg.ConnConfig.RuntimeParams)
	sessions := newPoolSessions()
	sessions.pooler.prepare = cfg.DBPreparedStatements
	poolCfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		// The count is read before the session's first statement: a
		// retirement from then on must retire it.
		sessions.recordEpoch(conn.PgConn())
		budgetStatements(conn.PgConn(), int64(cfg.DBStatementsMaxBytes))
		budgetRowTypes(conn.PgConn(), int64(cfg.DBRowTypesMaxBytes))
		return setUpSession(ctx, conn)
	}
	poolCfg.ConnConfig.BuildFrontend = bufferedFrontend
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return nil, err
	}
	if shelve {
		sessions.shelf = newShelf(pool, size)
	}
	pools.Store(weak.Make(pool), sessions)
	return pool, nil
}

// resultReadBuffer is how much of the server's output one read takes.
const resultReadBuffer = 64 << 10

// bufferedFrontend reads the server's output through a buffer larger than
// pgx's own 8 KiB: a response body of 100 rows arrives as one DataRow
// of 10-20 KB, which pgx would read in two or three system calls even
// when all of it is there.
func bufferedFrontend(r io.Reader, w io.Writer) *pgproto3.Frontend {
	return pgproto3.NewFrontend(bufio.NewReaderSize(r, resultReadBuffer), w)
}

// setUpSession runs once per connection, in one round trip. It records
// whether the session's default isolation level is read committed, the
// level requests run at: only then may a request use the implicit
// transaction of its pipeline (see runPipeline); where the database or the
// authenticator role defaults to another level, requests keep BEGIN
// ISOLATION LEVEL READ COMMITTED.
//
// It also has the session check, while a statement runs, that its
// connection is still open (client_connection_check_interval, where the
// server has it and nothing set it already). When a request's client
// leaves, SVC has PostgreSQL cancel its statements (abandon.go), but a
// connection may also be closed under a running statement: when SVC gives
// up waiting for it (db-pool-cancel-timeout), or when svc-serve itself
// stops or dies. The backend would then run a write to its end and commit
// at the Sync it already has: the write of a client that left would
// happen after all. The check ends such a backend instead, rolling back.
// It costs a timer in the backend while a statement runs. It is set here
// rather than as a startup parameter, which PgBouncer refuses.
func setUpSession(ctx context.Context, conn *pgx.Conn) error {
	var level string
	err := conn.QueryRow(ctx, "select pg_catalog.current_setting('default_transaction_isolation'), "+
		"(select pg_catalog.set_config(name, '"+clientCheckInterval+"', false) from pg_catalog.pg_settings "+
		"where name = 'client_connection_check_interval' and setting = '0')").Scan(&level, nil)
	if err != nil {
		return err
	}
	sessionOf(conn.PgConn()).implicit = level == "read committed"
	return nil
}

// clientCheckInterval is how often, in milliseconds, a backend running a
// request's statement checks that SVC's connection to it is still open.
const clientCheckInterval = "1000"

// release gives conn, a session acquire took from pool, back: to the
// primary's shelf, or to pgxpool. When a request is waiting for a session,
// it then yields, so that the waiter sends its statements before this one
// writes its response. Releasing readies the waiter's goroutine in this
// goroutine's own run slot, where it would otherwise sit until this one
// blocks, after writing the whole response, while the connection's
// backend idles and has to be woken again. Yielding keeps the backends fed
// when requests outnumber connections (deploy/bench/run.sh's page
// workload, unpaced, where 32 clients share the pool's 10 sessions); with
// no request waiting it would cost a pass through the scheduler for
// nothing, which most requests of a pool that keeps up would pay.
func (e *Executor) release(pool *pgxpool.Pool, conn *pgxpool.Conn) {
	ps := e.sessions(pool)
	if sh := ps.shelf; sh != nil {
		if !sh.put(ps, conn) {
			return
		}
	} else if conn.Release(); e.acquiring.Load() == 0 {
		return
	}
	runtime.Gosched()
}
