package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/sql/pgtest"
)

// startBouncer starts PgBouncer in transaction mode in front of the
// fixture database, or skips (fails under CI) without it.
func startBouncer(t *testing.T) *pgtest.PgBouncer {
	t.Helper()
	if _, err := pgtest.FindPgBouncer(); err != nil {
		missingDependency(t, err.Error())
	}
	bouncer, err := pgtest.StartPgBouncer(t.Context(), fixture.authURI, []string{"authenticator"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bouncer.Stop)
	return bouncer
}

// startLogged serves flags as svc-serve does (no listener), its log kept
// for the test to read.
func startLogged(t *testing.T, flags map[string]string) (*reload.Snapshots, string, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	_, snaps, url := startRuntimeLogging(t, config.Sources{Flags: flags}, "",
		slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	return snaps, url, logs
}

// TestPgBouncerWithPreparedStatements serves through PgBouncer in
// transaction mode with the defaults (db-prepared-statements on), as an
// operator who read nothing would, and no start-up probe: concurrent
// clients asking for several shapes each get their own right answer, not
// 400 26000 "prepared statement does not exist", 42P05 or 08P01. The
// server finds the pooler by its first symptom, stops preparing and says
// so once in the log, with the fix.
func TestPgBouncerWithPreparedStatements(t *testing.T) {
	bouncer := startBouncer(t)
	_, url, logs := startLogged(t, map[string]string{
		"db-uri": bouncer.URI(fixture.authURI), "db-channel-uri": fixture.authURI,
		"db-schemas": "test", "db-anon-role": "web_anon", "db-pool": "8"})
	paths := []string{"/books?select=id&id=eq.1", "/books?select=title&id=eq.1", "/authors?select=name&id=eq.1",
		"/books?select=id,year&id=eq.1", "/authors?select=id&id=eq.1", "/books?select=id,title,year&order=id&limit=1"}
	want := map[string]string{}
	get := func(path string) (int, string) {
		resp, err := http.Get(url + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	direct := startDirect(t)
	for _, p := range paths {
		status, body := get1(t, direct+p)
		if status != 200 {
			t.Fatalf("direct GET %s: %d %s", p, status, body)
		}
		want[p] = body
	}
	var wg sync.WaitGroup
	errs := make(chan string, 800)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				p := paths[(w+i)%len(paths)]
				if status, body := get(p); status != 200 || body != want[p] {
					errs <- fmt.Sprintf("GET %s: %d %s", p, status, body)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for e := range errs {
		if n++; n <= 5 {
			t.Error(e)
		}
	}
	if n > 0 {
		t.Errorf("%d of 800 answers wrong", n)
	}
	if got := strings.Count(logs.String(), "connection pooler in transaction mode"); got != 1 {
		t.Errorf("the pooler is named %d times in the log, want once:\n%s", got, logs.String())
	}
	if !strings.Contains(logs.String(), "db-prepared-statements = false") {
		t.Errorf("the log does not give the fix:\n%s", logs.String())
	}
}

// startDirect serves the fixture without a pooler, for the answers the
// pooled server must give.
func startDirect(t *testing.T) string {
	t.Helper()
	_, url, _ := startLogged(t, map[string]string{"db-uri": fixture.authURI, "db-schemas": "test", "db-anon-role": "web_anon"})
	return url
}

func get1(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestProbePooler: the start-up probe tells PgBouncer in transaction mode
// from PostgreSQL itself, and has the pool behind it prepare nothing.
func TestProbePooler(t *testing.T) {
	bouncer := startBouncer(t)
	for _, c := range []struct {
		name, uri string
		want      bool
	}{{"direct", fixture.authURI, false}, {"pgbouncer", bouncer.URI(fixture.authURI), true}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := *fixture.cfg
			cfg.DBURI = c.uri
			pool, err := dbexec.NewPool(t.Context(), &cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			logs := &syncBuffer{}
			found, err := dbexec.ProbePooler(t.Context(), pool, slog.New(slog.NewTextHandler(logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			if found != c.want || dbexec.BehindTransactionPooler(pool) != c.want {
				t.Errorf("found %v, pool marked %v; want %v", found, dbexec.BehindTransactionPooler(pool), c.want)
			}
			if c.want && !strings.Contains(logs.String(), "db-prepared-statements = false") {
				t.Errorf("no fix in the log:\n%s", logs.String())
			}
		})
	}
}

// TestLiveIntrospectionThroughPgBouncer introspects live through PgBouncer
// in transaction mode, reloading several times: each load's session
// prepares nothing a later one would meet on the same backend (pgx's
// statement cache did: 42P05 "prepared statement stmtcache_... already
// exists"), whatever db-prepared-statements says.
func TestLiveIntrospectionThroughPgBouncer(t *testing.T) {
	bouncer := startBouncer(t)
	for _, prepared := range []string{"true", "false"} {
		t.Run("db-prepared-statements="+prepared, func(t *testing.T) {
			snaps, url, _ := startLogged(t, map[string]string{"db-uri": bouncer.URI(fixture.authURI),
				"db-schemas": "test", "db-anon-role": "web_anon", "db-prepared-statements": prepared})
			for i := range 5 {
				if err := snaps.Reload(context.Background()); err != nil {
					t.Fatalf("reload %d: %v", i+1, err)
				}
			}
			if status, body := get1(t, url+"/authors?select=id&limit=1"); status != 200 {
				t.Errorf("GET /authors: %d %s", status, body)
			}
		})
	}
}
