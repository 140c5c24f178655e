package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

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
	// claims, headers and cookies are JSON objects for request.jwt.claims,
	// request.headers and request.cookies.
	claims, headers, cookies string
	// settings are set_config name/value pairs applied after the role
	// switch: the role's own settings, then app.settings.*.
	settings [][2]string
	// isolation is the role's default_transaction_isolation, or "" for
	// read committed.
	isolation string
	// preRequest is db-pre-request's call, run before the steps; nil for none.
	preRequest *query.Statement
	// authenticated decides 401 versus 403 for privilege errors.
	authenticated bool
	// rollback ends the transaction with a rollback (db-tx-end, Prefer: tx).
	rollback bool
	// timezone is the Prefer: timezone to set for the transaction, or "".
	timezone string
	// check, when set, runs on the results before the transaction ends;
	// an error rolls back and is the request's answer. The transaction's
	// end then takes a second round trip.
	check func() error
}

// result is what every main statement returns (see query's result columns).
type result struct {
	total     *int64
	pageCount int64
	body      []byte
	headers   *string
	status    *string
}

// step is one statement of a request transaction and what to do with each
// row it returns.
type step struct {
	stmt query.Statement
	row  rowFunc
}

// rowFunc receives one result row, each value in PostgreSQL's text format
// and nil for NULL. The values are only valid during the call.
type rowFunc func(values [][]byte) error

// scanResult reads the main statement's single row into res.
func scanResult(res *result) rowFunc {
	return scanOne(&res.total, &res.pageCount, &res.body, &res.headers, &res.status)
}

// scanOne reads a one-row result into dest: *int64, **int64, *string,
// **string or *[]byte (copied, as the row's memory is reused).
func scanOne(dest ...any) rowFunc {
	return func(values [][]byte) error {
		if len(values) != len(dest) {
			return fmt.Errorf("result has %d columns, expected %d", len(values), len(dest))
		}
		for i, v := range values {
			if err := scanText(v, dest[i]); err != nil {
				return fmt.Errorf("result column %d: %w", i+1, err)
			}
		}
		return nil
	}
}

func scanText(v []byte, dest any) error {
	switch d := dest.(type) {
	case *[]byte:
		*d = bytes.Clone(v)
	case *string:
		*d = string(v)
	case **string:
		*d = nil
		if v != nil {
			str := string(v)
			*d = &str
		}
	case *int64, **int64:
		if v == nil {
			if d, ok := d.(**int64); ok {
				*d = nil
				return nil
			}
			return errors.New("unexpected NULL")
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return err
		}
		if d, ok := d.(**int64); ok {
			*d = &n
		} else {
			*dest.(*int64) = n
		}
	default:
		return fmt.Errorf("cannot scan into %T", dest)
	}
	return nil
}

const (
	// setupFixed sets the transaction-local context every request has in
	// one statement: set_config(..., true) is SET LOCAL, undone at commit,
	// so nothing leaks to the next request on the connection. The role
	// comes first, so the settings after it are checked against it.
	setupRole  = "select pg_catalog.set_config('role', $1, true)"
	setupFixed = ", pg_catalog.set_config('search_path', $2, true), pg_catalog.set_config('request.method', $3, true), " +
		"pg_catalog.set_config('request.path', $4, true), pg_catalog.set_config('request.headers', $5, true), " +
		"pg_catalog.set_config('request.cookies', $6, true), pg_catalog.set_config('request.jwt.claims', $7, true)"
	setupFixedArgs = 7
	// timezoneSQL applies Prefer: timezone; a statement of its own keeps
	// the set-up one shape for the requests that do not ask.
	timezoneSQL = "select pg_catalog.set_config('timezone', $1, true)"
)

// setupStatements caches the set-up statement by its number of extra
// settings: its text depends only on that count, so it is prepared once
// per connection and shape.
var setupStatements sync.Map // int -> string

// setupSQL returns the set-up statement with n extra name/value settings.
func setupSQL(n int) string {
	if sql, ok := setupStatements.Load(n); ok {
		return sql.(string)
	}
	var b strings.Builder
	b.WriteString(setupRole)
	b.WriteString(setupFixed)
	for i := range n {
		p := setupFixedArgs + 2*i + 1
		fmt.Fprintf(&b, ", pg_catalog.set_config($%d, $%d, true)", p, p+1)
	}
	sql, _ := setupStatements.LoadOrStore(n, b.String())
	return sql.(string)
}

// setupArgs are setupSQL's bind values for tx.
func setupArgs(tx *txSpec) [][]byte {
	args := make([][]byte, 0, setupFixedArgs+2*len(tx.settings))
	args = append(args, []byte(tx.role), []byte(tx.searchPath), []byte(tx.method), []byte(tx.path),
		[]byte(tx.headers), []byte(tx.cookies), []byte(tx.claims))
	for _, kv := range tx.settings {
		args = append(args, []byte(kv[0]), []byte(kv[1]))
	}
	return args
}

// beginSQL opens the request transaction.
func beginSQL(tx *txSpec) string {
	level := tx.isolation
	if level == "" {
		level = "read committed"
	}
	if tx.readOnly {
		return "begin isolation level " + level + " read only"
	}
	return "begin isolation level " + level
}

