package request

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// cookiesByPostgREST is request.cookies as PostgREST reads one Cookie
// header, written plainly: split at ';', leading spaces dropped from each
// part, the name up to the first '=', the rest the value; the last value
// of a name wins. A part without a name is left out.
func cookiesByPostgREST(lines []string) map[string]string {
	m := map[string]string{}
	for _, line := range lines {
		for _, part := range strings.Split(line, ";") {
			part = strings.TrimLeft(part, " ")
			name, value := part, ""
			if i := strings.Index(part, "="); i >= 0 {
				name, value = part[:i], part[i+1:]
			}
			if name != "" {
				m[name] = value
			}
		}
	}
	return m
}

func TestCookiesJSONReadsAsPostgREST(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  map[string]string
	}{
		{nil, map[string]string{}},
		{[]string{"session=abc; theme=dark"}, map[string]string{"session": "abc", "theme": "dark"}},
		// net/http drops each of these values; PostgREST passes them as sent.
		{[]string{"greeting=hello world"}, map[string]string{"greeting": "hello world"}},
		{[]string{`prefs={"theme":"dark"}`}, map[string]string{"prefs": `{"theme":"dark"}`}},
		{[]string{`q="quoted"`}, map[string]string{"q": `"quoted"`}},
		{[]string{"city=Zürich"}, map[string]string{"city": "Zürich"}},
		{[]string{"a=b=c"}, map[string]string{"a": "b=c"}},
		{[]string{"flag"}, map[string]string{"flag": ""}},
		{[]string{"a=1; a=2"}, map[string]string{"a": "2"}},
		{[]string{"a=1; ;=x; b=2;"}, map[string]string{"a": "1", "b": "2"}},
		{[]string{"a=1 ", "b=2"}, map[string]string{"a": "1 ", "b": "2"}},
		{[]string{";"}, map[string]string{}},
	} {
		got := CookiesJSON(c.lines)
		var v map[string]string
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Fatalf("%q: %q is not JSON: %v", c.lines, got, err)
		}
		if fmt.Sprint(v) != fmt.Sprint(c.want) {
			t.Errorf("%q: got %v, want %v", c.lines, v, c.want)
		}
	}
}

// TestCookiesJSONMatchesModel holds CookiesJSON to the plain model on
// random headers, many names repeated.
func TestCookiesJSONMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "b", "c", "=", ";", " ", `"`, "é", "\\", "x=1", "; ", "=="}
	for range 3000 {
		lines := make([]string, 1+rng.IntN(2))
		for i := range lines {
			var b strings.Builder
			for range rng.IntN(60) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			lines[i] = b.String()
		}
		var got map[string]string
		text := CookiesJSON(lines)
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("%q: %q is not JSON: %v", lines, text, err)
		}
		if want := cookiesByPostgREST(lines); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q:\n got %v\nwant %v", lines, got, want)
		}
	}
}

// TestCookiesJSONManyNames reads a header of thousands of cookies, all
// kept, the repeated names once each, in the order first named.
func TestCookiesJSONManyNames(t *testing.T) {
	var parts []string
	for i := range 3000 {
		parts = append(parts, fmt.Sprintf("c%d=%d", i%1000, i))
	}
	text := CookiesJSON([]string{strings.Join(parts, "; ")})
	var got map[string]string
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1000 || got["c0"] != "2000" || got["c999"] != "2999" {
		t.Fatalf("got %d cookies, c0=%q, c999=%q", len(got), got["c0"], got["c999"])
	}
	if !strings.HasPrefix(text, `{"c0":"2000","c1":"2001",`) {
		t.Errorf("not in the order first named: %.40s", text)
	}
}
