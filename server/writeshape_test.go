package server

import (
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/snapshot"
)

// writeCase is a write of api.docs: its method, query string, headers and
// bodies of one shape with different values.
type writeCase struct {
	method, query string
	header        map[string]string
	bodies        []string
	// kept says whether the shape's statement is kept.
	kept bool
}

// For every case, each body's request, whether kept for its head or
// parsed, is the one request.Parse makes; its plan, whether copied from a
// kept shape or planned, the one plan.BuildWrite makes of the request;
// and its statement, whether bound into a kept shape or built, the one
// query.Write builds for that plan: the same text, the same values in the
// same places, the same expansion.
func TestWriteShapesBuildLikeFreshStatements(t *testing.T) {
	snap := writeShapeSnapshot(t)
	s := &Server{cfg: &config.Config{DBSchemas: []string{"api"}}, planning: plan.Options{Schemas: []string{"api"}},
		shapes: shapes.New(100, 1<<20)}
	json := "application/json"
	cases := []writeCase{
		{"POST", "", nil, []string{`{"title":"a"}`, `{"title":"b\"c"}`, `{"title":null}`}, true},
		{"POST", "", nil, []string{`{"title":"a","meta":{"x":1}}`, `{"meta":[1,2],"title":"é"}`}, true},
		{"POST", "", nil, []string{`[{"title":"a"},{"title":"b"}]`, `[{"title":"c"}]`}, true},
		{"POST", "", nil, []string{`[]`, `[]`}, true},
		{"POST", "columns=title,meta", nil, []string{`[{"title":"a"},{"meta":{}}]`, `[{"title":"b","id":7}]`}, true},
		{"POST", "select=id,title", map[string]string{"Prefer": "return=representation"}, []string{`{"title":"a"}`, `{"title":"b"}`}, true},
		{"POST", "", map[string]string{"Prefer": "return=headers-only"}, []string{`{"id":1,"title":"a"}`, `{"id":2,"title":"b"}`}, true},
		{"POST", "", map[string]string{"Prefer": "resolution=merge-duplicates"}, []string{`{"id":1,"title":"a"}`, `{"id":2,"title":"b"}`}, true},
		{"POST", "on_conflict=title", map[string]string{"Prefer": "resolution=ignore-duplicates"}, []string{`{"title":"a"}`, `{"title":"b"}`}, true},
		{"POST", "columns=id,title", map[string]string{"Prefer": "missing=default, return=representation"},
			[]string{`[{"title":"a"}]`, `[{"id":3},{"title":"b"}]`}, true},
		{"POST", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, []string{"title=a", "title=b%26c"}, true},
		// A CSV body's header is bound apart from its rows: not kept.
		{"POST", "", map[string]string{"Content-Type": "text/csv"}, []string{"title\na\n", "title\nb\n"}, false},
		// A PATCH binds its one object: planned and built each time.
		{"PATCH", "id=eq.1", nil, []string{`{"title":"a"}`, `{"title":"b"}`}, false},
		{"PUT", "id=eq.1", nil, []string{`{"id":1,"title":"a"}`, `{"id":1,"title":"b"}`}, false},
	}
	kept := 0
	heads := map[string]bool{}
	for _, c := range cases {
		before := s.shapes.Len(shapes.Inserts)
		for _, body := range c.bodies {
			r := httptest.NewRequest(c.method, "/docs?"+c.query, strings.NewReader(body))
			r.Header.Set("Content-Type", json)
			for k, v := range c.header {
				r.Header.Set(k, v)
			}
			req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "docs")
			if err != nil {
				t.Fatalf("%s ?%s: %v", c.method, c.query, err)
			}
			payload, err := request.ParsePayload(r.Header.Get("Content-Type"), []byte(body), req.Columns)
			if err != nil {
				t.Fatalf("%s ?%s %s: %v", c.method, c.query, body, err)
			}
			p, err := plan.BuildWrite(req, payload, snap, s.planning)
			if err != nil {
				t.Fatalf("%s ?%s %s: %v", c.method, c.query, body, err)
			}
			x := &exchange{r: r, snap: snap}
			wp := writePlan{Write: p}
			served := req
			if c.method == "POST" {
				if served = s.parsedInsert(x, "docs"); served == nil {
					served = req
					s.keepParsedInsert(x, "docs")
				} else if !reflect.DeepEqual(served, req) {
					t.Errorf("%s ?%s: the request kept for its head\n%+v\nis not the one parsed\n%+v", c.method, c.query, served, req)
				}
				if wp, err = s.planInsert(x, served, payload); err != nil {
					t.Fatalf("%s ?%s %s: %v", c.method, c.query, body, err)
				}
				if !reflect.DeepEqual(wp.Write, p) {
					t.Errorf("%s ?%s %s: the plan (kept: %v)\n%+v\nis not the one planned afresh\n%+v", c.method, c.query, body,
						wp.kept != nil, wp.Write, p)
				}
			}
			got := s.writeStatement(x, served, wp)
			if x.insertKey != nil {
				x.insertKey.Done()
			}
			want := query.Write(p)
			if got.SQL != want.SQL || !reflect.DeepEqual(got.Args, want.Args) || got.Expansion != want.Expansion {
				t.Errorf("%s ?%s %s:\n got %q %q %d\nwant %q %q %d", c.method, c.query, body,
					got.SQL, got.Args, got.Expansion, want.SQL, want.Args, want.Expansion)
			}
		}
		// An insert keeps its head's parse, once per head, and its plan
		// and statement when its statement is kept.
		want := 0
		if head := c.query + fmt.Sprint(c.header); c.method == "POST" && !heads[head] {
			heads[head] = true
			want++
		}
		if c.kept {
			want++
		}
		kept += want
		if n := s.shapes.Len(shapes.Inserts) - before; n != want {
			t.Errorf("%s ?%s %v: %d shapes kept, want %d", c.method, c.query, c.header, n, want)
		}
	}
	if n := s.shapes.Len(shapes.Inserts); n != kept {
		t.Errorf("%d write shapes kept, want %d", n, kept)
	}
}

