package replica_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// TestSameOnReplica: a request reads the same on a replica as on the
// primary: the role its token names, the request settings, app settings,
// and the rows a row-level security policy keyed on a claim lets it see.
func TestSameOnReplica(t *testing.T) {
	cfg := testConfig()
	cfg.AppSettings["greeting"] = "hello"
	onReplica := startServer(t, cfg, nil, 0)
	onReplica.awaitServing(t)
	cfg = testConfig()
	cfg.AppSettings["greeting"] = "hello"
	onPrimary := startServer(t, cfg, nil)

	for _, sub := range []string{"alice", "bob", "nobody"} {
		h := http.Header{"Authorization": {"Bearer " + token(t, jwt.MapClaims{"role": "reader", "sub": sub})}}
		read := func(ts *testServer, path string) (rows []map[string]any) {
			t.Helper()
			resp, body := ts.do(t, "GET", path, h, "")
			if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &rows) != nil {
				t.Fatalf("GET %s as %s: %d %s", path, sub, resp.StatusCode, body)
			}
			return rows
		}
		const letters = "/letters_where?order=id"
		replicaRows, primaryRows := read(onReplica, letters), read(onPrimary, letters)
		for _, row := range replicaRows {
			if row["standby"] != true || row["owner"] != sub {
				t.Errorf("as %s, on the replica: %v", sub, row)
			}
		}
		for _, row := range primaryRows {
			if row["standby"] != false {
				t.Errorf("as %s, on the primary: %v", sub, row)
			}
			row["standby"] = true
		}
		if !reflect.DeepEqual(replicaRows, primaryRows) {
			t.Errorf("as %s, letters differ:\nreplica %v\nprimary %v", sub, replicaRows, primaryRows)
		}
		if sub == "alice" && len(replicaRows) != 2 {
			t.Errorf("alice sees %d letters on the replica, want 2", len(replicaRows))
		}

		before := requests(onReplica)
		replicaContext, primaryContext := read(onReplica, "/context"), read(onPrimary, "/context")
		if requests(onReplica) != before+1 {
			t.Fatal("the replica did not serve /context")
		}
		if !reflect.DeepEqual(replicaContext, primaryContext) || replicaContext[0]["sub"] != sub || replicaContext[0]["role"] != "reader" ||
			replicaContext[0]["greeting"] != "hello" {
			t.Errorf("as %s, the context differs:\nreplica %v\nprimary %v", sub, replicaContext, primaryContext)
		}
	}
}
