package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/sql/pgtest"
)

// faultCluster is a cluster of its own, so a test can take it away
// without disturbing the shared fixture. It returns the cluster and the
// authenticator's URI.
func faultCluster(t *testing.T) (*pgtest.Cluster, string) {
	t.Helper()
	c, err := pgtest.Start(context.Background(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	conn, err := pgx.Connect(context.Background(), c.URI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `
		create role web_anon nologin;
		create role authenticator login noinherit;
		grant web_anon to authenticator;
		create schema api;
		grant usage on schema api to web_anon;
		create table api.items (id int primary key);
		insert into api.items values (1), (2);
		grant select on api.items to web_anon;
		create function api.nap(seconds float8) returns void language sql as $$ select pg_sleep(seconds) $$;
		grant execute on function api.nap(float8) to web_anon;`); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(c.URI)
	u.User = url.User("authenticator")
	return c, u.String()
}

// faultServer serves api over uri as svc-serve does, including its
// behaviour when the first snapshot cannot be loaded; flags are extra
// key/value pairs.
func faultServer(t *testing.T, uri string, flags ...string) (string, *reload.Snapshots) {
	t.Helper()
	sources := config.Sources{Flags: map[string]string{"db-uri": uri, "db-schemas": "api", "db-anon-role": "web_anon",
		"db-pool-acquisition-timeout": "2"}}
	for i := 0; i+1 < len(flags); i += 2 {
		sources.Flags[flags[i]] = flags[i+1]
	}
	_, snaps, url := startRuntimeSnaps(t, sources, "")
	return url, snaps
}

// getItems returns the status, SVC code (for errors) and Retry-After of GET /items.
func getItems(t *testing.T, baseURL string) (status int, code, retryAfter string) {
	t.Helper()
	status, code, retryAfter, _ = getItemsBody(t, baseURL)
	return status, code, retryAfter
}

// getItemsBody is getItems with the body.
func getItemsBody(t *testing.T, baseURL string) (status int, code, retryAfter, body string) {
	t.Helper()
	resp, err := http.Get(baseURL + "/items?order=id")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Code string `json:"code"`
	}
	raw, _ := io.ReadAll(resp.Body)
	json.Unmarshal(raw, &e)
	return resp.StatusCode, e.Code, resp.Header.Get("Retry-After"), string(raw)
}

// waitStatus polls GET /items until it answers want.
func waitStatus(t *testing.T, baseURL string, want int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		status, code, _ := getItems(t, baseURL)
		if status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /items still answers %d %s after %s, want %d", status, code, within, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDatabaseGoesAway takes the database away under a running server:
// requests answer 503 with Retry-After, a schema reload keeps the snapshot
// in force, and once the database is back the server serves again without
// a restart.
func TestDatabaseGoesAway(t *testing.T) {
	cluster, uri := faultCluster(t)
	db, _ := url.Parse(uri)
	url, snaps := faultServer(t, uri)
	if status, _, _ := getItems(t, url); status != 200 {
		t.Fatalf("before: %d", status)
	}
	before := snaps.Current().Header.Fingerprint

	cluster.Halt()
	// A connection idle in the pool first reports the server's shutdown
	// notice (57P01, forwarded as the database's own error); after that no
	// connection can be made (SVC000).
	// Callers are not told whom and where SVC connects to: the driver's
	// words stay in the log.
	secrets := []string{db.User.Username(), db.Host, db.Port(), "user=", "database="}
	codes := map[string]bool{}
	for range 3 {
		status, code, retry, body := getItemsBody(t, url)
		codes[code] = true
		if status != 503 || retry != "1" || !map[string]bool{"57P01": true, "SVC000": true, "SVC001": true}[code] {
			t.Errorf("database down: %d %s Retry-After %q, want 503 (57P01, SVC000 or SVC001) and Retry-After 1", status, code, retry)
		}
		for _, s := range secrets {
			if strings.Contains(body, s) {
				t.Errorf("database down: the answer names %q: %s", s, body)
			}
		}
	}
	if !codes["SVC000"] {
		t.Errorf("codes %v: a request with no connection to be had should answer SVC000", codes)
	}
	if err := snaps.Reload(context.Background()); err == nil {
		t.Error("reload succeeded with the database down")
	}
	if snaps.Current() == nil || snaps.Current().Header.Fingerprint != before {
		t.Error("a failed reload replaced the snapshot in force")
	}

	if err := cluster.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, url, 200, 10*time.Second)
}

// TestDatabaseAwayAtStart starts a server while its database is down: it
// answers 503 SVC002 until it can load a snapshot, then serves.
func TestDatabaseAwayAtStart(t *testing.T) {
	cluster, uri := faultCluster(t)
	cluster.Halt()
	url, _ := faultServer(t, uri)
	status, code, retry := getItems(t, url)
	if status != 503 || code != "SVC002" || retry != "1" {
		t.Errorf("no snapshot yet: %d %s Retry-After %q, want 503 SVC002 and Retry-After 1", status, code, retry)
	}
	if err := cluster.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, url, 200, 10*time.Second)
}

