package dbexec_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/dbexec"
)

// runPrepared runs sql on the path for prepared statements, preparing it
// first with a run of prepareArgs, and fails the test if the path was not
// taken.
func runPrepared(t *testing.T, ctx context.Context, pc *pgconn.PgConn, sql string, prepareArgs, args []any, row func([][]byte) error) error {
	t.Helper()
	ignore := func([][]byte) error { return nil }
	if err := dbexec.RunStatement(context.Background(), pc, "web_anon", sql, prepareArgs, ignore); err != nil {
		t.Fatalf("preparing %q: %v", sql, err)
	}
	ok, err := dbexec.RunPrepared(ctx, pc, "web_anon", sql, args, row)
	if !ok {
		t.Fatalf("%q: the prepared path was not taken (err %v)", sql, err)
	}
	return err
}

// assertIdle fails the test unless pc is open, in step with the server
// and outside a transaction, as the pool needs it to hand it out again.
// The prepared path reads the server's transaction status without telling
// pgx, so a statement through pgx asks the server afresh.
func assertIdle(t *testing.T, pc *pgconn.PgConn) {
	t.Helper()
	if pc.IsClosed() {
		t.Fatal("connection closed; want it open")
	}
	results, err := pc.Exec(context.Background(), "select 42").ReadAll()
	if err != nil || len(results) != 1 || len(results[0].Rows) != 1 || string(results[0].Rows[0][0]) != "42" {
		t.Fatalf("select 42 after the request: %v, %v; want 42, the connection in step", results, err)
	}
	if pc.TxStatus() != 'I' {
		t.Fatalf("transaction status %q after the request; want idle", pc.TxStatus())
	}
}

func TestPreparedPathResults(t *testing.T) {
	pc := poolConn(t)
	var rows []string
	err := runPrepared(t, t.Context(), pc, "select g, g * $1::int from pg_catalog.generate_series(1, 3) g", []any{"1"}, []any{"10"},
		func(v [][]byte) error { rows = append(rows, string(v[0])+"="+string(v[1])); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows, ","); got != "1=10,2=20,3=30" {
		t.Errorf("rows = %q, want 1=10,2=20,3=30", got)
	}
	assertIdle(t, pc)
}

// A statement that fails on the path answers with PostgreSQL's error, and
// the connection serves the next request with its statements still
// prepared.
func TestPreparedPathStatementError(t *testing.T) {
	pc := poolConn(t)
	const sql = "select 10 / $1::int"
	var got string
	keep := func(v [][]byte) error { got = string(v[0]); return nil }
	var pgErr *pgconn.PgError
	if err := runPrepared(t, t.Context(), pc, sql, []any{"1"}, []any{"0"}, keep); !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		t.Fatalf("division by zero: err = %v, want SQLSTATE 22012", err)
	}
	assertIdle(t, pc)
	if err := runPrepared(t, t.Context(), pc, sql, []any{"1"}, []any{"2"}, keep); err != nil || got != "5" {
		t.Fatalf("10 / 2 after the failure: %q, %v; want 5", got, err)
	}
	if n := preparedCount(t, pc, sql); n != 1 {
		t.Errorf("statement prepared %d times, want 1", n)
	}
}

// A row the caller refuses ends the request with the caller's error, after
// the rest of the results are read, so the connection stays in step.
func TestPreparedPathRowError(t *testing.T) {
	pc := poolConn(t)
	refused := errors.New("refused")
	err := runPrepared(t, t.Context(), pc, "select pg_catalog.generate_series(1, $1::int)", []any{"1"}, []any{"5"},
		func([][]byte) error { return refused })
	if !errors.Is(err, refused) {
		t.Fatalf("err = %v, want the row's error", err)
	}
	assertIdle(t, pc)
	var n string
	if err := runPrepared(t, t.Context(), pc, "select 41 + $1::int", []any{"0"}, []any{"1"},
		func(v [][]byte) error { n = string(v[0]); return nil }); err != nil || n != "42" {
		t.Fatalf("next request: %q, %v; want 42", n, err)
	}
}

