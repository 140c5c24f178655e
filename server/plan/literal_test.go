package plan

import "testing"

// The elements of an array literal are data whatever they hold: the
// separators, braces, quotes and backslashes of the literal's own syntax
// included.
func TestArrayLiteral(t *testing.T) {
	for _, tc := range []struct {
		items []string
		want  string
	}{
		{nil, `{}`},
		{[]string{""}, `{""}`},
		{[]string{"a", "b"}, `{"a","b"}`},
		{[]string{"a,b", "{c}", "NULL"}, `{"a,b","{c}","NULL"}`},
		{[]string{`say "hi"`, `back\slash`}, `{"say \"hi\"","back\\slash"}`},
		{[]string{"é", " space "}, `{"é"," space "}`},
	} {
		if got := ArrayLiteral(tc.items); got != tc.want {
			t.Errorf("ArrayLiteral(%q) = %s, want %s", tc.items, got, tc.want)
		}
	}
}
