package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-dev/svc/sql/pgtest"
)

// Served through SVC's HTTP server (FLOOR_HTTP1=1), floorserver answers
// each request as it does reading the socket itself: the same status,
// body and media type, or no answer for a statement that failed, so the
// two measure the same work.
func TestHTTP1AnswersAsServe(t *testing.T) {
	ctx := context.Background()
	c, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	setup := "select pg_catalog.set_config('application_name', 'floor', true)"
	kinds := map[string]*workload{
		// A read's one row fails for 0, by its own division.
		"lookup": {setup: setup, main: "select null, true, (100 / $1::int)::text", params: []string{"id"}},
		"insert": {setup: setup, main: "select null, true, length($1::text)::text", params: []string{"body"}},
	}
	s, err := openSession(c.URI, kinds)
	if err != nil {
		t.Fatal(err)
	}
	run := exclusive([]*session{s})
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	go func() {
		for {
			conn, err := raw.Accept()
			if err != nil {
				return
			}
			go serve(conn, kinds, run)
		}
	}()
	viaHTTP1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer viaHTTP1.Close()
	go serveHTTP1(viaHTTP1, kinds, run)

	type answer struct{ status, media, body string }
	ask := func(ln net.Listener, method, target, body string) answer {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+ln.Addr().String()+target, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return answer{status: "no answer"}
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return answer{res.Status, res.Header.Get("Content-Type"), string(b)}
	}
	for _, tc := range []struct {
		method, target, body string
		want                 answer
	}{
		{"GET", "/books?id=eq.5", "", answer{"200 OK", "application/json; charset=utf-8", "[20]"}},
		{"GET", "/books?id=eq.-4", "", answer{"200 OK", "application/json; charset=utf-8", "[-25]"}},
		{"POST", "/reviews", `{"rating":5}`, answer{"201 Created", "", ""}},
		{"GET", "/authors?id=eq.1", "", answer{"404 Not Found", "", ""}},
		{"GET", "/books?id=eq.0", "", answer{status: "no answer"}},
	} {
		for name, ln := range map[string]net.Listener{"serve": raw, "http1": viaHTTP1} {
			if got := ask(ln, tc.method, tc.target, tc.body); got != tc.want {
				t.Errorf("%s %s %s: %+v, want %+v", name, tc.method, tc.target, got, tc.want)
			}
		}
	}
}
