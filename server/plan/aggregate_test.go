package plan

import (
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// aggSnapshot: orders (id, amount, customer_id) belong to customers (id,
// city); customers has a column named count, orders has none.
func aggSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	cols := func(names ...string) []snapshot.Column {
		var cs []snapshot.Column
		for _, n := range names {
			cs = append(cs, snapshot.Column{Name: n, Type: "integer", BaseType: "integer"})
		}
		return cs
	}
	c := snapshot.Content{
		Relations: []snapshot.Relation{
			{QualifiedName: qn("orders"), Kind: snapshot.KindTable, Columns: cols("id", "amount", "customer_id")},
			{QualifiedName: qn("customers"), Kind: snapshot.KindTable, Columns: cols("id", "city", "count")},
		},
		Relationships: []snapshot.Relationship{
			fk("orders", "customers", snapshot.ManyToOne, "orders_customer_fkey", "customer_id", "id"),
			fk("customers", "orders", snapshot.OneToMany, "orders_customer_fkey", "id", "customer_id"),
		},
	}
	s, err := snapshot.New(snapshot.Header{}, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func planRead(t *testing.T, snap *snapshot.Snapshot, target, rawQuery string, enabled bool) (*Read, error) {
	t.Helper()
	r := httptest.NewRequest("GET", "/"+target+"?"+rawQuery, nil)
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, target)
	if err != nil {
		t.Fatalf("%s: %v", rawQuery, err)
	}
	return BuildRead(req, snap, Options{Names: apierr.SVCNaming, Schemas: []string{"api"}, Aggregates: enabled})
}

func TestAggregatesGate(t *testing.T) {
	t.Parallel()
	snap := aggSnapshot(t)
	cases := []struct {
		target, query string
		refused       bool // with db-aggregates-enabled off
	}{
		{"orders", "select=amount.sum()", true},
		{"orders", "select=count()", true},
		{"customers", "select=city,orders(amount.max())", true},
		{"orders", "select=id,...customers(id.count())", true},
		{"orders", "select=amount,customers(city)", false},
		// The legacy bare count is not an aggregate of the grammar.
		{"orders", "select=count", false},
	}
	for _, c := range cases {
		if _, err := planRead(t, snap, c.target, c.query, true); err != nil {
			t.Errorf("%s enabled: %v", c.query, err)
		}
		_, err := planRead(t, snap, c.target, c.query, false)
		var e *apierr.Error
		refused := errors.As(err, &e) && e.Code == "SVC123" && e.Status == 400
		if refused != c.refused || (!c.refused && err != nil) {
			t.Errorf("%s disabled: got %v, want refused=%v", c.query, err, c.refused)
		}
	}
}

func TestAggregateColumns(t *testing.T) {
	t.Parallel()
	snap := aggSnapshot(t)
	p, err := planRead(t, snap, "orders", "select=id,n:count(),amount::bigint.sum()::text,count,...customers(city,c:id.max())", true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.OutputNames(), []string{"id", "n", "sum", "count", "city", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("OutputNames = %v, want %v", got, want)
	}
	if !p.Aggregates() {
		t.Error("Aggregates() = false, want true")
	}
	sum := p.Columns[2]
	if sum.Aggregate != "sum" || sum.Cast != "bigint" || sum.AggregateCast != "text" {
		t.Errorf("sum column = %+v", sum)
	}
	// Bare count names no column of orders: the legacy row count.
	if legacy := p.Columns[3]; legacy.Aggregate != "count" || legacy.Field.Name != "" {
		t.Errorf("count column = %+v", legacy)
	}
	spread := p.Columns[4].Embed
	want := []SpreadOutput{{Name: "city"}, {Name: "c", Aggregate: "max"}}
	if got := spread.SpreadOutputs(); !reflect.DeepEqual(got, want) {
		t.Errorf("SpreadOutputs = %+v, want %+v", got, want)
	}
	// customers has a column named count: there the word is that column.
	p, err = planRead(t, snap, "customers", "select=count", true)
	if err != nil || p.Columns[0].Aggregate != "" || p.Aggregates() {
		t.Errorf("customers count = %+v, %v; want the column", p, err)
	}
	// Only a spread lifting an aggregate makes its parent aggregate.
	if p, err = planRead(t, snap, "orders", "select=id,...customers(city)", true); err != nil || p.Aggregates() {
		t.Errorf("plain spread: Aggregates() = true or %v", err)
	}
}

// TestAggregateKeyHint: there is no HAVING and no ordering by an aggregate;
// naming an aggregate's key says so.
func TestAggregateKeyHint(t *testing.T) {
	t.Parallel()
	snap := aggSnapshot(t)
	for _, q := range []string{"select=id,amount.sum()&sum=gt.1", "select=id,total:amount.sum()&order=total.desc"} {
		_, err := planRead(t, snap, "orders", q, true)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != "42703" || e.Hint == nil || !strings.Contains(e.Hint.(string), "aggregate") {
			t.Errorf("%s: got %v, want 42703 with a hint", q, err)
		}
	}
}
