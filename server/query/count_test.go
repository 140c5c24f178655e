package query_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
)

// TestExactCount checks where count=exact's total comes from: the page's
// own count when the page is every row read (no limit, offset, db-max-rows
// or grouping), so the statement reads the rows once, as PostgREST's
// does (the aggregate's count, or a streamed read's window over its
// rows); a count of its own otherwise.
func TestExactCount(t *testing.T) {
	t.Parallel()
	snap := benchSnapshot(t)
	cases := []struct {
		target  string
		maxRows int64
		once    bool
	}{
		{"/orders?c0=gt.1", 0, true},
		{"/orders?select=c0,t1(c0)", 0, true},
		{"/orders?limit=10", 0, false},
		{"/orders?offset=2", 0, false},
		{"/orders", 1000, false},
		{"/orders?select=c0,count()", 0, false},
	}
	for _, c := range cases {
		t.Run(c.target, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", c.target, nil)
			r.Header.Set("Prefer", "count=exact")
			req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "orders")
			if err != nil {
				t.Fatal(err)
			}
			p, err := plan.BuildRead(req, snap, plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}, MaxRows: c.maxRows, Aggregates: true})
			if err != nil {
				t.Fatal(err)
			}
			sql := query.Whole(p).SQL
			once := strings.HasPrefix(sql, "select pg_catalog.count(_svc_row) as total_count, ")
			if once != c.once || !strings.Contains(sql, "pg_catalog.count(_svc_row) as page_count") {
				t.Errorf("aggregate: counted once = %v, want %v:\n%s", once, c.once, sql)
			}
			sql = query.Read(p).SQL
			once = strings.HasPrefix(sql, "select coalesce(_svc_line.total, 0) as total_count, ") &&
				strings.Contains(sql, "pg_catalog.count(*) over () as total")
			own := strings.HasPrefix(sql, "select (select pg_catalog.count(*) from ")
			if once != c.once || own == c.once {
				t.Errorf("streamed: counted once = %v, want %v:\n%s", once, c.once, sql)
			}
		})
	}
}
