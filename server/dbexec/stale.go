package dbexec

import (
	"context"
	"errors"
	"time"

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
// it did, into a 503 the client can retry. Staleness must be proven
// before it costs anything, since a client can raise internal errors at
// will (a value an extension refuses): a genuine error of the kinds
// suspected costs one more round trip (staleStatements), and an internal
// error those do not explain a signature of the catalog, taken at most
// once per catalogCheckInterval and pool on the session that failed
// (signature.go). Neither opens a session nor runs the request again.

// staleCatalog reports whether err may come from a session's stale
// knowledge of the catalog: PostgreSQL's internal errors (XX000: "cache
// lookup failed for type N", "could not open relation with OID N", an
// extension's per-session cache) and a cached plan whose result type
// changed. An internal error may also be genuine (an extension reporting
// bad input as XX000, a function raising it), which afterStale tells
// apart by the catalog's signature. The routine is the C function that
// raised the error, which PostgreSQL never translates, unlike the message.
func staleCatalog(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return pgErr.Code == "XX000" || planChanged(pgErr)
}

// planChanged reports whether err is PostgreSQL refusing a prepared
// statement whose result changed since it was prepared ("cached plan must
// not change result type"): only DDL causes it, never a request's values,
// and it fails while the statement is planned again, before it runs.
func planChanged(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "0A000" && pgErr.Routine == "RevalidateCachedQuery"
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
// conn has come to mean something else (staleStatements), or PostgreSQL
// refused one whose result changed (planChanged), a migration has
// changed the catalog under the pool: its sessions are retired and the
// request is run again (rerun). The statement failed while PostgreSQL
// planned it again, before it ran, so running a write again does not
// repeat it. An internal error its statements do not explain goes to
// afterStale; any other error is the request's own.
func (e *Executor) afterSuspect(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, tx *Tx, steps []Step, first error) error {
	stale, err := staleStatements(ctx, conn.Conn().PgConn(), tx, steps)
	switch {
	case err != nil:
		// The session failed while parsing again; the request's error
		// stands, and the session goes.
		e.discard(pool, conn)
		return e.answer(ctx, tx, first, nil)
	case stale || planChanged(first):
		e.retireStale(ctx, pool, conn, first)
		return e.rerun(ctx, pool, conn, tx, steps, first)
	case staleCatalog(first):
		return e.afterStale(ctx, pool, conn, tx, steps, first)
	}
	e.release(pool, conn)
	return e.answer(ctx, tx, first, nil)
}

// afterStale answers a request whose run on conn failed with first, which
// staleCatalog suspects and the request's statements do not explain: an
// extension's per-session cache, a relation or function gone by id, or
// the request's own error (an extension refusing a value, a function or
// trigger raising XX000).
//
//   - When the pool retired its sessions since conn was opened (a reload
//     or another request found the catalog changed while this one ran),
//     conn was stale.
//   - Otherwise conn is stale only if the catalog's signature differs
//     from the one the pool's sessions were opened with (catalogChanged),
//     which then retires them. If it does not, the error is the
//     request's own: answered as such, conn kept.
//
// A request on a stale session that only read is run again from the pool
// (rerun); one that wrote, may have acted outside its transaction, or ran
// on a replica gets SVC004: its statements ran, and whatever they did
// before failing (a trigger's nextval, a message sent) must not happen
// twice.
func (e *Executor) afterStale(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, tx *Tx, steps []Step, first error) error {
	pc := conn.Conn().PgConn()
	if !sessionsOf(pool).retiredSince(sessionOf(pc)) && !e.catalogChanged(ctx, pool, conn) {
		if ctx.Err() != nil {
			e.discard(pool, conn)
			return ErrClientGone
		}
		if pc.IsClosed() || pc.TxStatus() != 'I' {
			e.discard(pool, conn)
		} else {
			e.release(pool, conn)
		}
		return e.answer(ctx, tx, first, nil)
	}
	if !tx.ReadOnly {
		e.discard(pool, conn)
		return apierr.StaleCatalog(first)
	}
	return e.rerun(ctx, pool, conn, tx, steps, first)
}

// rerun runs the request again on a session from pool, once conn, where
// it failed with first, is known to be one the pool has retired. conn is
// closed. A request that may have acted outside its transaction (a
// VOLATILE call) is not run twice, and one on a replica is run again by
// the caller on the primary: both get SVC004. A new session that still
// meets a stale catalog (another migration meanwhile) gets SVC004 as
// well: what staleCatalog suspects on a session known stale is answered
// 503, never 500, unless the new session gave the same error.
func (e *Executor) rerun(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, tx *Tx, steps []Step, first error) error {
	e.discard(pool, conn)
	if tx.Replica != nil || tx.OutsideEffects || !rewind(tx) {
		return apierr.StaleCatalog(first)
	}
	again, err := e.acquire(ctx, pool)
	if err != nil {
		return err
	}
	dbErr, checkErr := e.runTx(ctx, again.Conn(), tx, steps, e.prepares(pool))
	if dbErr != nil && ctx.Err() == nil && staleCatalog(dbErr) && !sameError(dbErr, first) {
		e.discard(pool, again)
		return apierr.StaleCatalog(dbErr)
	}
	e.release(pool, again)
	return e.answer(ctx, tx, dbErr, checkErr)
}

// catalogChanged reports whether the catalog's signature differs from the
// one pool's sessions were opened with, and if so retires them, so that
// conn, which met an internal error, was stale. The signature is taken on
// conn, idle again, so the check opens no session; one taken less than
// catalogCheckInterval ago is used instead, so however many requests fail,
// a pool takes at most one a second and retires its sessions at most once
// per change. A pool whose sessions' signature is unknown (never set by a
// reload) falls back on its primary's, for a replica, and otherwise
// cannot prove anything: false.
func (e *Executor) catalogChanged(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn) bool {
	ps := sessionsOf(pool)
	knownNow := func() *Signature {
		if k := ps.known.Load(); k != nil || e.Pool == nil || pool == e.Pool {
			return k
		}
		return sessionsOf(e.Pool).known.Load()
	}
	if knownNow() == nil || !ps.enterProbe(ctx, e.AcquireTimeout) {
		return false
	}
	defer ps.leaveProbe()
	pc := conn.Conn().PgConn()
	if ps.retiredSince(sessionOf(pc)) {
		return true // proven by a request that checked meanwhile
	}
	known := knownNow()
	now := time.Now()
	sum, recent := ps.check.recent(now)
	if !recent {
		sig, err := SignCatalog(ctx, conn.Conn(), known.Schemas)
		if err != nil {
			if e.Log != nil && ctx.Err() == nil {
				e.Log.Warn("the catalog's signature could not be taken after a request's internal error", "error", err)
			}
			return false
		}
		ps.check.record(now, sig.Sum)
		sum = sig.Sum
	}
	if sum == known.Sum {
		return false
	}
	RetireFor(pool, Signature{Schemas: known.Schemas, Sum: sum})
	if e.Log != nil {
		e.Log.Warn("a request met a database session opened before a migration that replaced objects by the same names; " +
			"the pool's sessions are retired. Reload the schema snapshot after each migration")
	}
	return true
}

// rewind readies tx's steps to run again (Tx.Rewind), and reports
// whether they may.
func rewind(tx *Tx) bool { return tx.Rewind == nil || tx.Rewind() }

// retireStale retires pool's sessions, one of which, conn, was found to
// know a catalog a migration has replaced (what it answered: err), and
// says so: the reload that would have retired them has not come. The
// catalog's signature is taken on conn first, so that a later internal
// error is not taken for the same change again.
func (e *Executor) retireStale(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, err error) {
	if known := sessionsOf(pool).known.Load(); known != nil {
		sig, serr := SignCatalog(ctx, conn.Conn(), known.Schemas)
		if serr != nil {
			sig.Sum = ""
		}
		RetireFor(pool, sig)
	} else {
		RetireSessions(pool)
	}
	if e.Log != nil {
		e.Log.Warn("a request met a database session that knew objects a migration has replaced; "+
			"the pool's sessions are retired and the request runs again. Reload the schema snapshot after each migration",
			"error", err)
	}
}

// enterProbe waits, up to limit, for the pool's one check of the
// catalog's signature (catalogChanged); leaveProbe ends it.
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

// discard closes conn's session and gives conn back to pool, which drops
// it: the session is not used again.
func (e *Executor) discard(pool *pgxpool.Pool, conn *pgxpool.Conn) {
	discard(conn.Conn().PgConn())
	e.release(pool, conn)
}
