package request

import (
	"net/http/httptest"
	"strings"
	"testing"
	"unsafe"
)

func TestCanonicalURL(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, raw, want string }{
		{"empty", "", "/t"},
		{"sorted by name", "id=eq.1&a=1&select=id,name", "a=1&id=eq.1&select=id%2Cname"},
		{"a name without value", "a=1&c=3&b=2&d", "a=1&b=2&c=3&d="},
		{"one name twice stays twice, order kept", "id=gt.1&b=1&id=lt.5", "b=1&id=gt.1&id=lt.5"},
		{"decoded then encoded again", "name=eq.A%20b+c&x=%2a", "name=eq.A%20b%20c&x=%2A"},
		{"unreserved kept", "a=-_.~", "a=-_.~"},
		{"multibyte", "name=eq.%C3%A9", "name=eq.%C3%A9"},
		{"empty pairs skipped", "&&a=1&", "a=1"},
		{"more pairs than the stack holds", "q=1&p=1&o=1&n=1&m=1&l=1&k=1&j=1&i=1&h=1&g=1&f=1&e=1&d=1&c=1&b=1&a=1",
			"a=1&b=1&c=1&d=1&e=1&f=1&g=1&h=1&i=1&j=1&k=1&l=1&m=1&n=1&o=1&p=1&q=1"},
		{"unreadable", "a=%FF", "/t"},
		{"in canonical form already", "a=1&b=eq.2&b=gt.0&c=", "a=1&b=eq.2&b=gt.0&c="},
		{"sorted, one value escaped", "a=1&b=eq.x%2Cy", "a=1&b=eq.x%2Cy"},
		{"sorted, an escape of an unreserved byte", "a=%41", "a=A"},
		{"sorted, a plus", "a=x+y", "a=x%20y"},
		{"sorted, an equals sign in a value", "a=b=c", "a=b%3Dc"},
		{"sorted, a semicolon between pairs", "a=1;b=2", "a=1&b=2"},
		{"sorted, the last without value", "a=1&b", "a=1&b="},
		{"sorted, an escaped name", "%61=1", "a=1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want := c.want
			if want != "/t" {
				want = "/t?" + want
			}
			if got := CanonicalURL("/t", c.raw); got != want {
				t.Errorf("CanonicalURL(/t, %q) = %q, want %q", c.raw, got, want)
			}
			// A function's template takes any readable query string
			// apart; rendered from it, the URL is the same.
			var tpl Template
			if !tpl.Read(httptest.NewRequest("GET", "/rpc/f?"+c.raw, nil), KindFunction, "f") {
				if want != "/t" {
					t.Fatalf("%q: no template", c.raw)
				}
				return
			}
			if got := tpl.CanonicalURL("/t", c.raw); got != want {
				t.Errorf("Template.CanonicalURL(/t, %q) = %q, want %q", c.raw, got, want)
			}
			// Given the request's target, the same URL; the target itself
			// only when that is it, and always when it is and escapes
			// nothing. A target of another path changes nothing.
			target := "/t?" + c.raw
			got := tpl.CanonicalTarget("/t", c.raw, target)
			if got != want {
				t.Errorf("Template.CanonicalTarget(/t, %q) = %q, want %q", c.raw, got, want)
			}
			reused := unsafe.StringData(got) == unsafe.StringData(target)
			if mustReuse := want == target && !strings.Contains(c.raw, "%"); reused && want != target || mustReuse && !reused {
				t.Errorf("Template.CanonicalTarget(/t, %q): target reused %v, want %v", c.raw, reused, mustReuse)
			}
			if got := tpl.CanonicalTarget("/t", c.raw, "/u?"+c.raw); got != want {
				t.Errorf("Template.CanonicalTarget(/t, %q) of target /u: %q, want %q", c.raw, got, want)
			}
		})
	}
}

// BenchmarkCanonicalURL renders page's Content-Location from its query
// string, and from its template, and lookup's, whose query string is in
// canonical form, from its template.
func BenchmarkCanonicalURL(b *testing.B) {
	const raw = "author_id=eq.42&order=year.desc,id.desc&limit=100"
	b.Run("query", func(b *testing.B) {
		for b.Loop() {
			CanonicalURL("/books", raw)
		}
	})
	for name, raw := range map[string]string{"template": raw, "lookup": "id=eq.42"} {
		b.Run(name, func(b *testing.B) {
			var tpl Template
			if !tpl.Read(httptest.NewRequest("GET", "/books?"+raw, nil), KindRelation, "books") {
				b.Fatal("no template")
			}
			target := "/books?" + raw
			for b.Loop() {
				tpl.CanonicalTarget("/books", raw, target)
			}
		})
	}
}
