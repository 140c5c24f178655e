package server_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
)

// Internal errors (XX000) a request's own values cause: an extension
// refusing its input, a function or trigger raising XX000. Nothing in the
// catalog changed, so they are answered as the errors they are, on the
// session that met them: no session is opened for them, the pool is not
// retired, and a write is not run twice.

// badInputSchema adds to migrationSchema a VOLATILE function and a table
// trigger that raise XX000 on their input; the trigger counts its runs in
// a sequence, which a rollback does not undo.
const badInputSchema = `
create function $s.parse_thing(t text) returns int volatile language plpgsql as
	$$begin raise exception 'cannot parse %', t using errcode = 'XX000'; end$$;
create sequence $s.trigger_runs;
grant usage on sequence $s.trigger_runs to web_anon;
create table $s.orders (id int primary key, item text);
grant select, insert on $s.orders to web_anon;
create function $s.refuse() returns trigger language plpgsql as
	$$begin raise exception 'order % refused (run %)', new.id, nextval('$s.trigger_runs') using errcode = 'XX000'; end$$;
create trigger refuse before insert on $s.orders for each row execute function $s.refuse();
`

// TestInternalErrorFromInput: XX000 caused by a request's values is the
// request's own error (500 XX000, as PostgREST answers it), not a stale
// catalog (503 SVC004): it costs no session, and a write whose trigger
// raised it ran once.
func TestInternalErrorFromInput(t *testing.T) {
	m := newMigration(t, "stale_input", 2)
	m.exec(t, badInputSchema)
	if err := m.snaps.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.backend(t) // the pool's first session
	opened := m.srv.pool.Stat().NewConnsCount()
	pid := m.backend(t)

	t.Run("volatile call", func(t *testing.T) {
		for range 30 {
			status, h, body := m.do(t, "POST", "/rpc/parse_thing", `{"t":"garbage"}`)
			if status != http.StatusInternalServerError || decodeError(t, body) != "XX000" || h.Get("Retry-After") != "" {
				t.Fatalf("a VOLATILE function raising XX000 on its argument: %d %s (Retry-After %q), want 500 XX000",
					status, body, h.Get("Retry-After"))
			}
		}
	})

	t.Run("trigger", func(t *testing.T) {
		const posts = 20
		wrong := 0
		for i := range posts {
			status, _, body := m.do(t, "POST", "/orders", `{"id":`+strconv.Itoa(i)+`,"item":"x"}`)
			if status != http.StatusInternalServerError || decodeError(t, body) != "XX000" {
				if wrong++; wrong == 1 {
					t.Errorf("a write whose trigger raises XX000: %d %s, want 500 XX000", status, body)
				}
			}
		}
		var runs int
		if err := m.db.QueryRow(context.Background(),
			"select case when is_called then last_value else 0 end from "+m.schema+".trigger_runs").Scan(&runs); err != nil {
			t.Fatal(err)
		}
		if runs != posts {
			t.Errorf("the trigger ran %d times for %d writes: a write was run again", runs, posts)
		}
	})

	if n := m.srv.pool.Stat().NewConnsCount() - opened; n != 0 {
		t.Errorf("the pool opened %d sessions for requests whose own input raised XX000", n)
	}
	if now := m.backend(t); now != pid {
		t.Errorf("the pool's session (backend %d) was replaced by %d", pid, now)
	}
}

// geoInputSchema is a PostGIS table in a database of its own.
const geoInputSchema = `
create extension postgis;
create schema geo;
grant usage on schema geo to web_anon;
create table geo.sites (id int primary key, spot geometry(Point, 4326));
insert into geo.sites values (1, 'SRID=4326;POINT(10.7 59.9)');
grant select on geo.sites to web_anon;
`

// TestExtensionRefusesInput: PostGIS reports a value it cannot parse as
// XX000. A read filtering on such a value is answered 500 XX000 on the
// pool's session, however many come: no session is opened to try it
// again, in the pool or beside it.
func TestExtensionRefusesInput(t *testing.T) {
	ctx := context.Background()
	db, cfg := postgisDatabase(t, "stale_geo_input", geoInputSchema)
	srv, _, err := startServer(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b := make([]byte, 4096)
		n, _ := resp.Body.Read(b)
		return resp.StatusCode, string(b[:n])
	}
	if status, body := get("/sites?select=id"); status != http.StatusOK || body != `[{"id":1}]` {
		t.Fatalf("before: %d %s", status, body)
	}
	sessions := func() int64 {
		t.Helper()
		var n int64
		if err := db.QueryRow(ctx, "select pg_stat_clear_snapshot(), (select sessions from pg_stat_database where datname = current_database())").
			Scan(nil, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before, pooled := sessions(), srv.pool.Stat().NewConnsCount()
	const reads = 50
	for range reads {
		if status, body := get("/sites?select=id&spot=eq.garbage"); status != http.StatusInternalServerError || decodeError(t, body) != "XX000" {
			t.Fatalf("a geometry PostGIS cannot parse: %d %s, want 500 XX000", status, body)
		}
	}
	if status, body := get("/sites?select=id"); status != http.StatusOK || body != `[{"id":1}]` {
		t.Fatalf("after: %d %s", status, body)
	}
	if n := srv.pool.Stat().NewConnsCount() - pooled; n != 0 {
		t.Errorf("the pool opened %d sessions for %d reads PostGIS refused", n, reads)
	}
	// Sessions opened beside the pool show only in the database's count.
	if n := sessions() - before; n > 1 {
		t.Errorf("%d sessions were opened for %d reads PostGIS refused", n, reads)
	}
}
