package query_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// benchSnapshot holds one 12-column table among 200 others, so lookups pay
// for a realistically sized index. orders relates to t1 (many-to-one),
// t2 (one-to-many, and a computed to-one "latest"), t3 (twice, so a bare
// embed is ambiguous) and t4 (many-to-many through t5); t1 relates back.
func benchSnapshot(b testing.TB) *snapshot.Snapshot {
	b.Helper()
	s, err := snapshot.New(snapshot.Header{}, benchContent())
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchContent is benchSnapshot's content.
func benchContent() snapshot.Content {
	var c snapshot.Content
	for t := range 200 {
		rel := snapshot.Relation{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: fmt.Sprintf("t%d", t)}, Kind: snapshot.KindTable}
		if t == 0 {
			rel.Name = "orders"
		}
		for i := range 12 {
			rel.Columns = append(rel.Columns, snapshot.Column{Name: fmt.Sprintf("c%d", i), Type: "integer", BaseType: "integer"})
		}
		rel.Columns = append(rel.Columns, snapshot.Column{Name: "doc", Type: "jsonb", BaseType: "jsonb"},
			snapshot.Column{Name: "tags", Type: "text[]", BaseType: "text[]"})
		c.Relations = append(c.Relations, rel)
	}
	c.Relationships = benchRelationships()
	return c
}

func benchRelationships() []snapshot.Relationship {
	q := func(name string) snapshot.QualifiedName { return snapshot.QualifiedName{Schema: "api", Name: name} }
	pair := func(col, fcol string) []snapshot.ColumnPair {
		return []snapshot.ColumnPair{{Column: col, ForeignColumn: fcol}}
	}
	latest := q("latest")
	return []snapshot.Relationship{
		{Table: q("orders"), ForeignTable: q("t1"), Cardinality: snapshot.ManyToOne, Constraint: "o_t1", Columns: pair("c1", "c0")},
		{Table: q("t1"), ForeignTable: q("orders"), Cardinality: snapshot.OneToMany, Constraint: "o_t1", Columns: pair("c0", "c1")},
		{Table: q("orders"), ForeignTable: q("t2"), Cardinality: snapshot.OneToMany, Constraint: "t2_o", Columns: pair("c0", "c2")},
		{Table: q("orders"), ForeignTable: q("t2"), Cardinality: snapshot.ManyToOne, Constraint: "latest", Function: &latest},
		{Table: q("orders"), ForeignTable: q("t3"), Cardinality: snapshot.ManyToOne, Constraint: "o_t3_a", Columns: pair("c3", "c0")},
		{Table: q("orders"), ForeignTable: q("t3"), Cardinality: snapshot.ManyToOne, Constraint: "o_t3_b", Columns: pair("c4", "c0")},
		{Table: q("orders"), ForeignTable: q("t4"), Cardinality: snapshot.ManyToMany, Constraint: "t5_t4",
			Junction: &snapshot.Junction{Table: q("t5"), SourceConstraint: "t5_o", SourceColumns: pair("c1", "c0"),
				TargetConstraint: "t5_t4", TargetColumns: pair("c2", "c0")}},
	}
}

// BenchmarkLookupPipeline is the cheapest read, one row by key: what a
// plan cache keyed by request shape could at most save per request.
func BenchmarkLookupPipeline(b *testing.B) {
	benchPipeline(b, "/orders?c0=eq.42", 1)
}

// BenchmarkReadPipeline measures what a typical read costs SVC before the
// database sees it: parsing, planning against the snapshot and building SQL
// for 5 filters, 6 columns, an order and a limit.
func BenchmarkReadPipeline(b *testing.B) {
	benchPipeline(b, "/orders?select=c0,c1,c2,c3,c4,c5&c0=gt.10&c1=eq.3&c2=in.(1,2,3)&c3=lte.99&c4=neq.7&order=c0.desc,c1&limit=25", 6)
}

// BenchmarkEmbedPipeline is BenchmarkReadPipeline for a read with a
// to-one, a to-many and a nested embed with their own filters and order.
func BenchmarkEmbedPipeline(b *testing.B) {
	benchPipeline(b, "/orders?select=c0,c1,t1(c0,c2,orders(c0)),t2(c0,c3)&c0=gt.10&t2.c3=eq.1&t2.order=c0.desc&t2.limit=5&order=t1(c2).desc&limit=25", 4)
}

// benchPipeline parses, plans and builds the read of target, whose
// statement must bind wantArgs values.
func benchPipeline(b *testing.B, target string, wantArgs int) {
	snap := benchSnapshot(b)
	opts := plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}}
	r := httptest.NewRequest("GET", target, nil)
	b.ReportAllocs()
	for b.Loop() {
		req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "orders")
		if err != nil {
			b.Fatal(err)
		}
		p, err := plan.BuildRead(req, snap, opts)
		if err != nil {
			b.Fatal(err)
		}
		if st := query.Read(p); len(st.Args) != wantArgs {
			b.Fatalf("statement has %d args, want %d: %s", len(st.Args), wantArgs, st.SQL)
		}
	}
}

// BenchmarkKeptPipeline is what a read of a shape seen before costs SVC
// instead of parsing, planning and building: reading the request's
// template and binding its operands into the kept statement.
func BenchmarkKeptPipeline(b *testing.B) {
	for _, bc := range []struct {
		name, target string
		wantArgs     int
	}{
		{"lookup", "/orders?c0=eq.42", 1},
		{"read", "/orders?select=c0,c1,c2,c3,c4,c5&c0=gt.10&c1=eq.3&c2=in.(1,2,3)&c3=lte.99&c4=neq.7&order=c0.desc,c1&limit=25", 6},
		{"embed", "/orders?select=c0,c1,t1(c0,c2,orders(c0)),t2(c0,c3)&c0=gt.10&t2.c3=eq.1&t2.order=c0.desc&t2.limit=5&order=t1(c2).desc&limit=25", 4},
	} {
		b.Run(bc.name, func(b *testing.B) {
			snap := benchSnapshot(b)
			r := httptest.NewRequest("GET", bc.target, nil)
			req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "orders")
			if err != nil {
				b.Fatal(err)
			}
			p, err := plan.BuildRead(req, snap, plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}})
			if err != nil {
				b.Fatal(err)
			}
			kept, ok := query.Read(p).Shape()
			if !ok {
				b.Fatal("statement cannot be kept")
			}
			var t request.Template
			b.ReportAllocs()
			for b.Loop() {
				if !t.Read(r, request.KindRelation, "orders") {
					b.Fatal("no template")
				}
				st, ok := kept.Bind(&t)
				if !ok || len(st.Args) != bc.wantArgs {
					b.Fatalf("bound %v, %d args, want %d", ok, len(st.Args), bc.wantArgs)
				}
			}
		})
	}
}
