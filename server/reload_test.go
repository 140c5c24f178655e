package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/catalog"
)

// reloadFixture is a server reading a snapshot file, with a Listener on its
// own channel so tests do not disturb each other.
type reloadFixture struct {
	url   string
	path  string
	snaps *reload.Snapshots
	db    *pgx.Conn
}

func newReloadFixture(t *testing.T, channel string) *reloadFixture {
	t.Helper()
	ctx := context.Background()
	db, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	f := &reloadFixture{path: filepath.Join(t.TempDir(), "snapshot.msgpack"), db: db}
	f.dump(t)
	cfg := *fixture.cfg
	srv, snaps, err := startServer(ctx, &cfg, reload.FileSource{Path: f.path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	f.url, f.snaps = srv.URL, snaps
	lctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	u, _ := url.Parse(fixture.authURI)
	q := u.Query()
	q.Set("application_name", "svc-listener-"+channel)
	u.RawQuery = q.Encode()
	l := &reload.Listener{URI: u.String(), Channel: channel, Snapshots: snaps,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxBackoff: 200 * time.Millisecond}
	go l.Run(lctx)
	f.waitListening(t, channel)
	return f
}

// dump writes a fresh snapshot of the fixture database to the file.
func (f *reloadFixture) dump(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	snap, err := catalog.Introspect(context.Background(), f.db, catalog.Options{
		Schemas: fixture.cfg.DBSchemas, ExtraSearchPath: fixture.cfg.DBExtraSearchPath})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.WriteFile(f.path, snap); err != nil {
		t.Fatal(err)
	}
	return snap
}

func (f *reloadFixture) waitListening(t *testing.T, channel string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		// The connection shows before its LISTEN has run; a NOTIFY sent in
		// between would be lost, so wait until LISTEN is done.
		f.db.QueryRow(context.Background(),
			"select count(*) from pg_stat_activity where application_name = $1 and state = 'idle' and query ilike 'listen %'",
			"svc-listener-"+channel).Scan(&n)
		if n > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("listener did not connect")
}

func (f *reloadFixture) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := f.db.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// eventually polls until url answers want, failing after timeout.
func eventually(t *testing.T, url string, want int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := status(t, url)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: status %d, want %d within %s", url, got, want, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestNotifyReloadsSnapshot(t *testing.T) {
	f := newReloadFixture(t, "svc_reload_a")
	f.exec(t, "create table test.fresh_a (id int primary key); grant select on test.fresh_a to web_anon")
	t.Cleanup(func() { f.exec(t, "drop table test.fresh_a") })
	if got := status(t, f.url+"/fresh_a"); got != 404 {
		t.Fatalf("new table served before reload: status %d", got)
	}
	before := f.snaps.Current().Header.Fingerprint
	f.dump(t)
	f.exec(t, "notify svc_reload_a, 'reload schema'")
	eventually(t, f.url+"/fresh_a", 200, 5*time.Second)
	if f.snaps.Current().Header.Fingerprint == before {
		t.Error("fingerprint unchanged after reload")
	}
}

func TestFailedReloadKeepsSnapshot(t *testing.T) {
	f := newReloadFixture(t, "svc_reload_b")
	before := f.snaps.Current()
	if err := os.WriteFile(f.path, []byte("not a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.snaps.Reload(context.Background()); err == nil {
		t.Fatal("reload of a damaged file succeeded")
	}
	if f.snaps.Current() != before {
		t.Error("a failed reload replaced the snapshot")
	}
	if got := status(t, f.url+"/books?id=eq.1"); got != 200 {
		t.Errorf("after a failed reload: status %d, want 200", got)
	}
}

// TestInFlightRequestKeepsItsSnapshot swaps in a snapshot without a view
// while a request on that view is running: the request completes with the
// snapshot it started with, and the next one no longer finds the view.
func TestInFlightRequestKeepsItsSnapshot(t *testing.T) {
	f := newReloadFixture(t, "svc_reload_c")
	f.exec(t, "create view test.slow_c as select id, pg_sleep(0.5) is null as slept from test.authors where id = 1; grant select on test.slow_c to web_anon")
	t.Cleanup(func() { f.exec(t, "drop view if exists test.slow_c") })
	full := f.dump(t)
	if err := f.snaps.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The same schema minus the view: the database still has it, so only
	// the snapshot decides whether it is served.
	content := full.Content
	content.Relations = nil
	for _, r := range full.Content.Relations {
		if r.Name != "slow_c" {
			content.Relations = append(content.Relations, r)
		}
	}
	without, err := snapshot.New(full.Header, content)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		resp, err := http.Get(f.url + "/slow_c")
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	time.Sleep(150 * time.Millisecond) // the request is now inside pg_sleep
	if _, err := snapshot.WriteFile(f.path, without); err != nil {
		t.Fatal(err)
	}
	if err := f.snaps.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := status(t, f.url+"/slow_c"); got != 404 {
		t.Errorf("after the swap: status %d, want 404", got)
	}
	select {
	case got := <-done:
		if got != 200 {
			t.Errorf("in-flight request: status %d, want 200", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight request did not finish")
	}
}

// TestListenerReconnectsAndReloads kills the listener's backend: it must
// reconnect and reload, picking up a snapshot written while it was away.
func TestListenerReconnectsAndReloads(t *testing.T) {
	f := newReloadFixture(t, "svc_reload_d")
	f.exec(t, "create table test.fresh_d (id int primary key); grant select on test.fresh_d to web_anon")
	t.Cleanup(func() { f.exec(t, "drop table test.fresh_d") })
	f.dump(t) // no NOTIFY: only the reload after reconnecting can pick it up
	f.exec(t, "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'svc-listener-svc_reload_d'")
	eventually(t, f.url+"/fresh_d", 200, 5*time.Second)
}
