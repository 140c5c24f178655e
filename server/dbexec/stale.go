package dbexec

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/apierr"
)

// A migration can commit before the servers hear of it (the NOTIFY comes
// after the COMMIT, or a snapshot is published later), and a request in
// that window may run on a session that knew the objects the migration
// replaced. What PostgreSQL answers then is an internal error, or a
// statement prepared before the migration failing where one parsed now
// would not, either of which would reach the client for a request that
// is fine. afterSuspect turns it into a run on a session that knows the
// catalog as it is, or, where running the request twice could repeat what
// its function did outside the transaction, into a 503 the client can
// retry. The cost falls on requests that fail: a genuine error of the
// kinds suspected costs one more round trip (staleStatements), and an
// internal error one more session (afterStale).

// staleCatalog reports whether err may come from a session's stale
// knowledge of the catalog: PostgreSQL's internal errors (XX000: "cache
// lookup failed for type N", "could not open relation with OID N", an
// extension's per-session cache) and a cached plan whose result type
// changed. An internal error may also be genuine (an extension reporting
// bad input as XX000), which afterStale tells apart by running the
// request on a new session. The routine is the C function that raised the
// error, which PostgreSQL never translates, unlike the message.
func staleCatalog(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "XX000":
		return true
	case "0A000":
		return pgErr.Routine == "RevalidateCachedQuery" // cached plan must not change result type
	}
	return false
}

// sameError reports whether a and b are the same database error, as an
// error that does not depend on the session is each time it happens.
func sameError(a, b error) bool {
	var pa, pb *pgconn.PgError
	return errors.As(a, &pa) && errors.As(b, &pb) && pa.Code == pb.Code && pa.Message == pb.Message
}

// afterSuspect answers a request whose run on conn, a session of pool,
// failed with first, an error suspect gives. The transaction rolled back,
// so nothing it wrote stays. When a statement of the request prepared on
// conn has come to mean something else (staleStatements), a migration has
// changed the catalog under the pool: its sessions are retired and the
// request is run again (rerun). An internal error its statements do not
// explain goes to afterStale; any other error is the request's own.
func (e *Executor) afterSuspect(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, tx *Tx, steps []Step, first error) error {
	stale, err := staleStatements(ctx, conn.Conn().PgConn(), tx, steps)
	switch {
	case err != nil:
		// The session failed while parsing again; the request's error
		// stands, and the session goes.
		discardPooled(conn)
		return answer(ctx, tx, first, nil)
	case stale:
		e.retireStale(pool, first)
		return e.rerun(ctx, pool, conn, tx, steps, first)
	case staleCatalog(first):
		return e.afterStale(ctx, pool, conn, tx, steps, first)
	}
	releaseAndYield(conn)
	return answer(ctx, tx, first, nil)
}

// afterStale answers a request whose run on conn failed with first, which
// staleCatalog suspects and the request's statements do not explain: an
// extension's per-session cache, a relation or function gone by id.
//
//   - When the pool retired its sessions since conn was opened (a reload
//     while the request ran), the request runs again from the pool
//     (rerun), whose sessions are all newer.
//   - Otherwise it runs again on a session of its own, opened now: one
//     such run at a time per pool, so requests failing together open one
//     extra connection, and the others, once the first has proved the
//     pool stale and retired it, run again from the pool. Should the new
//     session fail the same way, the error is genuine (a session's age
//     has nothing to do with it), conn is kept and the error answered; if
//     not, conn was stale, and so may be every session of the pool opened
//     before now: they are retired.
//
// A request that may have acted outside its transaction, or ran on a
// replica, is not run again here (see rerun).
func (e *Executor) afterStale(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, tx *Tx, steps []Step, first error) error {
	ps := sessionsOf(pool)
	if !ps.retiredSince(conn.Conn().PgConn()) && !tx.OutsideEffects && tx.Replica == nil {
		if !ps.enterProbe(ctx, e.AcquireTimeout) {
			discardPooled(conn)
			if ctx.Err() != nil {
				return ErrClientGone
			}
			return apierr.StaleCatalog(first)
		}
		defer ps.leaveProbe()
		if !ps.retiredSince(conn.Conn().PgConn()) {
			return e.probeFresh(ctx, pool, conn, tx, steps, first)
		}
	}
	return e.rerun(ctx, pool, conn, tx, steps, first)
}

