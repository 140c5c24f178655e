package dbexec

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/sql/connerr"
)

// AwaitDatabase reports whether the pool reaches the database, as
// PostgREST does at start: one attempt now, logged at logging.LevelNotice when it
// succeeds (with the server's version) and as an error, with its cause,
// when it fails. After a failure it goes on trying in the background, with
// backoff up to maxBackoff, logging each attempt, until one succeeds or
// ctx ends. Requests meanwhile are answered 503 (SVC000), so the server
// need not wait.
func AwaitDatabase(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger, maxBackoff time.Duration) {
	// Not reached yet: whichever of the attempts below and the requests
	// reaches it first says so (reach.go).
	sessionsOf(pool).lost.Store(true)
	if tryDatabase(ctx, pool, log, time.Second) {
		return
	}
	go func() {
		backoff := time.Second
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, maxBackoff)
			if tryDatabase(ctx, pool, log, backoff) {
				return
			}
		}
	}()
}

// attemptTimeout bounds one connection attempt.
const attemptTimeout = 5 * time.Second

// tryDatabase takes a connection from the pool and gives it back (the
// pool keeps it for the first request), logging the outcome; next is the
// wait before the following attempt, for the log.
func tryDatabase(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger, next time.Duration) bool {
	// A host that drops packets would hold the attempt for the system's
	// TCP timeout, minutes, without a word in the log.
	attemptCtx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	conn, err := pool.Acquire(attemptCtx)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("database connection failed; retrying", "in", next, "error", connerr.Explain(err))
		}
		return false
	}
	ps := sessionsOf(pool)
	if ps.lost.CompareAndSwap(true, false) {
		logConnected(ctx, log, conn)
	}
	conn.Release()
	if ps.probed.CompareAndSwap(false, true) {
		// Before requests prepare statements a pooler would lose.
		if _, err := ProbePooler(ctx, pool, log); err != nil && ctx.Err() == nil {
			log.Warn("could not tell whether db-uri leads to a connection pooler in transaction mode; "+
				"requests will find out", "error", err)
		}
	}
	return true
}
