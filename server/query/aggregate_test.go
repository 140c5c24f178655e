package query_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// readSQL plans rawQuery on orders with aggregates enabled and returns the
// statement.
func readSQL(t *testing.T, snap *snapshot.Snapshot, rawQuery string) query.Statement {
	t.Helper()
	r := httptest.NewRequest("GET", "/orders?"+rawQuery, nil)
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "orders")
	if err != nil {
		t.Fatalf("%s: %v", rawQuery, err)
	}
	p, err := plan.BuildRead(req, snap, plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}, Aggregates: true})
	if err != nil {
		t.Fatalf("%s: %v", rawQuery, err)
	}
	return query.Read(p)
}

func TestAggregateSQL(t *testing.T) {
	t.Parallel()
	snap := benchSnapshot(t)
	const orders = `"api"."orders"`
	cases := []struct {
		query string
		want  []string // fragments the statement must hold, in order
		not   []string // fragments it must not hold
	}{
		{"select=c1.sum()", []string{`pg_catalog.sum(` + orders + `."c1") as "sum" from ` + orders + `) _svc_row`}, []string{"group by"}},
		{"select=c0,n:count(),c1::bigint.avg()::int",
			[]string{orders + `."c0" as "c0", pg_catalog.count(*) as "n", (pg_catalog.avg((` + orders + `."c1")::bigint))::int as "avg"`, " group by 1)"}, nil},
		// * groups by each of its columns; the aggregate is not grouped.
		{"select=*,count()", []string{orders + `."c0", `, `pg_catalog.count(*) as "count"`, " group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)"}, []string{".*"}},
		// A JSON path is grouped and ordered by position: written again its
		// key would be another bind parameter.
		{"select=doc->>k,count()&order=doc->>k.desc", []string{`->>$1::text as "k"`, " group by 1 order by 1 desc"}, []string{"$2"}},
		// A to-one embed groups as jsonb, which has equality.
		{"select=c1.max(),t1(c2)", []string{`pg_catalog.row_to_json("orders_t1_1".*)::jsonb as "t1"`, " group by 2)"}, nil},
		// A spread's aggregates are computed by its parent over the
		// spread's raw values; the spread itself does not group.
		{"select=c0,...t1(c2,total:c3.sum(),count())", []string{
			`pg_catalog.sum("orders_t1_1"."total") as "total", pg_catalog.count("orders_t1_1"."count") as "count"`,
			`"c3" as "total", true as "count" from "api"."t1"`, ` on true group by 1, 2)`}, []string{"pg_catalog.sum(\"t1_1"}},
		// Aggregates inside a to-many embed group within it, per parent.
		{"select=c0,t2(c1,c2.min())", []string{`pg_catalog.min("t2_1"."c2") as "min" from "api"."t2" as "t2_1" where "t2_1"."c2" = ` + orders + `."c0" group by 1)`}, nil},
		// The legacy bare count counts rows.
		{"select=count", []string{`pg_catalog.count(*) as "count" from ` + orders + `)`}, nil},
	}
	for _, c := range cases {
		sql := readSQL(t, snap, c.query).SQL
		rest := sql
		for _, w := range c.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: statement lacks %s (after the fragments before it):\n%s", c.query, w, sql)
				break
			}
			rest = rest[i+len(w):]
		}
		for _, n := range c.not {
			if strings.Contains(sql, n) {
				t.Errorf("%s: statement holds %s:\n%s", c.query, n, sql)
			}
		}
	}
}

// TestAggregateSQLShapeOnly: values travel as arguments, so requests of one
// shape share one statement text (and its prepared statement).
func TestAggregateSQLShapeOnly(t *testing.T) {
	t.Parallel()
	snap := benchSnapshot(t)
	a := readSQL(t, snap, "select=doc->>k,c1.sum()&c0=gt.1&limit=5")
	b := readSQL(t, snap, "select=doc->>k,c1.sum()&c0=gt.99&limit=7")
	if a.SQL != b.SQL {
		t.Errorf("statements differ:\n%s\n%s", a.SQL, b.SQL)
	}
}
