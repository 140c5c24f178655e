package request

import "testing"

func TestCanonicalQuery(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, raw, want string }{
		{"empty", "", ""},
		{"sorted by name", "id=eq.1&a=1&select=id,name", "a=1&id=eq.1&select=id%2Cname"},
		{"a name without value", "a=1&c=3&b=2&d", "a=1&b=2&c=3&d="},
		{"one name twice, order kept", "id=gt.1&b=1&id=lt.5", "b=1&id=gt.1,lt.5"},
		{"decoded then encoded again", "name=eq.A%20b+c&x=%2a", "name=eq.A%20b%20c&x=%2A"},
		{"unreserved kept", "a=-_.~", "a=-_.~"},
		{"multibyte", "name=eq.%C3%A9", "name=eq.%C3%A9"},
		{"empty pairs skipped", "&&a=1&", "a=1"},
		{"unreadable", "a=%FF", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := CanonicalQuery(c.raw); got != c.want {
				t.Errorf("CanonicalQuery(%q) = %q, want %q", c.raw, got, c.want)
			}
		})
	}
}
