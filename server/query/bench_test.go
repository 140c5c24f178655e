package query_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// benchSnapshot holds one 12-column table among 200 others, so lookups pay
// for a realistically sized index.
func benchSnapshot(b testing.TB) *snapshot.Snapshot {
	b.Helper()
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
	s, err := snapshot.New(snapshot.Header{}, c)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkReadPipeline measures what a typical read costs SVC before the
// database sees it: parsing, planning against the snapshot and building SQL
// for 5 filters, 6 columns, an order and a limit.
func BenchmarkReadPipeline(b *testing.B) {
	snap := benchSnapshot(b)
	opts := plan.Options{Schemas: []string{"api"}}
	r := httptest.NewRequest("GET", "/orders?select=c0,c1,c2,c3,c4,c5&c0=gt.10&c1=eq.3&c2=in.(1,2,3)&c3=lte.99&c4=neq.7&order=c0.desc,c1&limit=25", nil)
	b.ReportAllocs()
	for b.Loop() {
		req, err := request.Parse(r, request.KindRelation, "orders")
		if err != nil {
			b.Fatal(err)
		}
		p, err := plan.BuildRead(req, snap, opts)
		if err != nil {
			b.Fatal(err)
		}
		if st := query.Read(p); len(st.Args) != 6 {
			b.Fatalf("statement has %d args, want 6: %s", len(st.Args), st.SQL)
		}
	}
}
