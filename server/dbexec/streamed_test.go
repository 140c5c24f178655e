package dbexec_test

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/sql/catalog"
)

// A streamed read's rows, joined as query.FramingOf says, make the very
// bytes the aggregate of the same read makes (query.Whole), with the same
// count and page count: an answer that fits the buffer leaves as it did
// when PostgreSQL built it whole.
func TestStreamedRowsJoinAsTheAggregate(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var postgis bool
	if err := conn.QueryRow(ctx, "select exists (select from pg_available_extensions where name = 'postgis')").Scan(&postgis); err != nil {
		t.Fatal(err)
	}
	setup := []string{
		"create schema streamed",
		`create table streamed.kinds (id int primary key, t text, n numeric, a int[], j jsonb, at timestamptz, flag boolean)`,
		`insert into streamed.kinds values
			(1, 'plain', 1.50, '{1,2}', '{"k": [1, {"x": null}]}', '2026-01-02 03:04:05+00', true),
			(2, e'quote " comma , newline \n paren ) é 😀', null, null, 'null', null, null),
			(3, null, -0.0001, '{}', '[]', '1999-12-31 23:59:59.999+00', false),
			(4, '(starts with a paren', 1e20, '{NULL,3}', '"s"', null, true)`,
		"create table streamed.notes (id int primary key, kind_id int references streamed.kinds, body text)",
		"insert into streamed.notes values (1, 1, 'a'), (2, 1, 'b'), (3, 2, null)",
		"grant usage on schema streamed to web_anon",
		"grant select on all tables in schema streamed to web_anon",
	}
	if postgis {
		setup = append(setup, "create extension if not exists postgis",
			"create table streamed.spots (id int primary key, name text, g geometry(point, 4326))",
			"insert into streamed.spots values (1, 'a', 'SRID=4326;POINT(1 2)'), (2, null, null)",
			"grant select on streamed.spots to web_anon")
	} else {
		t.Log("PostGIS is not installed: GeoJSON is not compared")
	}
	for _, sql := range setup {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	snap, err := catalog.Introspect(ctx, conn, catalog.Options{Schemas: []string{"streamed"}})
	if err != nil {
		t.Fatal(err)
	}
	const strip = "application/vnd.svc.array+json;nulls=stripped"
	cases := []struct{ target, accept, prefer string }{
		{"/kinds", "", ""},
		{"/kinds?order=id.desc", "", ""},
		{"/kinds?id=gt.100", "", ""},
		{"/kinds?select=id,t,notes(id,body)&order=id", "", ""},
		{"/notes?select=body,kind:kinds(t,a)&order=id", "", ""},
		{"/notes?select=id,...kinds(t)&order=id", "", ""},
		{"/kinds?select=x:t,y:j->k,z:n::text&order=id", "", ""},
		{"/kinds?order=id", strip, ""},
		{"/kinds?id=gt.100", strip, ""},
		{"/kinds?id=eq.2", "application/vnd.svc.object+json", ""},
		{"/kinds?id=gt.1", "application/vnd.svc.object+json", ""},
		{"/kinds?id=gt.100", "application/vnd.svc.object+json", ""},
		{"/kinds?order=id", "text/csv", ""},
		{"/kinds?id=gt.100", "text/csv", ""},
		{"/kinds?order=id", "", "count=exact"},
		{"/kinds?order=id&limit=2&offset=1", "", "count=exact"},
		{"/kinds?id=gt.100", "", "count=exact"},
		{"/kinds?order=id&limit=2", "", "count=estimated"},
		{"/kinds?select=t.count()", "", "count=exact"},
		{"/kinds?order=id", "application/x-ndjson", ""},
		{"/kinds?select=id,notes(body)&order=id", "application/jsonl", "count=exact"},
		{"/kinds?id=gt.100", "application/jsonl", ""},
	}
	if postgis {
		cases = append(cases,
			struct{ target, accept, prefer string }{"/spots?order=id", "application/geo+json", ""},
			struct{ target, accept, prefer string }{"/spots?id=gt.100", "application/geo+json", ""})
	}
	pc := conn.PgConn()
	for _, c := range cases {
		name := c.target + " " + c.accept + " " + c.prefer
		req := planRead(t, snap, c.target, "streamed", "Accept", c.accept, "Prefer", c.prefer)
		if !query.Streamed(req) {
			t.Errorf("%s: not streamed", name)
			continue
		}
		var whole [][]byte
		st := query.Whole(req)
		runRows(t, pc, st.SQL, st.Args, func(v [][]byte) error {
			whole = cloneRow(v)
			return nil
		})
		frame := query.FramingOf(req)
		var rows [][]byte
		var total []byte
		var present, streamed int
		st = query.Read(req)
		runRows(t, pc, st.SQL, st.Args, func(v [][]byte) error {
			if len(v) != 5 {
				t.Fatalf("%s: a streamed row of %d values", name, len(v))
			}
			if streamed++; streamed == 1 {
				total = bytes.Clone(v[0]) // the count arrives with the first row
			}
			if v[1] != nil {
				present++
				rows = append(rows, bytes.Clone(v[2]))
			}
			return nil
		})
		var joined []byte
		switch {
		case frame.Single && len(rows) > 0:
			joined = rows[0]
		case frame.Single:
			joined = []byte("null")
		case len(rows) == 0:
			joined = []byte(frame.Empty)
		default:
			joined = []byte(frame.Open + string(bytes.Join(rows, []byte(frame.Sep))) + frame.Close)
		}
		if string(whole[1]) != strconv.Itoa(present) {
			t.Errorf("%s: %d rows streamed, the aggregate counted %s", name, present, whole[1])
		}
		if !bytes.Equal(total, whole[0]) && !(whole[0] == nil && string(total) == "0" && present == 0) {
			t.Errorf("%s: count %q streamed, %q aggregated", name, total, whole[0])
		}
		if present == 0 || !frame.Single || present == 1 {
			if !bytes.Equal(joined, whole[2]) {
				t.Errorf("%s:\nstreamed %q\naggregate %q", name, joined, whole[2])
			}
		}
	}
}

func cloneRow(v [][]byte) [][]byte {
	out := make([][]byte, len(v))
	for i := range v {
		out[i] = bytes.Clone(v[i])
	}
	return out
}
