package plan

import (
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/snapshot"
)

// TestWriteRefused refuses a write only where the grants leave no doubt,
// with PostgreSQL's word for the kind of relation.
func TestWriteRefused(t *testing.T) {
	t.Parallel()
	rel := func(name string, kind snapshot.RelationKind, writable bool, grants ...snapshot.Grant) snapshot.Relation {
		return snapshot.Relation{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: name}, Kind: kind,
			Insertable: writable, Updatable: writable, Grants: grants,
			Columns: []snapshot.Column{{Name: "id"}, {Name: "body", Grants: []snapshot.Grant{{Grantee: "colwriter", Privileges: []string{"UPDATE"}}}}}}
	}
	snap, err := snapshot.New(snapshot.Header{}, snapshot.Content{
		Relations: []snapshot.Relation{
			rel("t", snapshot.KindTable, true, snapshot.Grant{Grantee: "writer", Privileges: []string{"INSERT"}}),
			rel("v", snapshot.KindView, true),
			rel("stuck", snapshot.KindView, false),
			rel("m", snapshot.KindMaterializedView, true),
			rel("f", snapshot.KindForeignTable, true),
		},
		Roles: []snapshot.Role{{Name: "anon", Inherit: true}, {Name: "writer", Inherit: true},
			{Name: "colwriter", Inherit: true}, {Name: "all", Inherit: true, MemberOf: []string{"pg_write_all_data"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, rel, role string
		want              string // the message, "" for no refusal
	}{
		{"POST", "t", "anon", "permission denied for table t"},
		{"PUT", "t", "anon", "permission denied for table t"},
		{"POST", "t", "writer", ""},
		{"PATCH", "t", "writer", "permission denied for table t"},
		{"PATCH", "t", "colwriter", ""}, // a column is enough to read the body
		{"POST", "t", "colwriter", "permission denied for table t"},
		{"POST", "t", "all", ""},
		{"POST", "t", "stranger", ""}, // unknown to the snapshot: the database decides
		{"POST", "v", "anon", "permission denied for view v"},
		{"POST", "stuck", "anon", ""}, // PostgreSQL refuses the view itself first
		{"POST", "m", "anon", "permission denied for materialized view m"},
		{"PATCH", "f", "anon", "permission denied for foreign table f"},
	}
	for _, c := range cases {
		r := snap.Relation(snapshot.QualifiedName{Schema: "api", Name: c.rel})
		err := WriteRefused(c.method, r, snap, c.role, false)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %s as %s: %v, want none", c.method, c.rel, c.role, err)
			}
			continue
		}
		if e := apierr.From(err); err == nil || e.Code != "42501" || e.Status != 401 || e.Message != c.want {
			t.Errorf("%s %s as %s: %v, want 401 42501 %q", c.method, c.rel, c.role, err, c.want)
		}
	}
	if e := apierr.From(WriteRefused("POST", snap.Relation(snapshot.QualifiedName{Schema: "api", Name: "t"}), snap, "anon", true)); e.Status != 403 {
		t.Errorf("authenticated: %d, want 403", e.Status)
	}
}
