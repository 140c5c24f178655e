package replica_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/snapstore"
)

// publish introspects the fixture's api schema on the primary and makes
// the snapshot the active one, as svc-introspect publish does.
func publish(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	snap, err := reload.LiveSource{URI: fixture.superURI, Options: catalog.Options{Schemas: []string{"api"}}}.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := snapstore.Publish(ctx, conn, snap, snapstore.Options{GrantTo: []string{"authenticator"}}); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotWaitsForReplicas: a published snapshot is put in force once
// the replica has replayed it, so a route it adds is served by the
// replica at once; while the replica lags, the snapshot is put in force
// all the same (after db-replica-max-lag at most) and the replica, still
// healthy, serves no reads until it has replayed it.
func TestSnapshotWaitsForReplicas(t *testing.T) {
	publish(t)
	cfg := testConfig()
	// A lag the paused replica stays within, so that only the snapshot
	// keeps it from serving reads. The reload that would wait this long
	// for it is given less.
	cfg.DBReplicaMaxLag = time.Minute
	ts := startServer(t, cfg, reload.DBSource{URI: fixture.authURI, Schema: snapstore.DefaultSchema}, 0)
	ts.awaitServing(t)
	rep := ts.Replicas.Replicas()[0]
	ctx := context.Background()

	sql(t, fixture.set.Primary, "create view api.fresh_replayed as select pg_is_in_recovery() as standby; grant select on api.fresh_replayed to web_anon")
	publish(t)
	if err := ts.Snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if rep.Status().Replayed < ts.Replicas.Required() {
		t.Errorf("snapshot in force before the replica replayed it: replayed %s, snapshot read at %s", rep.Status().Replayed, ts.Replicas.Required())
	}
	resp, body := ts.do(t, "GET", "/fresh_replayed", nil, "")
	if !standby(t, resp.StatusCode, body) {
		t.Error("the new route was not served by the replica")
	}

	pauseReplay(t, 0)
	sql(t, fixture.set.Primary, "create view api.fresh_lagging as select pg_is_in_recovery() as standby; grant select on api.fresh_lagging to web_anon")
	publish(t)
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := ts.Snaps.Reload(short); err != nil {
		t.Fatal(err)
	}
	if !rep.Status().Healthy {
		t.Fatalf("the paused replica is not healthy: %+v", rep.Status())
	}
	if !strings.Contains(ts.log.String(), "replicas have not replayed the new snapshot's schema yet") {
		t.Errorf("the log does not say the replica lags behind the snapshot:\n%s", ts.log)
	}
	for _, path := range []string{"/fresh_lagging", "/fresh_replayed"} {
		// The replica lacks the first view; it may serve the second no
		// more than the first, as it is behind the snapshot in force.
		resp, body = ts.do(t, "GET", path, nil, "")
		if standby(t, resp.StatusCode, body) {
			t.Errorf("GET %s: served by the replica lagging behind the snapshot", path)
		}
	}

	resumeReplay(t, 0)
	waitFor(t, "the replica replays the snapshot", func() bool { return rep.Status().Replayed >= ts.Replicas.Required() })
	resp, body = ts.do(t, "GET", "/fresh_lagging", nil, "")
	if resp.StatusCode != http.StatusOK || !standby(t, resp.StatusCode, body) {
		t.Error("the replica, caught up, does not serve the new route")
	}
}
