package dbexec_test

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/sql/pgtest"
)

// fixture is the database the tests in this package share: the server's
// end-to-end fixture (../testdata/fixture.sql), whose roles (web_anon,
// authenticator) the requests run as.
var fixture struct {
	superURI string // superuser, for set-up and DDL in tests
	authURI  string // the authenticator role pools connect as
	cfg      *config.Config
}

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, setupFixture))
}

func setupFixture(uri string) error {
	ctx := context.Background()
	var err error
	if fixture.superURI, err = pgtest.LoadDatabase(ctx, uri, "dbexec", "../testdata/fixture.sql"); err != nil {
		return err
	}
	u, _ := url.Parse(fixture.superURI)
	u.User = url.User("authenticator")
	fixture.authURI = u.String()
	cfg := config.Default()
	cfg.DBURI = fixture.authURI
	cfg.DBSchemas = []string{"test", "other"}
	cfg.DBAnonRole = "web_anon"
	fixture.cfg = cfg
	return nil
}

// superConn connects as the superuser, closed when the test ends.
func superConn(t *testing.T) *pgx.Conn {
	t.Helper()
	db, err := pgx.Connect(context.Background(), fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	return db
}

// logged counts the rows of rpc_log named name.
func logged(t *testing.T, name string) int {
	t.Helper()
	var n int
	if err := superConn(t).QueryRow(t.Context(), "select count(*) from test.rpc_log where name = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
