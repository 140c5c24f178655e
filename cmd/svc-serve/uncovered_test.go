package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/pgtest"
	"github.com/svc-dev/svc/sql/snapstore"
)

// TestUncoveredPublishedSnapshotAtStart: a server whose published
// snapshot does not cover its db-schemas (a rollback published too far
// back) no longer exits at start, which on Kubernetes is a crash loop: it
// stays up, not ready (/ready 503, /health naming the problem and the fix:
// publish, not dump), answers 503, and serves as soon as a covering
// snapshot is published.
func TestUncoveredPublishedSnapshotAtStart(t *testing.T) {
	ctx := context.Background()
	db, err := pgx.Connect(ctx, superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, "drop schema if exists serve_uncovered_snaps cascade"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgtest.Exec(ctx, superURI, "drop schema if exists serve_uncovered_snaps cascade") })
	publish := func(schemas ...string) {
		t.Helper()
		snap, err := catalog.Introspect(ctx, db, catalog.Options{Schemas: schemas})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := snapstore.Publish(ctx, db, snap, snapstore.Options{Schema: "serve_uncovered_snaps",
			Channel: "svc_uncovered_test", GrantTo: []string{"serve_auth"}}); err != nil {
			t.Fatal(err)
		}
	}
	publish("serve_api")

	admin, port := adminAddress(t)
	var log logBuffer
	addr, _ := startLogging(t, map[string]string{"admin-server-port": port, "admin-server-host": "127.0.0.1",
		"snapshot": "db:serve_uncovered_snaps", "db-schemas": "serve_api,serve_replica",
		"db-channel-enabled": "true", "db-channel": "svc_uncovered_test"}, &log)
	get := func(url string) (int, string) { return httpGet(t, url) }
	if status, _ := get("http://" + admin + "/ready"); status != 503 {
		t.Errorf("/ready: %d, want 503", status)
	}
	_, body := get("http://" + admin + "/health")
	var health struct {
		Ready    bool `json:"ready"`
		Problems []struct {
			Component, Problem, Fix string
			NotReady                bool `json:"not_ready"`
		}
	}
	if err := json.Unmarshal([]byte(body), &health); err != nil {
		t.Fatalf("/health: %s", body)
	}
	if health.Ready || len(health.Problems) != 1 || health.Problems[0].Component != "snapshot" || !health.Problems[0].NotReady ||
		!strings.Contains(health.Problems[0].Problem, "svc-introspect publish --db-schemas serve_api,serve_replica --schema serve_uncovered_snaps") ||
		strings.Contains(health.Problems[0].Problem, "dump it again") {
		t.Errorf("/health: %s", body)
	}
	if status, body := get("http://" + addr + "/rpc/nap?seconds=0"); status != 503 {
		t.Errorf("a request while no snapshot is usable: %d %s, want 503", status, body)
	}
	log.waitFor(t, `level=ERROR msg="schema snapshot not loaded; requests are answered 503 until one is".*publish a snapshot that covers them`)

	publish("serve_api", "serve_replica")
	waitUntil(t, "ready once a covering snapshot is published", func() bool {
		status, _ := get("http://" + admin + "/ready")
		return status == 200
	})
	if status, body := get("http://" + addr + "/rpc/nap?seconds=0"); status != 200 {
		t.Errorf("after the publish: %d %s", status, body)
	}
	if _, body := get("http://" + admin + "/health"); !strings.Contains(body, `"problems":[]`) {
		t.Errorf("/health after the publish: %s", body)
	}
}
