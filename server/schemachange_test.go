package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/reload"
)

// A schema that changes under a running server: migrations that drop
// objects and create them again under the same names, which leave
// pooled sessions with statements and types that point at nothing.

// migration is a server exposing one schema of its own, created by the
// test, over a pool of the given size, and a superuser connection for
// migrating it.
type migration struct {
	schema string
	srv    *testServer
	snaps  *reload.Snapshots
	db     *pgx.Conn
	// channel is the one listen listens on.
	channel string
}

// migrationSchema is the schema every migration test starts from: an enum,
// a table using it, functions telling which backend serves a request, a
// VOLATILE function returning the table's rows, and one raising an
// internal error.
const migrationSchema = `
create type %[1]s.mood as enum ('happy', 'sad');
create table %[1]s.people (id int primary key, name text, mood %[1]s.mood);
insert into %[1]s.people values (1, 'Ann', 'happy'), (2, 'Bob', 'sad');
grant select, insert on %[1]s.people to web_anon;
create function %[1]s.backend() returns int stable language sql as 'select pg_backend_pid()';
create function %[1]s.nap(s float) returns int stable language sql as 'select pg_backend_pid() from pg_sleep(s)';
create function %[1]s.everyone() returns setof %[1]s.people volatile language sql as 'select * from %[1]s.people';
create table %[1]s.scores (id int primary key, score int);
insert into %[1]s.scores values (1, 5), (2, 7);
grant select on %[1]s.scores to web_anon;
create function %[1]s.boom() returns int stable language plpgsql as
	$$begin raise exception 'a genuine internal error' using errcode = 'XX000'; end$$;
`

// newMigration creates schema and serves it with a pool of poolSize.
func newMigration(t *testing.T, schema string, poolSize int) *migration {
	t.Helper()
	return newMigrationWith(t, schema, poolSize, nil)
}

// newMigrationWith is newMigration with the server's configuration
// changed by edit first, when not nil.
func newMigrationWith(t *testing.T, schema string, poolSize int, edit func(*config.Config)) *migration {
	t.Helper()
	ctx := context.Background()
	db, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	m := &migration{schema: schema, db: db}
	m.exec(t, "drop schema if exists "+schema+" cascade; create schema "+schema+"; grant usage on schema "+schema+" to web_anon")
	m.exec(t, strings.ReplaceAll(migrationSchema, "%[1]s", schema))
	t.Cleanup(func() { db.Exec(ctx, "drop schema if exists "+schema+" cascade") })
	cfg := *fixture.cfg
	cfg.DBSchemas = []string{schema}
	cfg.DBPool = poolSize
	if edit != nil {
		edit(&cfg)
	}
	m.srv, m.snaps, err = startServer(ctx, &cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.srv.Close)
	return m
}

