package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// hostile are texts a caller may try in any position: quoting and
// comment characters, statement separators, dollar quoting, NUL, look-alike
// letters, the grammar's own punctuation and a very long name.
var hostile = []string{
	`'`, `"`, `\`, `;`, `--`, `/*`, `$$`, `$1`, "\x00", "a\x00b", "\n", "\t",
	`authors"; drop table test.authors; --`, `name') or ('1'='1`, `"name" || pg_sleep(1)`,
	"аuthors", "ｎａｍｅ", "name\u200b", `))`, `((`, `*`, `,`, `.`, `->`, `::`, `!`, `...`,
	`e'\x41'`, `U&"\0041"`, `pg_catalog.pg_shadow`, strings.Repeat("x", 10000),
	`""`, "\"\x00\"", `" "`, `NULL`, `1e309`, `select`, `int.x`, `->""`, `->"\u0000"`,
}

// positions are the places a caller controls, each a request built around
// one hostile text.
var positions = []struct {
	name  string
	build func(base, h string) *http.Request
}{
	{"relation", get("/%s")},
	{"select column", get("/authors?select=%s")},
	{"alias", get("/authors?select=%s:name")},
	{"cast", get("/authors?select=name::%s")},
	{"json path key", get("/agg_orders?select=meta->>%s")},
	{"json path key in a filter", get("/agg_orders?meta->>%s=eq.1")},
	{"filter column", get("/authors?%s=eq.1")},
	{"operator value", get("/authors?name=eq.%s")},
	// Sent as is, not escaped: ';' and '%' reach the query string's
	// splitter raw.
	{"unescaped operator value", getRaw("/authors?name=eq.%s")},
	{"unescaped select", getRaw("/authors?select=%s")},
	{"unescaped delete filter", func(base, h string) *http.Request {
		// No name is a hostile text: TestInjection checks no row goes.
		r := getRaw("/w_items?name=eq.%s")(base, h)
		if r != nil {
			r.Method = http.MethodDelete
		}
		return r
	}},
	{"in list", get("/authors?name=in.(%s)")},
	{"like value", get("/authors?name=like.%s")},
	{"fts language", get("/authors?name=fts(%s).word")},
	{"logic tree", get("/authors?or=(%s)")},
	{"order term", get("/authors?order=%s")},
	{"embed hint", get("/books?select=title,authors!%s(name)")},
	{"embed name", get("/books?select=title,%s(name)")},
	{"embed filter", get("/authors?select=name,books(title)&books.%s=eq.1")},
	{"limit", get("/authors?limit=%s")},
	{"function", get("/rpc/%s")},
	{"argument name", get("/rpc/add?a=1&%s=2")},
	{"argument value", get("/rpc/add?a=1&b=%s")},
	{"json argument key", func(base, h string) *http.Request {
		body, _ := json.Marshal(map[string]any{h: 1, "a": 1})
		r, _ := http.NewRequest(http.MethodPost, base+"/rpc/add", strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		return r
	}},
	{"csv header", func(base, h string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, base+"/w_items", strings.NewReader(h+",name\n1,x\n"))
		r.Header.Set("Content-Type", "text/csv")
		r.Header.Set("Prefer", "tx=rollback")
		return r
	}},
	{"columns parameter", func(base, h string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, base+"/w_items?columns="+url.QueryEscape(h), strings.NewReader(`{"name":"x"}`))
		r.Header.Set("Content-Type", "application/json")
		return r
	}},
	{"on_conflict", func(base, h string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, base+"/w_items?on_conflict="+url.QueryEscape(h), strings.NewReader(`{"name":"x"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Prefer", "resolution=merge-duplicates")
		return r
	}},
	{"prefer", withHeader("Prefer", "%s")},
	{"prefer timezone", withHeader("Prefer", "timezone=%s")},
	{"accept-profile", withHeader("Accept-Profile", "%s")},
	{"accept", withHeader("Accept", "%s")},
	{"range", withHeader("Range", "%s")},
}

func get(pattern string) func(base, h string) *http.Request {
	return func(base, h string) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, base+strings.Replace(pattern, "%s", url.QueryEscape(h), 1), nil)
		return r
	}
}

// getRaw is get without escaping h: nil when that makes no URL.
func getRaw(pattern string) func(base, h string) *http.Request {
	return func(base, h string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, base+strings.Replace(pattern, "%s", h, 1), nil)
		if err != nil {
			return nil
		}
		return r
	}
}

func withHeader(name, pattern string) func(base, h string) *http.Request {
	return func(base, h string) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, base+"/authors?select=id&limit=1", nil)
		// Header values cannot carry NUL or line breaks; net/http refuses
		// to send them, so those reach the server percent-encoded instead.
		if strings.ContainsAny(h, "\x00\n") {
			h = url.QueryEscape(h)
		}
		r.Header.Set(name, strings.Replace(pattern, "%s", h, 1))
		return r
	}
}

// TestInjection sends every hostile text in every position. Each request
// must get a correct answer or a 4xx: a syntax error (42601) from SQL that
// SVC generated, or any 5xx, would mean caller text reached the statement
// unquoted or crashed the request.
func TestInjection(t *testing.T) {
	db := superConn(t)
	if _, err := db.Exec(t.Context(), "insert into test.w_items (name) values ('injection canary')"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "delete from test.w_items where name = 'injection canary'") })
	items := rowCount(t, "test.w_items")
	statuses := map[int]int{}
	for _, p := range positions {
		for _, h := range hostile {
			req := p.build(fixture.url, h)
			if req == nil {
				continue // a URL net/http cannot form
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("%s %q: %v", p.name, short(h), err)
				continue
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				Code string `json:"code"`
			}
			json.Unmarshal(body, &e)
			statuses[resp.StatusCode]++
			if resp.StatusCode >= 500 || e.Code == "42601" {
				t.Errorf("%s %q: %d %s", p.name, short(h), resp.StatusCode, short(string(body)))
			}
		}
	}
	t.Logf("answers by status: %v", statuses)
	if status(t, fixture.url+"/authors") != 200 {
		t.Fatal("the authors table is gone")
	}
	if n := rowCount(t, "test.w_items"); n != items {
		t.Fatalf("w_items held %d rows before, %d after: a hostile filter deleted rows it did not name", items, n)
	}
}

// rowCount counts the rows of table, a qualified name written by the test.
func rowCount(t *testing.T, table string) int {
	t.Helper()
	var n int
	if err := superConn(t).QueryRow(t.Context(), "select count(*) from "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// TestHostileShapes sends requests whose shape, not their text, is the
// attack: each once reached PostgreSQL and came back 500 or 42601 (stack
// depth, parser exhaustion, SQL SVC wrote but PostgreSQL cannot parse).
// Each must be a 4xx from SVC itself, naming what to fix, under the
// default configuration.
func TestHostileShapes(t *testing.T) {
	embeds := "id"
	for i := range 100 {
		embeds += fmt.Sprintf(",a%d:books(id)", i)
	}
	cases := []struct {
		name   string
		req    func() *http.Request
		status int
		code   string
	}{
		{"5,000 JSON arrows", rawGet("/books?select=meta" + strings.Repeat("->a", 5000)), 400, "SVC100"},
		{"1,001 JSON arrows in a filter", rawGet("/books?meta" + strings.Repeat("->a", 1001) + "=eq.1"), 400, "SVC100"},
		{"33 JSON arrows in order", rawGet("/books?order=meta" + strings.Repeat("->a", 33)), 400, "SVC100"},
		{"10,000 nested or(", rawGet("/books?or=(" + strings.Repeat("or(", 9999) + "id.eq.1" + strings.Repeat(")", 10000)), 400, "SVC100"},
		{"5,000 nested or(", rawGet("/books?or=(" + strings.Repeat("or(", 4999) + "id.eq.1" + strings.Repeat(")", 5000)), 400, "SVC100"},
		{"17 nested and(", rawGet("/books?and=(" + strings.Repeat("and(", 16) + "id.eq.1" + strings.Repeat(")", 17)), 400, "SVC100"},
		{"100 embeds", rawGet("/authors?select=" + embeds), 400, "SVC100"},
		{"cast to NULL", rawGet("/books?select=id::NULL"), 400, "SVC100"},
		{"cast to a number", rawGet("/books?select=id::1e309"), 400, "SVC100"},
		{"aggregate cast to null", rawGet("/books?select=id.sum()::null"), 400, "SVC100"},
		{"JSON path ending in an empty key", rawGet(`/books?select=meta->""`), 400, "SVC100"},
		{"alias of a NUL", rawGet(`/books?select="%00":title`), 400, "SVC100"},
		{"empty quoted on_conflict", func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, fixture.url+`/w_items?on_conflict=""`, strings.NewReader(`{"name":"x"}`))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Prefer", "resolution=merge-duplicates")
			return r
		}, 400, "SVC100"},
		{"a quote for a token", func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, fixture.url+"/books?select=id", nil)
			r.Header.Set("Authorization", "Bearer '")
			return r
		}, 401, "SVC301"},
	}
	for _, c := range cases {
		resp, err := http.DefaultClient.Do(c.req())
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Code string `json:"code"`
		}
		json.Unmarshal(body, &e)
		if resp.StatusCode != c.status || e.Code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, resp.StatusCode, short(string(body)), c.status, c.code)
		}
	}
}

// rawGet is get without escaping: the target goes out as written.
func rawGet(target string) func() *http.Request {
	return func() *http.Request {
		r, _ := http.NewRequest(http.MethodGet, fixture.url+target, nil)
		return r
	}
}

// TestCastKeywords casts to every keyword the fixture's PostgreSQL knows,
// alone, qualified either side and as an array: none may reach the
// database as a syntax error (42601). validTypeName's lists come from
// this search; a PostgreSQL release that reserves another word fails
// here until it is added.
func TestCastKeywords(t *testing.T) {
	db := superConn(t)
	rows, err := db.Query(t.Context(), "select word from pg_catalog.pg_get_keywords()")
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for rows.Next() {
		var w string
		rows.Scan(&w)
		words = append(words, w)
	}
	if rows.Err() != nil || len(words) < 400 {
		t.Fatalf("%d keywords: %v", len(words), rows.Err())
	}
	statuses := map[int]int{}
	for _, w := range words {
		for _, cast := range []string{w, w + ".x", "pg_catalog." + w, w + "[]", strings.ToUpper(w)} {
			resp, err := http.Get(fixture.url + "/books?select=id::" + url.QueryEscape(cast) + "&limit=1")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			statuses[resp.StatusCode]++
			if resp.StatusCode >= 500 || strings.Contains(string(body), `"42601"`) {
				t.Errorf("cast to %s: %d %s", cast, resp.StatusCode, short(string(body)))
			}
		}
	}
	t.Logf("answers by status: %v", statuses)
}
