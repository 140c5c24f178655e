package dbexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/query"
)

// Executor runs request transactions over a pool.
type Executor struct {
	// Pool is the primary's; a transaction on a replica (Tx.Replica)
	// runs on the replica's.
	Pool *pgxpool.Pool
	// AcquireTimeout bounds the wait for a connection
	// (db-pool-acquisition-timeout).
	AcquireTimeout time.Duration
	// Prepare prepares statements on each connection
	// (db-prepared-statements), unless the pool turns out to be behind a
	// pooler in transaction mode (pooler.go).
	Prepare bool
	// CancelTimeout bounds how long a request whose client left keeps its
	// session out of the pool while PostgreSQL stops its statements
	// (db-pool-cancel-timeout; abandon.go): past it the session is closed
	// whether its backend has stopped or not. Zero does not wait.
	CancelTimeout time.Duration
	// Log, when set, is told when a request finds the pool's sessions
	// stale (afterSuspect): a migration committed without a reload yet,
	// when a session's backend did not stop within CancelTimeout, and
	// when the database is reached again after requests found it away
	// (reach.go).
	Log *slog.Logger
	// Names is the naming of the server the transactions run for: which
	// SQLSTATE a function raises to choose the whole answer (RaiseState),
	// and what an advice on another naming's says (apierr.FromPG).
	Names apierr.Naming
	// reach caches where the primary's reach is kept.
	reach reachState
	// acquiring counts the requests in acquire: those waiting for a
	// session in pgxpool, mostly (release).
	acquiring atomic.Int32
}

// Execute runs steps inside the request transaction in one round trip:
// begin, context set-up, the steps and commit (or rollback) are pipelined
// together, each statement prepared on the connection the first time it is
// seen there. A second round trip ends the transaction only when a
// statement fails or tx.Check must see the results first. A request that
// meets a session's stale knowledge of the catalog is run again on a new
// session, or refused with SVC004 (afterSuspect).
func (e *Executor) Execute(ctx context.Context, tx Tx, steps ...Step) error {
	pool := e.poolFor(&tx)
	conn, err := e.acquire(ctx, pool)
	if err != nil {
		return err
	}
	prepare := e.prepares(pool)
	dbErr, checkErr := e.runTx(ctx, conn.Conn(), &tx, steps, prepare)
	if dbErr != nil && ctx.Err() == nil && isConnectionError(dbErr) {
		e.unreached(pool)
	}
	if dbErr != nil && ctx.Err() == nil && prepare && poolerSymptom(dbErr) {
		return e.afterPooler(ctx, pool, conn, &tx, steps, dbErr)
	}
	if dbErr != nil && ctx.Err() == nil && assertable(dbErr, steps) {
		return e.afterAssert(ctx, pool, conn, &tx, steps, dbErr)
	}
	if dbErr != nil && ctx.Err() == nil && suspect(dbErr) {
		return e.afterSuspect(ctx, pool, conn, &tx, steps, dbErr)
	}
	e.release(pool, conn)
	return e.answer(ctx, &tx, dbErr, checkErr)
}

// runTx runs the request transaction on conn, and leaves conn idle, or
// closed when that cannot be: dbErr is what PostgreSQL or the driver
// reported, checkErr what tx.Check found. The statements run without ctx:
// when the client leaves (ctx ends), a watch has PostgreSQL cancel them,
// and conn is closed only once its backend has stopped, or
// e.CancelTimeout after the client left (abandon.go).
func (e *Executor) runTx(ctx context.Context, conn *pgx.Conn, tx *Tx, steps []Step, prepare bool) (dbErr, checkErr error) {
	if ctx.Err() != nil {
		return ErrClientGone, nil // nothing sent: the session is as it was
	}
	pc := conn.PgConn()
	s := sessionOf(pc)
	watch := watchClient(ctx, pc, s, e.CancelTimeout)
	dbErr = runPipeline(ctx, pc, s, *tx, steps, prepare)
	if dbErr == nil && tx.Next != nil {
		dbErr, checkErr = runNext(ctx, pc, tx.Next)
		if dbErr == nil && checkErr == nil && tx.Rollback {
			// As the pipeline did for its steps (requestCalls), for the
			// statements since.
			_, dbErr = pc.Exec(context.WithoutCancel(ctx), checkDeferredSQL).ReadAll()
		}
	}
	if dbErr == nil && (tx.Check != nil || tx.Next != nil) {
		if ctx.Err() != nil {
			// Nobody waits for the outcome: the transaction ends unfinished,
			// rolled back, below or when the watch ends the session.
			dbErr = ErrClientGone
		} else {
			// A rollback's deferred checks ran in the pipeline (requestCalls).
			end := "commit"
			if checkErr == nil && tx.Check != nil {
				checkErr = tx.Check()
			}
			if checkErr != nil || tx.Rollback {
				end = "rollback"
			}
			dbErr = endTransaction(context.WithoutCancel(ctx), conn, end, tx.Mark)
		}
	}
	if watch.settle(e.Log) {
		return dbErr, checkErr
	}
	if !pc.IsClosed() && pc.TxStatus() != 'I' {
		// The failed statement left the transaction open; roll back here so
		// the pool keeps the connection instead of discarding it.
		if _, rerr := conn.Exec(context.WithoutCancel(ctx), "rollback"); rerr != nil {
			conn.Close(context.Background())
		}
	}
	if dbErr == nil {
		// A failed request's session may yet be looked at (afterSuspect);
		// the next request that succeeds on it retires it.
		retireIfOver(pc, s, e.Log)
	}
	return dbErr, checkErr
}