func (m *migration) exec(t *testing.T, sql string) {
	t.Helper()
	if _, err := m.db.Exec(context.Background(), strings.ReplaceAll(sql, "$s", m.schema)); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// recreate drops the enum and the table and creates them again, the enum
// with values, in one transaction: the names stay, the object ids do not.
func (m *migration) recreate(t *testing.T, values string) {
	t.Helper()
	m.exec(t, `begin;
		drop table $s.people cascade; drop type $s.mood cascade;
		create type $s.mood as enum (`+values+`);
		create table $s.people (id int primary key, name text, mood $s.mood);
		insert into $s.people values (1, 'Ann', 'happy'), (2, 'Bob', 'sad');
		grant select, insert on $s.people to web_anon;
		create function $s.everyone() returns setof $s.people volatile language sql as 'select * from $s.people';
		commit`)
}

// do sends a request and returns its status, code (for errors) and body.
func (m *migration) do(t *testing.T, method, path, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, m.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// happy reads the people in a happy mood: a statement whose parameter is
// of the enum type, prepared on the session that runs it.
func (m *migration) happy(t *testing.T) (int, string) {
	t.Helper()
	status, _, body := m.do(t, "GET", "/people?select=id,name&mood=eq.happy", "")
	return status, body
}

// backend returns the process id of the backend a request ran on.
func (m *migration) backend(t *testing.T) int {
	t.Helper()
	status, _, body := m.do(t, "GET", "/rpc/backend", "")
	if status != http.StatusOK {
		t.Fatalf("GET /rpc/backend: %d %s", status, body)
	}
	pid, err := strconv.Atoi(body)
	if err != nil {
		t.Fatalf("GET /rpc/backend: %q", body)
	}
	return pid
}

// alive reports whether a backend of pid is still running.
func (m *migration) alive(t *testing.T, pid int) bool {
	t.Helper()
	var alive bool
	if err := m.db.QueryRow(context.Background(), "select exists (select from pg_stat_activity where pid = $1)", pid).Scan(&alive); err != nil {
		t.Fatal(err)
	}
	return alive
}

const wantHappy = `[{"id":1,"name":"Ann"}]`

// TestReloadRetiresSessions: after a schema reload no request runs on a
// session opened before it. The migration recreates the enum a prepared
// statement's parameter has as its type; a session that prepared it would
// answer 500 "cache lookup failed for type N" for as long as it lives.
// It holds whether the reload changes the fingerprint or not, and whether
// it comes by notification or is asked for directly.
func TestReloadRetiresSessions(t *testing.T) {
	for _, tc := range []struct {
		name, values string
		notify       bool
	}{
		{"new enum value, notified", "'happy', 'sad', 'meh'", true},
		{"same fingerprint", "'happy', 'sad'", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMigration(t, "migr_retire", 2)
			if tc.notify {
				m.listen(t, "svc_retire")
			}
			before := map[int]bool{}
			for range 6 {
				if status, body := m.happy(t); status != http.StatusOK || body != wantHappy {
					t.Fatalf("before the migration: %d %s", status, body)
				}
				before[m.backend(t)] = true
			}
			fingerprint := m.snaps.Current().Header.Fingerprint
			m.recreate(t, tc.values)
			m.reload(t, tc.notify)
			if changed := m.snaps.Current().Header.Fingerprint != fingerprint; changed != tc.notify {
				t.Fatalf("fingerprint changed: %v; the case needs %v", changed, tc.notify)
			}
			for range 6 {
				// Which backend first: a request meeting a stale session
				// would have it retired (TestStaleCatalog), hiding a reload
				// that retired nothing.
				if pid := m.backend(t); before[pid] {
					t.Errorf("a request ran on backend %d, opened before the reload", pid)
				}
				if status, body := m.happy(t); status != http.StatusOK || body != wantHappy {
					t.Errorf("after the reload: %d %s, want 200 %s", status, body, wantHappy)
				}
			}
			for pid := range before {
				waitFor(t, "the retired backend "+strconv.Itoa(pid)+" to end", func() bool { return !m.alive(t, pid) })
			}
		})
	}
}

// TestReloadLetsBusySessionsFinish: a request running when a reload that
// retires the sessions comes (a migration recreated objects) finishes on
// its session, which is then closed rather than given to the next
// request.
func TestReloadLetsBusySessionsFinish(t *testing.T) {
	m := newMigration(t, "migr_busy", 2)
	type result struct {
		status int
		body   string
	}
	done := make(chan result, 1)
	go func() {
		status, _, body := m.do(t, "GET", "/rpc/nap?s=1.5", "")
		done <- result{status, body}
	}()
	waitFor(t, "the nap to start", func() bool {
		var n int
		m.db.QueryRow(context.Background(), "select count(*) from pg_stat_activity where wait_event = 'PgSleep' and query like '%nap%'").Scan(&n)
		return n == 1
	})
	m.recreate(t, "'happy', 'sad'")
	if err := m.snaps.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.status != http.StatusOK {
		t.Fatalf("the request in flight during the reload: %d %s", r.status, r.body)
	}
	busy, _ := strconv.Atoi(r.body)
	for range 4 {
		if pid := m.backend(t); pid == busy {
			t.Errorf("backend %d, busy during the reload, served a later request", pid)
		}
	}
	waitFor(t, "the busy backend to end once released", func() bool { return !m.alive(t, busy) })
}

// listen starts a Listener for the server's snapshots on channel.
func (m *migration) listen(t *testing.T, channel string) {
	t.Helper()
	u, _ := url.Parse(fixture.authURI)
	q := u.Query()
	q.Set("application_name", "svc-listener-"+channel)
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l := &reload.Listener{URI: u.String(), Channel: channel, Snapshots: m.snaps,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxBackoff: 200 * time.Millisecond}
	go l.Run(ctx)
	waitFor(t, "the listener", func() bool {
		var n int
		m.db.QueryRow(context.Background(), "select count(*) from pg_stat_activity where application_name = $1 and query ilike 'listen %'",
			"svc-listener-"+channel).Scan(&n)
		return n > 0
	})
	m.channel = channel
}

// reload has the server load the schema again: by notification on its
// channel when notify is set (waiting until a new snapshot is in force),
// otherwise directly.
func (m *migration) reload(t *testing.T, notify bool) {
	t.Helper()
	if !notify {
		if err := m.snaps.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		return
	}
	old := m.snaps.Current()
	m.exec(t, "notify "+m.channel+", 'reload schema'")
	waitFor(t, "the notified reload", func() bool { return m.snaps.Current() != old })
}

// waitFor polls cond until it holds, failing the test after a generous
// limit: what it waits for happens within a second on any machine.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
	}
}

