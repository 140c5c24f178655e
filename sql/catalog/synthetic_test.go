package catalog

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestSyntheticSchema loads a small synthetic schema, so the benchmark's
// generator is known to produce valid SQL and the shapes it promises.
func TestSyntheticSchema(t *testing.T) {
	t.Parallel()
	uri, err := newDatabase(context.Background(), "catalog_synthetic", SyntheticSchemaSQL(3, 2, 4))
	if err != nil {
		t.Fatal(err)
	}
	s, err := introspectOpts(uri, Options{Schemas: []string{"synth"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Content.Relationships {
		got = append(got, renderRelationship(r))
	}
	for _, f := range s.Content.Functions {
		got = append(got, renderFunction(f))
	}
	// t0 refers to itself, t1 to t0, t2 to t1; v0 joins t0 to its parent
	// (t0), v1 joins t1 to t0.
	want := strings.Split(strings.TrimSpace(`
synth.t0 -> synth.t0 one-to-many f0 fn synth.f0 self
synth.t0 -> synth.t0 many-to-one t0_parent_id_fkey (parent_id=id) self
synth.t0 -> synth.t0 one-to-many t0_parent_id_fkey (id=parent_id) self
synth.t0 -> synth.t1 one-to-many t1_parent_id_fkey (id=parent_id)
synth.t0 -> synth.v0 many-to-one t0_parent_id_fkey (parent_id=item_id)
synth.t0 -> synth.v0 one-to-many t0_parent_id_fkey (id=parent_id)
synth.t0 -> synth.v1 one-to-many t1_parent_id_fkey (id=parent_id)
synth.t1 -> synth.t0 many-to-one f1 fn synth.f1
synth.t1 -> synth.t0 many-to-one t1_parent_id_fkey (parent_id=id)
synth.t1 -> synth.t2 one-to-many t2_parent_id_fkey (id=parent_id)
synth.t1 -> synth.v0 many-to-one t1_parent_id_fkey (parent_id=item_id)
synth.t2 -> synth.t1 many-to-one t2_parent_id_fkey (parent_id=id)
synth.t2 -> synth.v1 many-to-one t2_parent_id_fkey (parent_id=item_id)
synth.v0 -> synth.t0 many-to-one t0_parent_id_fkey (parent_id=id)
synth.v0 -> synth.t0 one-to-many t0_parent_id_fkey (item_id=parent_id)
synth.v0 -> synth.t1 one-to-many t1_parent_id_fkey (item_id=parent_id)
synth.v0 -> synth.v0 many-to-one t0_parent_id_fkey (parent_id=item_id) self
synth.v0 -> synth.v0 one-to-many t0_parent_id_fkey (item_id=parent_id) self
synth.v0 -> synth.v1 one-to-many t1_parent_id_fkey (item_id=parent_id)
synth.v1 -> synth.t0 many-to-one t1_parent_id_fkey (parent_id=id)
synth.v1 -> synth.t2 one-to-many t2_parent_id_fkey (item_id=parent_id)
synth.v1 -> synth.v0 many-to-one t1_parent_id_fkey (parent_id=item_id)
synth.f0(in r synth.t0) setof_composite synth.t0 stable rows=1000
synth.f1(in r synth.t1) composite synth.t0 stable rows=0
synth.f2(in q text, out id bigint, out name text) setof_composite pg_catalog.record stable rows=1000
synth.f3(in a integer, in b integer = default) scalar pg_catalog.int4 immutable rows=0
`), "\n")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.Content.Relations) != 5 {
		t.Errorf("%d relations, want 5", len(s.Content.Relations))
	}
}
