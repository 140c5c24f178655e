package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/svc-dev/svc/server"
)

// Inserts of one shape with different bodies each write, and answer with,
// their own values, whether their statement was built or bound into the
// kept shape; a shape differing only in its body's keys is kept apart.
func TestKeptInsertShapesWriteTheirOwnBodies(t *testing.T) {
	srv, _, err := startServer(context.Background(), fixture.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	jsonType := http.Header{"Content-Type": {"application/json"}}
	represent := http.Header{"Content-Type": {"application/json"}, "Prefer": {"return=representation"}}
	defer fetchAnswer(t, "DELETE", srv.URL+"/w_docs?id=gte.900", nil, "")

	want := map[int]any{}
	post := func(query string, header http.Header, body string, status int) answer {
		t.Helper()
		got := fetchAnswer(t, "POST", srv.URL+"/w_docs"+query, header, body)
		if got.status != status {
			t.Fatalf("POST %s %s: %+v", query, body, got)
		}
		var rows []map[string]any
		if !strings.HasPrefix(body, "[") {
			body = "[" + body + "]"
		}
		if err := json.Unmarshal([]byte(body), &rows); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			want[int(r["id"].(float64))] = r["body"]
		}
		return got
	}
	post("", jsonType, `{"id":901,"body":{"a":1}}`, 201)
	post("", jsonType, `{"id":902,"body":{"b":[2,"x"]}}`, 201)
	post("", jsonType, `{"id":903,"body":null}`, 201)
	post("", jsonType, `[{"id":904,"body":"s"},{"id":905,"body":5}]`, 201)
	post("", jsonType, `[{"id":906,"body":true}]`, 201)
	// Another key set: tags takes its default, then the body's.
	post("", jsonType, `{"id":907,"body":{"c":3},"tags":["t"]}`, 201)
	post("", jsonType, `{"id":908,"body":{"d":4},"tags":[]}`, 201)
	for i, body := range []string{`{"id":909,"body":{"e":5}}`, `{"id":910,"body":{"f":6}}`} {
		got := post("?select=id,body", represent, body, 201)
		var rows []map[string]any
		if err := json.Unmarshal([]byte(got.body), &rows); err != nil || len(rows) != 1 || rows[0]["id"] != float64(909+i) {
			t.Fatalf("POST %s answered %s", body, got.body)
		}
		if !reflect.DeepEqual(rows[0]["body"], want[909+i]) {
			t.Errorf("POST %s answered %s", body, got.body)
		}
	}
	// The first row of a shape refused: the shape's next insert still
	// writes its own row.
	post("", jsonType, `{"id":901,"body":{"dup":1}}`, 409)
	want[901] = map[string]any{"a": float64(1)}
	post("", jsonType, `{"id":911,"body":{"g":7}}`, 201)

	got := fetchAnswer(t, "GET", srv.URL+"/w_docs?id=gte.900&select=id,body,tags&order=id", nil, "")
	var rows []struct {
		ID   int      `json:"id"`
		Body any      `json:"body"`
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal([]byte(got.body), &rows); err != nil {
		t.Fatalf("%v: %s", err, got.body)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows written, want %d: %s", len(rows), len(want), got.body)
	}
	for _, r := range rows {
		if !reflect.DeepEqual(r.Body, want[r.ID]) {
			t.Errorf("row %d: body %v, want %v", r.ID, r.Body, want[r.ID])
		}
		wantTags := []string{}
		if r.ID == 907 {
			wantTags = []string{"t"}
		}
		if !reflect.DeepEqual(r.Tags, wantTags) {
			t.Errorf("row %d: tags %v, want %v", r.ID, r.Tags, wantTags)
		}
	}
	// Objects, arrays, objects with tags, and the representation, and the
	// two heads they share: no query string, and the representation's.
	if n := server.WriteShapes(srv.handler.(*server.Server)); n != 6 {
		t.Errorf("the server keeps %d insert shapes and heads, want 6", n)
	}
}

// Concurrent inserts of one head, with bodies of two key sets and a shape
// cache too small to keep every part (a plan is then planned while the
// head's request is kept), share the request kept for the head: each
// writes and answers its own row, and none reaches what another reads
// (go test -race).
func TestKeptInsertShapesUnderConcurrency(t *testing.T) {
	cfg := *fixture.cfg
	cfg.ServerShapeCacheMaxEntries = 2
	srv, _, err := startServer(context.Background(), &cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	defer fetchAnswer(t, "DELETE", srv.URL+"/w_docs?id=gte.2000&id=lt.3000", nil, "")
	header := http.Header{"Content-Type": {"application/json"}, "Prefer": {"return=representation"}}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				id := 2000 + g*100 + i
				body := fmt.Sprintf(`{"id":%d,"body":{"k":%d}}`, id, id)
				tags := []string{}
				if i%2 == 1 {
					tags = []string{"t" + strconv.Itoa(id)}
					body = fmt.Sprintf(`{"id":%d,"body":{"k":%d},"tags":["%s"]}`, id, id, tags[0])
				}
				req, _ := http.NewRequest("POST", srv.URL+"/w_docs?select=id,body,tags&order=id.desc", strings.NewReader(body))
				req.Header = header.Clone()
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var rows []struct {
					ID   int            `json:"id"`
					Body map[string]int `json:"body"`
					Tags []string       `json:"tags"`
				}
				if resp.StatusCode != 201 || json.Unmarshal(got, &rows) != nil || len(rows) != 1 ||
					rows[0].ID != id || rows[0].Body["k"] != id || !reflect.DeepEqual(rows[0].Tags, tags) {
					t.Errorf("POST %s: %d %s", body, resp.StatusCode, got)
				}
			}
		}()
	}
	wg.Wait()
}

