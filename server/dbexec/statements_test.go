package dbexec_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
)

// statementConn opens a connection as the authenticator, as the pool does.
func statementConn(t *testing.T) *pgconn.PgConn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), fixture.authURI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn.PgConn()
}

// preparedCount counts the statements prepared on pc whose text is sql.
func preparedCount(t *testing.T, pc *pgconn.PgConn, sql string) int {
	t.Helper()
	var n int
	err := dbexec.RunStatement(context.Background(), pc, "web_anon",
		"select pg_catalog.count(*) from pg_catalog.pg_prepared_statements where statement = $1", []any{sql},
		func(v [][]byte) (err error) { n, err = strconv.Atoi(string(v[0])); return })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStatementPreparedOncePerConnection(t *testing.T) {
	pc := statementConn(t)
	ctx := context.Background()
	const sql = "select pg_catalog.count(*) from test.authors where id > $1"
	var counts []string
	for range 3 {
		err := dbexec.RunStatement(ctx, pc, "web_anon", sql, []any{"0"},
			func(v [][]byte) error { counts = append(counts, string(v[0])); return nil })
		if err != nil {
			t.Fatal(err)
		}
	}
	if counts[0] == "" || counts[0] != counts[1] || counts[1] != counts[2] {
		t.Errorf("counts = %q, want three equal non-empty counts", counts)
	}
	if n := preparedCount(t, pc, sql); n != 1 {
		t.Errorf("statement prepared %d times on the connection, want 1", n)
	}
	if dbexec.SessionHoldsArgs(pc) {
		t.Error("the session holds bind values of requests that ended (they may be a request's body)")
	}
}

// A statement's names are resolved with the privileges of the role that
// prepared it, so another role must not reuse it: here the second role may
// read the table but has no USAGE on its schema.
func TestStatementNotSharedAcrossRoles(t *testing.T) {
	ctx := context.Background()
	super, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close(ctx)
	if _, err := super.Exec(ctx, `create role stmt_no_usage nologin;
		grant stmt_no_usage to authenticator;
		grant select on test.authors to stmt_no_usage`); err != nil {
		t.Fatal(err)
	}
	pc := statementConn(t)
	const sql = "select pg_catalog.count(*) from test.authors"
	ignore := func([][]byte) error { return nil }
	if err := dbexec.RunStatement(ctx, pc, "web_anon", sql, nil, ignore); err != nil {
		t.Fatal(err)
	}
	err = dbexec.RunStatement(ctx, pc, "stmt_no_usage", sql, nil, ignore)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Fatalf("second role ran a statement in a schema it has no USAGE on: err = %v, want SQLSTATE 42501", err)
	}
}

// A failed request leaves nothing behind: the connection serves the next
// one, and a statement whose preparation never ran is prepared again.
func TestStatementAfterFailure(t *testing.T) {
	pc := statementConn(t)
	ctx := context.Background()
	const sql = "select 10 / $1::int"
	var got string
	keep := func(v [][]byte) error { got = string(v[0]); return nil }

	// The role switch fails, so the statement is never prepared.
	if err := dbexec.RunStatement(ctx, pc, "no_such_role", sql, []any{"2"}, keep); err == nil {
		t.Fatal("unknown role: want an error")
	}
	rollback(t, pc)
	// Prepared, then fails while executing.
	var pgErr *pgconn.PgError
	if err := dbexec.RunStatement(ctx, pc, "web_anon", sql, []any{"0"}, keep); !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		t.Fatalf("division by zero: err = %v, want SQLSTATE 22012", err)
	}
	rollback(t, pc)
	if err := dbexec.RunStatement(ctx, pc, "web_anon", sql, []any{"2"}, keep); err != nil {
		t.Fatal(err)
	}
	if got != "5" {
		t.Errorf("10 / 2 = %q, want 5", got)
	}
	if n := preparedCount(t, pc, sql); n != 1 {
		t.Errorf("statement prepared %d times, want 1", n)
	}
}

// rollback ends the transaction a failed pipeline left open, as the server
// does before returning a connection to the pool.
func rollback(t *testing.T, pc *pgconn.PgConn) {
	t.Helper()
	if err := pc.Exec(context.Background(), "rollback").Close(); err != nil {
		t.Fatal(err)
	}
}

