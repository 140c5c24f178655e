package catalog

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
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
	uri := syntheticDatabase(b)
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

// BenchmarkLoadSnapshot times what svc-serve does with a snapshot file of
// the synthetic schema at start and on every reload: read the file, verify
// the fingerprint, decode and build the lookup index. Besides the bytes a
// load allocates (B/op), it reports the heap a loaded snapshot keeps
// (retained-MiB): what a server holds for it while serving, and once more
// while a reload overlaps the snapshot it replaces.
func BenchmarkLoadSnapshot(b *testing.B) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, syntheticDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	s, err := Introspect(ctx, conn, Options{Schemas: []string{"synth"}, GeneratorVersion: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "synth.svcsnap")
	size, err := snapshot.WriteFile(path, s)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		got, err := snapshot.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if got.Relation(snapshot.QualifiedName{Schema: "synth", Name: "t1"}) == nil {
			b.Fatal("decoded snapshot lacks synth.t1")
		}
	}
	b.ReportMetric(float64(retainedHeap(b, path))/(1<<20), "retained-MiB")
}

// retainedHeap is the live heap a snapshot loaded from path keeps: the
// heap after a collection with it held, less the heap before loading it.
func retainedHeap(b *testing.B, path string) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept, err := snapshot.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// syntheticURI is the database syntheticDatabase loaded, shared by the
// benchmarks of one run because loading takes longer than they do.
var syntheticURI string

// syntheticDatabase returns a database holding SyntheticSchemaSQL(2000,
// 500, 500), loading it on first use.
func syntheticDatabase(b *testing.B) string {
	b.Helper()
	if syntheticURI != "" {
		return syntheticURI
	}
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
	syntheticURI = uri
	return uri
}
