package dbexec_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/sql/catalog"
)

// lastingContexts sums the memory contexts of pc's session but those that
// hold prepared statements, which nothing here prepares: what is left to
// grow from one request to the next is what the backend keeps for the
// session's life, the row types above all.
const lastingContexts = "select pg_catalog.sum(total_bytes - free_bytes)::int8 from pg_catalog.pg_backend_memory_contexts " +
	"where name not in ('CachedPlanSource', 'CachedPlanQuery', 'CachedPlan')"

// The session ledger (db-session-row-types-max-bytes) counts what each
// new statement's row types cost the backend by an estimate from the plan
// (query.Statement.RowTypes). Here each kind of read is run in many
// variants that differ only by their aliases, each a new row type, as a
// client sending ever new aliases would: what the backend gained per
// variant must be within the estimate. Run with -v for the figures.
func TestRowTypeCostCoversBackendMemory(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "create schema rowtypecost; "+
		"create table rowtypecost.w10 (id int primary key, "+columns(9, "c%d text")+"); "+
		"create table rowtypecost.narrow (id int primary key, w10_id int references rowtypecost.w10); "+
		"create table rowtypecost.many (id int primary key, narrow_id int references rowtypecost.narrow, "+columns(9, "c%d text")+"); "+
		"insert into rowtypecost.w10 (id) values (1); insert into rowtypecost.narrow values (1, 1); "+
		"insert into rowtypecost.many (id, narrow_id) values (1, 1), (2, 1); "+
		"grant usage on schema rowtypecost to web_anon; grant select on all tables in schema rowtypecost to web_anon"); err != nil {
		t.Fatal(err)
	}
	snap, err := catalog.Introspect(ctx, conn, catalog.Options{Schemas: []string{"test", "rowtypecost"}})
	if err != nil {
		t.Fatal(err)
	}
	pc := conn.PgConn()
	dbexec.BudgetStatements(pc, 0) // parsed each time, as with db-prepared-statements off
	cases := []struct {
		name, accept string
		target       func(v int) string
	}{
		{"1 column", "", func(v int) string { return fmt.Sprintf("/books?select=a%d:id", v) }},
		{"8 columns", "", func(v int) string { return "/books?select=" + aliased(v, 8, "id") }},
		{"48 casts", "", func(v int) string { return "/books?select=" + aliased(v, 48, "year::text") }},
		{"72 casts", "", func(v int) string { return "/books?select=" + aliased(v, 72, "year::text") }},
		{"128 casts", "", func(v int) string { return "/books?select=" + aliased(v, 128, "year::text") }},
		{"512 casts", "", func(v int) string { return "/books?select=" + aliased(v, 512, "year::text") }},
		{"512 casts, CSV", "text/csv", func(v int) string { return "/books?select=" + aliased(v, 512, "year::text") }},
		{"512 casts, object", "application/vnd.svc.object+json", func(v int) string {
			return "/books?id=eq.1&select=" + aliased(v, 512, "year::text")
		}},
		{"to-one embed", "", func(v int) string {
			return fmt.Sprintf("/narrow?select=id,w%d:w10(%s)", v, aliased(v, 10, "c1"))
		}},
		{"to-many embed", "", func(v int) string {
			return fmt.Sprintf("/narrow?select=id,m%d:many(%s)", v, aliased(v, 10, "c1"))
		}},
		{"spread embed", "", func(v int) string {
			return fmt.Sprintf("/narrow?select=id,...w10(%s)", aliased(v, 10, "c1"))
		}},
		{"8 embeds", "", func(v int) string {
			return "/narrow?select=id," + columns(8, fmt.Sprintf("e%d_%%d:many(%s)", v, aliased(v, 4, "id")))
		}},
	}
	const variants = 100
	for ci, c := range cases {
		schema := "test"
		if strings.HasPrefix(c.target(0), "/narrow") {
			schema = "rowtypecost"
		}
		// A first variant brings in what every variant shares (the
		// relation's cache entries, the casts' functions).
		base := (ci + 1) * 1000
		st := buildRead(t, snap, c.target(base), schema, "Accept", c.accept)
		run(t, pc, st.SQL, st.Args)
		before := lastingBytes(t, conn)
		for v := range variants {
			st = buildRead(t, snap, c.target(base+1+v), schema, "Accept", c.accept)
			run(t, pc, st.SQL, st.Args)
		}
		used := (lastingBytes(t, conn) - before) / variants
		t.Logf("%-18s %7d bytes kept per new shape, estimated %7d", c.name, used, st.RowTypes)
		if used > int64(st.RowTypes) {
			t.Errorf("%s: the backend keeps %d bytes for each new shape, estimated at %d", c.name, used, st.RowTypes)
		}
	}
}

// lastingBytes is lastingContexts's sum in conn's session.
func lastingBytes(t *testing.T, conn *pgx.Conn) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(context.Background(), lastingContexts).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// aliased selects n columns named after variant v, each of field.
func aliased(v, n int, field string) string {
	return columns(n, fmt.Sprintf("a%d_%%d:%s", v, field))
}
