package dbexec_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/catalog"
)

// planContexts sums the memory contexts PostgreSQL keeps prepared
// statements in, in the session of pc: each statement's source, its
// analyzed query and its generic plan.
const planContexts = "select pg_catalog.sum(total_bytes) from pg_catalog.pg_backend_memory_contexts " +
	"where name in ('CachedPlanSource', 'CachedPlanQuery', 'CachedPlan')"

// The statement cache's budget (db-prepared-statements-max-bytes) counts
// what each statement costs its backend by an estimate from its length
// (statementCost). Here each kind of statement SVC writes, from ordinary
// reads to the largest the request limits allow, is prepared and run six
// times, as a request shape repeated would be: PostgreSQL then keeps a
// generic plan beside the statement's trees. The memory its contexts
// gained must be within the estimate. Run with -v for the figures.
func TestStatementCostCoversBackendMemory(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "analyze test.books, test.authors"); err != nil {
		t.Fatal(err)
	}
	// Relations of 10 and 100 columns, to-one (wide, w10) and to-many
	// (many) from narrow.
	if _, err := conn.Exec(ctx, "create schema stmtcost; "+
		"create table stmtcost.wide (id int primary key, "+columns(99, "c%d text")+"); "+
		"create table stmtcost.w10 (id int primary key, "+columns(9, "c%d text")+"); "+
		"create table stmtcost.narrow (id int primary key, wide_id int references stmtcost.wide, w10_id int references stmtcost.w10); "+
		"create table stmtcost.many (id int primary key, narrow_id int references stmtcost.narrow, "+columns(98, "c%d text")+"); "+
		"grant usage on schema stmtcost to web_anon; grant select on all tables in schema stmtcost to web_anon"); err != nil {
		t.Fatal(err)
	}
	snap, err := catalog.Introspect(ctx, conn, catalog.Options{Schemas: []string{"test", "stmtcost"}})
	if err != nil {
		t.Fatal(err)
	}
	pc := conn.PgConn()
	// Every statement is prepared here, whatever the cache would keep.
	dbexec.BudgetStatements(pc, 1<<40)
	// The set-up statement is prepared, and planned generically, first.
	for range 6 {
		run(t, pc, "select 1", nil)
	}
	cases := []struct{ name, target, prefer string }{
		{"lookup", "/books?select=id,title&id=eq.1", ""},
		{"page", "/books?select=id,title,year,pages,tags,meta&year=gte.1970&title=like.*a*&order=year.desc,id&limit=10&offset=5", ""},
		{"embed", "/authors?select=name,books(title,year)&books.year=gt.1900&books.order=year", ""},
		{"nested embeds", "/books?select=title,author:authors(name,books(title,author:authors(name)))&id=lt.10", "count=exact"},
		{"deep embed", "/books?select=" + deepEmbed(16), ""},
		{"32 embeds", "/books?select=id," + columns(32, "a%d:authors(id,name)"), ""},
		{"wide select", "/books?select=" + wideSelect(200), ""},
		{"512 columns", "/books?select=" + columns(512, "c%d:id"), ""},
		{"512 casts", "/books?select=" + columns(512, "c%d:year::text"), ""},
		{"256 JSON paths", "/books?select=" + columns(256, "c%d:meta->>a"), ""},
		{"JSON orders", "/books?select=id&order=" + jsonOrders(50), ""},
		{"256 column filters", "/books?select=id&" + strings.ReplaceAll(columns(256, "year=gt.%d"), ",", "&"), ""},
		{"25 JSON filters", hostileRead(25), ""},
		{"100 JSON filters", hostileRead(100), ""},
		{"256 JSON filters", hostileRead(256), "count=exact"},
		{"* of 10", "/w10?select=*", ""},
		{"* of 100", "/wide?select=*", ""},
		{"100 of 100", "/wide?select=" + columns(100, "a%d:id"), ""},
		{"to-one * of 100", "/narrow?select=id,wide(*)", "count=exact"},
		{"32 to-one * of 10", "/narrow?select=id," + columns(32, "a%d:w10(*)"), ""},
		{"16 to-one * of 100", "/narrow?select=id," + columns(16, "a%d:wide(*)"), ""},
		{"32 to-one of 100", "/narrow?select=id," + columns(32, "a%d:wide(id)"), ""},
		// Fewer to-many embeds: PostgreSQL takes seconds to plan 32.
		{"8 to-many * of 100", "/narrow?select=id," + columns(8, "a%d:many(*)"), ""},
		{"8 to-many of 100", "/narrow?select=id," + columns(8, "a%d:many(id)"), ""},
	}
	for _, c := range cases {
		schema := "test"
		if strings.HasPrefix(c.target, "/w") || strings.HasPrefix(c.target, "/narrow") {
			schema = "stmtcost"
		}
		st := buildRead(t, snap, c.target, schema, "Prefer", c.prefer)
		before := contextBytes(t, pc)
		for range 6 {
			run(t, pc, st.SQL, st.Args)
		}
		used := contextBytes(t, pc) - before
		cost := dbexec.StatementCost(st)
		t.Logf("%-20s %6d bytes of SQL, %4d parameters: %9d bytes in the backend (%4d a byte of SQL), estimated %9d",
			c.name, len(st.SQL), len(st.Args), used, used/int64(len(st.SQL)), cost)
		if used > cost {
			t.Errorf("%s: the backend holds %d bytes for a statement of %d bytes, estimated at %d", c.name, used, len(st.SQL), cost)
		}
	}
}

