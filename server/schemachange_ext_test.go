package server_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/sql/pgtest"
)

// geoSchema is a table with a PostGIS geometry column, in a database of
// its own, since the test drops the extension.
const geoSchema = `
create extension postgis;
create schema geo;
grant usage on schema geo to web_anon;
create table geo.sites (id int primary key, name text, spot geometry(Point, 4326));
insert into geo.sites values (1, 'Pier', 'SRID=4326;POINT(10.7 59.9)');
grant select on geo.sites to web_anon;
`

const wantSites = `{"type":"FeatureCollection","features":[` +
	`{"type":"Feature","geometry":{"type":"Point","coordinates":[10.7,59.9]},"properties":{"id":1,"name":"Pier"}}]}`

// postgisDatabase loads schema, which needs PostGIS, into a database of
// its own named name, dropped when the test ends. It returns a
// superuser's connection to it, and the fixture's configuration serving
// its schema geo as the authenticator through a pool of one session.
func postgisDatabase(t *testing.T, name, schema string) (*pgx.Conn, *config.Config) {
	t.Helper()
	ctx := context.Background()
	super := e2eConn(t, fixture.superURI)
	var available bool
	if err := super.QueryRow(ctx, "select exists (select from pg_available_extensions where name = 'postgis')").Scan(&available); err != nil {
		t.Fatal(err)
	}
	if !available {
		missingDependency(t, "PostGIS is not installed (apt-get install postgresql-15-postgis-3)")
	}
	file := filepath.Join(t.TempDir(), "geo.sql")
	if err := os.WriteFile(file, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	superURI, err := pgtest.LoadDatabase(ctx, fixture.superURI, name, file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { super.Exec(context.Background(), "drop database "+name+" with (force)") })
	u, _ := url.Parse(superURI)
	u.User = url.User("authenticator")
	cfg := *fixture.cfg
	cfg.DBURI, cfg.DBSchemas, cfg.DBPool = u.String(), []string{"geo"}, 1
	return e2eConn(t, superURI), &cfg
}

// TestReloadAfterExtensionRecreated: an extension dropped and created
// again (a fixture reload) gets new type ids, which PostGIS caches in each
// backend. A session that served GeoJSON before would answer 400 "geometry
// column is missing" after, for as long as it lives; the reload retires
// it. (Before the reload, PostGIS reports its stale cache as bad input,
// 22023, which nothing tells from a client's mistake: that window is the
// reload's to close, not a retry's.)
func TestReloadAfterExtensionRecreated(t *testing.T) {
	ctx := context.Background()
	db, cfg := postgisDatabase(t, "migr_geo", geoSchema)
	srv, snaps, err := startServer(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sites := func() (int, string) {
		req, _ := http.NewRequest("GET", srv.URL+"/sites?select=id,name,spot", nil)
		req.Header.Set("Accept", "application/geo+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, compact(string(b))
	}
	recreate := func() {
		t.Helper()
		if _, err := db.Exec(ctx, "begin; drop schema geo cascade; drop extension postgis;"+geoSchema+"commit"); err != nil {
			t.Fatal(err)
		}
	}
	if status, body := sites(); status != http.StatusOK || body != wantSites {
		t.Fatalf("before: %d %s", status, body)
	}

	recreate()
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if status, body := sites(); status != http.StatusOK || body != wantSites {
		t.Errorf("after the extension was recreated and the schema reloaded: %d %s", status, body)
	}
}

// e2eConn connects to uri, closed when the test ends.
func e2eConn(t *testing.T, uri string) *pgx.Conn {
	t.Helper()
	db, err := pgx.Connect(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	return db
}
