package query

import "testing"

func TestIdentQuoting(t *testing.T) {
	cases := []struct {
		parts []string
		want  string
	}{
		{[]string{"books"}, `"books"`},
		{[]string{"api", "books"}, `"api"."books"`},
		{[]string{`we"ird`}, `"we""ird"`},
		{[]string{`"; drop table x; --`}, `"""; drop table x; --"`},
		{[]string{"a\x00b"}, `"ab"`},
		{[]string{""}, `""`},
	}
	for _, tc := range cases {
		var b builder
		b.ident(tc.parts...)
		if got := b.sql.String(); got != tc.want {
			t.Errorf("ident(%q) = %s, want %s", tc.parts, got, tc.want)
		}
	}
}
