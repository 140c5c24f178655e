package plan

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// A set of scalars is planned as rows of one column: paged and capped as
// rows are, filtered and ordered by that column, selected once.
func TestCallOfScalarSet(t *testing.T) {
	t.Parallel()
	snap, err := snapshot.New(snapshot.Header{}, snapshot.Content{Functions: []snapshot.Function{{
		QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "keys"},
		Arguments:     []snapshot.Argument{{Name: "n", Type: "integer", Mode: snapshot.ArgIn}},
		ReturnType:    snapshot.QualifiedName{Schema: "pg_catalog", Name: "int4"},
		Returns:       snapshot.ReturnsSetOfScalar,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	limit := func(n int64) *int64 { return &n }
	cases := []struct {
		target string
		limit  *int64 // the window planned, with db-max-rows 100
		offset int64
		output string // the one output column, or "" when refused
		code   string // the refusal's code
	}{
		{"/rpc/keys?n=3", limit(100), 0, "svc_scalar", ""},
		{"/rpc/keys?n=3&limit=2&offset=1", limit(2), 1, "svc_scalar", ""},
		{"/rpc/keys?n=3&limit=500", limit(100), 0, "svc_scalar", ""},
		{"/rpc/keys?n=3&svc_scalar=gt.1&order=svc_scalar.desc", limit(100), 0, "svc_scalar", ""},
		{"/rpc/keys?n=3&select=k:svc_scalar::text", limit(100), 0, "k", ""},
		{"/rpc/keys?n=3&keys=gt.1", nil, 0, "", "42703"},
		{"/rpc/keys?n=3&order=keys", nil, 0, "", "42703"},
		{"/rpc/keys?n=3&select=svc_scalar,svc_scalar::text", nil, 0, "", "SVC100"},
	}
	for _, c := range cases {
		t.Run(c.target, func(t *testing.T) {
			t.Parallel()
			req, err := request.Parse(apierr.SVCNaming, httptest.NewRequest("GET", c.target, nil), request.KindFunction, "keys")
			if err != nil {
				t.Fatal(err)
			}
			call, err := BuildCall(req, nil, nil, "application/json", snap, Options{Names: apierr.SVCNaming, Schemas: []string{"api"}, MaxRows: 100})
			if c.code != "" {
				var e *apierr.Error
				if !errors.As(err, &e) || e.Code != c.code || e.Status != 400 {
					t.Fatalf("got %v, want a 400 %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := call.Read
			if !call.ReturnsRows() || r == nil || !r.Scalars || r.Single {
				t.Fatalf("not planned as rows of values: %+v", r)
			}
			if (r.Limit == nil) != (c.limit == nil) || r.Limit != nil && *r.Limit != *c.limit || r.Offset != c.offset {
				t.Errorf("window %v+%d, want %v+%d", r.Limit, r.Offset, c.limit, c.offset)
			}
			if names := r.OutputNames(); len(names) != 1 || names[0] != c.output {
				t.Errorf("outputs %q, want %q", names, c.output)
			}
		})
	}
}