// The cache is bounded: past its size the least recently used statements
// are deallocated on the server too.
func TestStatementCacheBounded(t *testing.T) {
	pc := statementConn(t)
	ctx := context.Background()
	ignore := func([][]byte) error { return nil }
	for i := range dbexec.StmtCacheSize + 20 {
		if err := dbexec.RunStatement(ctx, pc, "web_anon", fmt.Sprintf("select %d", i), nil, ignore); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	err := dbexec.RunStatement(ctx, pc, "web_anon", "select pg_catalog.count(*) from pg_catalog.pg_prepared_statements", nil,
		func(v [][]byte) (err error) { n, err = strconv.Atoi(string(v[0])); return })
	if err != nil {
		t.Fatal(err)
	}
	// The cache's statements, all alive, plus the counting statement itself,
	// prepared in this pipeline before its eviction victim is deallocated.
	if want := dbexec.StmtCacheSize + 1; n != want {
		t.Errorf("%d statements prepared on the connection, want %d", n, want)
	}
}

// preparedStatements lists the texts of the statements prepared on pc.
func preparedStatements(t *testing.T, pc *pgconn.PgConn) []string {
	t.Helper()
	var texts []string
	err := dbexec.RunStatement(context.Background(), pc, "web_anon", "select statement from pg_catalog.pg_prepared_statements", nil,
		func(v [][]byte) error { texts = append(texts, string(v[0])); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// The cache is bounded by the memory its statements are estimated to
// cost the backend too: however many distinct statements a connection
// runs, those it keeps prepared cost at most its budget.
func TestStatementCacheBoundedByBytes(t *testing.T) {
	pc := statementConn(t)
	ctx := context.Background()
	pad := strings.Repeat(" ", 400)
	one := query.Statement{SQL: "select 0" + pad}
	const budget = 1 << 20
	dbexec.BudgetStatements(pc, budget)
	ignore := func([][]byte) error { return nil }
	n := 4 * budget / int(dbexec.StatementCost(one))
	for i := range n {
		if err := dbexec.RunStatement(ctx, pc, "web_anon", fmt.Sprintf("select %d%s", i, pad), nil, ignore); err != nil {
			t.Fatal(err)
		}
	}
	texts := preparedStatements(t, pc)
	var cost int64
	for _, text := range texts {
		cost += dbexec.StatementCost(query.Statement{SQL: text})
	}
	// The counting statement was prepared after the last eviction.
	counting := dbexec.StatementCost(query.Statement{SQL: "select statement from pg_catalog.pg_prepared_statements"})
	if cost-counting > budget {
		t.Errorf("after %d statements, %d are prepared, estimated at %d bytes, more than the budget of %d", n, len(texts), cost-counting, budget)
	}
	if len(texts) < n/8 {
		t.Errorf("after %d statements, only %d are prepared: the budget holds about %d", n, len(texts), n/4)
	}
}

// A statement estimated at more than a sixteenth of the budget runs, but
// is never prepared: it does not take the room of many ordinary ones.
// A budget of 0 prepares nothing.
func TestStatementTooLargeIsNotPrepared(t *testing.T) {
	ctx := context.Background()
	large := "select 1" + strings.Repeat(" ", 2000)
	for _, budget := range []int64{16 * dbexec.StatementCost(query.Statement{SQL: large}) / 2, 0} {
		pc := statementConn(t)
		dbexec.BudgetStatements(pc, budget)
		for range 2 {
			var got string
			if err := dbexec.RunStatement(ctx, pc, "web_anon", large, nil, func(v [][]byte) error { got = string(v[0]); return nil }); err != nil {
				t.Fatal(err)
			}
			if got != "1" {
				t.Fatalf("budget %d: the statement answered %q, want 1", budget, got)
			}
		}
		if n := preparedCount(t, pc, large); n != 0 {
			t.Errorf("budget %d: a statement estimated at %d bytes was prepared", budget, dbexec.StatementCost(query.Statement{SQL: large}))
		}
		if ok, err := dbexec.RunPrepared(ctx, pc, "web_anon", large, nil, func([][]byte) error { return nil }); ok || err != nil {
			t.Errorf("budget %d: the prepared path took a statement never prepared (err %v)", budget, err)
		}
	}
}

// Sessions not opened by the pool (these tests') get the budget the
// pool's get by default.
func TestStatementBudgetDefault(t *testing.T) {
	if got := int64(fixture.cfg.DBStatementsMaxBytes); got != dbexec.DefaultStmtBudget {
		t.Errorf("db-prepared-statements-max-bytes defaults to %d, sessions outside a pool to %d", got, dbexec.DefaultStmtBudget)
	}
}
