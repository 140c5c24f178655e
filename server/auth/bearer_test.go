package auth

import "testing"

func TestBearerToken(t *testing.T) {
	t.Parallel()
	cases := []struct {
		header, token string
		ok            bool
	}{
		{"", "", false},
		{"Bearer abc.def.ghi", "abc.def.ghi", true},
		{"bearer abc", "abc", true},
		{"BEARER abc", "abc", true},
		{"Bearer   abc  ", "abc", true},
		{"  Bearer abc", "abc", true},
		{"Bearer", "", true},
		{"Bearer ", "", true},
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearerabc", "", false},
		{"Token abc", "", false},
		{"abc.def.ghi", "", false},
	}
	for _, c := range cases {
		token, ok := BearerToken(c.header)
		if token != c.token || ok != c.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", c.header, token, ok, c.token, c.ok)
		}
	}
}
