package replica_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/replica"
)

// unflushedTail leaves WAL on the primary that is inserted but not
// flushed, as a quiet primary may have it: a record written without a
// transaction id in a transaction that rolls back asks nothing to flush it
// (the live introspection's read-only transaction does the same when it
// prunes catalog pages), so the standbys receive it only with a later
// flush. It returns when the tail was written.
func unflushedTail(t *testing.T) time.Time {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "begin; select pg_logical_emit_message(false, 'svc-test', 'unflushed'); rollback"); err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	var insert, flush string
	if err := conn.QueryRow(ctx, "select pg_current_wal_insert_lsn()::text, pg_current_wal_flush_lsn()::text").Scan(&insert, &flush); err != nil {
		t.Fatal(err)
	}
	i, err1 := replica.ParseLSN(insert)
	f, err2 := replica.ParseLSN(flush)
	if err1 != nil || err2 != nil || i <= f {
		t.Fatalf("no unflushed WAL on the primary: inserted up to %s, flushed up to %s", insert, flush)
	}
	return at
}

// TestSnapshotOnQuietPrimary: a snapshot loaded while the primary's last
// WAL is not flushed, nothing having committed since, is put in force with
// the replica caught up, and the replica serves reads at once: the
// position the snapshot requires is one a standby reaches without another
// write.
func TestSnapshotOnQuietPrimary(t *testing.T) {
	ts := startServer(t, testConfig(), nil, 0)
	ts.awaitServing(t)
	rep := ts.Replicas.Replicas()[0]
	stallBackgroundWriter(t)
	unflushedTail(t)

	// Far more than a standby takes to replay a few records, and less
	// than the wait for a position it cannot reach (db-replica-max-lag).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ts.Snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ts.log.String(), "have not replayed the new snapshot") {
		t.Errorf("the reload found the replica behind:\n%s", ts.log)
	}
	if st := rep.Status(); st.Replayed < ts.Replicas.Required() {
		t.Errorf("the replica has replayed %s, the snapshot requires %s", st.Replayed, ts.Replicas.Required())
	}
	resp, body := ts.do(t, "GET", "/rpc/where_stable", nil, "")
	if !standby(t, resp.StatusCode, body) {
		t.Error("a STABLE function's call after the reload ran on the primary")
	}
}

// TestLagOnQuietPrimary: WAL the primary has not flushed is no lag, since
// no standby can receive it: a replica that has replayed all the primary
// flushed stays healthy however long the rest waits for a flush.
func TestLagOnQuietPrimary(t *testing.T) {
	cfg := testConfig()
	cfg.DBReplicaMaxLag = time.Second
	ts := startServer(t, cfg, nil, 0)
	ts.awaitServing(t)
	rep := ts.Replicas.Replicas()[0]
	stallBackgroundWriter(t)
	at := unflushedTail(t)

	waitFor(t, "a check made once the unflushed WAL is older than db-replica-max-lag", func() bool {
		return rep.Status().At.After(at.Add(2 * cfg.DBReplicaMaxLag))
	})
	if st := rep.Status(); !st.Healthy {
		t.Fatalf("the replica, caught up with all the primary flushed, is not serving reads: %s", st.Reason)
	}
	resp, body := ts.do(t, "GET", "/whereami", nil, "")
	if !standby(t, resp.StatusCode, body) {
		t.Error("the read ran on the primary")
	}
}
