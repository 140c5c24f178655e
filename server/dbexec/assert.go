package dbexec

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/apierr"
)

// A statement built from a snapshot states what the snapshot told of the
// functions it calls (query.Statement.Assert): parsed against a catalog a
// migration has changed since, it fails. The same error classes come from
// a request's own mistakes, so a failure is put down to the snapshot only
// when the statement's assertion alone fails to parse too: it holds
// nothing of the request, only the snapshot's names and types. It costs
// one round trip on a failed request that has an assertion, and nothing
// otherwise.

// assertable reports whether err is one a broken assertion gives: a
// parse-time error (class 42, "COALESCE types ... cannot be matched",
// "function ... does not exist") or 0A000 ("set-returning functions are
// not allowed in COALESCE"), the privilege error left out, since it is
// checked when the statement runs.
func assertable(err error, steps []Step) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || len(pgErr.Code) != 5 || (pgErr.Code[:2] != "42" && pgErr.Code != "0A000") || pgErr.Code == "42501" {
		return false
	}
	for _, st := range steps {
		if st.Stmt.Assert != "" {
			return true
		}
	}
	return false
}

// afterAssert answers a request whose run on conn failed with first, an
// error assertable gives: 503 SVC004 when an assertion of its statements
// no longer parses as the request's role (the snapshot in force is stale
// and its statements must not run until the server reloads; the session
// itself knows the catalog as it is and is kept), otherwise as the
// suspect path would have.
func (e *Executor) afterAssert(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, tx *Tx, steps []Step, first error) error {
	broken, err := assertionsBroken(ctx, conn.Conn().PgConn(), tx, steps)
	switch {
	case err != nil:
		e.discard(pool, conn)
		return e.answer(ctx, tx, first, nil)
	case broken:
		e.release(pool, conn)
		if e.Log != nil {
			e.Log.Warn("a request calls a function a migration has changed since the schema snapshot in force was taken; "+
				"it is refused (503) until the server reloads. Reload the schema snapshot after each migration", "error", first)
		}
		return apierr.StaleSnapshot(first)
	case suspect(first):
		return e.afterSuspect(ctx, pool, conn, tx, steps, first)
	}
	e.release(pool, conn)
	return e.answer(ctx, tx, first, nil)
}

// assertionsBroken parses, without running them, the assertions of steps
// on pc as tx's role and search path, and reports whether one fails. pc
// must be idle; err is the session failing.
func assertionsBroken(ctx context.Context, pc *pgconn.PgConn, tx *Tx, steps []Step) (bool, error) {
	if pc.IsClosed() || pc.TxStatus() != 'I' {
		return false, errors.New("the session is not idle")
	}
	pl := pc.StartPipeline(ctx)
	pl.SendQueryParams(redescribeSetup, [][]byte{[]byte(tx.Role), []byte(tx.SearchPath)}, nil, nil, nil)
	for _, st := range steps {
		if st.Stmt.Assert != "" {
			pl.SendPrepare("", st.Stmt.Assert, nil)
		}
	}
	if err := pl.Sync(); err != nil {
		pl.Close()
		return false, err
	}
	setupDone := false
	for {
		res, err := pl.GetResults()
		if err != nil {
			pl.Close()
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) {
				// The set-up refused (the role gone) proves nothing.
				return setupDone, nil
			}
			return false, err
		}
		switch res := res.(type) {
		case *pgconn.ResultReader:
			if _, err := res.Close(); err != nil {
				pl.Close()
				return false, nil
			}
			setupDone = true
		case *pgconn.PipelineSync:
			return false, pl.Close()
		case nil:
			pl.Close()
			return false, errors.New("pipeline ended before its sync")
		}
	}
}
