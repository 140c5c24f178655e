package query_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestEmbedNames checks that a read names what it embeds as PostgREST
// does, `<table>_<depth>` and laterals `<parent>_<key>_<depth>`, in every
// kind of embed: no alias of SVC's own reaches an error message or a plan.
func TestEmbedNames(t *testing.T) {
	cases := []struct {
		query string
		want  []string // fragments, in order
	}{
		{"select=c0,t1(c1,orders(c2))", []string{
			`pg_catalog.row_to_json("orders_t1_1".*) as "t1"`,
			`coalesce("t1_orders_2"."t1_orders_2", '[]') as "orders" from "api"."t1" as "t1_1"`,
			`left join lateral (select pg_catalog.json_agg("t1_orders_2") as "t1_orders_2" from (select "orders_2"."c2" as "c2" ` +
				`from "api"."orders" as "orders_2" where "orders_2"."c1" = "t1_1"."c0" limit $1) as "t1_orders_2") as "t1_orders_2" on true`,
			`where "t1_1"."c0" = "api"."orders"."c1") as "orders_t1_1" on true`,
		}},
		// An alias names the lateral; the relation keeps its table's name.
		{"select=c0,x:t2(c1)", []string{`coalesce("orders_x_1"."orders_x_1", '[]') as "x"`, `from "api"."t2" as "t2_1"`}},
		// Spread columns are read from the lateral, which outputs them.
		{"select=c0,...t1(one:c1)", []string{`"orders_t1_1"."one" as "one"`, `"t1_1"."c1" as "one" from "api"."t1" as "t1_1"`}},
		// A to-one embed's presence is its lateral row's.
		{"select=c0,t1()&t1=not.is.null", []string{`where "orders_t1_1" is distinct from null`}},
		{"select=c0,t2()&t2=is.null", []string{`where "orders_t2_1"."orders_t2_1" is null`}},
		// Many-to-many: the junction is named like the target.
		{"select=c0,t4(c1)", []string{`from "api"."t4" as "t4_1" join "api"."t5" as "t5_1" on "t5_1".`}},
		// A computed relationship is called on the parent's row.
		{"select=c0,latest(c1)", []string{`("api"."orders".*) as "t2_1"`, `as "orders_latest_1" on true`}},
	}
	svcAlias := regexp.MustCompile(`_svc_[a-z]*[0-9]`)
	for _, c := range cases {
		sql := buildTarget(t, "/orders?"+c.query, "", "").read.SQL
		if at := holdsInOrder(sql, c.want); at != "" {
			t.Errorf("%s: statement lacks %s:\n%s", c.query, at, sql)
		}
		if m := svcAlias.FindString(sql); m != "" || strings.Contains(sql, `"_svc_`) {
			t.Errorf("%s: statement names an embed %q as SVC does:\n%s", c.query, m, sql)
		}
	}
}

// TestCountExists checks that a count reads the embeds that decide which
// rows count as PostgREST's count query does: EXISTS conditions, written
// as they are, so the planner's estimate (count=planned) is PostgREST's.
func TestCountExists(t *testing.T) {
	cases := []struct {
		query string
		want  string
	}{
		{"select=c0,t1()&t1=not.is.null",
			`explain (format json) select 1 from "api"."orders" where exists (select 1 from "api"."t1" as "t1_1" where "t1_1"."c0" = "api"."orders"."c1")`},
		{"select=c0,t2(c1)&t2=is.null&t2.c1=eq.1",
			`explain (format json) select 1 from "api"."orders" where not exists (select 1 from "api"."t2" as "t2_1" where "t2_1"."c2" = "api"."orders"."c0" and ("t2_1"."c1" = $1))`},
		{"select=c0,t1(),t2!inner(c1)&or=(t1.is.null,c0.eq.1)",
			`explain (format json) select 1 from "api"."orders" where (not exists (select 1 from "api"."t1" as "t1_1" where "t1_1"."c0" = "api"."orders"."c1") or ("api"."orders"."c0" = $1)) and exists (select 1 from "api"."t2" as "t2_1" where "t2_1"."c2" = "api"."orders"."c0")`},
	}
	for _, c := range cases {
		count := buildTarget(t, "/orders?"+c.query, "", "count=planned").count
		if count == nil || count.SQL != c.want {
			t.Errorf("%s: count statement\n%v\nwant\n%s", c.query, count, c.want)
		}
	}
}
