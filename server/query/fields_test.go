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

// fieldsSnapshot: paints (id, color of domain api.color, name, doc jsonb,
// words tsvector) with the computed fields doubled (integer), tint
// (api.color) and info (jsonb); jobs reference paints. api.color has a
// representation each way.
func fieldsSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	q := func(name string) snapshot.QualifiedName { return snapshot.QualifiedName{Schema: "api", Name: name} }
	col := func(name, typ, base string) snapshot.Column {
		return snapshot.Column{Name: name, Type: typ, BaseType: base}
	}
	c := snapshot.Content{
		Relations: []snapshot.Relation{
			{QualifiedName: q("paints"), Kind: snapshot.KindTable, PrimaryKey: []string{"id"},
				Columns: []snapshot.Column{col("id", "integer", "integer"), col("color", "api.color", "integer"),
					col("name", "text", "text"), col("doc", "jsonb", "jsonb"), col("words", "tsvector", "tsvector")},
				ComputedFields: []snapshot.ComputedField{
					{Function: q("doubled"), Type: "integer", BaseType: "integer"},
					{Function: q("info"), Type: "jsonb", BaseType: "jsonb"},
					{Function: q("tint"), Type: "api.color", BaseType: "integer"},
				}},
			{QualifiedName: q("jobs"), Kind: snapshot.KindTable,
				Columns: []snapshot.Column{col("id", "integer", "integer"), col("paint_id", "integer", "integer")}},
		},
		Relationships: []snapshot.Relationship{
			{Table: q("jobs"), ForeignTable: q("paints"), Cardinality: snapshot.ManyToOne, Constraint: "jobs_paint_fkey",
				Columns: []snapshot.ColumnPair{{Column: "paint_id", ForeignColumn: "id"}}},
		},
		Casts: []snapshot.Cast{
			{Source: "api.color", Target: "json", Function: q("color_json")},
			{Source: "json", Target: "api.color", Function: q("color_from_json")},
			{Source: "text", Target: "api.color", Function: q("color_from_text")},
		},
	}
	s, err := snapshot.New(snapshot.Header{}, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// holdsInOrder reports the first of want that sql does not hold after
// the previous one, or "".
func holdsInOrder(sql string, want []string) string {
	rest := sql
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			return w
		}
		rest = rest[i+len(w):]
	}
	return ""
}

func TestFieldsReadSQL(t *testing.T) {
	t.Parallel()
	snap := fieldsSnapshot(t)
	const paints = `"api"."paints"`
	cases := []struct {
		target string
		want   []string // fragments the statement holds, in order
		not    []string
	}{
		// A computed field is its function called on the row.
		{"/paints?select=id,d:doubled&doubled=gt.1&order=doubled.desc",
			[]string{`"api"."doubled"(` + paints + `.*) as "d"`, `where ("api"."doubled"(` + paints + `.*) > $1)`,
				`order by "api"."doubled"(` + paints + `.*) desc`}, nil},
		// A path on a jsonb result applies directly, without to_jsonb.
		{"/paints?select=info->>k", []string{`"api"."info"(` + paints + `.*)->>$1::text as "k"`}, []string{"to_jsonb"}},
		// * lists the columns, the represented one through its function;
		// an explicit cast applies on top.
		{"/paints", []string{paints + `."id", "api"."color_json"(` + paints + `."color") as "color", ` + paints + `."name"`},
			[]string{paints + ".*"}},
		{"/paints?select=c:color::text,tint", []string{`("api"."color_json"(` + paints + `."color"))::text as "c"`,
			`"api"."color_json"("api"."tint"(` + paints + `.*)) as "tint"`}, nil},
		// Filters read operands through the cast from text; like does not.
		{"/paints?select=id&color=eq.fff&tint=in.(a,b)&color=like.f*",
			[]string{paints + `."color" = "api"."color_from_text"($1)`, paints + `."color" like $2`,
				`"api"."tint"(` + paints + `.*) = any((select "api"."color_from_text"(pg_catalog.unnest($3::text[]))))`}, nil},
		{"/paints?select=id&color=gt(any).{a,b}",
			[]string{`> any((select "api"."color_from_text"(pg_catalog.unnest($1::text[]))))`}, nil},
		// Full-text search reads what is not a tsvector through
		// to_tsvector, in the search's language.
		{"/paints?select=id&name=fts(simple).x&doc=wfts.y&words=plfts.z",
			[]string{`pg_catalog.to_tsvector(` + paints + `."doc") @@ websearch_to_tsquery($1)`,
				`pg_catalog.to_tsvector($2::regconfig, ` + paints + `."name") @@ to_tsquery($3::regconfig, $4)`,
				`(` + paints + `."words" @@ plainto_tsquery($5))`}, nil},
		// An embed's represented output is formatted inside it; ordering
		// the parent by it sorts the stored value, carried beside.
		{"/jobs?select=id,paints(color)&order=paints(color)",
			[]string{`"api"."color_json"("paints_1"."color") as "color", "paints_1"."color" as "paints_order_1"`,
				`as "jobs_paints_1_order" on true left join lateral (select "jobs_paints_1_order"."color" where "jobs_paints_1_order" is distinct from null) as "jobs_paints_1"`,
				`order by "jobs_paints_1_order"."paints_order_1" asc`}, nil},
		// Aggregating nodes group by the stored values.
		{"/paints?select=color,count()", []string{`select ` + paints + `."color" as "color", pg_catalog.count(*)`},
			[]string{"color_json"}},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("GET", tc.target, nil)
		rel, _, _ := strings.Cut(strings.TrimPrefix(tc.target, "/"), "?")
		req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, rel)
		if err != nil {
			t.Fatalf("%s: %v", tc.target, err)
		}
		p, err := plan.BuildRead(req, snap, plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}, Aggregates: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.target, err)
		}
		sql := query.Read(p).SQL
		if missing := holdsInOrder(sql, tc.want); missing != "" {
			t.Errorf("%s: statement lacks %s\n%s", tc.target, missing, sql)
		}
		for _, n := range tc.not {
			if strings.Contains(sql, n) {
				t.Errorf("%s: statement holds %s\n%s", tc.target, n, sql)
			}
		}
	}
}

