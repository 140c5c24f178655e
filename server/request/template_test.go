package request

import (
	"bytes"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

// readTemplate reads the template of a GET of target with headers.
func readTemplate(t *testing.T, target string, headers ...string) (*Template, bool) {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Add(headers[i], headers[i+1])
	}
	var tpl Template
	ok := tpl.Read(r, KindRelation, "books")
	tpl.Key = bytes.Clone(tpl.Key)
	return &tpl, ok
}

// The template's filters are, slot for slot, the filters Parse makes:
// the cached statements find their operands through them.
func TestTemplateFiltersAreParsesFilters(t *testing.T) {
	t.Parallel()
	for _, target := range []string{
		"/books?id=eq.1",
		"/books?year=gt.2000&select=id,title&order=id&limit=5&offset=10&id=in.(1,%222,3%22,4)",
		"/books?title=not.like.*a%2Cb*&title=ilike(any).{x*,y}&tags=cs.{a,b}&meta->a->>b=eq.x",
		"/books?title=fts(english).cat&title=plfts.dog&z=is.NULL&b=isdistinct.3",
		"/books?select=id,authors(name,books(id))&authors.name=eq.x&authors.books.id=lt.9&authors.limit=2&authors.order=name",
		"/books?id=eq.&&title=eq.%00&&",
		"/books?id=eq.2&id=neq.3&id=gt.1&a.b.c=eq.4",
		"/books?id=eq.1;title=like.50%&year=gt.1+2;select=id",
	} {
		tpl, ok := readTemplate(t, target)
		if !ok {
			t.Errorf("%s: no template", target)
			continue
		}
		req, err := Parse(apierr.SVCNaming, httptest.NewRequest("GET", target, nil), KindRelation, "books")
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		levels := []Params{req.Params}
		for _, p := range req.Embedded {
			levels = append(levels, *p)
		}
		parsed := 0
		for _, p := range levels {
			for _, f := range p.Filters {
				parsed++
				if f.Slot < 1 || f.Slot > len(tpl.Filters) {
					t.Errorf("%s: filter %+v has slot %d of %d", target, f, f.Slot, len(tpl.Filters))
				} else if got := tpl.Filters[f.Slot-1]; !reflect.DeepEqual(got, f) {
					t.Errorf("%s: template's slot %d holds %+v, Parse made %+v", target, f.Slot, got, f)
				}
			}
		}
		inTemplate := 0
		for _, f := range tpl.Filters {
			if f.Op != "" {
				inTemplate++
			}
		}
		if parsed == 0 || parsed != inTemplate {
			t.Errorf("%s: Parse made %d filters, the template holds %d", target, parsed, inTemplate)
		}
	}
}

// Requests that differ only in their filters' operands share a key.
func TestTemplateKeyIgnoresOperands(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"/books?id=eq.1", "/books?id=eq.2"},
		{"/books?id=in.(1,2,3)", "/books?id=in.()"},
		{"/books?title=like.*a*&limit=5", "/books?limit=5&title=like.b"},
		{"/books?title=fts(english).cat", "/books?title=fts(english).dog%20house"},
		{"/books?title=eq(any).{a,b}", "/books?title=eq(any).{c}"},
		{"/books?authors.name=eq.x&select=id,authors(name)", "/books?select=id,authors(name)&authors.name=eq.y"},
		{"/books?a=eq.1&b=eq.2", "/books?b=eq.3&a=eq.4"},
	}
	for _, p := range pairs {
		a, okA := readTemplate(t, p[0], "Accept", "text/csv")
		b, okB := readTemplate(t, p[1], "Accept", "text/csv")
		if !okA || !okB {
			t.Errorf("%s, %s: no template (%v, %v)", p[0], p[1], okA, okB)
			continue
		}
		if !bytes.Equal(a.Key, b.Key) {
			t.Errorf("%s and %s have different keys", p[0], p[1])
		}
	}
}

// Anything else that changes the statement or the answer changes the key.
func TestTemplateKeySeesShape(t *testing.T) {
	t.Parallel()
	base := "/books?id=eq.1&select=id&order=id&limit=5"
	variants := []struct {
		target  string
		headers []string
	}{
		{"/books?id=neq.1&select=id&order=id&limit=5", nil},
		{"/books?id=not.eq.1&select=id&order=id&limit=5", nil},
		{"/books?ids=eq.1&select=id&order=id&limit=5", nil},
		{"/books?id=eq.1&select=id,title&order=id&limit=5", nil},
		{"/books?id=eq.1&select=id&order=id.desc&limit=5", nil},
		{"/books?id=eq.1&select=id&order=id&limit=6", nil},
		{"/books?id=eq.1&select=id&order=id&limit=5&offset=1", nil},
		{"/books?id=eq.1&id=eq.1&select=id&order=id&limit=5", nil},
		{base, []string{"Accept", "text/csv"}},
		{base, []string{"Accept-Profile", "other"}},
		{base, []string{"Prefer", "count=exact"}},
		{base, []string{"Range", "0-1"}},
	}
	b, _ := readTemplate(t, base)
	for _, v := range variants {
		tpl, ok := readTemplate(t, v.target, v.headers...)
		if !ok {
			t.Errorf("%s %v: no template", v.target, v.headers)
			continue
		}
		if bytes.Equal(tpl.Key, b.Key) {
			t.Errorf("%s %v has the key of %s", v.target, v.headers, base)
		}
	}
	for _, p := range [][2]string{
		{"/books?z=is.null", "/books?z=is.true"},
		{"/books?t=fts.a", "/books?t=fts(english).a"},
		{"/books?t=eq(any).{a}", "/books?t=eq(all).{a}"},
	} {
		x, _ := readTemplate(t, p[0])
		y, _ := readTemplate(t, p[1])
		if bytes.Equal(x.Key, y.Key) {
			t.Errorf("%s and %s share a key", p[0], p[1])
		}
	}
}

