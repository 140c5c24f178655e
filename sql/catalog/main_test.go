package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/pgtest"
)

//go:embed testdata/fixture.sql
var fixtureSQL string

var (
	// adminURI connects to the test server's maintenance database.
	adminURI string
	// fixtureURI connects to a database loaded with the fixture once, for
	// the tests that only read it.
	fixtureURI string
)

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, func(uri string) error {
		adminURI = uri
		var err error
		fixtureURI, err = newDatabase(context.Background(), "catalog_fixture", fixtureSQL)
		return err
	}))
}

// newDatabase (re)creates database name, runs setup in it and returns its
// URI. Tests that change the schema get their own database.
func newDatabase(ctx context.Context, name, setup string) (string, error) {
	conn, err := pgx.Connect(ctx, adminURI)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "drop database if exists "+ident+" with (force)"); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "create database "+ident); err != nil {
		return "", err
	}
	u, err := url.Parse(adminURI)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	if setup != "" {
		if err := execScript(ctx, u.String(), setup); err != nil {
			return "", fmt.Errorf("set up database %s: %w", name, err)
		}
	}
	return u.String(), nil
}

// execScript runs a multi-statement script with the simple protocol.
func execScript(ctx context.Context, uri, script string) error {
	conn, err := pgx.Connect(ctx, uri)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.PgConn().Exec(ctx, script).ReadAll()
	return err
}

// introspect runs Introspect on the database at uri with the fixture's
// options and fails the test on error.
func introspect(t testing.TB, uri string) *snapshot.Snapshot {
	t.Helper()
	s, err := introspectOpts(uri, fixtureOptions())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func introspectOpts(uri string, opts Options) (*snapshot.Snapshot, error) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, uri)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	return Introspect(ctx, conn, opts)
}

func fixtureOptions() Options {
	return Options{Schemas: []string{"api"}, ExtraSearchPath: []string{"private"}, GeneratorVersion: "test"}
}
