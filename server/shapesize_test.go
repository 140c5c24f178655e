package server

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"runtime"
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

// shapeOperators are filters a text value takes, each writing other SQL.
var shapeOperators = []string{"eq.x", "neq.x", "gt.x", "like.*x*", "ilike.*x*", "match.x", "is.null",
	"isdistinct.x", "in.(a,b,c)", "fts.x", "phfts(english).x", "not.eq.x", "like(any).{a,b}"}

// The shape cache's budget (server-shape-cache-max-bytes) counts what each
// kept shape holds by an estimate. Here shapes of several kinds, from
// ordinary reads to the largest the request limits allow, are kept, and
// the heap they hold once the requests they came from are gone must be
// within the estimate, and not far below it. Run with -v for the figures.
func TestShapeBytesCoverHeap(t *testing.T) {
	snap := shapeSnapshot(t)
	s := &Server{cfg: &config.Config{DBSchemas: []string{"api"}, DBExtraSearchPath: []string{"public"}},
		planning: plan.Options{Schemas: []string{"api"}}}
	cases := []struct {
		name   string
		n      int
		target func(i int) string
		header map[string]string
		// body, when set, makes the requests inserts of it.
		body string
	}{
		{"lookup", 2000, func(i int) string { return fmt.Sprintf("/docs?select=a%d:id&id=eq.1", i) }, nil, ""},
		{"page as CSV, preferences", 1000, func(i int) string {
			return fmt.Sprintf("/docs?select=id,a%d:meta->x->>y,title&title=like.*a*&order=id.desc&limit=10", i)
		}, map[string]string{"Accept": "text/csv", "Prefer": "count=exact, timezone=UTC, handling=lenient, nope=1"}, ""},
		{"200 JSON filters, long keys", 100, func(i int) string {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			var b strings.Builder
			b.WriteString("/docs?select=id")
			for j := range 200 {
				fmt.Fprintf(&b, "&meta->>%s%d=%s", strings.Repeat("k", 200), j, shapeOperators[r.IntN(len(shapeOperators))])
			}
			return b.String()
		}, nil, ""},
		{"insert, representation", 2000, func(i int) string { return fmt.Sprintf("/docs?select=a%d:id,title", i) },
			map[string]string{"Prefer": "return=representation"}, `{"title":"x","meta":{"k":1}}`},
		// The request and plan kept hold return=representation, a slice
		// of the header.
		{"insert, long preference", 1000, func(i int) string { return fmt.Sprintf("/docs?select=a%d:id", i) },
			map[string]string{"Prefer": "return=representation, pad=" + strings.Repeat("p", 2000)}, `{"title":"x"}`},
		{"insert of 100 rows, long names", 200, func(i int) string {
			return fmt.Sprintf("/docs?columns=title,meta&select=%s%d:meta->>%s", strings.Repeat("n", 100), i, strings.Repeat("k", 200))
		}, map[string]string{"Prefer": "missing=default"}, `[` + strings.Repeat(`{"title":"x","meta":{"k":1}},`, 99) + `{"title":"y"}]`},
	}
	for _, c := range cases {
		cache := shapes.New(1<<30, math.MaxInt) // no bound within the test
		s.shapes = cache
		part := shapes.Reads
		if c.body != "" {
			part = shapes.Inserts
		}
		before := liveHeap()
		for i := range c.n {
			if c.body != "" {
				keepWriteShape(t, s, snap, c.target(i), c.header, c.body)
				continue
			}
			keepShape(t, s, snap, c.target(i), c.header)
		}
		held := int(liveHeap() - before)
		n, estimated := cache.Len(part), cache.BytesUsed(part)
		t.Logf("%-28s %5d shapes: %8d bytes of heap each, estimated %8d", c.name, n, held/n, estimated/n)
		want := c.n
		if c.body != "" {
			want *= 2 // an insert keeps its head's parse as well
		}
		if n != want {
			t.Fatalf("%s: %d shapes kept of %d", c.name, n, want)
		}
		if held > estimated {
			t.Errorf("%s: the shapes hold %d bytes of heap, estimated at %d", c.name, held, estimated)
		}
		if estimated > 3*held {
			t.Errorf("%s: the shapes hold %d bytes of heap, estimated at %d, which counts what they do not hold", c.name, held, estimated)
		}
		runtime.KeepAlive(cache)
	}
}

// keepShape plans a GET of target as the server does and keeps its shape
// in s's shapes, leaving nothing else of the request alive.
func keepShape(t *testing.T, s *Server, snap *snapshot.Snapshot, target string, header map[string]string) {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	var tpl request.Template
	if !tpl.Read(r, request.KindRelation, "docs") {
		t.Fatalf("%.80s: no template", target)
	}
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "docs")
	if err != nil {
		t.Fatalf("%.80s: %v", target, err)
	}
	p, err := plan.BuildRead(req, snap, s.planning)
	if err != nil {
		t.Fatalf("%.80s: %v", target, err)
	}
	e := s.newReadEntry(req, p)
	e.stmts = shapes.Stmts{Main: query.Read(p), Count: query.PlanCount(p)}
	s.shapes.Keep(snap, shapes.Reads, tpl.Key, e)
}

// keepWriteShape plans a POST of target with body as the server does and
// keeps its statement's shape in s's write shapes, leaving nothing else
// of the request alive.
func keepWriteShape(t *testing.T, s *Server, snap *snapshot.Snapshot, target string, header map[string]string, body string) {
	t.Helper()
	r := httptest.NewRequest("POST", target, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "docs")
	if err != nil {
		t.Fatalf("%.80s: %v", target, err)
	}
	payload, err := request.ParsePayload("application/json", []byte(body), req.Columns)
	if err != nil {
		t.Fatalf("%.80s: %v", target, err)
	}
	x := &exchange{r: r, snap: snap}
	if s.parsedInsert(x, "docs") != nil {
		t.Fatalf("%.80s: a head kept before", target)
	}
	s.keepParsedInsert(x, "docs")
	wp, err := s.planInsert(x, req, payload)
	if err != nil {
		t.Fatalf("%.80s: %v", target, err)
	}
	s.writeStatement(x, req, wp)
	x.insertKey.Done()
}

// liveHeap is the heap in use once collected: twice, as what a sync.Pool
// holds outlives one collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// shapeSnapshot serves api.docs: an id, a title and a JSON document.
func shapeSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	var c snapshot.Content
	c.Relations = append(c.Relations, snapshot.Relation{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "docs"},
		Kind: snapshot.KindTable, Columns: []snapshot.Column{
			{Name: "id", Type: "integer", BaseType: "integer"},
			{Name: "title", Type: "text", BaseType: "text"},
			{Name: "meta", Type: "jsonb", BaseType: "jsonb"},
		}})
	snap, err := snapshot.New(snapshot.Header{}, c)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}
