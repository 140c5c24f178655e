package main

import (
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestAdminServer runs the admin server beside the API when
// admin-server-port is set, and stops it with the API.
func TestAdminServer(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	admin := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(admin)
	addr, stop := start(t, map[string]string{"admin-server-port": port, "admin-server-host": "127.0.0.1"})

	get := func(url string) (int, string) { t.Helper(); return httpGet(t, url) }
	if code, _ := get("http://" + addr + "/rpc/nap?seconds=0"); code != 200 {
		t.Fatalf("API request: %d", code)
	}
	for _, path := range []string{"/live", "/ready", "/snapshot"} {
		if code, body := get("http://" + admin + path); code != 200 {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
	_, metrics := get("http://" + admin + "/metrics")
	if !strings.Contains(metrics, `svc_http_requests_total{code="2xx",kind="function",method="GET"} 1`+"\n") ||
		!strings.Contains(metrics, `svc_snapshot_reloads_total{result="success"} 1`+"\n") {
		t.Errorf("metrics:\n%s", metrics)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.Dial("tcp", admin); err == nil {
		conn.Close()
		t.Error("admin server still accepting connections after shutdown")
	}
}

// TestReplicaWiring: db-replica-uris gives svc-serve replicas, checked
// from the start and shown on the admin server. Here the one named is
// the primary itself, out of recovery as a promoted standby would be: it
// serves no reads, the primary serves them all, and the log says why.
func TestReplicaWiring(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	admin := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(admin)
	var log logBuffer
	addr, _ := startLogging(t, map[string]string{"admin-server-port": port, "admin-server-host": "127.0.0.1",
		"db-replica-uris": authURI, "db-replica-pool": "2", "log-level": "warn", "db-schemas": "serve_replica"}, &log)
	get := func(url string) (int, string) { t.Helper(); return httpGet(t, url) }
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, metrics := get("http://" + admin + "/metrics")
		if regexp.MustCompile(`svc_replica_promoted\{replica="[^"]+"\} 1`).MatchString(metrics) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no promoted replica in the metrics:\n%s", metrics)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := get("http://" + addr + "/rpc/standby"); code != 200 || body != "false" {
		t.Fatalf("GET /rpc/standby: %d %s, want 200 false (the primary)", code, body)
	}
	_, metrics := get("http://" + admin + "/metrics")
	if !strings.Contains(metrics, `svc_replica_primary_reads_total{reason="none_healthy"} 1`) {
		t.Errorf("the read served by the primary is not counted:\n%s", metrics)
	}
	if !strings.Contains(log.String(), "promoted: no longer in recovery") {
		t.Errorf("the log does not say why the replica serves no reads:\n%s", log.String())
	}
}
