package catalog

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// BenchmarkIntrospect times one introspection of a schema of 2000 tables,
// 500 views and 500 functions, and reports the encoded snapshot's size.
// Loading the schema takes longer than the benchmark itself; run it with
// -benchtime=3x or so.
func BenchmarkIntrospect(b *testing.B) {
	ctx := context.Background()
	uri, err := newDatabase(ctx, "catalog_bench", "")
	if err != nil {
		b.Fatal(err)
	}
	// In batches: one transaction would need a lock per created object.
	stmts := strings.SplitAfter(SyntheticSchemaSQL(2000, 500, 500), ";\n")
	for len(stmts) > 0 {
		n := min(len(stmts), 500)
		if err := execScript(ctx, uri, strings.Join(stmts[:n], "")); err != nil {
			b.Fatal(err)
		}
		stmts = stmts[n:]
	}
	conn, err := pgx.Connect(ctx, uri)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	opts := Options{Schemas: []string{"synth"}, GeneratorVersion: "bench"}
	var s *snapshot.Snapshot
	for b.Loop() {
		if s, err = Introspect(ctx, conn, opts); err != nil {
			b.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := snapshot.Encode(&buf, s); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(buf.Len()), "snapshot-bytes")
	b.ReportMetric(float64(len(s.Content.Relations)), "relations")
	b.ReportMetric(float64(len(s.Content.Relationships)), "relationships")
	b.ReportMetric(float64(len(s.Content.Functions)), "functions")
}
