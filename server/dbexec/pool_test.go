package dbexec_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/svc-dev/svc/server/dbexec"
)

// TestAbandonedStatementRollsBack: a request connection closed while its
// statement runs, with no cancel request reaching PostgreSQL (as when the
// cancel lands while the backend reads the next pipelined message), does
// not commit: the backend sees its connection gone and ends, where it
// would otherwise sleep on and commit the insert before it.
func TestAbandonedStatementRollsBack(t *testing.T) {
	cfg := *fixture.cfg
	cfg.DBURI = fixture.superURI
	pool, err := dbexec.NewPool(context.Background(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// A session the pool opened, taken over from pgx, which would send a
	// cancel request of its own when its connection fails.
	conn, err := pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pc := conn.Hijack().PgConn()
	pid := pc.PID()
	hc, err := pc.Hijack()
	if err != nil {
		t.Fatal(err)
	}

	// One simple-protocol message holding two statements is one implicit
	// transaction, committed when the last one ends.
	const name = "abandoned-statement"
	hc.Frontend.Send(&pgproto3.Query{String: "insert into test.rpc_log (name) values ('" + name + "'); select pg_sleep(4)"})
	if err := hc.Frontend.Flush(); err != nil {
		t.Fatal(err)
	}
	db := superConn(t)
	waitFor(t, 10*time.Second, func() bool {
		var sleeping bool
		db.QueryRow(t.Context(), "select exists (select from pg_stat_activity where pid = $1 and wait_event = 'PgSleep')", pid).Scan(&sleeping)
		return sleeping
	})
	hc.Conn.Close() // the socket alone: no cancel request, no Terminate
	waitFor(t, 20*time.Second, func() bool {
		var alive bool
		db.QueryRow(t.Context(), "select exists (select from pg_stat_activity where pid = $1)", pid).Scan(&alive)
		return !alive
	})
	if n := logged(t, name); n != 0 {
		t.Errorf("the statement of a closed connection committed (%d rows)", n)
	}
}

// waitFor polls cond until it holds, failing the test after limit.
func waitFor(t *testing.T, limit time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v", limit)
		}
	}
}
