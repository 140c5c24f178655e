package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/internal/e2efixture"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/catalog"
)

// startRuntime serves sources the way svc-serve does: configuration
// resolved with the database's part, snapshot from the source it names,
// a Runtime that reloads on `reload config` sent to channel.
func startRuntime(t *testing.T, sources config.Sources, channel string) (*reload.Runtime, string) {
	t.Helper()
	rt, _, url := startRuntimeSnaps(t, sources, channel)
	return rt, url
}

// startRuntimeSnaps is startRuntime also returning the snapshots. Like
// svc-serve, a server whose first snapshot cannot load answers 503 and
// keeps trying.
func startRuntimeSnaps(t *testing.T, sources config.Sources, channel string) (*reload.Runtime, *reload.Snapshots, string) {
	t.Helper()
	return startRuntimeLogging(t, sources, channel, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// startRuntimeLogging is startRuntimeSnaps logging to log.
func startRuntimeLogging(t *testing.T, sources config.Sources, channel string, log *slog.Logger) (*reload.Runtime, *reload.Snapshots, string) {
	t.Helper()
	ctx := t.Context()
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
	if snaps.Reload(ctx) != nil {
		go snaps.LoadRetrying(ctx, 200*time.Millisecond)
	}
	rt, err := server.NewRuntime(ctx, sources, cfg, pool, snaps, log)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newTestServer(cfg, rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if channel != "" {
		u, _ := url.Parse(cfg.DirectURI())
		q := u.Query()
		q.Set("application_name", "svc-listener-"+channel)
		u.RawQuery = q.Encode()
		lctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		l := &reload.Listener{URI: u.String(), Channel: channel, Snapshots: snaps, Log: log,
			OnConfigReload: rt.ReloadConfig}
		go l.Run(lctx)
		(&reloadFixture{db: superConn(t)}).waitListening(t, channel)
	}
	return rt, snaps, srv.URL
}

// superConn connects as the superuser, closed when the test ends.
func superConn(t *testing.T) *pgx.Conn { return e2efixture.Conn(t, fixture.superURI) }

// rowsAndProfile counts the rows of GET path from the schema profile
// names ("" for the default) and returns the response's Content-Profile.
func rowsAndProfile(t *testing.T, baseURL, path, profile string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, baseURL+path, nil)
	if profile != "" {
		req.Header.Set("Accept-Profile", profile)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rows []json.RawMessage
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, &rows); err != nil {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	return len(rows), resp.Header.Get("Content-Profile")
}

// TestInDatabaseConfig reads configuration from the authenticator role's
// svc.* settings and from db-pre-config, and applies changes on
// `reload config` without a restart: db-max-rows from a role setting, the
// exposed schemas from the pre-config function (re-introspected live).
func TestInDatabaseConfig(t *testing.T) {
	db := superConn(t)
	exec := func(sql string) {
		t.Helper()
		if _, err := db.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("alter role authenticator in database e2e set svc.db_max_rows = '1'")
	t.Cleanup(func() {
		db.Exec(context.Background(), "alter role authenticator in database e2e reset svc.db_max_rows")
	})
	// The authenticator calls the pre-config function itself, so it lives
	// in a schema of the authenticator's, as in PostgREST's docs.
	exec("create schema if not exists svc_config")
	exec("grant usage on schema svc_config to authenticator")
	exec(`create or replace function svc_config.pre_config() returns void language sql as
		$$ select set_config('svc.db_schemas', 'test,other', true) $$`)

	// db-schemas comes from the environment, which the database overrides
	// (flags would win over it).
	sources := config.Sources{Env: []string{"SVC_DB_SCHEMAS=test"}, Flags: map[string]string{"db-uri": fixture.authURI,
		"db-anon-role": "web_anon", "db-pre-config": "svc_config.pre_config", "db-channel": "svc_config_test"}}
	rt, url := startRuntime(t, sources, "svc_config_test")
	if cfg := rt.Config(); cfg.DBMaxRows != 1 || strings.Join(cfg.DBSchemas, ",") != "test,other" {
		t.Fatalf("resolved max-rows %d, schemas %v; want 1 from the role setting and test,other from pre-config",
			cfg.DBMaxRows, cfg.DBSchemas)
	}
	if n, profile := rowsAndProfile(t, url, "/books", ""); n != 1 || profile != "test" {
		t.Errorf("before reload: %d rows from %q, want 1 from test", n, profile)
	}

	exec("alter role authenticator in database e2e set svc.db_max_rows = '2'")
	exec(`create or replace function svc_config.pre_config() returns void language sql as
		$$ select set_config('svc.db_schemas', 'other,test', true) $$`)
	exec("notify svc_config_test, 'reload config'")
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, profile := rowsAndProfile(t, url, "/books", "")
		n, _ := rowsAndProfile(t, url, "/books", "test")
		if n == 2 && profile == "other" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after reload config: default schema %q and %d rows of test.books, want other and 2", profile, n)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A value the database sets wrongly is refused and the old
	// configuration stays.
	exec("alter role authenticator in database e2e set svc.db_max_rows = 'many'")
	if err := rt.ReloadConfig(t.Context()); err == nil || !strings.Contains(err.Error(), `db-max-rows = "many" (database setting svc.db_max_rows)`) {
		t.Errorf("reload with a bad value: %v", err)
	}
	if rt.Config().DBMaxRows != 2 {
		t.Errorf("max-rows %d after a failed reload, want 2 kept", rt.Config().DBMaxRows)
	}
}

// TestSnapshotMustCoverSchemas refuses a snapshot file dumped for fewer
// schemas than the configuration exposes, saying which and how to fix it.
func TestSnapshotMustCoverSchemas(t *testing.T) {
	db := superConn(t)
	snap, err := catalog.Introspect(t.Context(), db, catalog.Options{Schemas: []string{"test"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "test-only.msgpack")
	if _, err := snapshot.WriteFile(path, snap); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(config.Sources{Flags: map[string]string{"db-uri": fixture.authURI,
		"db-schemas": "test,other", "snapshot": path, "db-config": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	snaps := reload.NewSnapshots(reload.SourceFor(cfg, log), log)
	if err := snaps.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, err = server.NewRuntime(t.Context(), config.Sources{}, cfg, nil, snaps, log)
	want := "the snapshot covers schemas test but db-schemas also exposes other; dump it again with svc-introspect dump --db-schemas test,other"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	// A typo is not worth a dump, which would fail on it.
	cfg.DBSchemas = []string{"tset"}
	err = reload.CheckSnapshotCovers(snap, cfg)
	want = `the snapshot covers schemas test but db-schemas also exposes tset; did you mean "test" for "tset"? ` +
		"Correct db-schemas, or, if the schema is new, dump the snapshot again with svc-introspect dump --db-schemas tset"
	if err == nil || err.Error() != want {
		t.Errorf("typo: got %v\nwant %s", err, want)
	}
}

// TestSnapshotReloadMustCoverSchemas: a reload (NOTIFY 'reload schema')
// applies the check start-up does. A snapshot file rewritten for fewer
// schemas than db-schemas exposes is refused, the one in force keeps
// serving every schema, and a covering one is taken again.
func TestSnapshotReloadMustCoverSchemas(t *testing.T) {
	db := superConn(t)
	write := func(path string, schemas ...string) *snapshot.Snapshot {
		t.Helper()
		snap, err := catalog.Introspect(t.Context(), db, catalog.Options{Schemas: schemas})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := snapshot.WriteFile(path, snap); err != nil {
			t.Fatal(err)
		}
		return snap
	}
	path := filepath.Join(t.TempDir(), "snapshot.msgpack")
	write(path, "test", "other")
	const channel = "svc_cover_test"
	_, snaps, url := startRuntimeSnaps(t, config.Sources{Flags: map[string]string{"db-uri": fixture.authURI,
		"db-schemas": "test,other", "db-anon-role": "web_anon", "snapshot": path, "db-config": "false"}}, channel)
	before := snaps.Current().Header.Fingerprint

	write(path, "test")
	if _, err := db.Exec(t.Context(), "notify "+channel+", 'reload schema'"); err != nil {
		t.Fatal(err)
	}
	want := "the snapshot covers schemas test but db-schemas also exposes other"
	err := snaps.Reload(t.Context())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("reload of a test-only snapshot: %v, want an error saying %q", err, want)
	}
	time.Sleep(200 * time.Millisecond) // the NOTIFY's reload has had its turn
	if got := snaps.Current().Header.Fingerprint; got != before {
		t.Error("a snapshot not covering db-schemas replaced the one in force")
	}
	req, _ := http.NewRequest("GET", url+"/books", nil)
	req.Header.Set("Accept-Profile", "other")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /books of schema other after the refused reload: %d", resp.StatusCode)
	}

	again := write(path, "test", "other", "private")
	if err := snaps.Reload(t.Context()); err != nil {
		t.Fatalf("reload of a covering snapshot: %v", err)
	}
	if snaps.Current().Header.Fingerprint != again.Header.Fingerprint {
		t.Error("the covering snapshot was not swapped in")
	}
}
