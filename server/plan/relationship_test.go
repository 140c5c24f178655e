package plan

import (
	"errors"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

func qn(name string) snapshot.QualifiedName { return snapshot.QualifiedName{Schema: "api", Name: name} }

func fk(from, to string, card snapshot.Cardinality, cons, col, fcol string) snapshot.Relationship {
	return snapshot.Relationship{Table: qn(from), ForeignTable: qn(to), Cardinality: card, Constraint: cons,
		Columns: []snapshot.ColumnPair{{Column: col, ForeignColumn: fcol}}}
}

// relSnapshot: orders has two keys to addresses; projects belong to clients
// (and a view of clients); users and tasks meet through users_tasks;
// employees reference themselves; projects have a computed "owner".
func relSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	var c snapshot.Content
	for _, name := range []string{"orders", "addresses", "projects", "clients", "users", "tasks", "users_tasks", "employees"} {
		c.Relations = append(c.Relations, snapshot.Relation{QualifiedName: qn(name), Kind: snapshot.KindTable})
	}
	c.Relations = append(c.Relations, snapshot.Relation{QualifiedName: qn("clients_v"), Kind: snapshot.KindView})
	self := func(r snapshot.Relationship) snapshot.Relationship { r.IsSelf = true; return r }
	fn := qn("owner")
	c.Relationships = []snapshot.Relationship{
		fk("orders", "addresses", snapshot.ManyToOne, "orders_billing_fkey", "billing_id", "id"),
		fk("orders", "addresses", snapshot.ManyToOne, "orders_shipping_fkey", "shipping_id", "id"),
		fk("projects", "clients", snapshot.ManyToOne, "projects_client_fkey", "client_id", "id"),
		fk("projects", "clients_v", snapshot.ManyToOne, "projects_client_fkey", "client_id", "id"),
		{Table: qn("users"), ForeignTable: qn("tasks"), Cardinality: snapshot.ManyToMany, Constraint: "ut_task_fkey",
			Junction: &snapshot.Junction{Table: qn("users_tasks"), SourceConstraint: "ut_user_fkey", TargetConstraint: "ut_task_fkey",
				SourceColumns: []snapshot.ColumnPair{{Column: "user_id", ForeignColumn: "id"}},
				TargetColumns: []snapshot.ColumnPair{{Column: "task_id", ForeignColumn: "id"}}}},
		self(fk("employees", "employees", snapshot.ManyToOne, "employees_manager_fkey", "manager_id", "id")),
		self(fk("employees", "employees", snapshot.OneToMany, "employees_manager_fkey", "id", "manager_id")),
		{Table: qn("projects"), ForeignTable: qn("users"), Cardinality: snapshot.ManyToOne, Constraint: "owner", Function: &fn},
		fk("projects", "users", snapshot.ManyToOne, "projects_owner_fkey", "owner_id", "id"),
	}
	s, err := snapshot.New(snapshot.Header{}, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFindRelationship(t *testing.T) {
	snap := relSnapshot(t)
	cases := []struct {
		origin, name, hint string
		wantTable          string // foreign table of the relationship found
		wantCons           string
		wantCard           snapshot.Cardinality
	}{
		{"orders", "addresses", "orders_billing_fkey", "addresses", "orders_billing_fkey", snapshot.ManyToOne},
		{"orders", "addresses", "shipping_id", "addresses", "orders_shipping_fkey", snapshot.ManyToOne},
		{"orders", "orders_billing_fkey", "", "addresses", "orders_billing_fkey", snapshot.ManyToOne},
		{"orders", "billing_id", "", "addresses", "orders_billing_fkey", snapshot.ManyToOne},
		{"projects", "clients", "", "clients", "projects_client_fkey", snapshot.ManyToOne},
		{"projects", "clients_v", "", "clients_v", "projects_client_fkey", snapshot.ManyToOne},
		{"projects", "clients", "id", "clients", "projects_client_fkey", snapshot.ManyToOne},
		// A constraint or column name reaches tables only, so the view that
		// shares the foreign key does not make these ambiguous.
		{"projects", "projects_client_fkey", "", "clients", "projects_client_fkey", snapshot.ManyToOne},
		{"projects", "client_id", "", "clients", "projects_client_fkey", snapshot.ManyToOne},
		{"users", "tasks", "users_tasks", "tasks", "ut_task_fkey", snapshot.ManyToMany},
		{"employees", "employees", "", "employees", "employees_manager_fkey", snapshot.OneToMany},
		{"employees", "manager_id", "", "employees", "employees_manager_fkey", snapshot.ManyToOne},
		{"employees", "employees", "manager_id", "employees", "employees_manager_fkey", snapshot.OneToMany},
		// The computed relationship overrides the foreign key to users.
		{"projects", "owner", "", "users", "owner", snapshot.ManyToOne},
	}
	for _, c := range cases {
		r, err := findRelationship(snap, snap.Relation(qn(c.origin)), &request.Embed{Name: c.name, Hint: c.hint})
		if err != nil {
			t.Errorf("%s -> %s!%s: %v", c.origin, c.name, c.hint, err)
			continue
		}
		if r.ForeignTable.Name != c.wantTable || r.Constraint != c.wantCons || r.Cardinality != c.wantCard {
			t.Errorf("%s -> %s!%s = %s %s %s, want %s %s %s", c.origin, c.name, c.hint,
				r.ForeignTable.Name, r.Constraint, r.Cardinality, c.wantTable, c.wantCons, c.wantCard)
		}
	}
}

func TestFindRelationshipErrors(t *testing.T) {
	snap := relSnapshot(t)
	cases := []struct {
		origin, name, hint string
		status             int
		code, hint2        string
	}{
		{"orders", "addresses", "", 300, "SVC201",
			"Try changing 'addresses' to one of the following: 'addresses!orders_billing_fkey', 'addresses!orders_shipping_fkey'. Find the desired relationship in the 'details' key."},
		{"projects", "clinets", "", 400, "SVC200", "Perhaps you meant 'clients' instead of 'clinets'."},
		{"projects", "clients", "nope", 400, "SVC200", ""},
		{"projects", "zzzzzzzz", "", 400, "SVC200", ""},
		{"users", "employees", "", 400, "SVC200", ""},
	}
	for _, c := range cases {
		_, err := findRelationship(snap, snap.Relation(qn(c.origin)), &request.Embed{Name: c.name, Hint: c.hint})
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != c.status || e.Code != c.code {
			t.Errorf("%s -> %s!%s: got %v, want %d %s", c.origin, c.name, c.hint, err, c.status, c.code)
			continue
		}
		got, _ := e.Hint.(string)
		if got != c.hint2 {
			t.Errorf("%s -> %s!%s: hint %q, want %q", c.origin, c.name, c.hint, got, c.hint2)
		}
	}
}

func TestAmbiguousDetails(t *testing.T) {
	snap := relSnapshot(t)
	_, err := findRelationship(snap, snap.Relation(qn("orders")), &request.Embed{Name: "addresses"})
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	got := e.Details.([]apierr.Candidate)
	want := []apierr.Candidate{
		{Cardinality: "many-to-one", Embedding: "orders with addresses",
			Relationship: "orders_billing_fkey using orders(billing_id) and addresses(id)", Spelling: "addresses!orders_billing_fkey"},
		{Cardinality: "many-to-one", Embedding: "orders with addresses",
			Relationship: "orders_shipping_fkey using orders(shipping_id) and addresses(id)", Spelling: "addresses!orders_shipping_fkey"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("details = %+v, want %+v", got, want)
	}
}