// Requests whose shape Read cannot tell have no template.
func TestTemplateDeclines(t *testing.T) {
	t.Parallel()
	for _, target := range []string{
		"/books?or=(id.eq.1,id.eq.2)",
		"/books?authors.and=(id.eq.1)",
		"/books?not.or=(id.eq.1)",
		"/books?id=eq.1;x=2",
		"/books?id=eq.%ff",
		"/books?id=nope.1",
		"/books?id=in.(1",
	} {
		if _, ok := readTemplate(t, target); ok {
			t.Errorf("%s has a template", target)
		}
	}
}

// FuzzTemplateMatchesParse feeds arbitrary query strings to Template.Read
// and Parse. Where both succeed, each filter Parse makes sits in the
// template at its slot, and the template holds no other filter: a kept
// statement binds exactly the operands Parse would have given it.
func FuzzTemplateMatchesParse(f *testing.F) {
	for _, seed := range []string{
		"id=eq.1&select=id&order=id&limit=2",
		`t=in.("a,b",c)&n=like(any).{a*,b}&d=fts(english).x&z=not.is.null`,
		"a.b=eq.1&a.order=x&a.c.d=lt.2&b=gt.3&b=lt.4",
		"x=eq.%26&&y=eq.%3D&=1",
		"or=(a.eq.1)&b=eq.2",
		"k=eq.a;b=like.%zz+1;k=eq.%ff",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, rawQuery string) {
		r := httptest.NewRequest("GET", "/t", nil)
		r.URL.RawQuery = rawQuery
		var tpl Template
		if !tpl.Read(r, KindRelation, "t") {
			return
		}
		req, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
		if err != nil {
			return
		}
		levels := []*Params{&req.Params}
		for _, p := range req.Embedded {
			levels = append(levels, p)
		}
		parsed := 0
		for _, p := range levels {
			for _, f := range p.Filters {
				parsed++
				if f.Slot < 1 || f.Slot > len(tpl.Filters) || !reflect.DeepEqual(tpl.Filters[f.Slot-1], f) {
					t.Fatalf("%q: Parse made %+v; the template has %+v", rawQuery, f, tpl.Filters)
				}
			}
		}
		held := 0
		for _, f := range tpl.Filters {
			if f.Op != "" {
				held++
			}
		}
		if held != parsed {
			t.Fatalf("%q: the template holds %d filters, Parse made %d", rawQuery, held, parsed)
		}

		// As a call's, each parameter Parse leaves to planning is in the
		// template at its slot, whole, and as the filter it may be.
		var call Template
		if !call.Read(r, KindFunction, "t") {
			return
		}
		req, err = Parse(apierr.SVCNaming, r, KindFunction, "t")
		if err != nil {
			return
		}
		for _, p := range req.Unparsed {
			if v, ok := call.Value(p.Slot); !ok || v != p.Value {
				t.Fatalf("%q: Parse left %+v to planning; the template's slot holds %q", rawQuery, p, v)
			}
			f, err := ParseFilter(p.Key, p.Value)
			f.Slot = p.Slot
			if held := call.Filters[p.Slot-1]; (err == nil) != (held.Op != "") || err == nil && !reflect.DeepEqual(held, f) {
				t.Fatalf("%q: %+v parses as %+v (%v); the template holds %+v", rawQuery, p, f, err, held)
			}
		}
	})
}

// MayBeFilter rules out only values parseFilter refuses.
func TestMayBeFilterRulesOutOnlyNonFilters(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"1", "", "abc", "eq", "not.", "not.1", "nope.1", "x(y).z", "in(", "not.not.eq.1", "eqq.1"} {
		if MayBeFilter(v) {
			continue
		}
		if _, err := parseFilter("a", v); err == nil {
			t.Errorf("MayBeFilter(%q) is false, but it parses as a filter", v)
		}
	}
	// PostgREST's rule: an operator and a dot, or not. and anything.
	for _, v := range []string{"eq.1", "not.eq.1", "in.(1)", "fts(english).x", "like(any).{a}", "is.null", "not.xyz", "gt.2"} {
		if !MayBeFilter(v) {
			t.Errorf("MayBeFilter(%q) is false", v)
		}
	}
	for _, v := range []string{"5", "hello.world", "eq", "2024-01-01", "a.b.c", "{1,2}", "notes.x"} {
		if MayBeFilter(v) {
			t.Errorf("MayBeFilter(%q) is true for an argument's value", v)
		}
	}
}

// FuzzMayBeFilter: whatever MayBeFilter rules out, parseFilter refuses.
func FuzzMayBeFilter(f *testing.F) {
	for _, seed := range []string{"eq.1", "not.in.(1,2)", "1", "not.x", "fts(english).a"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if _, err := parseFilter("a", v); err == nil && !MayBeFilter(v) {
			t.Fatalf("MayBeFilter(%q) is false, but it parses as a filter", v)
		}
	})
}
