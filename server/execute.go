package server

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/query"
)

// txSpec is the per-request transaction context.
type txSpec struct {
	readOnly   bool
	role       string
	searchPath string
	method     string
	path       string
	// authenticated decides 401 versus 403 for privilege errors.
	authenticated bool
}

// result is what every main statement returns (see query's result columns).
type result struct {
	total     *int64
	pageCount int64
	body      []byte
	headers   *string
	status    *string
}

// step is one statement of a request transaction and how to read its rows.
type step struct {
	stmt query.Statement
	scan func(pgx.Rows) error
}

// scanResult reads the main statement's single row into res.
func scanResult(res *result) func(pgx.Rows) error {
	return scanOne(&res.total, &res.pageCount, &res.body, &res.headers, &res.status)
}

// scanOne reads a statement that returns exactly one row.
func scanOne(dest ...any) func(pgx.Rows) error {
	return func(rows pgx.Rows) error {
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return err
			}
			return pgx.ErrNoRows
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	}
}

const (
	beginReadOnly  = "begin isolation level read committed read only"
	beginReadWrite = "begin isolation level read committed"
	// setupSQL sets the transaction-local context in one statement:
	// set_config(..., true) is SET LOCAL, undone at commit, so nothing leaks
	// to the next request on the connection.
	setupSQL = "select pg_catalog.set_config('role', $1, true), pg_catalog.set_config('search_path', $2, true), " +
		"pg_catalog.set_config('request.method', $3, true), pg_catalog.set_config('request.path', $4, true)"
)

// execute runs steps inside the request transaction in one round trip:
// begin, context set-up, the steps and commit are pipelined as one batch.
// Only when a statement fails does a second round trip roll back.
func (s *Server) execute(ctx context.Context, tx txSpec, steps ...step) error {
	acquireCtx, cancel := context.WithTimeout(ctx, s.cfg.DBPoolAcquisitionTimeout)
	conn, err := s.pool.Acquire(acquireCtx)
	cancel()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return apierr.PoolTimeout()
		}
		return apierr.ConnectionFailed(err)
	}
	defer conn.Release()

	begin := beginReadWrite
	if tx.readOnly {
		begin = beginReadOnly
	}
	b := &pgx.Batch{}
	b.Queue(begin)
	b.Queue(setupSQL, tx.role, tx.searchPath, tx.method, tx.path)
	for _, st := range steps {
		b.Queue(st.stmt.SQL, st.stmt.Args...)
	}
	b.Queue("commit")
	br := conn.SendBatch(ctx, b)
	_, err = br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	for _, st := range steps {
		if err != nil {
			break
		}
		rows, qerr := br.Query()
		if qerr != nil {
			err = qerr
			break
		}
		err = st.scan(rows)
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if pc := conn.Conn().PgConn(); !pc.IsClosed() && pc.TxStatus() != 'I' {
		// The failed statement left the transaction open; roll back here so
		// the pool keeps the connection instead of discarding it.
		if _, rerr := conn.Exec(context.WithoutCancel(ctx), "rollback"); rerr != nil {
			conn.Conn().Close(context.Background())
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return errClientGone
		}
		return dbError(err, tx.authenticated)
	}
	return nil
}

// errClientGone reports a request abandoned by its client mid-query: there
// is no one to answer and nothing went wrong on our side.
var errClientGone = errors.New("client closed the request")

// dbError turns a database or driver error into the caller's error.
func dbError(err error, authenticated bool) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return apierr.FromPG(pgErr, authenticated)
	}
	if pgconn.SafeToRetry(err) || isConnectionError(err) {
		return apierr.ConnectionFailed(err)
	}
	return apierr.Internal(err)
}

func isConnectionError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || strings.Contains(err.Error(), "conn closed")
}

// searchPath renders the request's search_path: the selected schema first,
// then db-extra-search-path, each quoted.
func searchPath(schema string, extra []string) string {
	parts := make([]string, 0, 1+len(extra))
	parts = append(parts, pgx.Identifier{schema}.Sanitize())
	for _, e := range extra {
		if e != schema {
			parts = append(parts, pgx.Identifier{e}.Sanitize())
		}
	}
	return strings.Join(parts, ", ")
}
