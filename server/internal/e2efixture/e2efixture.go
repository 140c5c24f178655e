// Package e2efixture loads the server's end-to-end fixture
// (server/testdata/fixture.sql) into a database of its own, for the tests
// of the packages that run requests against it (server, server/dbexec).
package e2efixture

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/sql/pgtest"
)

// DB is a database the fixture is loaded into.
type DB struct {
	SuperURI string // superuser, for set-up and DDL in tests
	AuthURI  string // the authenticator role pools connect as
	// Config serves the fixture: db-uri is AuthURI, its exposed schemas
	// and anonymous role are the fixture's; the rest is the defaults.
	Config *config.Config
}

// Load creates database name on the cluster uri reaches and loads sqlFile,
// the fixture's path from the calling package, into it.
func Load(ctx context.Context, uri, name, sqlFile string) (DB, error) {
	superURI, err := pgtest.LoadDatabase(ctx, uri, name, sqlFile)
	if err != nil {
		return DB{}, err
	}
	u, err := url.Parse(superURI)
	if err != nil {
		return DB{}, err
	}
	u.User = url.User("authenticator")
	cfg := config.Default()
	cfg.DBURI = u.String()
	cfg.DBSchemas = []string{"test", "other"}
	cfg.DBAnonRole = "web_anon"
	return DB{SuperURI: superURI, AuthURI: cfg.DBURI, Config: cfg}, nil
}

// Conn connects to uri, closed when the test ends.
func Conn(tb testing.TB, uri string) *pgx.Conn {
	tb.Helper()
	db, err := pgx.Connect(context.Background(), uri)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close(context.Background()) })
	return db
}

// Logged counts the rows of the fixture's test.rpc_log named name, which
// its logging functions write, connecting as the superuser (superURI).
func Logged(tb testing.TB, superURI, name string) int {
	tb.Helper()
	var n int
	if err := Conn(tb, superURI).QueryRow(context.Background(), "select count(*) from test.rpc_log where name = $1", name).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}
