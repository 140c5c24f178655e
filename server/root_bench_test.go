package server_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/sql/catalog"
)

// BenchmarkServeRootLarge answers GET / over a schema of 2,000 tables, 500
// views and 500 functions (catalog.SyntheticSchemaSQL, the catalog
// benchmarks' schema), as the anonymous role, which may read every
// relation and write half the tables: the document describes all of it.
// One client on one connection, so ns/op is close to the server's CPU per
// request; the client allocates nothing, so B/op and allocs/op are the
// server's.
func BenchmarkServeRootLarge(b *testing.B) {
	url := largeSchemaServer(b)
	for _, hs := range httpServers {
		if hs.value != fixture.cfg.ServerHTTP {
			continue
		}
		b.Run(hs.name, func(b *testing.B) {
			benchServeRead(b, url, "/", "application/openapi+json")
		})
	}
}

// largeSchemaURI is the database largeSchemaServer loaded, shared by the
// benchmarks of one run because loading takes far longer than they do.
var largeSchemaURI string

// largeSchemaServer starts a server of schema synth in a database holding
// SyntheticSchemaSQL(2000, 500, 500), loading it on first use, with the
// fixture's roles: web_anon reads every relation and writes the tables
// whose number is even.
func largeSchemaServer(b *testing.B) string {
	b.Helper()
	ctx := context.Background()
	if largeSchemaURI == "" {
		uri, err := loadLargeSchema(ctx)
		if err != nil {
			b.Fatal(err)
		}
		largeSchemaURI = uri
	}
	u, _ := url.Parse(largeSchemaURI)
	u.User = url.User("authenticator")
	cfg := config.Default()
	cfg.DBURI = u.String()
	cfg.DBSchemas = []string{"synth"}
	cfg.DBAnonRole = "web_anon"
	cfg.ServerHTTP = fixture.cfg.ServerHTTP
	srv, _, err := startServer(ctx, cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	return srv.URL
}

// loadLargeSchema creates database root_large beside the fixture's and
// loads the synthetic schema and its grants into it, in batches: one
// transaction would need a lock per created object.
func loadLargeSchema(ctx context.Context) (string, error) {
	u, err := url.Parse(fixture.superURI)
	if err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "drop database if exists root_large with (force)"); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "create database root_large"); err != nil {
		return "", err
	}
	u.Path = "/root_large"
	db, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return "", err
	}
	defer db.Close(ctx)
	stmts := strings.SplitAfter(catalog.SyntheticSchemaSQL(2000, 500, 500), ";\n")
	for len(stmts) > 0 {
		n := min(len(stmts), 500)
		if _, err := db.PgConn().Exec(ctx, strings.Join(stmts[:n], "")).ReadAll(); err != nil {
			return "", err
		}
		stmts = stmts[n:]
	}
	grants := `grant usage on schema synth to web_anon;
grant select on all tables in schema synth to web_anon;
do $$ begin
  for i in 0..1999 by 2 loop
    execute format('grant insert, update, delete on synth.t%s to web_anon', i);
  end loop;
end $$;`
	if _, err := db.PgConn().Exec(ctx, grants).ReadAll(); err != nil {
		return "", err
	}
	return u.String(), nil
}
