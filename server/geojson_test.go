package server_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestGeoJSON reads a table with a PostGIS geometry column as a GeoJSON
// FeatureCollection: the geometry column becomes each feature's geometry,
// the other selected columns its properties; filters and select apply.
// A function's rows read the same.
func TestGeoJSON(t *testing.T) {
	conn, err := pgx.Connect(t.Context(), fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var available bool
	if err := conn.QueryRow(t.Context(),
		"select exists (select from pg_available_extensions where name = 'postgis')").Scan(&available); err != nil {
		t.Fatal(err)
	}
	if !available {
		missingDependency(t, "PostGIS is not installed (apt-get install postgresql-15-postgis-3)")
	}
	// A schema of its own, so the shared fixture's snapshot stays as it is.
	for _, sql := range []string{
		"create extension if not exists postgis",
		"create schema if not exists geo",
		"drop table if exists geo.sites",
		"create table geo.sites (id int primary key, name text, spot geometry(Point, 4326))",
		"insert into geo.sites values (1, 'Pier', 'SRID=4326;POINT(10.7 59.9)'), (2, 'Hill', 'SRID=4326;POINT(5.3 60.4)')",
		"grant usage on schema geo to web_anon",
		"grant select on geo.sites to web_anon",
		"create or replace function geo.site(id int) returns geo.sites stable language sql as 'select * from geo.sites where sites.id = $1'",
		"create or replace function geo.all_sites() returns setof geo.sites stable language sql as 'select * from geo.sites'",
	} {
		if _, err := conn.Exec(t.Context(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	url := serverWith(t, map[string]string{"db-schemas": "geo", "db-extra-search-path": "public"})

	tests := []struct {
		name, target, want string
	}{
		{"every row", "/sites?order=id",
			`{"type":"FeatureCollection","features":[` +
				`{"type":"Feature","geometry":{"type":"Point","coordinates":[10.7,59.9]},"properties":{"id":1,"name":"Pier"}},` +
				`{"type":"Feature","geometry":{"type":"Point","coordinates":[5.3,60.4]},"properties":{"id":2,"name":"Hill"}}]}`},
		{"select and filter", "/sites?select=name,spot&id=eq.2",
			`{"type":"FeatureCollection","features":[` +
				`{"type":"Feature","geometry":{"type":"Point","coordinates":[5.3,60.4]},"properties":{"name":"Hill"}}]}`},
		{"no rows", "/sites?id=eq.9", `{"type":"FeatureCollection","features":[]}`},
		// A function's rows too, even its one composite value (PostgREST).
		{"function returning one row", "/rpc/site?id=1",
			`{"type":"FeatureCollection","features":[` +
				`{"type":"Feature","geometry":{"type":"Point","coordinates":[10.7,59.9]},"properties":{"id":1,"name":"Pier"}}]}`},
		{"function returning rows", "/rpc/all_sites?select=name,spot&id=eq.2",
			`{"type":"FeatureCollection","features":[` +
				`{"type":"Feature","geometry":{"type":"Point","coordinates":[5.3,60.4]},"properties":{"name":"Hill"}}]}`},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(http.MethodGet, url+tc.target, nil)
		req.Header.Set("Accept", "application/geo+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/geo+json; charset=utf-8" {
			t.Errorf("%s: %d %s: %s", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			continue
		}
		if !sameBody(body, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, body, tc.want)
		}
	}
}