// The body's keys, its form and every header the plan reads are the
// shape's: a request differing in any of them is a shape of its own.
func TestWriteKeyTellsShapesApart(t *testing.T) {
	key := func(method, target, body string, header map[string]string) string {
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		for k, v := range header {
			r.Header.Set(k, v)
		}
		p, err := request.ParsePayload(r.Header.Get("Content-Type"), []byte(body), nil)
		if err != nil {
			t.Fatal(err)
		}
		return string(request.WriteKey(nil, r, "docs", p))
	}
	base := key("POST", "/docs", `{"title":"a"}`, nil)
	if again := key("POST", "/docs", `{"title":"zz"}`, nil); again != base {
		t.Errorf("the values of the body change the key")
	}
	for _, other := range []string{
		key("POST", "/docs", `{"meta":"a"}`, nil),
		key("POST", "/docs", `[{"title":"a"}]`, nil),
		key("POST", "/docs", `{"title":"a","meta":1}`, nil),
		key("PUT", "/docs", `{"title":"a"}`, nil),
		key("POST", "/docs?select=id", `{"title":"a"}`, nil),
		key("POST", "/docs?columns=title", `{"title":"a"}`, nil),
		key("POST", "/docs", `{"title":"a"}`, map[string]string{"Prefer": "return=representation"}),
		key("POST", "/docs", `{"title":"a"}`, map[string]string{"Accept": "text/csv"}),
		key("POST", "/docs", `{"title":"a"}`, map[string]string{"Content-Profile": "other"}),
		key("POST", "/docs", `{"title":"a"}`, map[string]string{"Range": "0-1"}),
		key("POST", "/docs", `{"title":"a"}`, map[string]string{"Content-Type": "application/json; charset=utf-8"}),
	} {
		if other == base {
			t.Errorf("a request of another shape has the key %q", other)
		}
	}
}

// writeShapeSnapshot serves api.docs: an id with a default (the primary
// key), a title and a JSON document.
func writeShapeSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	var c snapshot.Content
	next := "nextval('api.docs_id_seq'::regclass)"
	c.Relations = append(c.Relations, snapshot.Relation{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "docs"},
		Kind: snapshot.KindTable, PrimaryKey: []string{"id"}, Columns: []snapshot.Column{
			{Name: "id", Type: "integer", BaseType: "integer", Default: &next},
			{Name: "title", Type: "text", BaseType: "text", Nullable: true},
			{Name: "meta", Type: "jsonb", BaseType: "jsonb", Nullable: true},
		}})
	snap, err := snapshot.New(snapshot.Header{}, c)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}
