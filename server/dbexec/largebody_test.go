package dbexec_test

import (
	"context"
	"crypto/md5"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
)

// poolConn returns a connection of a new request pool, given back and
// the pool closed when the test ends.
func poolConn(t *testing.T) *pgconn.PgConn {
	t.Helper()
	return poolConnOf(t, fixture.cfg)
}

func poolConnOf(t *testing.T, cfg *config.Config) *pgconn.PgConn {
	t.Helper()
	pool, err := dbexec.NewPool(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	conn, err := pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Release)
	return conn.Conn().PgConn()
}

// Results of every size around the pool's read buffer (bufferedFrontend)
// and PostgreSQL's 8 KiB output buffer arrive whole through the pool's
// connections.
func TestLargeResultsArriveWhole(t *testing.T) {
	pc := poolConn(t)
	sizes := []int{0, 1, 8 << 10, 16<<10 - 1, 16 << 10, 16<<10 + 1, 100_000, 256<<10 - 1, 256 << 10, 256<<10 + 1, 3_000_000}
	for _, size := range sizes {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		var got []byte
		err := dbexec.RunStatement(ctx, pc, "web_anon", "select pg_catalog.repeat('x', $1::int)", []any{size},
			func(v [][]byte) error { got = append(got, v[0]...); return nil })
		cancel()
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if len(got) != size || strings.Trim(string(got), "x") != "" {
			t.Fatalf("%d bytes: got %d", size, len(got))
		}
	}
	// Many large rows in one result, each spanning reads.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	rows, total := 0, 0
	err := dbexec.RunStatement(ctx, pc, "web_anon",
		"select pg_catalog.repeat('y', 20000 + n) from pg_catalog.generate_series(1, 60) n", nil,
		func(v [][]byte) error { rows++; total += len(v[0]); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := 60*20000 + 60*61/2; rows != 60 || total != want {
		t.Fatalf("got %d rows, %d bytes; want 60 rows, %d bytes", rows, total, want)
	}
}

// TestLargeArgumentsLeaveWhole sends statements whose arguments outgrow the
// socket buffers, so the pool's writes to PostgreSQL have to wait for
// room part way.
func TestLargeArgumentsLeaveWhole(t *testing.T) {
	pc := poolConn(t)
	for _, size := range []int{0, 1, 100_000, 5_000_000} {
		arg := strings.Repeat("ab", size/2) + strings.Repeat("c", size%2)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		var got string
		err := dbexec.RunStatement(ctx, pc, "web_anon",
			"select pg_catalog.md5($1::text) || ' ' || pg_catalog.length($1::text)", []any{arg},
			func(v [][]byte) error { got = string(v[0]); return nil })
		cancel()
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if want := fmt.Sprintf("%x %d", md5.Sum([]byte(arg)), size); got != want {
			t.Fatalf("%d bytes: PostgreSQL saw %q, want %q", size, got, want)
		}
	}
}