// compact is body without the spaces between JSON tokens.
func compact(body string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(body)) != nil {
		return body
	}
	return b.String()
}

// decodeError reads an error body's code.
func decodeError(t *testing.T, body string) string {
	t.Helper()
	var e struct{ Code string }
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	return e.Code
}

// TestStaleCatalog: a migration committed and no reload yet (the
// notification not sent or not heard): requests meeting sessions that
// knew the replaced objects are run again on a new session, when running
// them again cannot repeat an effect outside the transaction, and
// otherwise answered 503 SVC004 with Retry-After; never 500.
func TestStaleCatalog(t *testing.T) {
	m := newMigration(t, "migr_stale", 1)
	// Each statement is prepared on the pool's one session.
	if status, body := m.happy(t); status != http.StatusOK || body != wantHappy {
		t.Fatalf("before the migration: %d %s", status, body)
	}
	if status, _, body := m.do(t, "POST", "/people", `{"id":3,"name":"Cy","mood":"sad"}`); status != http.StatusCreated {
		t.Fatalf("insert before the migration: %d %s", status, body)
	}

	t.Run("read", func(t *testing.T) {
		old := m.backend(t)
		m.recreate(t, "'happy', 'sad', 'meh'")
		if status, body := m.happy(t); status != http.StatusOK || body != wantHappy {
			t.Errorf("read on a stale session: %d %s, want 200 %s", status, body, wantHappy)
		}
		// The session proved stale, and every session as old with it.
		if pid := m.backend(t); pid == old {
			t.Errorf("the stale session (backend %d) served the next request", pid)
		}
		waitFor(t, "the stale backend to end", func() bool { return !m.alive(t, old) })
	})

	t.Run("write", func(t *testing.T) {
		m.do(t, "POST", "/people", `{"id":3,"name":"Cy","mood":"sad"}`) // prepared again
		m.recreate(t, "'happy', 'sad'")
		status, _, body := m.do(t, "POST", "/people", `{"id":4,"name":"Di","mood":"happy"}`)
		if status != http.StatusCreated {
			t.Errorf("insert on a stale session: %d %s, want 201", status, body)
		}
		var n int
		m.db.QueryRow(context.Background(), "select count(*) from "+m.schema+".people where id = 4").Scan(&n)
		if n != 1 {
			t.Errorf("%d rows of id 4, want 1", n)
		}
	})

	t.Run("volatile call", func(t *testing.T) {
		// The filter on the function's rows binds a value of the enum.
		const call = "/rpc/everyone?select=id,name&mood=eq.happy"
		if status, _, body := m.do(t, "POST", call, "{}"); status != http.StatusOK {
			t.Fatalf("call before the migration: %d %s", status, body)
		}
		m.recreate(t, "'happy', 'sad'")
		status, h, body := m.do(t, "POST", call, "{}")
		if status != http.StatusServiceUnavailable || decodeError(t, body) != "SVC004" || h.Get("Retry-After") == "" {
			t.Errorf("volatile call on a stale session: %d %s (Retry-After %q), want 503 SVC004 with Retry-After",
				status, body, h.Get("Retry-After"))
		}
		if status, _, body := m.do(t, "POST", call, "{}"); status != http.StatusOK || compact(body) != wantHappy {
			t.Errorf("the client's retry: %d %s, want 200 %s", status, body, wantHappy)
		}
	})

	t.Run("column type changed", func(t *testing.T) {
		// The statement prepared before compares the column with an
		// integer parameter: 42883 "operator does not exist: text =
		// integer", where the statement parsed now compares text.
		const read = "/scores?select=id&score=eq.5"
		if status, _, body := m.do(t, "GET", read, ""); status != http.StatusOK || body != `[{"id":1}]` {
			t.Fatalf("before the migration: %d %s", status, body)
		}
		m.exec(t, "alter table $s.scores alter column score type text")
		if status, _, body := m.do(t, "GET", read, ""); status != http.StatusOK || body != `[{"id":1}]` {
			t.Errorf("read on a session that prepared it before: %d %s, want 200", status, body)
		}
	})

	t.Run("genuine bad input", func(t *testing.T) {
		m.exec(t, "alter table $s.scores alter column score type int using score::int")
		m.do(t, "GET", "/scores?select=id&score=eq.5", "") // prepared again
		old := m.backend(t)
		status, _, body := m.do(t, "GET", "/scores?select=id&score=eq.many", "")
		if status != http.StatusBadRequest || decodeError(t, body) != "22P02" {
			t.Errorf("a value the column's type refuses: %d %s, want 400 22P02", status, body)
		}
		if pid := m.backend(t); pid != old {
			t.Errorf("the session (backend %d) was dropped for the client's mistake; now %d", old, pid)
		}
	})

	t.Run("genuine internal error", func(t *testing.T) {
		old := m.backend(t)
		status, _, body := m.do(t, "GET", "/rpc/boom", "")
		if status != http.StatusInternalServerError || decodeError(t, body) != "XX000" {
			t.Errorf("a genuine internal error: %d %s, want 500 XX000", status, body)
		}
		// A new session failed the same way: the pool's session was fine,
		// and is kept.
		if pid := m.backend(t); pid != old {
			t.Errorf("the session (backend %d) was dropped for an error that was not its own; now %d", old, pid)
		}
	})
}

// TestStaleCatalogTogether: many requests meeting stale sessions at once
// are all answered from the catalog as it is; one proves the pool stale,
// and the others run again on the sessions that replace it.
func TestStaleCatalogTogether(t *testing.T) {
	m := newMigration(t, "migr_together", 4)
	const clients = 12
	run := func() []string {
		results := make(chan string, clients)
		for range clients {
			go func() {
				status, body := m.happy(t)
				results <- strconv.Itoa(status) + " " + body
			}()
		}
		var got []string
		for range clients {
			got = append(got, <-results)
		}
		return got
	}
	run() // every session prepares the statement
	m.recreate(t, "'happy', 'sad', 'meh'")
	for _, r := range run() {
		if r != "200 "+wantHappy {
			t.Errorf("a request on a stale session: %s", r)
		}
	}
}
