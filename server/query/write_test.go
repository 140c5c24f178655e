package query_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// buildWrite parses, plans and builds a write of benchSnapshot's orders.
func buildWrite(t *testing.T, method, target, prefer, body string) query.Statement {
	t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Header.Set("Prefer", prefer)
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "orders")
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	var payload *request.Payload
	if method != "DELETE" {
		if payload, err = request.ParsePayload("application/json", []byte(body), req.Columns); err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
	}
	p, err := plan.BuildWrite(req, payload, benchSnapshot(t), plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}, Aggregates: true})
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	return query.Write(p)
}

// A write returns the columns its answer refers to and no others, so a
// role that may read only those can have its representation.
func TestWriteReturnsUsedColumns(t *testing.T) {
	t.Parallel()
	const o = `"api"."orders".`
	var all []string
	for _, c := range benchSnapshot(t).Relation(snapshot.QualifiedName{Schema: "api", Name: "orders"}).Columns {
		all = append(all, o+`"`+c.Name+`"`)
	}
	cases := []struct {
		method, target, prefer, body string
		want                         string // what follows "returning "
	}{
		{"PATCH", "/orders?c0=eq.1&select=c5,c0", "return=representation", `{"c2":1}`, o + `"c5", ` + o + `"c0"`},
		{"PATCH", "/orders?select=c0,c0,x:c0::text", "return=representation", `{"c2":1}`, o + `"c0"`},
		{"PATCH", "/orders?select=doc->a->>b", "return=representation", `{"c2":1}`, o + `"doc"`},
		{"PATCH", "/orders?select=c5&order=c7.desc", "return=representation", `{"c2":1}`, o + `"c5", ` + o + `"c7"`},
		// The key columns embeds join on: many-to-one, one-to-many,
		// many-to-many, and a spread.
		{"DELETE", "/orders?select=c5,t1(c2)", "return=representation", "", o + `"c5", ` + o + `"c1"`},
		{"DELETE", "/orders?select=t2(c3)", "return=representation", "", o + `"c0"`},
		{"DELETE", "/orders?select=c9,t4(c3)", "return=representation", "", o + `"c9", ` + o + `"c0"`},
		{"POST", "/orders?select=c9,...t1(c3)", "return=representation", `{"c2":1}`, o + `"c9", ` + o + `"c1"`},
		// A computed relationship's function takes the row whole, and so
		// does a representation of every column.
		{"POST", "/orders?select=c0,latest(c1)", "return=representation", `{"c2":1}`, o + `*`},
		{"POST", "/orders", "return=representation", `{"c2":1}`, strings.Join(all, ", ")},
		// Without a representation nothing is read.
		{"PATCH", "/orders?c0=eq.1&select=c5", "", `{"c2":1}`, "1"},
		{"DELETE", "/orders?c0=eq.1", "return=headers-only", "", "1"},
		{"POST", "/orders?select=count()", "return=representation", `{"c2":1}`, "1"},
	}
	for _, c := range cases {
		st := buildWrite(t, c.method, c.target, c.prefer, c.body)
		_, after, ok := strings.Cut(st.SQL, " returning ")
		if !ok {
			t.Errorf("%s %s: no returning in %s", c.method, c.target, st.SQL)
			continue
		}
		if !strings.HasPrefix(after, c.want+") select ") {
			t.Errorf("%s %s: returning %.120s, want %s", c.method, c.target, after, c.want)
		}
	}
}

// A PATCH with nothing to set reads no row, with the same columns as the
// update would have returned.
func TestEmptyPatchSelectsUsedColumns(t *testing.T) {
	t.Parallel()
	st := buildWrite(t, "PATCH", "/orders?select=c3,t1(c2)", "return=representation", `{}`)
	want := `with "_svc_write" as (select "api"."orders"."c3", "api"."orders"."c1" from "api"."orders" where false)`
	if !strings.HasPrefix(st.SQL, want) {
		t.Errorf("got %.160s\nwant %s", st.SQL, want)
	}
}
