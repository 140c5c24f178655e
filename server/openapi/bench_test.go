package openapi

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// largeSnapshot is a schema the size of PostgREST's big test schema: 326
// relations (250 tables, 76 views) of 4 to 19 columns of varied types
// (keys, foreign keys, enums, domains, arrays, json, generated and
// nullable columns, defaults, comments) and 120 functions, all readable
// by anon, the tables writable.
func largeSnapshot(tb testing.TB) *snapshot.Snapshot {
	tb.Helper()
	types := []snapshot.Column{
		{Type: "text", Nullable: true},
		{Type: "character varying(40)", MaxLength: 40},
		{Type: "integer", Nullable: true, Default: ptr("0")},
		{Type: "bigint"},
		{Type: "numeric(12,2)", Nullable: true},
		{Type: "boolean", Default: ptr("false")},
		{Type: "timestamp with time zone", Default: ptr("now()")},
		{Type: "date", Nullable: true},
		{Type: "uuid", Default: ptr("gen_random_uuid()")},
		{Type: "jsonb", Nullable: true},
		{Type: "text[]", Default: ptr("'{}'::text[]")},
		{Type: "big.state", EnumValues: []string{"new", "open", "closed"}},
		{Type: "big.email", BaseType: "text", Nullable: true},
		{Type: "integer", Generated: true},
	}
	all := grant("PUBLIC", "SELECT")
	rw := grant("anon", "SELECT", "INSERT", "UPDATE", "DELETE")
	var rels []snapshot.Relation
	var links []snapshot.Relationship
	for i := range 326 {
		n := fmt.Sprintf("rel_%03d", i)
		r := snapshot.Relation{QualifiedName: snapshot.QualifiedName{Schema: "big", Name: n}, Kind: snapshot.KindTable,
			Description: "Relation " + n + "\n\nOne of many.", PrimaryKey: []string{"id"},
			Insertable: true, Updatable: true, Deletable: true, Grants: append(all, rw...)}
		if i >= 250 {
			r.Kind, r.Grants = snapshot.KindView, all
		}
		r.Columns = []snapshot.Column{{Name: "id", Type: "bigint", Default: ptr("nextval('seq'::regclass)")}}
		if i > 0 {
			r.Columns = append(r.Columns, snapshot.Column{Name: "parent_id", Type: "bigint", Nullable: true})
			links = append(links, snapshot.Relationship{Table: r.QualifiedName,
				ForeignTable: snapshot.QualifiedName{Schema: "big", Name: fmt.Sprintf("rel_%03d", i-1)},
				Cardinality:  snapshot.ManyToOne, Constraint: n + "_parent_fkey",
				Columns: []snapshot.ColumnPair{{Column: "parent_id", ForeignColumn: "id"}}})
		}
		for j := range 2 + i%16 {
			c := types[(i+j)%len(types)]
			c.Name = fmt.Sprintf("col_%d", j)
			c.Description = "Column " + c.Name
			r.Columns = append(r.Columns, c)
		}
		rels = append(rels, r)
	}
	var fns []snapshot.Function
	for i := range 120 {
		f := snapshot.Function{QualifiedName: snapshot.QualifiedName{Schema: "big", Name: fmt.Sprintf("fn_%03d", i)},
			Volatility: snapshot.Stable, Grants: grant("PUBLIC", "EXECUTE"), Returns: snapshot.ReturnsSetOfComposite,
			ReturnType: snapshot.QualifiedName{Schema: "big", Name: fmt.Sprintf("rel_%03d", i)},
			Arguments: []snapshot.Argument{{Name: "a", Type: "integer", Mode: snapshot.ArgIn},
				{Name: "b", Type: "text", Mode: snapshot.ArgIn, HasDefault: true}}}
		if i%3 == 0 {
			f.Volatility, f.Returns, f.ReturnType = snapshot.Volatile, snapshot.ReturnsScalar, snapshot.QualifiedName{Schema: "pg_catalog", Name: "int4"}
		}
		fns = append(fns, f)
	}
	snap, err := snapshot.New(snapshot.Header{Schemas: []string{"big"}}, snapshot.Content{
		Relations: rels, Relationships: links, Functions: fns,
		Roles: []snapshot.Role{{Name: "anon", Inherit: true}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

// BenchmarkBuildLarge builds the root document of largeSnapshot as anon,
// in each version: "built" is a request the cache cannot answer (the
// document written as it is built, to nowhere), "kept" a later one
// (Cache.Document, the document kept), "kept-compressed" one whose
// document is kept compressed (a bound of half its size) and decompressed
// as it is written. doc-bytes is the document's size, kept-bytes what the
// cache holds.
func BenchmarkBuildLarge(b *testing.B) {
	snap := largeSnapshot(b)
	for _, format := range Formats {
		opts := Options{Schema: "big", Role: "anon", FollowPrivileges: true, Vendor: "svc", Format: format, Anonymous: true}
		doc, err := Build(snap, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(format+"/built", func(b *testing.B) {
			l := newLayout(snap, opts.Schema)
			b.ReportAllocs()
			for b.Loop() {
				if err := write(io.Discard, snap, opts, l); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(doc)), "doc-bytes")
		})
		for _, kept := range []struct {
			name  string
			bound int64
		}{{"kept", 64 << 20}, {"kept-compressed", int64(len(doc)) / 2}} {
			b.Run(format+"/"+kept.name, func(b *testing.B) {
				c := NewCache(kept.bound, func() *snapshot.Snapshot { return snap })
				ctx := context.Background()
				if _, err := c.Document(ctx, snap, opts); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					d, err := c.Document(ctx, snap, opts)
					if err != nil {
						b.Fatal(err)
					}
					if err := d.Write(ctx, io.Discard); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(c.Bytes()), "kept-bytes")
			})
		}
	}
}

// TestLargeDocument: the documents of the large schema describe all of
// it (a benchmark of a truncated document would measure nothing).
func TestLargeDocument(t *testing.T) {
	t.Parallel()
	snap := largeSnapshot(t)
	for _, format := range Formats {
		doc := build(t, snap, Options{Schema: "big", Role: "anon", FollowPrivileges: true, Format: format})
		paths, _ := doc["paths"].(map[string]any)
		if len(paths) != 1+326+120 {
			t.Errorf("%s: %d paths, want the root, 326 relations and 120 functions", format, len(paths))
		}
	}
}