// runNext runs the statements next gives, one round trip each, as
// unnamed statements: a batch's statement is parsed again, which costs
// little beside the batch. nextErr is next's own.
func runNext(ctx context.Context, pc *pgconn.PgConn, next func() (Step, bool, error)) (dbErr, nextErr error) {
	for {
		st, ok, err := next()
		if err != nil || !ok {
			return nil, err
		}
		_, args, err := textArgs(nil, st.Stmt.Args)
		if err != nil {
			return err, nil
		}
		rr := pc.ExecParams(context.WithoutCancel(ctx), st.Stmt.SQL, args, nil, nil, nil)
		if err := readRows(pc, rr, st.Row); err != nil {
			return err, nil
		}
	}
}

// answer is the request's outcome from what runTx reported.
func (e *Executor) answer(ctx context.Context, tx *Tx, dbErr, checkErr error) error {
	if dbErr != nil {
		if ctx.Err() != nil {
			return ErrClientGone
		}
		return APIError(e.Names, dbErr, tx.Authenticated)
	}
	return checkErr
}

// runPipeline sends the request transaction as one pipeline and reads its
// results in order, whether or not ctx ends: the caller's clientWatch
// stops the statements when the client leaves (runTx). Without prepare
// (db-prepared-statements off, for a transaction pooler that cannot keep
// named statements) every statement is parsed each time as an unnamed one;
// so is a statement too large for the connection's cache to keep
// (stmtCache.keeps).
func runPipeline(ctx context.Context, pc *pgconn.PgConn, s *sessionState, tx Tx, steps []Step, prepare bool) (err error) {
	// Everything up to the pipeline's Sync runs in one transaction: an
	// implicit one that the Sync commits, or that a failed statement rolls
	// back, unless the request needs BEGIN (an isolation level other than
	// read committed), or must choose its own end (a rollback, or a check
	// of the results first). The implicit one saves two statements a
	// request, on both sides of the connection.
	explicit := needsBegin(&tx, s)
	var room [8]call
	args := &s.args
	defer clear(args[:]) // the session holds none of the request's values
	calls, err := requestCalls(room[:0], args[:0], &tx, steps, explicit)
	if err != nil {
		return err
	}
	if prepare && !explicit && preparedPathTakes(s, calls) {
		// Every statement ran on the session before, when it was
		// prepared: its row types are counted.
		return runPrepared(pc, calls)
	}
	s.ledger().note(calls)
	cache := s.stmts()

	var prepared []pendingStmt // prepared by this pipeline, in order
	pl := pc.StartPipeline(context.WithoutCancel(ctx))
	for _, name := range cache.evicted {
		pl.SendDeallocate(name)
	}
	cache.evicted = cache.evicted[:0]
	for _, c := range calls {
		if !prepare || !cache.keeps(c.cost()) {
			pl.SendQueryParams(c.key.sql, c.args, nil, nil, nil)
			continue
		}
		if desc, ok := cache.lookup(c.key); ok {
			// The description the server sent when the statement was
			// prepared stands for this run's: no Describe, so the server
			// sends, and pgx decodes, no row description each time.
			pl.SendQueryStatement(desc, c.args, nil, nil)
			continue
		}
		name := cache.newName()
		pl.SendPrepare(name, c.key.sql, nil)
		prepared = append(prepared, pendingStmt{c.key, name, c.cost()})
		pl.SendQueryPrepared(name, c.args, nil, nil)
	}
	if err := pl.Sync(); err != nil {
		pl.Close()
		return err
	}

	// Result readers arrive in send order, one per call.
	reader := 0
	for {
		res, err := pl.GetResults()
		if err != nil {
			pl.Close()
			return err
		}
		switch res := res.(type) {
		case *pgconn.StatementDescription:
			cache.add(prepared[0], res)
			prepared = prepared[1:]
		case *pgconn.ResultReader:
			if row := calls[reader].row; row != nil {
				if err := readRows(pc, res, row); err != nil {
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

// needsBegin reports whether tx needs an explicit transaction on the
// session of state s rather than the pipeline's implicit one (see
// runPipeline).
func needsBegin(tx *Tx, s *sessionState) bool {
	return tx.Check != nil || tx.Next != nil || tx.Rollback || tx.Isolation != "" || tx.Mark != nil || !s.implicit
}

// call is one statement of the request transaction as sent: what the
// statement cache knows it by, and its bind values in text format.
type call struct {
	key  stmtKey
	args [][]byte
	// expansion is the statement's query.Statement.Expansion, for a step.
	expansion int
	// rowTypes is the statement's query.Statement.RowTypes, for a step.
	rowTypes int
	// name is the statement's on the connection, once allPrepared has
	// found it there.
	name string
	// row takes the statement's rows: its step's; nil for the set-up
	// and the transaction's control, whose rows nobody reads.
	row RowFunc
}

// requestCalls appends the request transaction's statements to calls in
// the order they run, and their bind values to room (an array of the
// caller's spares each statement's values an allocation): begin when
// explicit, the set-up statements, the steps (each followed by
// query.SettingsSQL when it asks for it), and the transaction's end when
// explicit and not left to the caller. BEGIN and COMMIT are prepared like
// the rest: transaction control resolves no names, so one statement
// serves every role, and the server then skips parsing them on each
// request.
func requestCalls(calls []call, room [][]byte, tx *Tx, steps []Step, explicit bool) ([]call, error) {
	if explicit {
		calls = append(calls, call{key: newStmtKey("", "", beginSQL(tx), 0)})
	}
	room, args := setupArgs(room, tx)
	calls = append(calls, call{key: setupKey(setupVariant{len(tx.Settings), tx.ReadOnly && !explicit, tx.Explain}), args: args})
	if tx.Timezone != "" {
		calls = append(calls, call{key: timezoneKey, args: [][]byte{[]byte(tx.Timezone)}})
	}
	if pr := tx.PreRequest; pr != nil {
		calls = append(calls, call{key: newStmtKey(tx.Role, tx.SearchPath, pr.SQL, pr.Sum)})
	}
	for _, st := range steps {
		var args [][]byte
		var err error
		room, args, err = textArgs(room, st.Stmt.Args)
		if err != nil {
			return nil, err
		}
		calls = append(calls, call{key: newStmtKey(tx.Role, tx.SearchPath, st.Stmt.SQL, st.Stmt.Sum), args: args,
			expansion: st.Stmt.Expansion, rowTypes: st.Stmt.RowTypes, row: st.Row})
		if st.Stmt.SettingsAfter {
			// It names no relation: one statement serves every role.
			calls = append(calls, call{key: settingsKey, row: st.Row})
		}
	}
	switch {
	case !explicit:
		// The Sync commits.
	case tx.Rollback:
		// Deferred constraints and triggers are checked first, so the
		// client sees the error a commit would have given (PostgREST
		// does the same); when the caller ends the transaction once it
		// has seen the results, they are checked in this round trip too.
		calls = append(calls, call{key: checkDeferredKey})
		if tx.Check == nil && tx.Next == nil {
			calls = append(calls, call{key: rollbackKey})
		}
	case tx.Check == nil && tx.Next == nil && tx.Mark == nil:
		// Otherwise the caller ends the transaction once it has seen the
		// results, or the steps end it (a mark).
		calls = append(calls, call{key: commitKey})
	}
	return calls, nil
}

// checkDeferredSQL runs the deferred constraint checks and constraint
// triggers now, as COMMIT would, in a transaction about to roll back.
const checkDeferredSQL = "set constraints all immediate"

// The keys of the statements every role shares, their sums computed once.
var (
	timezoneKey      = newStmtKey("", "", timezoneSQL, 0)
	settingsKey      = newStmtKey("", "", query.SettingsSQL, 0)
	checkDeferredKey = newStmtKey("", "", checkDeferredSQL, 0)
	rollbackKey      = newStmtKey("", "", "rollback", 0)
	commitKey        = newStmtKey("", "", "commit", 0)
)

// pendingStmt is a statement being prepared, cached once the server
// describes it.
type pendingStmt struct {
	key  stmtKey
	name string
	cost int64
}

// readRows hands each row of rr, a result on pc, to row and returns the
// first error.
func readRows(pc *pgconn.PgConn, rr *pgconn.ResultReader, row RowFunc) error {
	var err error
	for rr.NextRow() {
		if err == nil {
			err = row(rr.Values())
			clientGone(pc, err)
		}
	}
	if _, cerr := rr.Close(); cerr != nil {
		return cerr
	}
	return err
}

// textArgs renders bind values in PostgreSQL's text format; their types
// are left for the server to infer from where they are used. A string or
// a []byte (a request body, perhaps megabytes) is already text and is sent
// as it is, not copied (argText); integers are written into one buffer.
func textArgs(room [][]byte, args []any) (_, out [][]byte, err error) {
	ints := 0
	for _, a := range args {
		switch a.(type) {
		case string, []byte:
		case int, int64:
			ints++
		default:
			return room, nil, fmt.Errorf("bind value: unsupported type %T", a)
		}
	}
	var buf []byte
	if ints > 0 {
		buf = make([]byte, 0, 20*ints) // 20: the longest int64
	}
	start := len(room)
	for _, a := range args {
		from := len(buf)
		switch v := a.(type) {
		case []byte:
			room = append(room, v[:len(v):len(v)])
			continue
		case string:
			room = append(room, argText(v))
			continue
		case int:
			buf = strconv.AppendInt(buf, int64(v), 10)
		case int64:
			buf = strconv.AppendInt(buf, v, 10)
		}
		room = append(room, buf[from:len(buf):len(buf)])
	}
	return room, room[start:len(room):len(room)], nil
}

// ErrClientGone reports a request abandoned by its client mid-query: there
// is no one to answer and nothing went wrong on our side.
var ErrClientGone = apierr.ErrClientGone

// APIError turns a database or driver error into the caller's error, for
// a server under naming n.
func APIError(n apierr.Naming, err error, authenticated bool) error {
	var pgErr *pgconn.PgError
	var answered *apierr.Error
	switch {
	case errors.As(err, &answered):
		// A step's row function refused the rows (a streamed answer's
		// header): its words stand.
		return answered
	case errors.As(err, &pgErr):
		return apierr.FromPG(n, pgErr, authenticated)
	}
	if pgconn.SafeToRetry(err) || isConnectionError(err) {
		return apierr.ConnectionFailed(err)
	}
	return apierr.Internal(err)
}

// isConnectionError reports whether err is the connection to PostgreSQL
// failing rather than a statement: it could not be made, or it ended
// mid-request (the server crashed or was killed: an unexpected EOF, a
// reset). The driver's words for it name the database's address, which
// only the log may see (apierr.ConnectionFailed).
func isConnectionError(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "conn closed")
}

// SearchPath renders the request's search_path: the selected schema first,
// then db-extra-search-path, each quoted.
func SearchPath(schema string, extra []string) string {
	parts := make([]string, 0, 1+len(extra))
	parts = append(parts, pgx.Identifier{schema}.Sanitize())
	for _, e := range extra {
		if e != schema {
			parts = append(parts, pgx.Identifier{e}.Sanitize())
		}
	}
	return strings.Join(parts, ", ")
}

// poolFor is the pool tx runs on: its replica's, or the primary's.
func (e *Executor) poolFor(tx *Tx) *pgxpool.Pool {
	if tx.Replica != nil {
		return tx.Replica.Pool
	}
	return e.Pool
}

// endTransaction ends a transaction whose results a check had to see
// first: with end, and, when a mark asks for it after a commit, the
// primary's position read in the same round trip.
func endTransaction(ctx context.Context, conn *pgx.Conn, end string, mark *Step) error {
	if mark == nil || end != "commit" {
		_, err := conn.Exec(ctx, end)
		return err
	}
	results, err := conn.PgConn().Exec(ctx, "commit; "+mark.Stmt.SQL).ReadAll()
	if err != nil {
		return err
	}
	if len(results) == 2 && len(results[1].Rows) == 1 {
		return mark.Row(results[1].Rows[0])
	}
	return errors.New("the WAL position after the commit was not returned")
}
