package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/admin"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/reload"
)

// TestLoadedAtIsWhenSwapped: on a node whose reloads wait before the swap
// (for its replicas to replay the new schema: the Gate), /snapshot goes on
// reporting the snapshot in force and when it was loaded until the new one
// is swapped in; loaded_at then names a time after the wait. Reported
// before, a convergence check built on loaded_at passes while the node
// still serves the old schema.
func TestLoadedAtIsWhenSwapped(t *testing.T) {
	ctx := t.Context()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sources := config.Sources{Flags: map[string]string{"db-uri": fixture.authURI, "db-schemas": "test",
		"db-anon-role": "web_anon", "db-config": "false"}}
	cfg, err := reload.ResolveConfig(ctx, sources, log)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := dbexec.NewPool(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	snaps := reload.NewSnapshots(reload.SourceFor(cfg, log), log)
	snaps.Sessions(pool)
	metrics := admin.NewMetrics(pool, snaps)
	snaps.OnReload(metrics.SnapshotReloaded)
	// The gate stands for the wait for replicas (txroute.AwaitReplicas),
	// held here until the test has looked.
	waiting, release := make(chan struct{}), make(chan struct{})
	hold := false
	snaps.Gate(func(ctx context.Context, changed bool) {
		if hold && changed {
			close(waiting)
			<-release
		}
	})
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	adm := admin.New(pool, snaps, metrics, apierr.SVCNaming, log)
	type info struct {
		Fingerprint string    `json:"fingerprint"`
		LoadedAt    time.Time `json:"loaded_at"`
	}
	read := func() info {
		t.Helper()
		w := do(adm, "GET", "/snapshot")
		var i info
		if err := json.Unmarshal(w.Body.Bytes(), &i); err != nil || w.Code != 200 {
			t.Fatalf("GET /snapshot: %d %s", w.Code, w.Body)
		}
		return i
	}
	before := read()

	db := superConn(t)
	if _, err := db.Exec(ctx, "create table test.loaded_at_probe (id int)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "drop table test.loaded_at_probe") })
	hold = true
	done := make(chan error, 1)
	go func() { done <- snaps.Reload(context.Background()) }()
	<-waiting
	during := read()
	released := time.Now()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	after := read()

	if during != before {
		t.Errorf("while the new snapshot waits to be put in force, /snapshot says %+v; want the one in force, %+v", during, before)
	}
	if after.Fingerprint == before.Fingerprint || after.LoadedAt.Before(released) {
		t.Errorf("once swapped, /snapshot says %+v; want the new fingerprint, loaded at or after %s", after, released)
	}
}
