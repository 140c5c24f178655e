package replica_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/admin"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/server/replica"
	"github.com/svc-dev/svc/server/txroute"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/pgtest"
)

// fixture is the primary and standbys every test here shares, loaded with
// testdata/fixture.sql. Tests may pause a standby's replay or stop it, and
// leave it as they found it.
var fixture struct {
	set      *pgtest.ReplicaSet
	superURI string   // the primary, as superuser, for set-up
	authURI  string   // the primary, as the authenticator
	replicas []string // each standby, as the authenticator
}

const jwtSecret = "a-secret-of-at-least-thirty-two-characters"

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx := context.Background()
	set, err := pgtest.StartReplicaSet(ctx, 2, pgtest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica set:", err)
		return 1
	}
	defer set.Stop()
	fixture.set = set
	if err := setup(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 1
	}
	return m.Run()
}

func setup(ctx context.Context) error {
	fixture.superURI = dbURI(fixture.set.Primary, "postgres", "replicas")
	conn, err := pgx.Connect(ctx, fixture.set.Primary.URI)
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "create database replicas")
	conn.Close(ctx)
	if err != nil {
		return err
	}
	sql, err := os.ReadFile("testdata/fixture.sql")
	if err != nil {
		return err
	}
	if conn, err = pgx.Connect(ctx, fixture.superURI); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, string(sql))
	conn.Close(ctx)
	if err != nil {
		return err
	}
	fixture.authURI = dbURI(fixture.set.Primary, "authenticator", "replicas")
	for _, s := range fixture.set.Standbys {
		fixture.replicas = append(fixture.replicas, dbURI(s, "authenticator", "replicas"))
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return pgtest.WaitReplayed(ctx, fixture.set.Primary, fixture.set.Standbys...)
}

func dbURI(c *pgtest.Cluster, user, db string) string {
	u, _ := url.Parse(c.URI)
	u.User = url.User(user)
	u.Path = "/" + db
	return u.String()
}

// testConfig is the configuration of a test server over the fixture;
// adjust it before startServer.
func testConfig() *config.Config {
	cfg := config.Default()
	cfg.DBURI = fixture.authURI
	cfg.DBSchemas = []string{"api"}
	cfg.DBAnonRole = "web_anon"
	cfg.JWTSecret = jwtSecret
	// Far above any replay delay a loaded machine causes: the tests that
	// read from a replica, or pause its replay for a moment, expect it to
	// stay healthy; the bound itself is TestJudge's and TestLag's.
	cfg.DBReplicaMaxLag = 30 * time.Second
	return cfg
}

// testServer is a server of the fixture and the replicas it reads from.
type testServer struct {
	URL      string
	Replicas *replica.Set // nil when it has none
	Snaps    *reload.Snapshots
	// Admin is the server's admin handler (/ready, /metrics).
	Admin http.Handler
	log   *logBuffer
}

// startServer starts a server for cfg, reading from the standbys of
// fixture.set whose indexes are given (after those cfg names), checked
// every checkInterval. With
// a nil source it introspects live. The server and its replicas stop
// when the test ends.
func startServer(t testing.TB, cfg *config.Config, source reload.Source, standbys ...int) *testServer {
	t.Helper()
	return startServerChecking(t, checkInterval, cfg, source, standbys...)
}

// startServerChecking is startServer with replicas checked every
// interval.
func startServerChecking(t testing.TB, interval time.Duration, cfg *config.Config, source reload.Source, standbys ...int) *testServer {
	t.Helper()
	ctx := context.Background()
	pool, err := dbexec.NewPool(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	ts := &testServer{log: &logBuffer{}}
	log := slog.New(slog.NewTextHandler(io.MultiWriter(ts.log, verboseLog()), nil))
	if source == nil {
		source = reload.LiveSource{URI: cfg.DBURI, Options: catalog.Options{Schemas: cfg.DBSchemas}}
	}
	ts.Snaps = reload.NewSnapshots(source, log)
	ts.Snaps.Sessions(pool)
	metrics := admin.NewMetrics(pool, ts.Snaps)
	for _, i := range standbys {
		cfg.DBReplicaURIs = append(cfg.DBReplicaURIs, fixture.replicas[i])
	}
	if len(cfg.DBReplicaURIs) > 0 {
		opts := txroute.ReplicaOptions(cfg, pool, log)
		opts.Interval = interval
		if ts.Replicas, err = replica.New(ctx, opts); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ts.Replicas.Close)
		ts.Replicas.Start(ctx)
		ts.Snaps.Gate(txroute.AwaitReplicas(ts.Replicas, log))
		metrics.Register(ts.Replicas.Collector())
	}
	if err := ts.Snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	jwt, err := server.NewVerifier(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := server.New(cfg, pool, ts.Snaps, jwt, log, server.WithReplicas(ts.Replicas), server.WithMetrics(metrics))
	ts.Admin = admin.New(pool, ts.Snaps, metrics, apierr.SVCNaming, log)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := server.NewHTTPServer(cfg, h, nil)
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	ts.URL = "http://" + ln.Addr().String()
	return ts
}

// checkInterval is how often test servers check their replicas: often,
// so that tests wait little for a change to be seen.
const checkInterval = 50 * time.Millisecond

func verboseLog() io.Writer {
	if testing.Verbose() {
		return os.Stderr
	}
	return io.Discard
}

// do sends a request and returns the response with its body read.
func (ts *testServer) do(t testing.TB, method, path string, header http.Header, body string) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(out)
}