// run runs sql as a request would, as web_anon.
func run(t *testing.T, pc *pgconn.PgConn, sql string, args []any) {
	t.Helper()
	runRows(t, pc, sql, args, func([][]byte) error { return nil })
}

// runRows is run, handing each row to row.
func runRows(t *testing.T, pc *pgconn.PgConn, sql string, args []any, row func([][]byte) error) {
	t.Helper()
	if err := dbexec.RunStatement(context.Background(), pc, "web_anon", sql, args, row); err != nil {
		t.Fatalf("%.200s: %v", sql, err)
	}
}

// contextBytes is planContexts's sum in pc's session.
func contextBytes(t *testing.T, pc *pgconn.PgConn) int64 {
	t.Helper()
	res, err := pc.Exec(context.Background(), planContexts).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(string(res[0].Rows[0][0]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// buildRead is the main statement SVC writes for a GET of target in
// schema, with the header name set to value unless value is empty.
func buildRead(t *testing.T, snap *snapshot.Snapshot, target, schema, name, value string) query.Statement {
	t.Helper()
	return query.Read(planRead(t, snap, target, schema, name, value))
}

// planRead is the plan of a GET of target in schema, with headers, pairs
// of a name and a value, set where the value is not empty.
func planRead(t *testing.T, snap *snapshot.Snapshot, target, schema string, headers ...string) *plan.Read {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
	relation := strings.TrimPrefix(strings.SplitN(target, "?", 2)[0], "/")
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, relation)
	if err != nil {
		t.Fatalf("%.200s: %v", target, err)
	}
	p, err := plan.BuildRead(req, snap, plan.Options{Names: apierr.SVCNaming, Schemas: []string{schema}, Aggregates: true})
	if err != nil {
		t.Fatalf("%.200s: %v", target, err)
	}
	return p
}

// hostileOperators are filters a text value takes, each writing other SQL.
var hostileOperators = []string{"eq.x", "neq.x", "gt.x", "gte.x", "lt.x", "lte.x", "like.*x*", "ilike.*x*",
	"match.x", "imatch.x", "is.null", "isdistinct.x", "in.(a,b,c)", "fts.x", "plfts.x", "phfts(english).x",
	"wfts.x", "not.eq.x", "like(any).{a,b}", "gt(all).{a,b}", "not.in.(a,b)", "not.like.x"}

// hostileRead is a read of books with n filters on JSON paths of meta,
// each with an operator of its own.
func hostileRead(n int) string {
	r := rand.New(rand.NewPCG(uint64(n), 43))
	var b strings.Builder
	b.WriteString("/books?select=id")
	for j := range n {
		fmt.Fprintf(&b, "&meta->>k%d=%s", j, hostileOperators[r.IntN(len(hostileOperators))])
	}
	return b.String()
}

// wideSelect selects n aliased columns and JSON paths.
func wideSelect(n int) string {
	items := make([]string, n)
	for i := range items {
		if i%2 == 0 {
			items[i] = fmt.Sprintf("c%d:title", i)
		} else {
			items[i] = fmt.Sprintf("c%d:meta->a%d->>b", i, i)
		}
	}
	return strings.Join(items, ",")
}

// jsonOrders orders by n JSON paths.
func jsonOrders(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("meta->k%d.desc.nullslast", i)
	}
	return strings.Join(items, ",")
}

// columns joins n items made by format from their index.
func columns(n int, format string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(format, i)
	}
	return strings.Join(items, ",")
}

// deepEmbed nests n embeds of books in authors in books.
func deepEmbed(n int) string {
	s := "id"
	for i := range n {
		if i%2 == 0 {
			s = "id,author:authors(id,books(" + s + "))"
		}
	}
	return s
}
