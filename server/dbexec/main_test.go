package dbexec_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/internal/e2efixture"
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
	db, err := e2efixture.Load(context.Background(), uri, "dbexec", "../testdata/fixture.sql")
	if err != nil {
		return err
	}
	fixture.superURI, fixture.authURI, fixture.cfg = db.SuperURI, db.AuthURI, db.Config
	return nil
}

// superConn connects as the superuser, closed when the test ends.
func superConn(t *testing.T) *pgx.Conn { return e2efixture.Conn(t, fixture.superURI) }

// logged counts the rows of rpc_log named name.
func logged(t *testing.T, name string) int { return e2efixture.Logged(t, fixture.superURI, name) }
