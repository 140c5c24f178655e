package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server"
)

// answer is what the read-shape tests compare of a response.
type answer struct {
	status                    int
	contentType, contentRange string
	body                      string
}

// fetchAnswer sends method url with header and, unless empty, body.
func fetchAnswer(t *testing.T, method, url string, header http.Header, body string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Range"), string(got)}
}

// Each case reads the same rows two ways: a form with a template, whose
// shape the server keeps after the first read, and a form with a logic
// tree, which it parses and plans every time. For every value the two
// answer alike, on a shape's first read and on the later ones.
func TestKeptReadShapesAnswerLikeFreshOnes(t *testing.T) {
	srv, _, err := startServer(context.Background(), fixture.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	csv := http.Header{"Accept": {"text/csv"}}
	cases := []struct {
		method, kept, fresh string
		header              http.Header
		values              []string
	}{
		{"GET", "/books?id=eq.{}&select=id,title", "/books?or=(id.eq.{})&select=id,title", nil, []string{"1", "2", "99", "3"}},
		{"GET", "/books?author_id=eq.{}&order=year.desc,id.desc&limit=2", "/books?or=(author_id.eq.{})&order=year.desc,id.desc&limit=2",
			csv, []string{"1", "2", "3", "1"}},
		{"GET", "/books?id=in.({})&select=id&order=id", "/books?or=(id.in.({}))&select=id&order=id", nil, []string{"1,2", "3", "4,1,99"}},
		{"GET", "/books?title=like.*{}*&select=id,title", "/books?or=(title.like.*{}*)&select=id,title", nil, []string{"Dune", "Dark", "zzz"}},
		{"GET", "/authors?select=name,books(title)&books.year=gt.{}&order=id", "/authors?select=name,books(title)&books.or=(year.gt.{})&order=id",
			nil, []string{"1970", "1900", "2000"}},
		{"GET", "/books?author_id=eq.{}&select=id&limit=1", "/books?or=(author_id.eq.{})&select=id&limit=1",
			http.Header{"Prefer": {"count=exact"}}, []string{"1", "2", "3"}},
		{"HEAD", "/books?year=lt.{}&select=id", "/books?or=(year.lt.{})&select=id",
			http.Header{"Prefer": {"count=exact"}}, []string{"1970", "1900", "2000"}},
		{"GET", "/books?id=eq.{}", "/books?or=(id.eq.{})",
			http.Header{"Accept": {"application/vnd.svc.object+json"}}, []string{"1", "99", "2"}},
	}
	for _, c := range cases {
		for _, v := range c.values {
			kept := srv.URL + strings.ReplaceAll(c.kept, "{}", v)
			want := fetchAnswer(t, c.method, srv.URL+strings.ReplaceAll(c.fresh, "{}", v), c.header, "")
			if want.status >= 500 {
				t.Fatalf("%s %s: %+v", c.method, c.fresh, want)
			}
			for range 2 {
				if got := fetchAnswer(t, c.method, kept, c.header, ""); got != want {
					t.Errorf("%s %s\n got %+v\nwant %+v", c.method, kept, got, want)
				}
			}
		}
	}
	if n := server.ReadShapes(srv.handler.(*server.Server)); n != len(cases) {
		t.Errorf("the server keeps %d read shapes, want %d", n, len(cases))
	}
}

// Each case calls a function with its arguments in the query string, a
// form whose shape the server keeps after the first call, and in a JSON
// body, which it plans every time. For every value the two answer alike,
// on a shape's first call and on the later ones.
func TestKeptCallShapesAnswerLikeFreshOnes(t *testing.T) {
	srv, _, err := startServer(context.Background(), fixture.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cases := []struct {
		kept, body string
		values     []string
	}{
		{"/rpc/add?a={}&b=2", `{"a": {}, "b": 2}`, []string{"1", "40", "-7"}},
		{"/rpc/add?b=1&a=9&a={}", `{"a": {}, "b": 1}`, []string{"3", "5"}},
		{"/rpc/greet?name={}", `{"name": "{}"}`, []string{"ann", "bob", "zed"}},
		{"/rpc/books_by?author={}&select=id,title&order=id", `{"author": {}}`, []string{"1", "2", "3", "9"}},
		{"/rpc/books_by?author=1&year=gt.{}&select=id&order=id", `{"author": 1}`, []string{"1970", "1900", "2000"}},
		{"/rpc/author_of?book_id={}", `{"book_id": {}}`, []string{"1", "3", "4"}},
	}
	for _, c := range cases {
		for _, v := range c.values {
			kept := srv.URL + strings.ReplaceAll(c.kept, "{}", v)
			fresh := strings.ReplaceAll(c.kept, "{}", v)
			if i := strings.Index(fresh, "?"); i >= 0 {
				// The body's form keeps the query's filters, select and
				// order, and drops the arguments the body now holds.
				fresh = fresh[:i] + "?" + nonArguments(fresh[i+1:], c.body)
			}
			want := fetchAnswer(t, "POST", srv.URL+fresh, http.Header{"Content-Type": {"application/json"}},
				strings.ReplaceAll(c.body, "{}", v))
			if want.status >= 300 {
				t.Fatalf("POST %s: %+v", fresh, want)
			}
			for range 2 {
				if got := fetchAnswer(t, "GET", kept, nil, ""); got != want {
					t.Errorf("GET %s\n got %+v\nwant %+v", kept, got, want)
				}
			}
		}
	}
	if n := server.ReadShapes(srv.handler.(*server.Server)); n != len(cases) {
		t.Errorf("the server keeps %d shapes, want %d", n, len(cases))
	}
}

// nonArguments drops from query the parameters named as keys of the JSON
// object body.
func nonArguments(query, body string) string {
	var keep []string
	for _, p := range strings.Split(query, "&") {
		key, _, _ := strings.Cut(p, "=")
		if !strings.Contains(body, `"`+key+`"`) {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "&")
}

// A swapped snapshot retires the shapes planned against the old one: a
// column renamed since is not read from a kept statement.
func TestSnapshotSwapRetiresReadShapes(t *testing.T) {
	f := newReloadFixture(t, "svc_reload_shapes")
	f.exec(t, "create table test.shapes (id int primary key, name text); insert into test.shapes values (1, 'a'), (2, 'b');"+
		"grant select on test.shapes to web_anon")
	t.Cleanup(func() { f.exec(t, "drop table test.shapes") })
	f.dump(t)
	if err := f.snaps.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fetchAnswer(t, "GET", f.url+"/shapes?id=eq.1&select=id,name", nil, ""); got.status != 200 || got.body != `[{"id":1,"name":"a"}]` {
		t.Fatalf("before the rename: %+v", got)
	}
	f.exec(t, "alter table test.shapes rename column name to label")
	f.dump(t)
	if err := f.snaps.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := fetchAnswer(t, "GET", f.url+"/shapes?or=(id.eq.2)&select=id,name", nil, "")
	if want.status != 400 {
		t.Fatalf("a read of the renamed column: %+v", want)
	}
	if got := fetchAnswer(t, "GET", f.url+"/shapes?id=eq.2&select=id,name", nil, ""); got != want {
		t.Errorf("after the swap\n got %+v\nwant %+v", got, want)
	}
}

// server-shape-cache-max-entries bounds the shapes a server keeps, for
// reads and for calls each; at 0 it keeps none, and answers the same.
func TestShapeCacheMaxEntries(t *testing.T) {
	for _, tc := range []struct{ max, want int }{{0, 0}, {1, 2}, {2, 4}} {
		cfg := *fixture.cfg
		cfg.ServerShapeCacheMaxEntries = tc.max
		srv, _, err := startServer(context.Background(), &cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/books?id=eq.1&select=id", "/books?id=eq.2&select=title", "/authors?id=eq.1",
			"/rpc/add?a=1&b=2", "/rpc/greet?name=x", "/rpc/add?a=3&b=4"} {
			got := fetchAnswer(t, "GET", srv.URL+path, nil, "")
			if got.status >= 500 {
				t.Fatalf("max %d: GET %s: %+v", tc.max, path, got)
			}
		}
		if n := server.ReadShapes(srv.handler.(*server.Server)); n != tc.want {
			t.Errorf("with server-shape-cache-max-entries = %d the server keeps %d shapes, want %d", tc.max, n, tc.want)
		}
		srv.Close()
	}
}