// A swapped snapshot retires the insert shapes planned against the old
// one: a column default changed since, which a missing=default insert's
// statement spells out, is the new one.
func TestSnapshotSwapRetiresInsertShapes(t *testing.T) {
	f := newReloadFixture(t, "svc_reload_insert_shapes")
	f.exec(t, "create table test.ishapes (id int primary key, n int default 1);"+
		"grant select, insert on test.ishapes to web_anon")
	t.Cleanup(func() { f.exec(t, "drop table test.ishapes") })
	reload := func() {
		t.Helper()
		f.dump(t)
		if err := f.snaps.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	reload()
	header := http.Header{"Content-Type": {"application/json"}, "Prefer": {"missing=default, return=representation"}}
	insert := func(id int) string {
		t.Helper()
		got := fetchAnswer(t, "POST", f.url+"/ishapes?columns=id,n&select=id,n", header, `{"id":`+strconv.Itoa(id)+`}`)
		if got.status != 201 {
			t.Fatalf("insert %d: %+v", id, got)
		}
		return got.body
	}
	for id, want := range map[int]string{1: `[{"id":1,"n":1}]`, 2: `[{"id":2,"n":1}]`} {
		if got := insert(id); got != want {
			t.Errorf("before the change: got %s, want %s", got, want)
		}
	}
	f.exec(t, "alter table test.ishapes alter column n set default 2")
	reload()
	if got := insert(3); got != `[{"id":3,"n":2}]` {
		t.Errorf("after the swap: got %s, want n = 2", got)
	}
}

// A kept insert's head remembers the role last found allowed to write,
// so that its later inserts skip the privilege check: a role that may not
// insert is still refused on that head, however often another role wrote
// through it before, and the allowed role still writes after the refusal.
// The refused role's body is no JSON: the refusal comes before the body is
// read, where PostgreSQL's own would come after the body's error.
func TestKeptInsertStillRefusesARoleWithoutThePrivilege(t *testing.T) {
	const secret = "a secret of at least thirty-two characters"
	url := serverWith(t, map[string]string{"jwt-secret": secret})
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "web_user"}).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	anon := http.Header{"Content-Type": {"application/json"}}
	user := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + token}}
	const name = "kept-refusal"
	defer fetchAnswer(t, "DELETE", url+"/rpc_log?name=eq."+name, nil, "")
	for i, step := range []struct {
		header http.Header
		body   string
		status int
	}{
		{anon, `{"name":"` + name + `"}`, 201}, {anon, `{"name":"` + name + `"}`, 201}, {anon, `{"name":"` + name + `"}`, 201},
		{user, `{"name":`, 403}, {anon, `{"name":"` + name + `"}`, 201}, {user, `{"name":`, 403},
	} {
		got := fetchAnswer(t, "POST", url+"/rpc_log", step.header, step.body)
		if got.status != step.status || step.status == 403 && !strings.Contains(got.body, `"42501"`) {
			t.Errorf("insert %d: %d %s, want %d", i, got.status, got.body, step.status)
		}
	}
}