func TestFieldsWriteSQL(t *testing.T) {
	t.Parallel()
	snap := fieldsSnapshot(t)
	const paints = `"api"."paints"`
	cases := []struct {
		method, target, prefer, body string
		want                         []string
	}{
		// The represented column is read from the body as json by its
		// cast's function; the others as their own type.
		{"POST", "/paints", "", `[{"id":1,"color":"#fff"}]`,
			[]string{`select "api"."color_from_json"(_svc_p."color"), _svc_p."id"`,
				`from pg_catalog.json_to_recordset($1::json) as _svc_p("color" json, "id" integer)`}},
		{"PATCH", "/paints?id=eq.1", "", `{"color":"#fff"}`,
			[]string{`set "color" = "api"."color_from_json"(_svc_p."color") from pg_catalog.json_to_record($1::json) as _svc_p("color" json)`}},
		{"POST", "/paints?columns=id,color", "missing=default", `[{"id":1}]`,
			[]string{`(_svc_p.r)."id"`, `cross join lateral pg_catalog.json_to_record(_svc_e.j) as _svc_r("color" json, "id" integer)`}},
		// Without a represented column the row type reads the body.
		{"POST", "/paints", "", `[{"id":1,"name":"x"}]`,
			[]string{`from pg_catalog.json_populate_recordset(null::` + paints + `, $1::json) _svc_p`}},
		// A computed field filters the rows to change on the table itself,
		// and is read from the written rows rebuilt as the table's type.
		{"PATCH", "/paints?doubled=gt.2&select=id,doubled", "return=representation", `{"name":"x"}`,
			[]string{`where ("api"."doubled"(` + paints + `.*) > $2)`,
				`"api"."doubled"(row("_svc_write"."id", "_svc_write"."color", "_svc_write"."name", "_svc_write"."doc", "_svc_write"."words")::` + paints + `) as "doubled"`}},
		// The written rows are formatted too, * column by column.
		{"POST", "/paints", "return=representation", `[{"id":1}]`,
			[]string{`"_svc_write"."id", "api"."color_json"("_svc_write"."color") as "color"`}},
	}
	for _, tc := range cases {
		r := httptest.NewRequest(tc.method, tc.target, nil)
		if tc.prefer != "" {
			r.Header.Set("Prefer", tc.prefer)
		}
		req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "paints")
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.target, err)
		}
		payload, err := request.ParsePayload("application/json", []byte(tc.body), req.Columns)
		if err != nil {
			t.Fatal(err)
		}
		w, err := plan.BuildWrite(req, payload, snap, plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.target, err)
		}
		sql := query.Write(w).SQL
		if missing := holdsInOrder(sql, tc.want); missing != "" {
			t.Errorf("%s %s: statement lacks %s\n%s", tc.method, tc.target, missing, sql)
		}
	}
}

// TestFieldsShapeKept checks that a read with computed fields and parsed
// operands is kept for its shape, and binds another read of the shape.
func TestFieldsShapeKept(t *testing.T) {
	t.Parallel()
	snap := fieldsSnapshot(t)
	read := func(target string) (query.Statement, *request.Template) {
		r := httptest.NewRequest("GET", target, nil)
		req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "paints")
		if err != nil {
			t.Fatal(err)
		}
		p, err := plan.BuildRead(req, snap, plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}})
		if err != nil {
			t.Fatal(err)
		}
		var tpl request.Template
		if !tpl.Read(r, request.KindRelation, "paints") {
			t.Fatalf("%s has no template", target)
		}
		return query.Read(p), &tpl
	}
	first, _ := read("/paints?select=id,tint&color=in.(a,b)&doubled=gt.1&name=fts(simple).x")
	second, tpl := read("/paints?select=id,tint&color=in.(c)&doubled=gt.7&name=fts(german).y")
	kept, ok := first.Shape()
	if !ok {
		t.Fatal("the statement cannot be kept")
	}
	bound, ok := kept.Bind(tpl)
	if !ok || bound.SQL != second.SQL || len(bound.Args) != len(second.Args) {
		t.Fatalf("bound %v:\n%s\n%v\nwant\n%s\n%v", ok, bound.SQL, bound.Args, second.SQL, second.Args)
	}
	for i := range bound.Args {
		if bound.Args[i] != second.Args[i] {
			t.Errorf("argument %d: %v, want %v", i+1, bound.Args[i], second.Args[i])
		}
	}
}
