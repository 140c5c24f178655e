package query_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
)

// FuzzReadPipeline drives arbitrary query strings and Accept headers through
// parse, plan and build: no input may panic, every rejection must be a 4xx
// SVC error, the statement must use exactly the bind parameters it
// collected (a "$n" without an argument would be a 500 at the database),
// and a statement kept by shape must bind back to it (checkKeptBind).
func FuzzReadPipeline(f *testing.F) {
	for _, seed := range []string{
		"select=c0,x:c1,c2::text,doc->a->>b,tags->0&c0=gt.1&order=c1.desc.nullsfirst&limit=5",
		"or=(c0.eq.1,and(c1.lt.2,not.c2.is.null))&doc->>k=like.*x*&tags=cs.{a,b}",
		"c3=in.(1,2,3)&c4=fts(english).cat&c5=not.eq(any).{1,2}&offset=3",
		"select=*&not.and=(c0.gte.1,c0.lte.9)",
		"select=c0,t1(c0,orders(*)),x:t2!inner(c3)&x.c3=eq.1&x.order=c0&x.limit=2&order=t1(c2).desc",
		"select=...t1(c2),t3!o_t3_a(*),t4(c0),latest(c1),t2()&t2=is.null&or=(t2.is.null,c0.eq.1)",
		"select=t3(c0)&t1.c0=eq.1",
		"select=c0,n:c1.count(),doc->>k::int.sum()::text,t1(c2,c3.max()),...t3!o_t3_a(c0,c1.avg())&order=c0,doc->>k",
		"select=count(),t2(count),*&order=t3(c1)",
	} {
		f.Add(seed, "application/json")
	}
	f.Add("select=c0", "text/csv")
	f.Add("c0=eq.1", "application/vnd.svc.object+json")
	snap := benchSnapshot(f)
	opts := plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}, MaxRows: 100, Aggregates: true}
	f.Fuzz(func(t *testing.T, rawQuery, accept string) {
		r := httptest.NewRequest("GET", "/orders", nil)
		r.URL.RawQuery = rawQuery
		r.Header.Set("Accept", accept)
		r.Header.Set("Prefer", "count=exact")
		req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "orders")
		if err != nil {
			checkClientError(t, rawQuery, err)
			return
		}
		p, err := plan.BuildRead(req, snap, opts)
		if err != nil {
			checkClientError(t, rawQuery, err)
			return
		}
		st := query.Read(p)
		for i := range st.Args {
			if !strings.Contains(st.SQL, "$"+strconv.Itoa(i+1)) {
				t.Fatalf("%q: argument $%d unused in %s", rawQuery, i+1, st.SQL)
			}
		}
		if strings.Contains(st.SQL, "$"+strconv.Itoa(len(st.Args)+1)) {
			t.Fatalf("%q: placeholder $%d has no argument in %s", rawQuery, len(st.Args)+1, st.SQL)
		}
		if emptyIdentifier(st.SQL) {
			t.Fatalf("%q: a zero-length quoted identifier in %s", rawQuery, st.SQL)
		}
		checkKeptBind(t, r, rawQuery, st)
	})
}

// emptyIdentifier reports whether sql holds "" as a quoted identifier of
// its own (not a doubled quote inside one), which PostgreSQL refuses.
func emptyIdentifier(sql string) bool {
	for i := 0; i < len(sql); i++ {
		switch sql[i] {
		case '\'':
			for i++; i < len(sql) && sql[i] != '\''; i++ {
			}
		case '"':
			start := i + 1
			for i++; i < len(sql); i++ {
				if sql[i] == '"' {
					if i+1 < len(sql) && sql[i+1] == '"' {
						i++
						continue
					}
					break
				}
			}
			if i == start {
				return true
			}
		}
	}
	return false
}

// checkKeptBind checks what the server does with a read's statement when it
// keeps its shape: the shaped statement, bound to the same request's
// template, must be the statement built for the request, arguments and all.
func checkKeptBind(t *testing.T, r *http.Request, rawQuery string, st query.Statement) {
	var tpl request.Template
	if !tpl.Read(r, request.KindRelation, "orders") {
		return
	}
	kept, ok := st.Shape()
	if !ok {
		return
	}
	if bound, ok := bindsLike(kept, &tpl, st); !ok {
		t.Fatalf("%q: bound to its own request, the kept statement differs\nkept:  %s %q\nbuilt: %s %q",
			rawQuery, bound.SQL, bound.Args, st.SQL, st.Args)
	}
}

// checkClientError accepts an error the caller caused: a 4xx, or the 300
// of an ambiguous embed.
func checkClientError(t *testing.T, input string, err error) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || (e.Status < 400 || e.Status >= 500) && e.Status != 300 {
		t.Fatalf("%q gave %v, want a 4xx (or 300) apierr.Error", input, err)
	}
}
