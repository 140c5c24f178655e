package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
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

	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
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
