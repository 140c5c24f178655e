package catalog

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

func TestRelationNames(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	var got []string
	for _, r := range s.Content.Relations {
		got = append(got, r.QualifiedName.String()+" "+string(r.Kind))
	}
	// No partition (measurements_2024), nothing from private or hidden.
	want := []string{
		"api.Tickets table",
		"api.author_profiles table",
		"api.author_stats materialized_view",
		"api.authors table",
		"api.big_orders view",
		"api.book_list view",
		"api.book_list_short view",
		"api.book_tags table",
		"api.books table",
		"api.books_with_authors view",
		"api.employees table",
		"api.friendships table",
		"api.hidden_orders view",
		"api.measurements partitioned_table",
		"api.orders view",
		"api.passports table",
		"api.recent_orders view",
		"api.reviews table",
		"api.sensors table",
		"api.tags table",
		"api.ticket_list view",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("relations:\n got %q\nwant %q", got, want)
	}
}

func ptr(s string) *string { return &s }

// A column's default is what an insert omitting it stores, so that
// Prefer: missing=default can write it: the column's own, an identity's
// next value, a domain's.
func TestColumnDefaults(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	tests := []struct {
		relation string
		want     map[string]*string
	}{
		{"Tickets", map[string]*string{
			"id":     ptr(`nextval('api."Tickets_id_seq"'::regclass)`),
			"level":  ptr("3"),
			"urgent": ptr("9"),
		}},
		{"ticket_list", map[string]*string{"id": nil, "level": ptr("3"), "urgent": ptr("5")}},
		// Identity always and generated columns take no value at all.
		{"authors", map[string]*string{"id": nil, "name_upper": nil, "created_at": ptr("now()")}},
	}
	for _, tc := range tests {
		rel := s.Relation(snapshot.QualifiedName{Schema: "api", Name: tc.relation})
		if rel == nil {
			t.Fatalf("no relation %s", tc.relation)
		}
		got := map[string]*string{}
		for _, c := range rel.Columns {
			if _, ok := tc.want[c.Name]; ok {
				got[c.Name] = c.Default
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s defaults:\n got %s\nwant %s", tc.relation, show(got), show(tc.want))
		}
	}
}

func show(m map[string]*string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := "nil"
		if m[k] != nil {
			v = *m[k]
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

var ownerAll = snapshot.Grant{Grantee: "postgres", Privileges: []string{
	"DELETE", "INSERT", "REFERENCES", "SELECT", "TRIGGER", "TRUNCATE", "UPDATE"}}

func TestRelations(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	integer := func(name string, nullable bool) snapshot.Column {
		return snapshot.Column{Name: name, Type: "integer", BaseType: "integer", TypeSchema: "pg_catalog", Nullable: nullable}
	}
	text := func(name string, nullable bool) snapshot.Column {
		return snapshot.Column{Name: name, Type: "text", BaseType: "text", TypeSchema: "pg_catalog", Nullable: nullable}
	}
	tests := []struct {
		name string
		want snapshot.Relation
	}{
		{"authors", snapshot.Relation{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "authors"},
			Kind:          snapshot.KindTable, Description: "People who write", Owner: "postgres",
			Columns: []snapshot.Column{
				{Name: "id", Type: "integer", BaseType: "integer", TypeSchema: "pg_catalog", Generated: true},
				{Name: "name", Type: "character varying(20)", BaseType: "character varying(20)", TypeSchema: "pg_catalog",
					MaxLength: 20, Description: "Full name"},
				text("email", true),
				{Name: "mood", Type: "api.feeling", BaseType: "api.mood", TypeSchema: "api", Nullable: true,
					EnumValues: []string{"sad", "ok", "happy"}},
				{Name: "nick", Type: "api.nick", BaseType: "character varying(20)", TypeSchema: "api", Nullable: true, MaxLength: 20},
				{Name: "created_at", Type: "timestamp with time zone", BaseType: "timestamp with time zone",
					TypeSchema: "pg_catalog", Default: ptr("now()")},
				{Name: "name_upper", Type: "text", BaseType: "text", TypeSchema: "pg_catalog", Nullable: true, Generated: true},
			},
			PrimaryKey: []string{"id"},
			// The partial unique index on email is no key of whole rows.
			UniqueKeys: []snapshot.UniqueKey{{Name: "authors_email_key", Columns: []string{"email"}}, {Name: "authors_pkey", Columns: []string{"id"}}},
			Insertable: true, Updatable: true, Deletable: true,
			Grants: []snapshot.Grant{{Grantee: "cat_anon", Privileges: []string{"SELECT"}}, ownerAll},
		}},
		{"books", snapshot.Relation{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "books"},
			Kind:          snapshot.KindTable, Owner: "postgres",
			Columns: []snapshot.Column{
				{Name: "id", Type: "integer", BaseType: "integer", TypeSchema: "pg_catalog", Default: ptr("nextval('api.books_id_seq'::regclass)")},
				text("title", false),
				integer("author_id", false),
			},
			PrimaryKey: []string{"id"},
			// A unique index counts (INCLUDE columns do not); one on an expression does not.
			UniqueKeys: []snapshot.UniqueKey{{Name: "books_pkey", Columns: []string{"id"}}, {Name: "books_title_idx", Columns: []string{"title"}}},
			Insertable: true, Updatable: true, Deletable: true,
			Grants: []snapshot.Grant{{Grantee: "cat_user", Privileges: []string{"INSERT", "SELECT", "UPDATE"}}, ownerAll},
		}},
		{"tags", snapshot.Relation{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "tags"},
			Kind:          snapshot.KindTable, Owner: "postgres",
			Columns: []snapshot.Column{
				{Name: "id", Type: "integer", BaseType: "integer", TypeSchema: "pg_catalog",
					Grants: []snapshot.Grant{{Grantee: "cat_anon", Privileges: []string{"SELECT"}}}},
				{Name: "label", Type: "text", BaseType: "text", TypeSchema: "pg_catalog",
					Grants: []snapshot.Grant{{Grantee: "cat_anon", Privileges: []string{"SELECT", "UPDATE"}}}},
			},
			PrimaryKey: []string{"id"},
			UniqueKeys: []snapshot.UniqueKey{{Name: "tags_label_key", Columns: []string{"label"}}, {Name: "tags_pkey", Columns: []string{"id"}}},
			Insertable: true, Updatable: true, Deletable: true,
			Grants: []snapshot.Grant{ownerAll},
		}},
		{"measurements", snapshot.Relation{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "measurements"},
			Kind:          snapshot.KindPartitionedTable, Owner: "postgres",
			Columns: []snapshot.Column{
				integer("id", false),
				{Name: "taken", Type: "date", BaseType: "date", TypeSchema: "pg_catalog"},
				integer("sensor_id", true),
				{Name: "value", Type: "numeric(8,3)", BaseType: "numeric(8,3)", TypeSchema: "pg_catalog", Nullable: true},
			},
			PrimaryKey: []string{"id", "taken"},
			UniqueKeys: []snapshot.UniqueKey{{Name: "measurements_pkey", Columns: []string{"id", "taken"}}},
			Insertable: true, Updatable: true, Deletable: true,
			Grants: []snapshot.Grant{ownerAll},
		}},
		// A view over a private table: its primary key is traced through
		// the renamed column.
		{"orders", snapshot.Relation{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "orders"},
			Kind:          snapshot.KindView, Owner: "postgres",
			Columns:    []snapshot.Column{integer("order_id", true), integer("book_id", true), integer("qty", true)},
			PrimaryKey: []string{"order_id"},
			UniqueKeys: []snapshot.UniqueKey{},
			Insertable: true, Updatable: true, Deletable: true,
			Grants: []snapshot.Grant{ownerAll},
		}},
		// A join view takes no writes; like PostgREST it gets both tables' keys.
		{"books_with_authors", snapshot.Relation{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "books_with_authors"},
			Kind:          snapshot.KindView, Owner: "postgres",
			Columns: []snapshot.Column{
				integer("book_id", true), text("title", true), integer("author_id", true),
				{Name: "author_name", Type: "character varying(20)", BaseType: "character varying(20)",
					TypeSchema: "pg_catalog", Nullable: true, MaxLength: 20},
			},
			PrimaryKey: []string{"book_id", "author_id"},
			UniqueKeys: []snapshot.UniqueKey{},
			Grants:     []snapshot.Grant{ownerAll},
		}},
		// Only the schemas exposed or in the extra search path are followed.
		{"hidden_orders", snapshot.Relation{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "hidden_orders"},
			Kind:          snapshot.KindView, Owner: "postgres",
			Columns:    []snapshot.Column{integer("id", true), integer("book_id", true)},
			PrimaryKey: []string{},
			UniqueKeys: []snapshot.UniqueKey{},
			Insertable: true, Updatable: true, Deletable: true,
			Grants: []snapshot.Grant{ownerAll},
		}},
		{"author_stats", snapshot.Relation{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "author_stats"},
			Kind:          snapshot.KindMaterializedView, Owner: "postgres",
			Columns: []snapshot.Column{
				integer("author_id", true),
				{Name: "n", Type: "bigint", BaseType: "bigint", TypeSchema: "pg_catalog", Nullable: true},
			},
			PrimaryKey: []string{},
			UniqueKeys: []snapshot.UniqueKey{{Name: "author_stats_author_id_idx", Columns: []string{"author_id"}}},
			Grants:     []snapshot.Grant{ownerAll},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Relation(tt.want.QualifiedName)
			if got == nil {
				t.Fatalf("%s missing", tt.want.QualifiedName)
			}
			// Computed fields have a test of their own (TestComputedFields).
			g := *got
			g.ComputedFields = nil
			if !reflect.DeepEqual(g, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", g, tt.want)
			}
		})
	}
}

func TestViewPrimaryKeys(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	tests := map[string][]string{
		"book_list":       {"id"}, // renamed columns around it
		"book_list_short": {"id"}, // view over view
		"recent_orders":   {"id"}, // through a CTE and a subquery
		"big_orders":      {"id"}, // through a view in the extra search path
	}
	for name, want := range tests {
		rel := s.Relation(snapshot.QualifiedName{Schema: "api", Name: name})
		if rel == nil {
			t.Fatalf("api.%s missing", name)
		}
		if !reflect.DeepEqual(rel.PrimaryKey, want) {
			t.Errorf("api.%s primary key %q, want %q", name, rel.PrimaryKey, want)
		}
	}
}