// Messages the server sends on its own among the results (a warning, a
// changed parameter, a notification) are passed over.
func TestPreparedPathAsyncMessages(t *testing.T) {
	pc := poolConn(t)
	ctx := t.Context()
	if err := pc.Exec(ctx, "listen svc_prepared_test").Close(); err != nil {
		t.Fatal(err)
	}
	// pg_advisory_unlock of a lock not held warns; set_config of the time
	// zone reports the parameter, and again when the commit resets it.
	const sql = "select pg_catalog.pg_advisory_unlock(1), pg_catalog.set_config('timezone', $1, true), " +
		"pg_catalog.pg_notify('svc_prepared_test', 'x')"
	var got []string
	err := runPrepared(t, ctx, pc, sql, []any{"UTC"}, []any{"Asia/Tokyo"},
		func(v [][]byte) error { got = []string{string(v[0]), string(v[1])}; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "f" || got[1] != "Asia/Tokyo" {
		t.Errorf("row = %q, want [f Asia/Tokyo]", got)
	}
	assertIdle(t, pc)
}

// A request cancelled while PostgreSQL works returns at once, and the
// connection, its protocol state lost, is closed so the pool drops it.
func TestPreparedPathCancelled(t *testing.T) {
	pc := poolConn(t)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := runPrepared(t, ctx, pc, "select pg_catalog.pg_sleep($1::float8)", []any{"0"}, []any{"30"},
		func([][]byte) error { return nil })
	if err == nil {
		t.Fatal("cancelled request: want an error")
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("cancelled request returned after %v, want soon after the cancel", elapsed)
	}
	if !pc.IsClosed() {
		t.Error("connection still open after a cancelled request")
	}
	// PostgreSQL was asked to cancel the statement: the backend does not
	// sleep on for 30 s after its connection is gone.
	db := superConn(t)
	for deadline := time.Now().Add(5 * time.Second); ; {
		var active bool
		if err := db.QueryRow(context.Background(),
			"select exists (select from pg_stat_activity where pid = $1 and state = 'active')", pc.PID()).Scan(&active); err != nil {
			t.Fatal(err)
		}
		if !active {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled request's statement still runs 5 s later")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// An error PostgreSQL raises at commit (a deferred unique key here) is
// the request's answer on both paths of the implicit transaction: pgx's
// pipeline, which prepares, and the prepared path after it.
func TestErrorAtCommitOnBothPaths(t *testing.T) {
	db := superConn(t)
	if _, err := db.Exec(t.Context(), `
		create table public.deferred_at_commit (code text constraint deferred_at_commit_key unique deferrable initially deferred);
		insert into public.deferred_at_commit values ('a');
		grant insert on public.deferred_at_commit to web_anon`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "drop table public.deferred_at_commit") })
	pc := poolConn(t)
	const sql = "insert into public.deferred_at_commit values ($1)"
	ignore := func([][]byte) error { return nil }
	var pgErr *pgconn.PgError
	if err := dbexec.RunWrite(t.Context(), pc, "web_anon", sql, []any{"a"}, ignore); !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("pipeline: err = %v, want 23505 at commit", err)
	}
	assertIdle(t, pc)
	ok, err := dbexec.RunPreparedWrite(t.Context(), pc, "web_anon", sql, []any{"a"}, ignore)
	if !ok {
		t.Fatalf("the prepared path was not taken (err %v)", err)
	}
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("prepared path: err = %v, want 23505 at commit", err)
	}
	assertIdle(t, pc)
	if ok, err := dbexec.RunPreparedWrite(t.Context(), pc, "web_anon", sql, []any{"b"}, ignore); !ok || err != nil {
		t.Fatalf("a row breaking nothing: taken %v, err %v; want it written", ok, err)
	}
}
