package server_test

import (
	"bufio"
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/internal/benchclient"
	"github.com/svc-dev/svc/sql/catalog"
)

// BenchmarkServeRootLarge answers GET / over a schema of 2,000 tables, 500
// views and 500 functions (catalog.SyntheticSchemaSQL, the catalog
// benchmarks' schema), as the anonymous role, which may read every
// relation and write half the tables: the document describes all of it.
// One client on one connection; cpu-ns/op is the process's CPU time per
// request, the server's with the client's (which only reads), garbage
// collection included. The client allocates nothing, so B/op and
// allocs/op are the server's. "kept" serves the document openapi.Cache keeps, "built"
// builds it for every request (openapi-cache-max-bytes = 0).
func BenchmarkServeRootLarge(b *testing.B) {
	for _, bc := range []struct {
		name     string
		maxBytes int
	}{{"kept", config.Default().OpenAPICacheMaxBytes}, {"built", 0}} {
		url := largeSchemaServer(b, bc.maxBytes)
		b.Run(bc.name, func(b *testing.B) {
			benchServeRoot(b, url, "application/openapi+json")
		})
	}
}

// benchServeRoot sends GET / asking for accept, one after another on one
// connection, reporting the document's size.
func benchServeRoot(b *testing.B, url, accept string) {
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := []byte("GET / HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench\r\nAccept: " + accept + "\r\n\r\n")
	br := bufio.NewReaderSize(c, 64<<10)
	// One request before the loop: "kept" measures the document kept,
	// not the one build that keeps it.
	if _, err := c.Write(req); err != nil {
		b.Fatal(err)
	}
	size := benchclient.ReadOK(b, br)
	b.ReportAllocs()
	report := reportCPU(b)
	for b.Loop() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		size = benchclient.ReadOK(b, br)
	}
	report()
	b.ReportMetric(float64(size), "doc-bytes")
}

// largeSchemaURI is the database largeSchemaServer loaded, shared by the
// benchmarks of one run because loading takes far longer than they do.
var largeSchemaURI string

// largeSchemaServer starts a server of schema synth, keeping up to
// openapiCacheMaxBytes of root documents, in a database holding
// SyntheticSchemaSQL(2000, 500, 500), loading it on first use, with the
// fixture's roles: web_anon reads every relation and writes the tables
// whose number is even.
func largeSchemaServer(b *testing.B, openapiCacheMaxBytes int) string {
	b.Helper()
	ctx := context.Background()
	if largeSchemaURI == "" {
		uri, err := loadSyntheticSchema(ctx, "root_large", 2000, 500, 500)
		if err != nil {
			b.Fatal(err)
		}
		largeSchemaURI = uri
	}
	return syntheticSchemaServer(b, largeSchemaURI, openapiCacheMaxBytes)
}

// syntheticSchemaServer starts a server of schema synth in the database
// at uri, keeping up to openapiCacheMaxBytes of root documents.
func syntheticSchemaServer(b *testing.B, uri string, openapiCacheMaxBytes int) string {
	b.Helper()
	ctx := context.Background()
	u, _ := url.Parse(uri)
	u.User = url.User("authenticator")
	cfg := config.Default()
	cfg.DBURI = u.String()
	cfg.DBSchemas = []string{"synth"}
	cfg.DBAnonRole = "web_anon"
	cfg.OpenAPICacheMaxBytes = openapiCacheMaxBytes
	srv, _, err := startServer(ctx, cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	return srv.URL
}

// loadSyntheticSchema creates database name beside the fixture's and
// loads SyntheticSchemaSQL(tables, views, functions) and its grants into
// it, in batches: one transaction would need a lock per created object.
// web_anon reads every relation and writes the even-numbered tables.
func loadSyntheticSchema(ctx context.Context, name string, tables, views, functions int) (string, error) {
	u, err := url.Parse(fixture.superURI)
	if err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "drop database if exists "+name+" with (force)"); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "create database "+name); err != nil {
		return "", err
	}
	u.Path = "/" + name
	db, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return "", err
	}
	defer db.Close(ctx)
	stmts := strings.SplitAfter(catalog.SyntheticSchemaSQL(tables, views, functions), ";\n")
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
  for i in 0..` + strconv.Itoa(tables-1) + ` by 2 loop
    execute format('grant insert, update, delete on synth.t%s to web_anon', i);
  end loop;
end $$;`
	if _, err := db.PgConn().Exec(ctx, grants).ReadAll(); err != nil {
		return "", err
	}
	return u.String(), nil
}
