package suggest

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"title", "title", 0},
		{"titel", "title", 2}, {"db-shemas", "db-schemas", 1}, {"kitten", "sitting", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	cands := []string{"id", "title", "author_id", "year"}
	for _, tc := range []struct {
		name string
		max  int
		want string
	}{
		{"titel", 3, "title"},
		{"yaer", 3, "year"},
		{"author", 3, "author_id"},
		{"publisher", 3, ""},
		{"titel", 1, ""},
		{"ix", 3, "id"}, // "id" and "year" are not tied: first nearest wins
	} {
		if got := Closest(tc.name, cands, tc.max); got != tc.want {
			t.Errorf("Closest(%q, max %d) = %q, want %q", tc.name, tc.max, got, tc.want)
		}
	}
}

func TestTypo(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cands []string
		want  string
	}{
		{"tags", []string{"todos"}, ""}, // three edits: another word
		{"tset", []string{"test"}, "test"},
		{"bookz", []string{"authors", "books"}, "books"},
		{"ad", []string{"add"}, "add"},
		{"ab", []string{"xy"}, ""},
		{"serve_apo", []string{"public", "serve_api"}, "serve_api"},
		{"nothing_here", []string{"books"}, ""},
		{"authros_books", []string{"authors_books"}, "authors_books"},
	} {
		if got := Typo(tc.name, tc.cands); got != tc.want {
			t.Errorf("Typo(%q, %q) = %q, want %q", tc.name, tc.cands, got, tc.want)
		}
	}
}

func TestColumns(t *testing.T) {
	messages := []string{"id", "data", "message", "username", "channel_id"}
	for _, tc := range []struct {
		name string
		cols []string
		want []string
	}{
		{"sum", messages, nil},   // three edits from id, more than half of sum
		{"users", messages, nil}, // three from username, more than half of users
		{"mesage", messages, []string{"message"}},
		{"nam", []string{"id", "name"}, []string{"name"}},
		{"ab", []string{"ac", "bb"}, []string{"ac", "bb"}},                   // two at one edit: both
		{"ab", []string{"ac", "bb", "ax"}, nil},                              // three: none
		{"abcd", []string{"abxx", "abyy", "abzz", "abcx"}, []string{"abcx"}}, // a nearer one after too many
		{"abcdefghij", []string{"abcdefwxyz"}, nil},                          // four edits: never
		{"nöme", []string{"name"}, []string{"name"}},                         // one character, two bytes of name
		{"", []string{"a"}, nil},
	} {
		if got := Columns(tc.name, tc.cols); !slices.Equal(got, tc.want) {
			t.Errorf("Columns(%q, %q) = %q, want %q", tc.name, tc.cols, got, tc.want)
		}
	}
}

func TestMissing(t *testing.T) {
	existing := []string{"api", "public"}
	for _, c := range []struct {
		missing       []string
		absent, meant string
	}{
		{[]string{"apj"}, `exposed schema "apj" does not exist`, `; did you mean "api" for "apj"?`},
		{[]string{"nothing_alike"}, `exposed schema "nothing_alike" does not exist`, ""},
		{[]string{"apj", "publik"}, `exposed schemas "apj", "publik" do not exist`,
			`; did you mean "api" for "apj", "public" for "publik"?`},
	} {
		absent, meant := Missing("exposed schema", c.missing, existing)
		if absent != c.absent || meant != c.meant {
			t.Errorf("Missing(%q) = %q, %q; want %q, %q", c.missing, absent, meant, c.absent, c.meant)
		}
	}
}
