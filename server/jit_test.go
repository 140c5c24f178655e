package server_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/svc-dev/svc/server/apierr"
)

// jsonPathFilters is the query string of a read of id filtered by n JSON
// paths of the given number of arrows each, every one a different filter:
// meta->k->k->...->>z0=neq.x0&...
func jsonPathFilters(n, arrows int) string {
	path := "meta" + strings.Repeat("->k", arrows-1) + "->>z0"
	var b strings.Builder
	b.WriteString("select=id")
	for i := range n {
		fmt.Fprintf(&b, "&%s=neq.x%d", path, i)
	}
	return b.String()
}

// jitProbeSecret signs the tokens of TestJITOffForRequests.
const jitProbeSecret = "jit-probe-secret-of-at-least-32-characters"

// TestJITOffForRequests: a read filtered by 256 JSON paths of 32 arrows,
// within every other request limit, made PostgreSQL compile for minutes
// with JIT at its defaults, which neither statement_timeout, a cancel nor
// the client leaving can interrupt. Such a request is refused
// (request-max-json-path-steps); let through by a raised limit, it is
// still not compiled, since requests run with jit off; and the largest
// request the default limits allow costs, as PostgreSQL plans it, less
// than jit_above_cost on a table where the hostile one costs more.
//
// What is compiled is read from the plan (db-plan-enabled): EXPLAIN shows
// a "JIT" entry for a statement PostgreSQL will compile, without running
// it. A role whose own settings turn JIT on gets it back, which shows the
// test would see a compile.
func TestJITOffForRequests(t *testing.T) {
	db := superConn(t)
	for _, sql := range []string{
		"drop schema if exists jitprobe cascade",
		"drop role if exists web_jit",
		"create schema jitprobe",
		"grant usage on schema jitprobe to web_anon",
		"create table jitprobe.docs (id integer primary key, meta jsonb)",
		`insert into jitprobe.docs select i, jsonb_build_object('k', jsonb_build_object('k', 'x'), 'z0', i::text)
		   from generate_series(1, 10000) i`,
		"analyze jitprobe.docs",
		"grant select on jitprobe.docs to web_anon",
		"create role web_jit nologin",
		"grant web_jit to authenticator",
		"grant usage on schema jitprobe to web_jit",
		"grant select on jitprobe.docs to web_jit",
		"alter role web_jit set jit = on",
		"alter role web_jit set jit_above_cost = 0",
	} {
		if _, err := db.Exec(t.Context(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	t.Cleanup(func() {
		db := superConn(t)
		db.Exec(t.Context(), "drop schema jitprobe cascade")
		db.Exec(t.Context(), "drop owned by web_jit")
		db.Exec(t.Context(), "drop role web_jit")
	})
	var jitAboveCost float64
	if err := db.QueryRow(t.Context(), "select current_setting('jit_above_cost')::float8").Scan(&jitAboveCost); err != nil {
		t.Fatal(err)
	}
	if jitAboveCost < 0 {
		t.Skip("the database runs with jit_above_cost = -1: PostgreSQL compiles nothing, so there is nothing to see")
	}

	hostile := jsonPathFilters(256, 32)
	// The largest read the default limits allow: request-max-filters
	// filters, whose paths have request-max-json-path-steps arrows
	// together, each as deep as request-max-json-path-depth allows.
	largest := jsonPathFilters(256/32, 32) + strings.Repeat("&id=neq.0", 256-256/32)

	defaults := serverWith(t, map[string]string{"db-schemas": "jitprobe", "db-plan-enabled": "true"})
	status, body := getDocs(t, defaults, hostile, "application/json", "")
	if status != 400 {
		t.Fatalf("the hostile read: status %d, want 400 (%s)", status, body)
	}
	var e struct{ Code, Details string }
	json.Unmarshal(body, &e)
	if e.Code != apierr.SVCNaming.CodePrefix+"100" || !strings.Contains(e.Details, "request-max-json-path-steps") {
		t.Errorf("the hostile read: %s, want %s100 naming request-max-json-path-steps", body, apierr.SVCNaming.CodePrefix)
	}
	if status, body := getDocs(t, defaults, largest, "application/json", ""); status != 200 {
		t.Fatalf("the largest read the limits allow: status %d, want 200 (%s)", status, body)
	}
	largestCost, largestJIT := planOf(t, defaults, largest, "")
	if largestCost >= jitAboveCost {
		t.Errorf("the largest read the limits allow is planned at %.0f, want it under jit_above_cost (%.0f) on this table", largestCost, jitAboveCost)
	}
	if largestJIT {
		t.Error("the largest read the limits allow is compiled")
	}

	raised := serverWith(t, map[string]string{"db-schemas": "jitprobe", "db-plan-enabled": "true",
		"request-max-json-path-steps": "8192", "jwt-secret": jitProbeSecret})
	hostileCost, hostileJIT := planOf(t, raised, hostile, "")
	if hostileCost < jitAboveCost {
		t.Fatalf("the hostile read is planned at %.0f, under jit_above_cost (%.0f): the test shows nothing", hostileCost, jitAboveCost)
	}
	if hostileJIT {
		t.Errorf("the hostile read, planned at %.0f (jit_above_cost %.0f), is JIT-compiled; want jit off for requests", hostileCost, jitAboveCost)
	}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "web_jit"}).SignedString([]byte(jitProbeSecret))
	if err != nil {
		t.Fatal(err)
	}
	if _, optedIn := planOf(t, raised, largest, token); !optedIn {
		t.Error("a role set to jit = on (and jit_above_cost = 0) is not compiled: its settings must win over SVC's")
	}
}

// getDocs sends GET /docs?query to the server at base, with accept and,
// when token is not empty, the token, and returns the status and body.
func getDocs(t *testing.T, base, query, accept, token string) (int, []byte) {
	t.Helper()
	return fetch(t, base+"/docs?"+query, accept, token)
}

// planOf returns the total cost of the plan of GET /docs?query, and
// whether PostgreSQL will JIT-compile it.
func planOf(t *testing.T, base, query, token string) (cost float64, jit bool) {
	t.Helper()
	status, body := getDocs(t, base, query, "application/vnd.svc.plan+json", token)
	if status != 200 {
		t.Fatalf("plan: status %d (%s)", status, body)
	}
	var plans []struct {
		Plan struct {
			TotalCost json.Number `json:"Total Cost"`
		}
		JIT *json.RawMessage
	}
	if err := json.Unmarshal(body, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("plan: %v in %s", err, body)
	}
	cost, err := strconv.ParseFloat(plans[0].Plan.TotalCost.String(), 64)
	if err != nil {
		t.Fatalf("plan's total cost: %v in %s", err, body)
	}
	return cost, plans[0].JIT != nil
}