// TestPoolAcquisitionTimeout holds the pool's only connection with a slow
// call: another request waits db-pool-acquisition-timeout, then answers
// 504 SVC003, and the slow call still completes.
func TestPoolAcquisitionTimeout(t *testing.T) {
	_, uri := faultCluster(t)
	url, _ := faultServer(t, uri, "db-pool", "1", "db-pool-acquisition-timeout", "1")
	slow := make(chan int, 1)
	go func() { slow <- httpGetStatus(url + "/rpc/nap?seconds=2.5") }()
	time.Sleep(300 * time.Millisecond)
	status, code, _ := getItems(t, url)
	if status != 504 || code != "SVC003" {
		t.Errorf("waiting for the pool: %d %s, want 504 SVC003", status, code)
	}
	if s := <-slow; s != 204 { // a void function: 204
		t.Errorf("the slow call answered %d", s)
	}
}

func httpGetStatus(u string) int {
	resp, err := http.Get(u)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestDatabaseCrashMidRequest kills the backend serving a request, as a
// PostgreSQL crash does: the connection ends without a word (unexpected
// EOF). The request answers 503 with Retry-After, as other connection
// losses do, and the server serves again once the database has recovered.
func TestDatabaseCrashMidRequest(t *testing.T) {
	cluster, uri := faultCluster(t)
	url, _ := faultServer(t, uri)
	super, err := pgx.Connect(t.Context(), cluster.URI)
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close(context.Background())
	// The cluster runs without fsync and with asynchronous commits: a
	// checkpoint makes sure crash recovery finds the roles and tables.
	if _, err := super.Exec(t.Context(), "checkpoint"); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		status     int
		code       string
		retryAfter string
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := http.Get(url + "/rpc/nap?seconds=30")
		if err != nil {
			done <- answer{code: err.Error()}
			return
		}
		defer resp.Body.Close()
		var body struct {
			Code string `json:"code"`
		}
		raw, _ := io.ReadAll(resp.Body)
		json.Unmarshal(raw, &body)
		done <- answer{resp.StatusCode, body.Code, resp.Header.Get("Retry-After")}
	}()

	var pid int
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := super.QueryRow(t.Context(),
			"select pid from pg_stat_activity where query like '%nap%' and state = 'active' and pid <> pg_backend_pid()").Scan(&pid)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the request's backend never showed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A backend killed outright, as the OOM killer does (SIGKILL on Unix).
	backend, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-done:
		if a.status != 503 || a.retryAfter != "1" {
			t.Errorf("backend killed mid-request: %d %s Retry-After %q, want 503 with Retry-After 1", a.status, a.code, a.retryAfter)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no answer 20 s after the backend was killed")
	}
	waitStatus(t, url, 200, 20*time.Second)
}
