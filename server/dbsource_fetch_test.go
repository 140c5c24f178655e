package server_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/snapstore"
)

// TestUnchangedPublishedSnapshotNotFetched: a reload of the published
// snapshot that finds the active fingerprint still the one in force reads
// no snapshot body (which grows with the schema, and which a storm of
// notifications would otherwise have every node of a fleet fetch): here
// the stored body is spoilt after the first load, and reloads still
// succeed, keeping the snapshot in force. A snapshot published since is
// fetched.
func TestUnchangedPublishedSnapshotNotFetched(t *testing.T) {
	ctx := t.Context()
	db := superConn(t)
	exec := func(sql string) {
		t.Helper()
		mustExec(t, db, sql)
	}
	exec(`create schema fetchless; create table fetchless.racks (id int primary key)`)
	t.Cleanup(func() { db.Exec(context.Background(), "drop schema if exists fetchless, fetchless_snaps cascade") })
	publish := func() string {
		t.Helper()
		snap, err := catalog.Introspect(ctx, db, catalog.Options{Schemas: []string{"fetchless"}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := snapstore.Publish(ctx, db, snap, snapstore.Options{Schema: "fetchless_snaps", GrantTo: []string{"authenticator"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Fingerprint
	}
	first := publish()

	cfg := *fixture.cfg
	cfg.DBSchemas, cfg.Snapshot = []string{"fetchless"}, "db:fetchless_snaps"
	pool, err := dbexec.NewPool(ctx, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	snaps := reload.NewSnapshots(reload.SourceFor(&cfg, log), log)
	snaps.Sessions(pool)
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	exec(`update fetchless_snaps.snapshots set body = 'not a snapshot'`)
	for range 3 {
		if err := snaps.Reload(ctx); err != nil {
			t.Fatalf("a reload with nothing published since read the body: %v", err)
		}
	}
	if got := snaps.Current().Header.Fingerprint; got != first {
		t.Fatalf("in force: %.12s, want %.12s", got, first)
	}
	exec(`create table fetchless.shelves (id int primary key)`)
	second := publish()
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got := snaps.Current().Header.Fingerprint; got != second {
		t.Errorf("after a publish: %.12s in force, want %.12s", got, second)
	}
}
