package server_test

import (
	"net/http"
	"testing"

	"github.com/svc-dev/svc/server/config"
)

// A function dropped and created again with the same arguments and
// another return type, between a migration's COMMIT and the node's
// reload: the node's snapshot still has the old return type, so it builds
// the statement for the old shape. PostgreSQL's current schema would
// answer the new shape; the stale node may answer that or refuse (503,
// retry), but never answer the old shape with the new function's rows
// (a 2xx neither version gives), nor blame the client (4xx).

// TestReplacedFunctionNeverWrong2xx replaces, without a reload, a scalar
// function by one returning a table of two rows, by one returning a set
// of integers, a void function by one returning an integer, and one
// returning a row by one returning a set of them, on a node
// with prepared statements and on one without (as behind a transaction
// pooler), for a GET (read-only) and a POST call.
func TestReplacedFunctionNeverWrong2xx(t *testing.T) {
	const schema = `
create function $s.total(n int) returns integer stable language sql as 'select n * 2';
create function $s.touch(n int) returns void stable language sql as 'select';
create function $s.one(n int) returns $s.people stable language sql as 'select * from $s.people where id = n - 2';
grant execute on all functions in schema $s to web_anon;`
	for _, tc := range []struct {
		name, fn, replace string
		// right are the answers PostgreSQL's current schema gives.
		right []string
	}{
		{"integer to table", "total",
			`drop function $s.total(int); create function $s.total(n int) returns table(total int, tag text) stable language sql as
				'select n * 2, ''x'' union all select n * 2, ''y''';`,
			[]string{`[{"total":6,"tag":"x"},{"total":6,"tag":"y"}]`}},
		{"integer to setof integer", "total",
			`drop function $s.total(int); create function $s.total(n int) returns setof integer stable language sql as
				'select n * 2 union all select n * 3';`,
			[]string{`[6,9]`}},
		{"void to integer", "touch",
			`drop function $s.touch(int); create function $s.touch(n int) returns integer stable language sql as 'select n * 2';`,
			[]string{`6`}},
		{"one row to a set", "one",
			`drop function $s.one(int); create function $s.one(n int) returns setof $s.people stable language sql as
				'select * from $s.people where id <= n';`,
			[]string{`[{"id":1,"name":"Ann","mood":"happy"},{"id":2,"name":"Bob","mood":"sad"}]`}},
	} {
		for _, prepared := range []bool{true, false} {
			name := tc.name + "/prepared"
			if !prepared {
				name = tc.name + "/unprepared"
			}
			t.Run(name, func(t *testing.T) {
				m := newMigrationWith(t, "stale_fn", 1, func(c *config.Config) { c.DBPreparedStatements = prepared })
				m.exec(t, schema)
				m.reload(t, false)
				// Run each call once on the old function, so that a prepared
				// session knows its statement.
				for _, method := range []string{"GET", "POST"} {
					status, _, body := m.call(t, method, tc.fn)
					if status/100 != 2 {
						t.Fatalf("%s %s before the migration: %d %s", method, tc.fn, status, body)
					}
				}
				m.exec(t, "begin;"+tc.replace+"grant execute on all functions in schema $s to web_anon; commit")
				for _, method := range []string{"GET", "POST"} {
					for range 3 {
						status, h, body := m.call(t, method, tc.fn)
						switch {
						case status == http.StatusServiceUnavailable && decodeError(t, body) == "SVC004" && h.Get("Retry-After") != "":
						case status == http.StatusOK && contains(tc.right, compact(body)):
						default:
							t.Errorf("%s %s on a node whose snapshot has the old function: %d %s, want 503 SVC004 or 200 %v",
								method, tc.fn, status, body, tc.right)
						}
					}
				}
			})
		}
	}
}

// call calls fn with n = 3 by method.
func (m *migration) call(t *testing.T, method, fn string) (int, http.Header, string) {
	t.Helper()
	if method == "GET" {
		return m.do(t, "GET", "/rpc/"+fn+"?n=3", "")
	}
	return m.do(t, "POST", "/rpc/"+fn, `{"n":3}`)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
