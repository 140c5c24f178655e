package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
)

// dbMaxRowsOne gives the fault cluster's authenticator the in-database
// setting db-max-rows = 1, and a db-pre-config function cfg.pre.
func dbMaxRowsOne(t *testing.T, superURI string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), superURI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(context.Background(), `alter role authenticator set svc.db_max_rows = '1';
		create schema cfg;
		grant usage on schema cfg to authenticator;
		create function cfg.pre() returns void language sql as $$ select 1 $$;`); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestReloadConfigKeepsDatabaseSettings: a `reload config` that cannot
// read the database's settings (db-pre-config fails, the database is
// away) fails and keeps the configuration in force, rather than swapping
// in one without them.
func TestReloadConfigKeepsDatabaseSettings(t *testing.T) {
	cluster, uri := faultCluster(t)
	db := dbMaxRowsOne(t, cluster.URI)
	rt, _ := startRuntime(t, config.Sources{Flags: map[string]string{"db-uri": uri, "db-schemas": "api",
		"db-anon-role": "web_anon", "db-pre-config": "cfg.pre"}}, "")
	if n := rt.Config().DBMaxRows; n != 1 {
		t.Fatalf("db-max-rows %d at start, want 1 from the role setting", n)
	}
	if _, err := db.Exec(context.Background(),
		`create or replace function cfg.pre() returns void language plpgsql as $$ begin raise 'not now'; end $$`); err != nil {
		t.Fatal(err)
	}
	if err := rt.ReloadConfig(context.Background()); err == nil || rt.Config().DBMaxRows != 1 {
		t.Errorf("reload with db-pre-config failing: error %v, db-max-rows %d; want an error and 1 kept", err, rt.Config().DBMaxRows)
	}
	cluster.Halt()
	if err := rt.ReloadConfig(context.Background()); err == nil || rt.Config().DBMaxRows != 1 {
		t.Errorf("reload with the database away: error %v, db-max-rows %d; want an error and 1 kept", err, rt.Config().DBMaxRows)
	}
	if err := cluster.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestDatabaseSettingsAfterStartWithoutDatabase: svc-serve started while
// its database is away applies the database's settings once it is back,
// without a `reload config`: the LISTEN connection, connecting late,
// reloads.
func TestDatabaseSettingsAfterStartWithoutDatabase(t *testing.T) {
	cluster, uri := faultCluster(t)
	dbMaxRowsOne(t, cluster.URI)
	cluster.Halt()
	api := processWith(t, map[string]string{"db-uri": uri, "db-schemas": "api", "db-anon-role": "web_anon"})
	if err := cluster.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		status, rows := getRows(t, api+"/items")
		if status == 200 && rows == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /items: %d with %d rows 15 s after the database came back; want 200 with 1 (db-max-rows from the database)", status, rows)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// getRows returns GET url's status and, for a JSON array, its length.
func getRows(t *testing.T, url string) (int, int) {
	t.Helper()
	status, body := fetch(t, url, "", "")
	var rows []json.RawMessage
	json.Unmarshal(body, &rows)
	return status, len(rows)
}
