package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/pgtest"
)

// fleet is a database behind PgBouncer with N svc-serve processes reading
// the published snapshot.
type fleet struct {
	cluster    *pgtest.Cluster
	superURI   string
	introspect string // svc-introspect binary
	nodes      []node
}

type node struct{ api, admin string }

// buildPrograms builds svc-serve and svc-introspect into dir.
func buildPrograms(t *testing.T, dir string) (serve, introspect string) {
	t.Helper()
	for _, name := range []string{"svc-serve", "svc-introspect"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", name, err, out)
		}
	}
	return filepath.Join(dir, "svc-serve"), filepath.Join(dir, "svc-introspect")
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

func startFleet(t *testing.T, size int) *fleet {
	t.Helper()
	if _, err := pgtest.FindPgBouncer(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err, "; .ci/run installs it")
		}
		t.Skip(err)
	}
	ctx := context.Background()
	c, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	f := &fleet{cluster: c, superURI: c.URI}
	f.exec(t, fleetSQL)
	bouncer, err := pgtest.StartPgBouncer(ctx, c.URI, []string{"authenticator"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bouncer.Stop)
	u, _ := url.Parse(c.URI)
	u.User = url.User("authenticator")
	direct := u.String()

	dir := t.TempDir()
	serve, introspect := buildPrograms(t, dir)
	f.introspect = introspect
	f.publish(t)
	for i := range size {
		n := node{api: "127.0.0.1:" + freePort(t), admin: "127.0.0.1:" + freePort(t)}
		_, apiPort, _ := net.SplitHostPort(n.api)
		_, adminPort, _ := net.SplitHostPort(n.admin)
		cmd := exec.Command(serve)
		cmd.Env = append(os.Environ(),
			"SVC_DB_URI="+bouncer.URI(direct), "SVC_DB_CHANNEL_URI="+direct, "SVC_DB_PREPARED_STATEMENTS=false",
			"SVC_DB_SCHEMAS=api", "SVC_DB_ANON_ROLE=web_anon", "SVC_SNAPSHOT=db", "SVC_DB_POOL=4",
			"SVC_SERVER_HOST=127.0.0.1", "SVC_SERVER_PORT="+apiPort, "SVC_ADMIN_SERVER_PORT="+adminPort)
		logFile, _ := os.Create(filepath.Join(dir, fmt.Sprintf("node%d.log", i)))
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
			if t.Failed() {
				log, _ := os.ReadFile(logFile.Name())
				t.Logf("node %d log:\n%s", i, log)
			}
		})
		f.nodes = append(f.nodes, n)
	}
	for _, n := range f.nodes {
		waitFor(t, 15*time.Second, "node ready", func() bool { return httpStatus("http://"+n.admin+"/ready") == 200 })
	}
	return f
}

// fleetSQL is the fleets' schema: roles, and api.items of 100 rows.
const fleetSQL = `create role web_anon nologin;
	create role authenticator login noinherit;
	grant web_anon to authenticator;
	create schema api;
	grant usage on schema api to web_anon;
	create table api.items (id int primary key, name text);
	insert into api.items select g, 'item ' || g from generate_series(1, 100) g;
	grant select on api.items to web_anon;`

func (f *fleet) exec(t *testing.T, sql string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), f.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// publish dumps and publishes api as the CI step would.
func (f *fleet) publish(t *testing.T) {
	t.Helper()
	cmd := exec.Command(f.introspect, "publish", "--db-uri", f.superURI, "--db-schemas", "api", "--grant-to", "authenticator")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
}

// fingerprint is what a node's admin /snapshot reports.
func fingerprint(n node) string {
	resp, err := probe.Get("http://" + n.admin + "/snapshot")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var s struct {
		Fingerprint string `json:"fingerprint"`
	}
	json.NewDecoder(resp.Body).Decode(&s)
	return s.Fingerprint
}

// probe is the client for polling: a request stuck behind a database that
// is away must not stall the poll.
var probe = &http.Client{Timeout: 2 * time.Second}

func httpStatus(u string) int {
	resp, err := probe.Get(u)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !ok() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// load sends requests to every node until stop is closed, counting
// answers that are not 200.
type load struct {
	sent, failed atomic.Int64
	lastFailure  atomic.Value
	stop         chan struct{}
	wg           sync.WaitGroup
}

func startLoad(nodes []node, workers int) *load {
	l := &load{stop: make(chan struct{})}
	client := &http.Client{Timeout: 5 * time.Second}
	for w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				n := nodes[(w+i)%len(nodes)]
				resp, err := client.Get(fmt.Sprintf("http://%s/items?id=eq.%d", n.api, i%100+1))
				l.sent.Add(1)
				if err != nil {
					l.failed.Add(1)
					l.lastFailure.Store(err.Error())
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					l.failed.Add(1)
					l.lastFailure.Store(fmt.Sprintf("%d %s", resp.StatusCode, body))
				}
			}
		}()
	}
	return l
}

func (l *load) halt() {
	close(l.stop)
	l.wg.Wait()
}

// TestFleetRollout runs three svc-serve processes behind PgBouncer under
// continuous load. A migration adds a table and a column and the new
// snapshot is published: every node serves the new route and reports the
// new fingerprint, and no request fails during the rollout. Then the
// database restarts under load and every node recovers on its own.
func TestFleetRollout(t *testing.T) {
	f := startFleet(t, 3)
	before := fingerprint(f.nodes[0])

	rollout := startLoad(f.nodes, 6)
	time.Sleep(300 * time.Millisecond)
	f.exec(t, `create table api.gadgets (id int primary key, label text);
		insert into api.gadgets values (1, 'sprocket');
		grant select on api.gadgets to web_anon;
		alter table api.items add column note text;`)
	published := time.Now()
	f.publish(t)
	took := waitFor(t, 10*time.Second, "every node on the new snapshot", func() bool {
		for _, n := range f.nodes {
			if fp := fingerprint(n); fp == "" || fp == before || httpStatus("http://"+n.api+"/gadgets") != 200 {
				return false
			}
		}
		return true
	})
	// The measured figure goes to the closing note; 10 s above only bounds
	// the wait (timing is measured, not asserted).
	t.Logf("publish to every node serving the new snapshot: %s (publish command itself: %s)",
		took, time.Since(published)-took)
	time.Sleep(300 * time.Millisecond)
	rollout.halt()
	if n := rollout.failed.Load(); n > 0 {
		t.Errorf("%d of %d requests failed during the rollout; last: %v", n, rollout.sent.Load(), rollout.lastFailure.Load())
	}
	t.Logf("rollout: %d requests, %d failed", rollout.sent.Load(), rollout.failed.Load())
	for _, n := range f.nodes {
		if s := httpStatus("http://" + n.api + "/items?select=id,note&limit=1"); s != 200 {
			t.Errorf("node %s: the new column answers %d", n.api, s)
		}
	}

	restart := startLoad(f.nodes, 6)
	f.cluster.Halt()
	time.Sleep(time.Second)
	if err := f.cluster.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	recovered := waitFor(t, 30*time.Second, "every node serving after the restart", func() bool {
		for _, n := range f.nodes {
			if httpStatus("http://"+n.api+"/items?id=eq.1") != 200 {
				return false
			}
		}
		return true
	})
	restart.halt()
	t.Logf("database restart: every node serving %s after the database was back (%d requests, %d failed while it was down)",
		recovered, restart.sent.Load(), restart.failed.Load())
	for _, n := range f.nodes {
		if s := httpStatus("http://" + n.admin + "/ready"); s != 200 {
			t.Errorf("node %s not ready after the restart: %d", n.admin, s)
		}
	}
}