// execute runs steps inside the request transaction in one round trip:
// begin, context set-up, the steps and commit (or rollback) are pipelined
// together, each statement prepared on the connection the first time it is
// seen there. A second round trip ends the transaction only when a
// statement fails or tx.check must see the results first.
func (s *Server) execute(ctx context.Context, tx txSpec, steps ...step) error {
	acquireCtx, cancel := context.WithTimeout(ctx, s.cfg.DBPoolAcquisitionTimeout)
	conn, err := s.pool.Acquire(acquireCtx)
	cancel()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return apierr.PoolTimeout()
		}
		if ctx.Err() != nil {
			return errClientGone
		}
		return apierr.ConnectionRefused(err)
	}
	defer conn.Release()

	pc := conn.Conn().PgConn()
	err = runPipeline(ctx, pc, tx, steps, s.cfg.DBPreparedStatements)
	var checkErr error
	if err == nil && tx.check != nil {
		end := "commit"
		if checkErr = tx.check(); checkErr != nil || tx.rollback {
			end = "rollback"
		}
		_, err = conn.Exec(ctx, end)
	}
	if !pc.IsClosed() && pc.TxStatus() != 'I' {
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
	return checkErr
}

// runPipeline sends the request transaction as one pipeline and reads its
// results in order. Without prepare (db-prepared-statements off, for a
// transaction pooler that cannot keep named statements) every statement
// is parsed each time as an unnamed one.
func runPipeline(ctx context.Context, pc *pgconn.PgConn, tx txSpec, steps []step, prepare bool) error {
	args := make([][][]byte, len(steps))
	for i, st := range steps {
		a, err := textArgs(st.stmt.Args)
		if err != nil {
			return err
		}
		args[i] = a
	}
	cache := statementsOf(pc)
	var prepared []cachedStmt // prepared by this pipeline, in order
	pl := pc.StartPipeline(ctx)
	for _, name := range cache.evicted {
		pl.SendDeallocate(name)
	}
	cache.evicted = cache.evicted[:0]
	send := func(key, sql string, args [][]byte) {
		if !prepare {
			pl.SendQueryParams(sql, args, nil, nil, nil)
			return
		}
		name, ok := cache.lookup(key)
		if !ok {
			name = cache.newName()
			pl.SendPrepare(name, sql, nil)
			prepared = append(prepared, cachedStmt{key: key, name: name})
		}
		pl.SendQueryPrepared(name, args, nil, nil)
	}

	// BEGIN and COMMIT are prepared like the rest: transaction control
	// resolves no names, so one statement serves every role, and the
	// server then skips parsing them on each request.
	begin := beginSQL(&tx)
	send(begin, begin, nil)
	setup := setupSQL(len(tx.settings))
	send(setup, setup, setupArgs(&tx))
	setups := 2 // begin and the set-up statement
	if tx.timezone != "" {
		send(timezoneSQL, timezoneSQL, [][]byte{[]byte(tx.timezone)})
		setups++
	}
	if pr := tx.preRequest; pr != nil {
		send(stmtKey(tx.role, tx.searchPath, pr.SQL), pr.SQL, nil)
		setups++
	}
	for i, st := range steps {
		send(stmtKey(tx.role, tx.searchPath, st.stmt.SQL), st.stmt.SQL, args[i])
	}
	switch {
	case tx.check != nil:
		// The caller ends the transaction once it has seen the results.
	case tx.rollback:
		send("rollback", "rollback", nil)
	default:
		send("commit", "commit", nil)
	}
	if err := pl.Sync(); err != nil {
		pl.Close()
		return err
	}

	// Result readers arrive in send order: begin, the set-up statements,
	// the steps, and the transaction's end when it was sent.
	reader := 0
	for {
		res, err := pl.GetResults()
		if err != nil {
			pl.Close()
			return err
		}
		switch res := res.(type) {
		case *pgconn.StatementDescription:
			cache.add(prepared[0].key, prepared[0].name)
			prepared = prepared[1:]
		case *pgconn.ResultReader:
			if i := reader - setups; i >= 0 && i < len(steps) {
				if err := readRows(res, steps[i].row); err != nil {
					pl.Close()
					return err
				}
			}
			reader++
		case *pgconn.PipelineSync:
			return pl.Close()
		case nil:
			pl.Close()
			return errors.New("pipeline ended before its sync")
		}
	}
}

// readRows hands each row of rr to row and returns the first error.
func readRows(rr *pgconn.ResultReader, row rowFunc) error {
	var err error
	for rr.NextRow() {
		if err == nil {
			err = row(rr.Values())
		}
	}
	if _, cerr := rr.Close(); cerr != nil {
		return cerr
	}
	return err
}

// textArgs renders bind values in PostgreSQL's text format; their types
// are left for the server to infer from where they are used.
func textArgs(args []any) ([][]byte, error) {
	out := make([][]byte, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = []byte(v)
		case int:
			out[i] = strconv.AppendInt(nil, int64(v), 10)
		case int64:
			out[i] = strconv.AppendInt(nil, v, 10)
		default:
			return nil, fmt.Errorf("bind value %d: unsupported type %T", i+1, a)
		}
	}
	return out, nil
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
