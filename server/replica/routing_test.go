package replica_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/svc-dev/svc/server"
)

// TestRouting sends each kind of request where it belongs: reads of
// relations and calls of STABLE or IMMUTABLE functions (GET or POST) to a
// replica, VOLATILE functions and writes to the primary. Functions and
// views returning pg_is_in_recovery() show where each ran.
func TestRouting(t *testing.T) {
	ts := startServer(t, testConfig(), nil, 0, 1)
	ts.awaitServing(t)
	for _, c := range []struct {
		method, path, body string
		onStandby          bool
	}{
		{"GET", "/whereami", "", true},
		{"GET", "/rpc/where_stable", "", true},
		{"POST", "/rpc/where_stable", "{}", true},
		{"GET", "/rpc/where_immutable", "", true},
		{"POST", "/rpc/where_immutable", "", true},
		{"GET", "/rpc/where_volatile", "", false},
		{"POST", "/rpc/where_volatile", "{}", false},
		{"POST", "/notes_where?select=standby", `{"body":"routed"}`, false},
	} {
		h := http.Header{}
		status := http.StatusOK
		if c.path == "/notes_where?select=standby" {
			// A write through a view: it returns where it ran.
			h.Set("Prefer", "return=representation")
			status = http.StatusCreated
		}
		resp, body := ts.do(t, c.method, c.path, h, c.body)
		if resp.StatusCode == status {
			resp.StatusCode = http.StatusOK
		}
		if got := standby(t, resp.StatusCode, body); got != c.onStandby {
			t.Errorf("%s %s ran on a standby: %v, want %v", c.method, c.path, got, c.onStandby)
		}
	}

	// A browser script may read the position a write answers.
	resp, _ := ts.do(t, "GET", "/whereami", http.Header{"Origin": {"https://app.example"}}, "")
	if expose := resp.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(expose, server.CommitLSNHeader) {
		t.Errorf("Access-Control-Expose-Headers: %q, want %s among them", expose, server.CommitLSNHeader)
	}

	// HEAD answers no body: the replicas' request counts show it went
	// to one of them.
	before := requests(ts)
	if resp, _ := ts.do(t, "HEAD", "/whereami", nil, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("HEAD: %d", resp.StatusCode)
	}
	if after := requests(ts); after != before+1 {
		t.Errorf("HEAD: replicas served %d requests, want 1", after-before)
	}
}

// requests sums the reads sent to ts's replicas.
func requests(ts *testServer) uint64 {
	var n uint64
	for _, r := range ts.Replicas.Replicas() {
		n += r.Requests()
	}
	return n
}

// TestRoutingSpreadsReads: with two healthy replicas, reads one after
// another reach both.
func TestRoutingSpreadsReads(t *testing.T) {
	ts := startServer(t, testConfig(), nil, 0, 1)
	ts.awaitServing(t)
	ports := map[int]int{}
	for range 10 {
		resp, body := ts.do(t, "GET", "/whereami", nil, "")
		var rows []whereami
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &rows) != nil || len(rows) != 1 || !rows[0].Standby {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		ports[rows[0].Port]++
	}
	for _, s := range fixture.set.Standbys {
		if ports[s.Port] == 0 {
			t.Errorf("standby on port %d served none of 10 reads: %v", s.Port, ports)
		}
	}
}

// TestRoutingToPrimary: reads that a replica must not serve go to the
// primary: one asking to commit where transactions roll back, a POST call
// while db-pre-request may write, a role whose transactions are
// serializable (which a standby refuses).
func TestRoutingToPrimary(t *testing.T) {
	t.Run("Prefer tx=commit", func(t *testing.T) {
		cfg := testConfig()
		cfg.DBTxEnd = "rollback-allow-override"
		ts := startServer(t, cfg, nil, 0)
		ts.awaitServing(t)
		resp, body := ts.do(t, "GET", "/whereami", nil, "")
		if !standby(t, resp.StatusCode, body) {
			t.Error("a read that rolls back, as all do, ran on the primary")
		}
		resp, body = ts.do(t, "GET", "/whereami", http.Header{"Prefer": {"tx=commit"}}, "")
		if standby(t, resp.StatusCode, body) {
			t.Error("a read asking to commit ran on a standby")
		}
	})
	t.Run("db-pre-request", func(t *testing.T) {
		for _, c := range []struct {
			pre           string
			postOnStandby bool
		}{
			{"api.pre_volatile", false},
			{"pre_volatile", false},
			{"api.pre_stable", true},
			{"pre_stable", true},
			{"elsewhere.pre", false}, // not in the snapshot: taken to write
		} {
			cfg := testConfig()
			cfg.DBPreRequest = c.pre
			ts := startServer(t, cfg, nil, 0)
			ts.awaitServing(t)
			if c.pre != "elsewhere.pre" {
				resp, body := ts.do(t, "GET", "/rpc/where_stable", nil, "")
				if !standby(t, resp.StatusCode, body) {
					t.Errorf("%s: GET of a stable function (read only anyway) ran on the primary", c.pre)
				}
			}
			before := requests(ts)
			resp, _ := ts.do(t, "POST", "/rpc/where_stable", nil, "{}")
			onStandby := requests(ts) > before
			if c.pre != "elsewhere.pre" && resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: POST: %d", c.pre, resp.StatusCode)
			}
			if onStandby != c.postOnStandby {
				t.Errorf("%s: POST of a stable function ran on a standby: %v, want %v", c.pre, onStandby, c.postOnStandby)
			}
		}
	})
	t.Run("serializable role", func(t *testing.T) {
		ts := startServer(t, testConfig(), nil, 0)
		ts.awaitServing(t)
		h := http.Header{"Authorization": {"Bearer " + token(t, jwt.MapClaims{"role": "strict_reader"})}}
		resp, body := ts.do(t, "GET", "/whereami", h, "")
		if standby(t, resp.StatusCode, body) {
			t.Error("a serializable read ran on a standby")
		}
	})
}
