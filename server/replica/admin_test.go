package replica_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// admin asks ts's admin handler for path.
func (ts *testServer) admin(path string) (int, string) {
	rec := httptest.NewRecorder()
	ts.Admin.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code, rec.Body.String()
}

// TestReplicaMetrics: the admin server's metrics show each replica's
// health, lag and requests, and the reads the primary served instead;
// /ready stays about the primary, whatever the replicas' state.
func TestReplicaMetrics(t *testing.T) {
	ts := startServer(t, testConfig(), nil, 0)
	ts.awaitServing(t)
	name := ts.Replicas.Replicas()[0].Name
	for range 3 {
		ts.do(t, "GET", "/whereami", nil, "")
	}
	pauseReplay(t, 0)
	_, pos := ts.note(t, "measured")
	ts.do(t, "GET", "/whereami", http.Header{"Svc-Commit-Lsn": {pos.String()}}, "")

	code, body := ts.admin("/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		fmt.Sprintf(`svc_replica_healthy{replica=%q} 1`, name),
		fmt.Sprintf(`svc_replica_promoted{replica=%q} 0`, name),
		fmt.Sprintf(`svc_replica_requests_total{replica=%q} 3`, name),
		fmt.Sprintf(`svc_replica_lag_seconds{replica=%q}`, name),
		fmt.Sprintf(`svc_replica_lag_bytes{replica=%q}`, name),
		fmt.Sprintf(`svc_replica_pool_total_connections{replica=%q}`, name),
		`svc_replica_primary_reads_total{reason="not_replayed"} 1`,
		`svc_replica_primary_reads_total{reason="none_healthy"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if code, _ := ts.admin("/ready"); code != http.StatusOK {
		t.Errorf("/ready: %d", code)
	}
}
