package dbexec

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/query"
)

// StmtCacheSize exposes the per-connection statement cache bound to tests.
const StmtCacheSize = stmtCacheSize

// RunStatement runs one statement on pc the way a request does (begin,
// context set-up as role, the statement, commit in one pipeline), handing
// each row's text values to row. The search_path is public, which every
// role may use, so a role's effective search_path never differs from
// another's (a difference would make PostgreSQL re-parse by itself).
func RunStatement(ctx context.Context, pc *pgconn.PgConn, role, sql string, args []any, row func([][]byte) error) error {
	return watched(ctx, pc, func() error {
		return runPipeline(ctx, pc, sessionOf(pc), testTx(role, true), []Step{{query.Statement{SQL: sql, Args: args}, row}}, true)
	})
}

// RunWrite is RunStatement in a transaction that may write.
func RunWrite(ctx context.Context, pc *pgconn.PgConn, role, sql string, args []any, row func([][]byte) error) error {
	return watched(ctx, pc, func() error {
		return runPipeline(ctx, pc, sessionOf(pc), testTx(role, false), []Step{{query.Statement{SQL: sql, Args: args}, row}}, true)
	})
}

// TestCancelTimeout is the db-pool-cancel-timeout of the requests the
// helpers here run.
const TestCancelTimeout = 10 * time.Second

// watched runs a request's statements on pc as Executor.runTx does: when
// ctx ends, PostgreSQL is asked to cancel them, and pc is closed once its
// backend has stopped.
func watched(ctx context.Context, pc *pgconn.PgConn, run func() error) error {
	w := watchClient(ctx, pc, sessionOf(pc), TestCancelTimeout)
	err := run()
	w.settle(nil)
	return err
}

// testTx is the transaction of RunStatement and its kin.
func testTx(role string, readOnly bool) Tx {
	method := "GET"
	if !readOnly {
		method = "POST"
	}
	return Tx{ReadOnly: readOnly, Role: role, SearchPath: `"public"`, Method: method, Path: "/"}
}

// RunPrepared runs one statement as RunStatement does, but only on the
// path for statements already prepared on pc: ok is false, and nothing is
// sent, when a statement of the request is not prepared there or pc's
// requests need BEGIN.
func RunPrepared(ctx context.Context, pc *pgconn.PgConn, role, sql string, args []any, row func([][]byte) error) (ok bool, err error) {
	return runPreparedAs(ctx, pc, testTx(role, true), sql, args, row)
}

// RunPreparedWrite is RunPrepared in a transaction that may write.
func RunPreparedWrite(ctx context.Context, pc *pgconn.PgConn, role, sql string, args []any, row func([][]byte) error) (ok bool, err error) {
	return runPreparedAs(ctx, pc, testTx(role, false), sql, args, row)
}

func runPreparedAs(ctx context.Context, pc *pgconn.PgConn, tx Tx, sql string, args []any, row func([][]byte) error) (ok bool, err error) {
	steps := []Step{{query.Statement{SQL: sql, Args: args}, row}}
	explicit := needsBegin(&tx, sessionOf(pc))
	calls, err := requestCalls(nil, nil, &tx, steps, explicit)
	if err != nil || explicit || !preparedPathTakes(sessionOf(pc), calls) {
		return false, err
	}
	return true, watched(ctx, pc, func() error { return runPrepared(pc, calls) })
}

// StatementCost is what the statement cache counts st to cost its
// backend.
func StatementCost(st query.Statement) int64 { return statementCost(st.SQL, st.Expansion) }

// BudgetStatements sets the estimated backend memory pc's prepared
// statements may hold, as db-prepared-statements-max-bytes does for the
// pool's sessions.
func BudgetStatements(pc *pgconn.PgConn, budget int64) { budgetStatements(pc, budget) }

// DefaultStmtBudget is the budget of a session not opened by OpenPool.
const DefaultStmtBudget = defaultStmtBudget

// ForgetCatalogCheck has pool's next internal error take the catalog's
// signature again, as it does once catalogCheckInterval has passed.
func ForgetCatalogCheck(pool *pgxpool.Pool) { sessionsOf(pool).check.forget() }

// LeavingCtx is a request context with a leave hook, as http1's is: its
// client leaving (ClientLeaves) ends it, then runs the function registered.
type LeavingCtx struct {
	context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	leave  func()
}

// NewLeavingCtx returns a LeavingCtx under parent.
func NewLeavingCtx(parent context.Context) *LeavingCtx {
	ctx, cancel := context.WithCancel(parent)
	return &LeavingCtx{Context: ctx, cancel: cancel}
}

// OnLeave registers f, replacing what was registered.
func (c *LeavingCtx) OnLeave(f func()) { c.mu.Lock(); c.leave = f; c.mu.Unlock() }

// StopLeave unregisters the function and reports whether there was one.
func (c *LeavingCtx) StopLeave() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	stopped := c.leave != nil
	c.leave = nil
	return stopped
}

// Registered reports whether a function waits for the client to leave.
func (c *LeavingCtx) Registered() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.leave != nil }

// ClientLeaves ends the context and runs what was registered, as http1's
// watcher does when the client goes.
func (c *LeavingCtx) ClientLeaves() {
	c.cancel()
	c.mu.Lock()
	f := c.leave
	c.leave = nil
	c.mu.Unlock()
	if f != nil {
		go f()
	}
}

// SessionHoldsArgs reports whether pc's session still holds a bind value
// of the requests that ran on it.
func SessionHoldsArgs(pc *pgconn.PgConn) bool {
	for _, a := range sessionOf(pc).args {
		if a != nil {
			return true
		}
	}
	return false
}

// SlowShelfTick has pool's shelf tick once an hour, so that no session
// goes back to pgxpool for its age during a test. Call it before the
// pool's first request.
func SlowShelfTick(pool *pgxpool.Pool) { sessionsOf(pool).shelf.period = time.Hour }
