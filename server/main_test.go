package server_test

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/internal/e2efixture"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/pgtest"
)

// fixture is the database and server every end-to-end test in this package
// shares.
var fixture struct {
	superURI string // superuser, for set-up and DDL in tests
	authURI  string // the authenticator role servers connect as
	url      string // base URL of the shared server
	cfg      *config.Config
}

func TestMain(m *testing.M) {
	flag.Parse() // startServer asks testing.Verbose before m.Run parses flags
	os.Exit(pgtest.Main(m, setupFixture))
}

func setupFixture(uri string) error {
	ctx := context.Background()
	db, err := e2efixture.Load(ctx, uri, "e2e", "testdata/fixture.sql")
	if err != nil {
		return err
	}
	fixture.superURI, fixture.authURI = db.SuperURI, db.AuthURI
	cfg := db.Config
	fixture.cfg = cfg
	srv, _, err := startServer(ctx, cfg, nil)
	if err != nil {
		return err
	}
	fixture.url = srv.URL
	return nil
}

// startServer starts a server for cfg over a new pool. With a nil source
// it introspects live. The caller closes the returned test server; the pool
// closes with the process.
func startServer(ctx context.Context, cfg *config.Config, source reload.Source) (*testServer, *reload.Snapshots, error) {
	pool, err := dbexec.NewPool(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if source == nil {
		source = reload.LiveSource{URI: cfg.DBURI, Options: catalog.Options{Schemas: cfg.DBSchemas, ExtraSearchPath: cfg.DBExtraSearchPath}}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	snaps := reload.NewSnapshots(source, log)
	snaps.Sessions(pool)
	if err := snaps.Reload(ctx); err != nil {
		return nil, nil, err
	}
	jwt, err := server.NewVerifier(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	h := server.New(cfg, pool, snaps, jwt, log)
	srv, err := newTestServer(cfg, h)
	if srv != nil {
		srv.handler, srv.pool = h, pool
	}
	return srv, snaps, err
}

// testServer serves a handler on a loopback port as svc-serve serves
// its API, with the configuration's limits.
type testServer struct {
	URL     string
	srv     server.HTTPServer
	handler http.Handler  // what srv serves, when startServer made it
	pool    *pgxpool.Pool // the request pool, when startServer made it
}

func newTestServer(cfg *config.Config, h http.Handler) (*testServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := server.NewHTTPServer(cfg, h, nil)
	go srv.Serve(ln)
	return &testServer{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// Close stops the server once its requests in flight are answered.
func (s *testServer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
}
