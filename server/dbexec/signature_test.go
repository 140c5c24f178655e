package dbexec_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
)

// sigSchema has a read and a write that raise XX000 whatever the catalog
// (a function, and a trigger counting its runs in a sequence, which a
// rollback does not undo), and a table the test recreates under the same
// name, as a migration may.
const sigSchema = `
drop schema if exists sigcheck cascade;
create schema sigcheck;
grant usage on schema sigcheck to web_anon;
create function sigcheck.boom() returns int stable language plpgsql as
	$$begin raise exception 'a genuine internal error' using errcode = 'XX000'; end$$;
create sequence sigcheck.runs;
grant usage on sequence sigcheck.runs to web_anon;
create table sigcheck.items (id int primary key);
grant insert on sigcheck.items to web_anon;
create function sigcheck.refuse() returns trigger language plpgsql as
	$$begin perform nextval('sigcheck.runs'); raise exception 'refused' using errcode = 'XX000'; end$$;
create trigger refuse before insert on sigcheck.items for each row execute function sigcheck.refuse();
create table sigcheck.replaced (id int);
`

// TestSignatureProvesStale: an internal error the request's statements do
// not explain is a stale session's only when the catalog's signature has
// changed since the pool's sessions were opened. Then the pool is retired
// once, a read runs again and a write is answered SVC004 without running
// again; otherwise the error is the request's own and the session stays.
func TestSignatureProvesStale(t *testing.T) {
	ctx := context.Background()
	db := superConn(t)
	if _, err := db.Exec(ctx, sigSchema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "drop schema sigcheck cascade") })
	recreate := func() {
		t.Helper()
		if _, err := db.Exec(ctx, "drop table sigcheck.replaced; create table sigcheck.replaced (id int)"); err != nil {
			t.Fatal(err)
		}
	}
	cfg := *fixture.cfg
	cfg.DBPool = 1
	pool, err := dbexec.NewPool(ctx, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	sig, err := dbexec.SignPool(ctx, pool, []string{"sigcheck"})
	if err != nil {
		t.Fatal(err)
	}
	dbexec.RetireFor(pool, sig) // as a reload does
	e := &dbexec.Executor{Names: apierr.SVCNaming, Pool: pool, AcquireTimeout: 5 * time.Second, Prepare: true}
	run := func(readOnly bool, sql string, row dbexec.RowFunc) error {
		tx := dbexec.Tx{ReadOnly: readOnly, Role: "web_anon", SearchPath: `"sigcheck"`, Method: "GET", Path: "/"}
		if !readOnly {
			tx.Method = "POST"
		}
		return e.Execute(ctx, tx, dbexec.Step{Stmt: query.Statement{SQL: sql}, Row: row})
	}
	backend := func() int {
		t.Helper()
		var pid string
		if err := run(true, "select pg_backend_pid()::text", dbexec.ScanOne(&pid)); err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(pid)
		return n
	}
	code := func(err error) string {
		var ae *apierr.Error
		if !errors.As(err, &ae) {
			return "not an apierr: " + err.Error()
		}
		return strconv.Itoa(ae.Status) + " " + ae.Code
	}
	runs := func() int {
		t.Helper()
		var n int
		if err := db.QueryRow(ctx, "select case when is_called then last_value else 0 end from sigcheck.runs").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := func(id int) error { return run(false, "insert into sigcheck.items values ("+strconv.Itoa(id)+")", nil) }

	pid := backend()
	recreate()
	if got := code(run(true, "select sigcheck.boom()", nil)); got != "500 XX000" {
		t.Errorf("a read after the catalog changed: %s, want 500 XX000 (run again on a new session, where it fails alike)", got)
	}
	if now := backend(); now == pid {
		t.Errorf("the session opened before the catalog changed (backend %d) was kept", pid)
	}

	pid, opened := backend(), pool.Stat().NewConnsCount()
	for range 20 {
		if got := code(run(true, "select sigcheck.boom()", nil)); got != "500 XX000" {
			t.Fatalf("a read raising XX000, the catalog unchanged: %s, want 500 XX000", got)
		}
	}
	if n := pool.Stat().NewConnsCount() - opened; n != 0 || backend() != pid {
		t.Errorf("%d sessions opened for reads raising XX000 with the catalog unchanged", n)
	}

	dbexec.ForgetCatalogCheck(pool) // as a second later
	recreate()
	before := runs()
	if got := code(insert(1)); got != "503 SVC004" {
		t.Errorf("a write after the catalog changed: %s, want 503 SVC004", got)
	}
	if n := runs() - before; n != 1 {
		t.Errorf("the write's trigger ran %d times, want 1", n)
	}

	pid, opened, before = backend(), pool.Stat().NewConnsCount(), runs()
	for i := range 10 {
		if got := code(insert(i)); got != "500 XX000" {
			t.Fatalf("a write raising XX000, the catalog unchanged: %s, want 500 XX000", got)
		}
	}
	if n := runs() - before; n != 10 {
		t.Errorf("the trigger ran %d times for 10 writes", n)
	}
	if n := pool.Stat().NewConnsCount() - opened; n != 0 || backend() != pid {
		t.Errorf("%d sessions opened for writes raising XX000 with the catalog unchanged", n)
	}
}