// rerun runs the request again on a session from pool, once conn, where
// it failed with first, is known to be one the pool has retired, or is
// suspected stale. conn is closed. A request that may have acted outside
// its transaction (a VOLATILE call) is not run twice, and one on a
// replica is run again by the caller on the primary: both get SVC004.
// A new session that still meets a stale catalog (another migration
// meanwhile) gets SVC004 as well: what staleCatalog suspects is answered
// 503, never 500, unless a new session gave the same error.
func (e *Executor) rerun(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, tx *Tx, steps []Step, first error) error {
	discardPooled(conn)
	if tx.Replica != nil || tx.OutsideEffects || !rewind(tx) {
		return apierr.StaleCatalog(first)
	}
	again, err := e.acquire(ctx, pool)
	if err != nil {
		return err
	}
	dbErr, checkErr := e.runTx(ctx, again.Conn(), tx, steps, e.Prepare)
	if dbErr != nil && ctx.Err() == nil && staleCatalog(dbErr) && !sameError(dbErr, first) {
		discardPooled(again)
		return apierr.StaleCatalog(dbErr)
	}
	releaseAndYield(again)
	return answer(ctx, tx, dbErr, checkErr)
}

// probeFresh runs the request again on a session opened for it, and
// decides from the outcome whether conn, where it failed with first, was
// stale (see afterStale).
func (e *Executor) probeFresh(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, tx *Tx, steps []Step, first error) error {
	fresh, err := openSession(ctx, pool, e.AcquireTimeout)
	if err != nil {
		discardPooled(conn)
		if ctx.Err() != nil {
			return ErrClientGone
		}
		return apierr.StaleCatalog(first)
	}
	if !rewind(tx) {
		fresh.Close(context.WithoutCancel(ctx))
		discardPooled(conn)
		return apierr.StaleCatalog(first)
	}
	// The session is closed after one request, so preparing its
	// statements would only cost a Describe each.
	dbErr, checkErr := e.runTx(ctx, fresh, tx, steps, false)
	fresh.Close(context.WithoutCancel(ctx))
	if dbErr != nil && sameError(dbErr, first) {
		releaseAndYield(conn)
		return answer(ctx, tx, dbErr, checkErr)
	}
	discardPooled(conn)
	e.retireStale(pool, first)
	if dbErr != nil && ctx.Err() == nil && staleCatalog(dbErr) {
		return apierr.StaleCatalog(dbErr)
	}
	return answer(ctx, tx, dbErr, checkErr)
}

// rewind readies tx's steps to run again (Tx.Rewind), and reports
// whether they may.
func rewind(tx *Tx) bool { return tx.Rewind == nil || tx.Rewind() }

// retireStale retires pool's sessions, one of which was found to know a
// catalog a migration has replaced (what it answered: err), and says so:
// the reload that would have retired them has not come.
func (e *Executor) retireStale(pool *pgxpool.Pool, err error) {
	RetireSessions(pool)
	if e.Log != nil {
		e.Log.Warn("a request met a database session that knew objects a migration has replaced; "+
			"the pool's sessions are retired and the request runs again. Reload the schema snapshot after each migration",
			"error", err)
	}
}

// enterProbe waits, up to limit, for the pool's one run on a session of
// its own; leaveProbe ends it.
func (ps *poolSessions) enterProbe(ctx context.Context, limit time.Duration) bool {
	select {
	case ps.probe <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case ps.probe <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

func (ps *poolSessions) leaveProbe() { <-ps.probe }

// openSession opens a session as pool opens its own, outside the pool,
// within limit.
func openSession(ctx context.Context, pool *pgxpool.Pool, limit time.Duration) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig)
	if err != nil {
		return nil, err
	}
	if err := setUpSession(ctx, conn); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return conn, nil
}

// discardPooled closes conn's session and gives conn back to its pool,
// which drops it: the session is not used again.
func discardPooled(conn *pgxpool.Conn) {
	discard(conn.Conn().PgConn())
	conn.Release()
}
