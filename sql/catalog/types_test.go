package catalog

import (
	"context"
	"reflect"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// TestTypes: the snapshot keeps the enums and composite types of the
// exposed schemas, with labels and attributes in order, and neither
// relations' row types nor another schema's types.
func TestTypes(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	want := []snapshot.UserType{
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "mood"}, Labels: []string{"sad", "ok", "happy"}},
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "point"}, Attributes: []snapshot.Attribute{
			{Name: "x", Type: "integer"}, {Name: "label", Type: "character varying(10)"}, {Name: "tags", Type: "text[]"}}},
	}
	if !reflect.DeepEqual(s.Content.Types, want) {
		t.Errorf("types\n got %+v\nwant %+v", s.Content.Types, want)
	}
}

// TestReadOnlyColumns: of a view taking writes, a column no write
// reaches (an expression) is read-only, unless an INSTEAD OF trigger
// takes the writes; a table's columns and a view's that take no write at
// all are not marked.
func TestReadOnlyColumns(t *testing.T) {
	t.Parallel()
	err := execScript(context.Background(), fixtureURI, `
		drop schema if exists ro_cols cascade;
		create schema ro_cols;
		create table ro_cols.items (id integer primary key, name text);
		create view ro_cols.shouted as select id, upper(name) as loud, name from ro_cols.items;
		create view ro_cols.counted as select count(*) as n from ro_cols.items;
		create view ro_cols.triggered as select id, upper(name) as loud from ro_cols.items;
		create function ro_cols.put() returns trigger language plpgsql as $$ begin return new; end $$;
		create trigger put instead of insert on ro_cols.triggered for each row execute function ro_cols.put();`)
	if err != nil {
		t.Fatal(err)
	}
	s, err := introspectOpts(fixtureURI, Options{Schemas: []string{"ro_cols"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Content.Relations {
		for _, c := range r.Columns {
			if c.ReadOnly {
				got = append(got, r.Name+"."+c.Name)
			}
		}
	}
	if want := []string{"shouted.loud"}; !reflect.DeepEqual(got, want) {
		t.Errorf("read-only columns %v, want %v", got, want)
	}
}
